/* arch/x86_64/tsc.c: how fast the TSC runs, and whether the CPUs' TSCs
 * agree.  The frequency comes from CPUID leaf 0x15 when it states the
 * crystal (exact); otherwise it is measured against the HPET, the ACPI PM
 * timer or the PIT, in that order (PCs without legacy devices gate the
 * PIT, and hardware-reduced ACPI has no PM timer), and CPUID 0x16's base
 * frequency, which the SDM says is not the TSC rate, only bounds the
 * measurement (arch/x86_64/tsc_pick.c).  Each measurement is repeated and
 * the median kept, so that one run stretched by an SMI (or, under QEMU,
 * by the host) does not decide; every wait is bounded by TSC time. */
#include "arch/x86_64/tsc.h"
#include "arch/x86_64/acpi.h"
#include "arch/x86_64/mmio.h"
#include "asm/cpu.h"
#include "asm/cpufeature.h"
#include "kernel/atomic.h"
#include "kernel/cmdline.h"
#include "kernel/string.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"

bool tsc_invariant;
static void tsc_adjust_init_boot(void);
const char *tsc_method = "none";

#define CAL_RUNS 5
#define CAL_MS 10

/* ---- HPET ---- */
#define HPET_CAP 0x000
#define HPET_CFG 0x010
#define HPET_COUNTER 0x0f0
#define HPET_CFG_ENABLE 1

static volatile u8 *hpet;
static u32 hpet_period_fs;

static bool hpet_setup(void)
{
	u64 cap;

	if (hpet)
		return true;
	if (!acpi_info.have_hpet)
		return false;
	hpet = ioremap(acpi_info.hpet_phys, 1024);
	if (!hpet)
		return false;
	cap = mmio_read64(hpet + HPET_CAP);
	hpet_period_fs = cap >> 32;
	/* The spec bounds the period: at most 100 ns, and never zero. */
	if (hpet_period_fs == 0 || hpet_period_fs > 100000000u) {
		pr_warn("tsc: HPET period %u fs is invalid, HPET not used\n", hpet_period_fs);
		hpet = NULL;
		return false;
	}
	mmio_write64(hpet + HPET_CFG, mmio_read64(hpet + HPET_CFG) | HPET_CFG_ENABLE);
	return true;
}

/* Before calibration ns_to_cycles() assumes an 8 GHz TSC, so a limit in
 * it errs long, never short. */
static u64 ordered_tsc(void) { return rdtsc_ordered(); }

static u64 measure(u64 (*read)(void), u64 ref_hz, unsigned int bits, unsigned int ms)
{
	const struct tsc_ref ref = { read, ordered_tsc, ref_hz, bits };

	/* 20 times the wait */
	return tsc_measure_median_khz(&ref, ms, ns_to_cycles((u64)ms * 20 * 1000000), CAL_RUNS);
}

static u64 hpet_read(void) { return mmio_read64(hpet + HPET_COUNTER); }

u64 tsc_measure_khz_hpet(unsigned int ms)
{
	if (!hpet_setup())
		return 0;
	/* 32-bit counters: a 10 ms wait cannot wrap them at any legal rate
	 * (at most 10 MHz... the spec's 100 ns bound), masking handles it. */
	return measure(hpet_read, 1000000000000000ull / hpet_period_fs, 32, ms);
}

/* ---- ACPI PM timer: 3.579545 MHz, 24 or 32 bits ---- */
#define PMTMR_HZ 3579545

static u64 pmtmr_read(void) { return inl((u16)acpi_info.pm_tmr_port); }

u64 tsc_measure_khz_pmtimer(unsigned int ms)
{
	if (!acpi_info.pm_tmr_port)
		return 0;
	return measure(pmtmr_read, PMTMR_HZ, acpi_info.pm_tmr_32bit ? 32 : 24, ms);
}

