/* kernel/system.c: system_exit(), the one way a run ends, and `exit=`,
 * which says how: under QEMU the status leaves through its debug-exit
 * device (the host runner reads it); on a PC the kernel prints the status
 * and halts, or reboots when asked (the GRUB menu's reboot entry). */
#include "kernel/system.h"
#include "kernel/printk.h"
#include "kernel/cmdline.h"
#include "kernel/string.h"
#include "kernel/trace.h"
#include "kernel/watchdog.h"

static char *exit_param = "auto";
core_param(exit, exit_param, charp,
	   "how a run ends: auto (QEMU: its debug-exit port; a PC: halt), halt, reboot, qemu (the port even if QEMU is not detected)");

enum exit_mode { EXIT_AUTO, EXIT_HALT, EXIT_REBOOT, EXIT_QEMU };

static enum exit_mode exit_mode(void)
{
	static const char *const names[] = { "auto", "halt", "reboot", "qemu" };

	for (unsigned i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(exit_param, names[i]))
			return (enum exit_mode)i;
	printk_raw("# rcukern: exit=%s is not one of auto, halt, reboot, qemu; using auto\n",
		   exit_param);
	return EXIT_AUTO;
}

void system_exit(int status)
{
	enum exit_mode mode = exit_mode();

	if (status != EXIT_PANIC)
		trace_dump_at_end();	/* trace.dump=end (panic() dumped already) */
	watchdog_stop();	/* a halted CPU is not a hard lockup */
	/* A typo in an option must not pass for the run that was asked. */
	if (cmdline_unknown_report() && status == EXIT_SUCCESS_STATUS)
		status = EXIT_FAILURE_STATUS;
	printk_raw("# rcukern: exit status %d\n", status);
	if (mode == EXIT_QEMU || (mode == EXIT_AUTO && arch_under_qemu())) {
		arch_qemu_exit(status);
		/* Still here: QEMU without -device isa-debug-exit. */
		printk_raw("# rcukern: QEMU's debug-exit device did not end the run\n");
	}
	if (mode == EXIT_REBOOT) {
		printk_raw("# rcukern: rebooting\n");
		arch_reboot();
		printk_raw("# rcukern: the reboot did not happen\n");
	}
	printk_raw("# rcukern: halted; safe to power off\n");
	arch_halt_forever();
}
