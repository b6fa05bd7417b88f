/* kernel/system.c: system_exit(), the one way a run ends. */
#include "kernel/system.h"
#include "kernel/printk.h"
#include "kernel/cmdline.h"

static bool reboot_on_exit;
core_param(reboot, reboot_on_exit, bool, "reboot instead of halting when the run ends (real hardware)");

void system_exit(int status)
{
	printk_raw("# rcukern: exit status %d\n", status);
	arch_qemu_exit(status);
	if (reboot_on_exit)
		arch_reboot();
	printk_raw("# rcukern: halted; safe to power off\n");
	arch_halt_forever();
}