/* ---- PIT channel 2, gated through port 0x61 ----
 * Read like the other references: its counter is latched and read with
 * a TSC read on each side, at the start and at the end, so a vCPU (or an
 * SMI) stalled in between changes nothing.  Waiting for OUT2 instead
 * would count any stall after the count ran out as PIT time. */
#define PIT_HZ 1193182

/* Counts up (the PIT counts down): what measure() wants, 16 bits. */
static u64 pit_read(void)
{
	outb(0x43, 0x80);		/* latch channel 2 */
	u8 lo = inb(0x42), hi = inb(0x42);
	return 0xffff - ((u32)hi << 8 | lo);
}

u64 tsc_measure_khz_pit(unsigned int ms)
{
	u64 khz;
	u8 gate;

	/* 16 bits of 1.19 MHz: the whole wait must stay below 55 ms. */
	if (ms > 50)
		ms = 50;
	/* Gate high, speaker off; mode 0 from 0xffff counts down through
	 * the whole measurement, with OUT2 low until it reaches 0. */
	gate = inb(0x61);
	outb(0x61, (gate & ~0x02) | 0x01);
	outb(0x43, 0xb0);		/* channel 2, lobyte/hibyte, mode 0, binary */
	outb(0x42, 0xff);
	outb(0x42, 0xff);
	/* Writing the count drives OUT2 low.  Already high: no PIT behind
	 * port 0x61 (a legacy-free PC, QEMU's pit=off), whose bits then read
	 * as garbage, not a count. */
	if (inb(0x61) & 0x20) {
		outb(0x61, gate);
		return 0;
	}
	khz = measure(pit_read, PIT_HZ, 16, ms);
	outb(0x61, gate);
	return khz;
}

static u64 leaf15_khz(void)
{
	u32 a, b, c, d;

	if (cpuid_max_leaf(0) < 0x15)
		return 0;
	cpuid(0x15, &a, &b, &c, &d);
	return tsc_leaf15_khz(a, b, c);
}

static u64 leaf16_khz(void)
{
	u32 a, b, c, d;

	if (cpuid_max_leaf(0) < 0x16)
		return 0;
	cpuid(0x16, &a, &b, &c, &d);
	return (u64)(a & 0xffff) * 1000;
}

static char *calibrate_param = "auto";
core_param(tsc.calibrate, calibrate_param, charp,
	   "how to find the TSC rate: auto (CPUID 0x15, else hpet, pmtimer, pit: the first that works, bounded by CPUID 0x16), or one of cpuid, hpet, pmtimer, pit (falls back to auto if it fails)");

static const char *const measured_by[] = { "hpet", "pmtimer", "pit" };

/* One measurement by name; 0 if that clock does not work here. */
static u64 measure_by(const char *m)
{
	if (!strcmp(m, "hpet"))
		return tsc_measure_khz_hpet(CAL_MS);
	if (!strcmp(m, "pmtimer"))
		return tsc_measure_khz_pmtimer(CAL_MS);
	if (!strcmp(m, "pit"))
		return tsc_measure_khz_pit(CAL_MS);
	return 0;
}

