/* arch/x86_64/lapic.c: the local APIC of each CPU, in xAPIC (MMIO) or
 * x2APIC (MSR) mode.  Which one is arch/x86_64/apic_mode.c's decision
 * (Linux's rule without interrupt remapping: xAPIC on bare metal unless
 * firmware enabled x2APIC or an APIC id needs it; the DMAR opt-out
 * honoured); every CPU then runs in the boot CPU's mode. */
#include "arch/x86_64/lapic.h"
#include "arch/x86_64/acpi.h"
#include "arch/x86_64/mmio.h"
#include "asm/cpu.h"
#include "asm/cpufeature.h"
#include "asm/irq.h"
#include "kernel/atomic.h"
#include "kernel/cmdline.h"
#include "kernel/preempt.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "kernel/time.h"

#define ICR_BUSY_TIMEOUT_NS (100ull * 1000 * 1000)

bool x2apic_mode;
static volatile u32 *lapic_mmio;
unsigned long lapic_spurious_count, lapic_error_count;

static char *apic_mode_param = "";
core_param(apic, apic_mode_param, charp, "xapic: do not use x2APIC even if the CPU has it");

static inline u32 x2apic_msr(u32 reg) { return 0x800 + (reg >> 4); }

u32 lapic_read(u32 reg)
{
	if (x2apic_mode)
		return (u32)rdmsr(x2apic_msr(reg));
	return lapic_mmio[reg / 4];
}

void lapic_write(u32 reg, u32 v)
{
	if (x2apic_mode)
		wrmsr(x2apic_msr(reg), v);
	else
		lapic_mmio[reg / 4] = v;
}

u32 lapic_id(void)
{
	if (x2apic_mode)
		return (u32)rdmsr(x2apic_msr(APIC_ID));
	return lapic_mmio[APIC_ID / 4] >> 24;
}

void apic_eoi(void)
{
	/* x2APIC EOI writes are not serializing and need none: the handler's
	 * effects need not be visible before the next interrupt is taken. */
	lapic_write(APIC_EOI, 0);
}

/* Linux's safe_apic_wait_icr_idle(): 100 ms, on the TSC (before
 * calibration ns_to_cycles() assumes a fast TSC: longer, not shorter). */
static bool xapic_wait_icr_idle(void)
{
	u64 t0 = rdtsc(), limit = ns_to_cycles(ICR_BUSY_TIMEOUT_NS);

	while (lapic_mmio[APIC_ICR / 4] & APIC_ICR_BUSY) {
		if (rdtsc() - t0 > limit)
			return false;
		arch_cpu_relax();
	}
	return true;
}

/*
 * xAPIC: as few APIC accesses as can be after the ICR write, which sends.
 * The target of a reschedule IPI goes for a lock its sender may still
 * hold (the run queue's, until wake_up_state() returns); under TCG every
 * access to the APIC page takes QEMU's global lock, which a vCPU spinning
 * on a lock takes at each PAUSE, so one access after the send could take
 * the sender a millisecond (gpcompare: the 2 ms grace periods of issue
 * 30).  So a fixed-vector IPI waits for the ICR to be idle before, not
 * after (as Linux's __default_send_IPI_dest_field() does); INIT, SIPI
 * and NMI wait after too, as their senders want them taken.  Irqs are
 * off: an interrupt handler sending between our two writes would change
 * ICR2 under us.  An NMI handler can still come in between: it puts the
 * destination field back as it found it, so that what it interrupted
 * sends where it meant to.
 */
