/* kernel/system.h: ending a run.  Under QEMU the status leaves through the
 * isa-debug-exit device so the host runner sees it; on a PC the kernel
 * prints it and halts (or reboots when asked with `exit=reboot`). */
#pragma once

#include "kernel/types.h"

#define EXIT_SUCCESS_STATUS 0
#define EXIT_FAILURE_STATUS 1
#define EXIT_PANIC 2

__noreturn void system_exit(int status);
/* arch: write status to QEMU's debug-exit port (returns only if the
 * device is not there). */
void arch_qemu_exit(int status);
__noreturn void arch_halt_forever(void);
/* Tries every reset the machine has; returns only if none worked. */
void arch_reboot(void);
/* True when CPUID says we run under a hypervisor (any hypervisor). */
bool arch_under_hypervisor(void);
/* True only under QEMU (a hypervisor whose fw_cfg says "QEMU"). */
bool arch_under_qemu(void);