void tsc_init(void)
{
	const char *forced = NULL, *method = NULL;
	u64 l15 = leaf15_khz(), l16 = leaf16_khz(), measured = 0, khz;
	enum tsc_pick why;

	tsc_invariant = boot_cpu_has(X86_FEATURE_CONSTANT_TSC);
	tsc_adjust_init_boot();
	if (!strcmp(calibrate_param, "cpuid"))
		forced = "cpuid";
	for (unsigned i = 0; i < ARRAY_SIZE(measured_by); i++)
		if (!strcmp(calibrate_param, measured_by[i]))
			forced = measured_by[i];
	if (!forced && strcmp(calibrate_param, "auto"))
		pr_err("tsc: tsc.calibrate=%s is not one of auto, cpuid, hpet, pmtimer, pit; using auto\n",
		       calibrate_param);

	if (forced && !strcmp(forced, "cpuid")) {
		/* Asked for: 0x16 alone is then believed as well. */
		khz = l15 ? l15 : l16;
		tsc_method = l15 ? "cpuid-15h" : "cpuid-16h";
		if (khz)
			goto done;
		pr_warn("tsc: tsc.calibrate=cpuid: CPUID states no TSC rate; trying the others\n");
	} else if (forced) {
		measured = measure_by(forced);
		if (measured) {
			/* Asked for: used as measured, 0x16 only reported. */
			khz = measured;
			tsc_method = forced;
			goto done;
		}
		pr_warn("tsc: tsc.calibrate=%s: that clock is absent or does not count here; trying the others\n",
			forced);
	}
	for (unsigned i = 0; i < ARRAY_SIZE(measured_by) && !l15 && !measured; i++) {
		if (forced && !strcmp(measured_by[i], forced))
			continue;
		measured = measure_by(measured_by[i]);
		method = measured_by[i];
	}
	khz = tsc_pick_khz(l15, l16, measured, &why);
	switch (why) {
	case TSC_PICK_LEAF15:	tsc_method = "cpuid-15h"; break;
	case TSC_PICK_MEASURED:	tsc_method = method; break;
	case TSC_PICK_LEAF16:	tsc_method = "cpuid-16h"; break;
	case TSC_PICK_LEAF16_BOUND:
		tsc_method = "cpuid-16h";
		pr_warn("tsc: measured %llu kHz by %s, more than 2%% off CPUID 0x16's %llu kHz: %s is not trusted\n",
			(unsigned long long)measured, method, (unsigned long long)l16, method);
		break;
	case TSC_PICK_NONE:
		khz = tsc_khz;
		tsc_method = "guess";
		pr_err("tsc: no HPET, PM timer or PIT answered; assuming %llu MHz\n",
		       (unsigned long long)(tsc_khz / 1000));
		break;
	}
done:
	time_set_tsc_khz(khz);
	pr_info("tsc: %llu.%03llu MHz by %s, %sinvariant\n",
		(unsigned long long)(khz / 1000), (unsigned long long)(khz % 1000),
		tsc_method, tsc_invariant ? "" : "NOT ");
	if (l16 && strcmp(tsc_method, "cpuid-16h"))
		pr_info("tsc: CPUID 0x16 base frequency %llu MHz (a bound only)\n",
			(unsigned long long)(l16 / 1000));
}

/* ---- IA32_TSC_ADJUST: one value on every CPU (Linux's tsc_sync.c) ----
 * EFI firmware can leave the CPUs' adjust registers different, which
 * offsets their TSCs.  The boot CPU's value is kept (writing it would
 * move the clock the boot has been timed by) and copied to each AP as it
 * starts, before it reads any time; a nonzero boot value is reported. */

#define MSR_IA32_TSC_ADJUST 0x0000003b

static bool have_tsc_adjust;
static s64 tsc_adjust_boot;
static atomic_t tsc_adjust_fixed;	/* APs whose value was rewritten */

static void tsc_adjust_init_boot(void)
{
	have_tsc_adjust = boot_cpu_has(X86_FEATURE_TSC_ADJUST);
	if (!have_tsc_adjust)
		return;
	tsc_adjust_boot = (s64)rdmsr(MSR_IA32_TSC_ADJUST);
	if (tsc_adjust_boot)
		pr_warn("tsc: the boot CPU's TSC_ADJUST is %lld (firmware); every CPU gets the same\n",
			(long long)tsc_adjust_boot);
}

void tsc_adjust_init_ap(void)
{
	if (!have_tsc_adjust)
		return;
	if ((s64)rdmsr(MSR_IA32_TSC_ADJUST) != tsc_adjust_boot) {
		wrmsr(MSR_IA32_TSC_ADJUST, (u64)tsc_adjust_boot);
		atomic_inc(&tsc_adjust_fixed);
	}
}

int tsc_adjust_fixed_cpus(void)
{
	return atomic_read(&tsc_adjust_fixed);
}