bool lapic_send_ipi(u32 apic_id, u32 low)
{
	if (x2apic_mode) {
		/* WRMSR to the ICR is not serializing: fence so that stores made
		 * before the IPI (a call's arguments) are visible to its target. */
		__asm__ __volatile__("mfence; lfence" ::: "memory");
		wrmsr(x2apic_msr(APIC_ICR), ((u64)apic_id << 32) | low);
		return true;
	}
	unsigned long flags = arch_local_irq_save();
	bool nmi = in_nmi(), ok = xapic_wait_icr_idle();
	u32 old_dest = nmi ? lapic_mmio[APIC_ICR2 / 4] : 0;

	lapic_mmio[APIC_ICR2 / 4] = apic_id << 24;
	lapic_mmio[APIC_ICR / 4] = low;
	if ((low & APIC_DM_MASK) != APIC_DM_FIXED)
		ok = xapic_wait_icr_idle() && ok;
	if (nmi)
		lapic_mmio[APIC_ICR2 / 4] = old_dest;
	arch_local_irq_restore(flags);
	if (!ok)
		pr_err("lapic: IPI 0x%x to APIC %u stuck in the ICR\n", low, apic_id);
	return ok;
}

static void spurious_interrupt(struct pt_regs *regs)
{
	(void)regs;
	__atomic_fetch_add(&lapic_spurious_count, 1, __ATOMIC_RELAXED);
}

static void error_interrupt(struct pt_regs *regs)
{
	u32 esr;

	(void)regs;
	lapic_write(APIC_ESR, 0);	/* latch the current errors */
	esr = lapic_read(APIC_ESR);
	if (__atomic_fetch_add(&lapic_error_count, 1, __ATOMIC_RELAXED) < 10)
		pr_err("lapic: APIC error, ESR 0x%x\n", esr);
}

/* The MADT says which LINT pin of which CPU carries NMI (usually LINT1 on
 * all); everything else on LINT0/1 stays masked (ExtINT is the 8259's
 * route, which we do not use). */
static void setup_lints(u32 acpi_uid)
{
	u32 lvt[2] = { APIC_LVT_MASKED, APIC_LVT_MASKED };

	for (int i = 0; i < acpi_info.nr_lapic_nmis; i++) {
		const struct acpi_lapic_nmi *n = &acpi_info.lapic_nmis[i];

		if (n->acpi_uid != ACPI_UID_ALL && n->acpi_uid != acpi_uid)
			continue;
		/* NMI delivery is always edge: only polarity applies. */
		lvt[n->lint] = APIC_DM_NMI;
		if ((n->flags & ACPI_INTI_POL_MASK) == ACPI_INTI_POL_LOW)
			lvt[n->lint] |= APIC_LVT_ACTIVE_LOW;
	}
	/* No MADT (or no NMI entry): the PC convention is LINT1 = NMI. */
	if (!acpi_info.have_madt)
		lvt[1] = APIC_DM_NMI;
	lapic_write(APIC_LVT0, lvt[0]);
	lapic_write(APIC_LVT1, lvt[1]);
}

void lapic_setup(u32 acpi_uid)
{
	u32 maxlvt = (lapic_read(APIC_VER) >> 16) & 0xff;

	if (!x2apic_mode) {
		lapic_write(APIC_DFR, 0xffffffff);	/* flat model */
		lapic_write(APIC_LDR, 0);
	}
	lapic_write(APIC_TPR, 0);
	lapic_write(APIC_LVTT, APIC_LVT_MASKED);
	if (maxlvt >= 4)
		lapic_write(APIC_LVTPC, APIC_LVT_MASKED);
	if (maxlvt >= 5)
		lapic_write(APIC_LVTTHMR, APIC_LVT_MASKED);
	setup_lints(acpi_uid);
	lapic_write(APIC_LVTERR, ERROR_APIC_VECTOR);
	lapic_write(APIC_ESR, 0);
	lapic_write(APIC_ESR, 0);
	lapic_write(APIC_SVR, APIC_SVR_ENABLE | SPURIOUS_APIC_VECTOR);
	/* Anything that was pending from firmware. */
	apic_eoi();
}

/* Same mode on every CPU: an AP that firmware left in x2APIC mode while
 * we run xAPIC (or the reverse) would not hear our IPIs. */
