/* tests/host/timer_shim/kernel/cmdline.h - host stand-in: options are fixed. */
#ifndef KERNEL_CMDLINE_H
#define KERNEL_CMDLINE_H

#define core_param(name, var, type, help) extern int core_param_unused_

#endif
