/* arch/x86_64/reset.c: leaving QEMU, halting, rebooting.
 *
 * QEMU's isa-debug-exit device (run.sh puts it at port 0xf4) turns a write
 * of v into the exit status (v << 1) | 1.  Writing it is done only under a
 * hypervisor: on a PC, port 0xf4 may belong to something else. */
#include "kernel/system.h"
#include "asm/cpu.h"

#define DEBUG_EXIT_PORT 0xf4

bool arch_under_hypervisor(void)
{
	u32 a, b, c, d;
	cpuid(1, &a, &b, &c, &d);
	return c & (1u << 31);
}

void arch_qemu_exit(int status)
{
	if (arch_under_hypervisor())
		outl(DEBUG_EXIT_PORT, (u32)status);
}

void arch_halt_forever(void)
{
	for (;;) {
		arch_local_irq_disable();
		arch_halt();
	}
}

void arch_reboot(void)
{
	/* the keyboard controller's reset line, then the 0xcf9 reset port */
	for (int i = 0; i < 100000 && (inb(0x64) & 2); i++)
		;
	outb(0x64, 0xfe);
	outb(0xcf9, 0x06);
}
