/* tests/host/thread_shim/kernel/cmdline.h - host stand-in: options are fixed. */
#pragma once

#define core_param(name, var, type, help) extern int core_param_unused_
