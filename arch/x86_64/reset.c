/* arch/x86_64/reset.c: how a run ends on this machine: leaving QEMU,
 * halting, rebooting.
 *
 * QEMU's isa-debug-exit device (run.sh puts it at port 0xf4) turns a
 * write of v into QEMU's exit status (v << 1) | 1.  On a PC, port 0xf4
 * may belong to anything, so it is written only when the machine is
 * known to be QEMU: the CPUID hypervisor bit alone is not enough (VMware,
 * Hyper-V, cloud hypervisors set it too), so QEMU's fw_cfg device must
 * also answer with its "QEMU" signature.  The fw_cfg probe itself is only
 * made under a hypervisor: on bare metal, ports 0x510/0x511 are left
 * alone as well.
 *
 * A reboot tries, in order, the ACPI FADT reset register (the one way on
 * a legacy-free PC), port 0xcf9, the 8042 keyboard controller, and
 * finally a triple fault, which resets every x86. */
#include "kernel/system.h"
#include "kernel/time.h"
#include "arch/x86_64/acpi.h"
#include "asm/cpu.h"
#include "asm/cpufeature.h"
#include "asm/io.h"

#define DEBUG_EXIT_PORT 0xf4
#define FW_CFG_PORT_SEL 0x510
#define FW_CFG_PORT_DATA 0x511
#define FW_CFG_SIGNATURE 0x0000

bool arch_under_hypervisor(void)
{
	return boot_cpu_has(X86_FEATURE_HYPERVISOR);
}

static int qemu_known = -1;

bool arch_under_qemu(void)
{
	char sig[4];

	if (qemu_known >= 0)
		return qemu_known;
	qemu_known = 0;
	if (!arch_under_hypervisor())
		return false;
	outw(FW_CFG_PORT_SEL, FW_CFG_SIGNATURE);
	for (int i = 0; i < 4; i++)
		sig[i] = (char)inb(FW_CFG_PORT_DATA);
	qemu_known = sig[0] == 'Q' && sig[1] == 'E' && sig[2] == 'M' && sig[3] == 'U';
	return qemu_known;
}

void arch_qemu_exit(int status)
{
	outl(DEBUG_EXIT_PORT, (u32)status);
}

void arch_halt_forever(void)
{
	for (;;) {
		arch_local_irq_disable();
		arch_halt();
	}
}

static void acpi_reset(void)
{
	if (!acpi_info.have_reset_reg)
		return;
	if (acpi_info.reset_space == ACPI_SPACE_IO) {
		outb((u16)acpi_info.reset_addr, acpi_info.reset_value);
	} else {
		volatile u8 *r = ioremap(acpi_info.reset_addr, 1);

		if (r)
			*r = acpi_info.reset_value;
	}
	mdelay(50);
}

void arch_reboot(void)
{
	struct {
		u16 limit;
		u64 base;
	} __packed no_idt = { 0, 0 };

	arch_local_irq_disable();
	acpi_reset();
	/* 0xcf9: select a hard reset (bit 1), then do it (bit 2). */
	outb(0xcf9, 0x02);
	udelay(10);
	outb(0xcf9, 0x06);
	mdelay(50);
	/* The keyboard controller's reset line, once its input buffer is empty. */
	for (int i = 0; i < 100000 && (inb(0x64) & 2); i++)
		udelay(1);
	outb(0x64, 0xfe);
	mdelay(50);
	/* An exception with no IDT: double, then triple fault. */
	__asm__ __volatile__("lidt %0; int3" :: "m"(no_idt) : "memory");
}