static void enable_mode(void)
{
	u64 base = rdmsr(MSR_IA32_APIC_BASE);

	if (x2apic_mode) {
		if ((base & (APIC_BASE_ENABLE | APIC_BASE_EXTD)) !=
		    (APIC_BASE_ENABLE | APIC_BASE_EXTD))
			wrmsr(MSR_IA32_APIC_BASE, base | APIC_BASE_ENABLE | APIC_BASE_EXTD);
	} else if (base & APIC_BASE_EXTD) {
		/* x2APIC to xAPIC only through the disabled state (SDM
		 * 10.12.5, Linux's __x2apic_disable()). */
		wrmsr(MSR_IA32_APIC_BASE, base & ~(APIC_BASE_ENABLE | APIC_BASE_EXTD));
		wrmsr(MSR_IA32_APIC_BASE, (base & ~APIC_BASE_EXTD) | APIC_BASE_ENABLE);
	} else if (!(base & APIC_BASE_ENABLE)) {
		wrmsr(MSR_IA32_APIC_BASE, base | APIC_BASE_ENABLE);
	}
}

u32 acpi_uid_of(u32 apic_id)
{
	for (int i = 0; i < acpi_info.nr_cpus; i++)
		if (acpi_info.cpus[i].apic_id == apic_id)
			return acpi_info.cpus[i].acpi_uid;
	return ACPI_UID_ALL - 1;	/* matches only the "all CPUs" NMI entries */
}

int lapic_init_bsp(void)
{
	u64 base;
	bool has_x2, fw_x2, need_x2 = false;

	if (!boot_cpu_has(X86_FEATURE_APIC)) {
		pr_err("lapic: this CPU has no local APIC\n");
		return -ENODEV;
	}
	has_x2 = boot_cpu_has(X86_FEATURE_X2APIC);
	base = rdmsr(MSR_IA32_APIC_BASE);
	fw_x2 = (base & (APIC_BASE_ENABLE | APIC_BASE_EXTD)) ==
		(APIC_BASE_ENABLE | APIC_BASE_EXTD);
	for (int i = 0; i < acpi_info.nr_cpus; i++)
		if (acpi_info.cpus[i].apic_id > XAPIC_MAX_ID)
			need_x2 = true;

	struct apic_mode_in in = {
		.has_x2apic = has_x2, .fw_x2apic = fw_x2,
		.want_xapic = !strcmp(apic_mode_param, "xapic"), .need_x2apic = need_x2,
		.hypervisor = boot_cpu_has(X86_FEATURE_HYPERVISOR),
		.have_dmar = acpi_info.have_dmar, .dmar_flags = acpi_info.dmar_flags,
	};
	struct apic_mode_out out;

	apic_choose_mode(&in, &out);
	x2apic_mode = out.x2apic;
	if (out.param_ignored)
		pr_warn("lapic: apic=xapic ignored: the firmware enabled x2APIC mode\n");
	if (out.ids_unreachable)
		pr_warn("lapic: xAPIC mode (%s): CPUs with APIC ids above %d will not start\n",
			out.why, XAPIC_MAX_ID);
	if (!x2apic_mode) {
		u64 phys = acpi_info.have_madt && acpi_info.lapic_phys ?
			acpi_info.lapic_phys : (base & ~0xfffull);

		lapic_mmio = ioremap(phys, 4096);
		if (!lapic_mmio) {
			pr_err("lapic: cannot map the LAPIC at 0x%llx\n", (unsigned long long)phys);
			return -ENODEV;
		}
	}
	enable_mode();
	lapic_setup(acpi_uid_of(lapic_id()));
	irq_register(SPURIOUS_APIC_VECTOR, spurious_interrupt);
	irq_register(ERROR_APIC_VECTOR, error_interrupt);
	pr_info("lapic: %s mode (%s), BSP APIC id %u, version 0x%x\n",
		x2apic_mode ? "x2APIC" : "xAPIC", out.why,
		lapic_id(), lapic_read(APIC_VER) & 0xff);
	return 0;
}

void lapic_init_ap(void)
{
	enable_mode();
}