/* ---- cross-CPU sync check (Linux's check_tsc_warp, for two CPUs) ---- */

static arch_spinlock_t warp_lock = __ARCH_SPIN_LOCK_UNLOCKED;
static u64 warp_last;
static s64 warp_max[2];		/* [0]: seen by CPU 0, [1]: by the other */
static atomic_t warp_arrived, warp_done;

#define WARP_LOOPS 2000
#define WARP_MS 20

/* Each turn takes the lock, so a TSC read is ordered after the previous
 * holder's: a later read that is smaller is a real backwards step.  The
 * other CPU runs this in its call IPI, so CPU 0 takes the lock with irqs
 * off too: a bare lock taken in hardirq context is never taken with
 * irqs on (lockdep's rule; and an interrupt inside the turn would only
 * add noise to the measured step). */
static void warp_loop(int side)
{
	u64 end = rdtsc() + ns_to_cycles(WARP_MS * 1000000ull);
	unsigned long flags;

	for (int i = 0; i < WARP_LOOPS; i++) {
		local_irq_save(flags);
		arch_spin_lock(&warp_lock);
		u64 prev = warp_last, now = rdtsc_ordered();

		warp_last = now;
		if (prev > now && (s64)(prev - now) > warp_max[side])
			warp_max[side] = prev - now;
		arch_spin_unlock(&warp_lock);
		local_irq_restore(flags);
		if (now > end)
			break;
	}
}

static void warp_remote(void *unused)
{
	(void)unused;
	atomic_inc(&warp_arrived);
	while (atomic_read(&warp_arrived) < 2)
		cpu_relax();
	warp_loop(1);
	atomic_inc(&warp_done);
}

/* One run of the warp check; false if cpu did not join.  *mine and
 * *theirs: the largest backwards step CPU 0 and cpu saw. */
static bool warp_check(int cpu, s64 *mine, s64 *theirs)
{
	u64 t0;

	warp_last = 0;
	warp_max[0] = warp_max[1] = 0;
	atomic_set(&warp_arrived, 0);
	atomic_set(&warp_done, 0);
	smp_mb();
	if (smp_call_function_single(cpu, warp_remote, NULL, 0))
		return false;
	t0 = rdtsc();
	while (atomic_read(&warp_arrived) < 1) {
		if (rdtsc() - t0 > ns_to_cycles(2000000000ull)) {
			pr_err("tsc: CPU %d did not join the sync check\n", cpu);
			/* Let it through whenever it arrives. */
			atomic_inc(&warp_arrived);
			return false;
		}
		cpu_relax();
	}
	atomic_inc(&warp_arrived);
	warp_loop(0);
	t0 = rdtsc();
	while (atomic_read(&warp_done) < 1 && rdtsc() - t0 < ns_to_cycles(2000000000ull))
		cpu_relax();
	*mine = warp_max[0];
	*theirs = warp_max[1];
	return true;
}

static void adjust_by(void *delta)
{
	s64 d = *(s64 *)delta;

	wrmsr(MSR_IA32_TSC_ADJUST, rdmsr(MSR_IA32_TSC_ADJUST) + (u64)d);
}

s64 tsc_check_sync(int cpu)
{
	s64 mine, theirs, d;

	if (!warp_check(cpu, &mine, &theirs))
		return -1;
	d = tsc_adjust_correction(theirs, mine);
	if (!d || !have_tsc_adjust)
		return MAX(mine, theirs);
	/* Linux's check_tsc_sync_target(): move cpu's TSC by the warp
	 * seen, once, and measure again. */
	pr_warn("tsc: CPU %d is %lld cycles %s CPU 0: TSC_ADJUST compensates\n", cpu,
		(long long)(d > 0 ? d : -d), d > 0 ? "behind" : "ahead of");
	if (smp_call_function_single(cpu, adjust_by, &d, 1))
		return MAX(mine, theirs);
	if (!warp_check(cpu, &mine, &theirs))
		return -1;
	return MAX(mine, theirs);
}
