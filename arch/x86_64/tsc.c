/* arch/x86_64/tsc.c: how fast the TSC runs, and whether the CPUs' TSCs
 * agree.  The frequency comes from CPUID leaf 0x15 (crystal ratio) or
 * 0x16 (base MHz) when the CPU states it; otherwise it is measured against
 * the HPET, the ACPI PM timer or the PIT, in that order: PCs without
 * legacy devices gate the PIT, and hardware-reduced ACPI has no PM timer.
 * Each measurement is repeated and the median kept, so that one run
 * stretched by an SMI (or, under QEMU, by the host) does not decide. */
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

/* Reads the reference between two TSC reads, retrying while they are far
 * apart (an SMI, or the host preempting a vCPU, in between).  *tsc is the
 * midpoint. */
static u64 read_ref_tsc(u64 (*read)(void), u64 *tsc)
{
	u64 a, b, r;

	for (int i = 0;; i++) {
		a = rdtsc_ordered();
		r = read();
		b = rdtsc_ordered();
		/* 100k cycles: 20-100 us on any CPU we run on. */
		if (b - a < 100000 || i == 50)
			break;
	}
	*tsc = a + (b - a) / 2;
	return r;
}

/* Counts TSC cycles over ms of a reference counter that ticks at ref_hz
 * with `bits` significant bits.  Returns kHz, or 0 if the reference did
 * not move (gated, absent) within a generous bound. */
static u64 measure(u64 (*read)(void), u64 ref_hz, unsigned int bits, unsigned int ms)
{
	u64 mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
	u64 want = ref_hz * ms / 1000, r0, r1, t0, t1;
	u64 spins = 0;

	r0 = read_ref_tsc(read, &t0);
	do {
		r1 = read();
		/* 50 M reads without reaching the target: it is not counting. */
		if (++spins > 50000000ull)
			return 0;
	} while (((r1 - r0) & mask) < want);
	r1 = read_ref_tsc(read, &t1);
	return (t1 - t0) * ref_hz / ((r1 - r0) & mask) / 1000;
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

static u64 median_of_runs(u64 (*fn)(unsigned int))
{
	u64 v[CAL_RUNS];

	for (int i = 0; i < CAL_RUNS; i++) {
		v[i] = fn(CAL_MS);
		if (!v[i])
			return 0;
	}
	for (int i = 1; i < CAL_RUNS; i++)	/* insertion sort: 5 values */
		for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
			u64 t = v[j]; v[j] = v[j - 1]; v[j - 1] = t;
		}
	return v[CAL_RUNS / 2];
}

static u64 cpuid_khz(void)
{
	u32 max, a, b, c, d;

	cpuid(0, &max, &b, &c, &d);
	if (max >= 0x15) {
		cpuid(0x15, &a, &b, &c, &d);
		if (a && b && c) {
			tsc_method = "cpuid-15h";
			return (u64)c * b / a / 1000;
		}
	}
	if (max >= 0x16) {
		cpuid(0x16, &a, &b, &c, &d);
		if (a & 0xffff) {
			tsc_method = "cpuid-16h";
			return (u64)(a & 0xffff) * 1000;
		}
	}
	return 0;
}

static char *calibrate_param = "auto";
core_param(tsc.calibrate, calibrate_param, charp,
	   "how to find the TSC rate: auto (cpuid, hpet, pmtimer, pit: the first that works), or one of those (falls back to auto if it fails)");

/* One method by name; 0 if it is unknown or does not work here. */
static u64 calibrate_by(const char *m)
{
	if (!strcmp(m, "cpuid"))
		return cpuid_khz();
	if (!strcmp(m, "hpet"))
		return median_of_runs(tsc_measure_khz_hpet);
	if (!strcmp(m, "pmtimer"))
		return median_of_runs(tsc_measure_khz_pmtimer);
	if (!strcmp(m, "pit"))
		return median_of_runs(tsc_measure_khz_pit);
	return 0;
}

void tsc_init(void)
{
	static const char *const order[] = { "cpuid", "hpet", "pmtimer", "pit" };
	const char *forced = NULL;
	u64 khz = 0;

	tsc_invariant = boot_cpu_has(X86_FEATURE_CONSTANT_TSC);
	for (unsigned i = 0; i < ARRAY_SIZE(order); i++)
		if (!strcmp(calibrate_param, order[i]))
			forced = order[i];
	if (!forced && strcmp(calibrate_param, "auto"))
		pr_err("tsc: tsc.calibrate=%s is not one of auto, cpuid, hpet, pmtimer, pit; using auto\n",
		       calibrate_param);
	if (forced) {
		khz = calibrate_by(forced);
		if (khz && strcmp(forced, "cpuid"))
			tsc_method = forced;	/* cpuid_khz names its leaf */
		else if (!khz)
			pr_warn("tsc: tsc.calibrate=%s: that clock is absent or does not count here; trying the others\n",
				forced);
	}
	for (unsigned i = 0; i < ARRAY_SIZE(order) && !khz; i++) {
		if (order[i] == forced)
			continue;
		khz = calibrate_by(order[i]);
		if (khz && i > 0)
			tsc_method = order[i];
	}
	if (!khz) {
		pr_err("tsc: no HPET, PM timer or PIT answered; assuming %llu MHz\n",
		       (unsigned long long)(tsc_khz / 1000));
		tsc_method = "guess";
		khz = tsc_khz;
	}
	time_set_tsc_khz(khz);
	pr_info("tsc: %llu.%03llu MHz by %s, %sinvariant\n",
		(unsigned long long)(khz / 1000), (unsigned long long)(khz % 1000),
		tsc_method, tsc_invariant ? "" : "NOT ");
}

/* ---- cross-CPU sync check (Linux's check_tsc_warp, for two CPUs) ---- */

static arch_spinlock_t warp_lock = __ARCH_SPIN_LOCK_UNLOCKED;
static u64 warp_last;
static s64 warp_max;
static atomic_t warp_arrived, warp_done;

#define WARP_LOOPS 2000
#define WARP_MS 20

/* Each turn takes the lock, so a TSC read is ordered after the previous
 * holder's: a later read that is smaller is a real backwards step. */
static void warp_loop(void)
{
	u64 end = rdtsc() + ns_to_cycles(WARP_MS * 1000000ull);

	for (int i = 0; i < WARP_LOOPS; i++) {
		arch_spin_lock(&warp_lock);
		u64 prev = warp_last, now = rdtsc_ordered();

		warp_last = now;
		if (prev > now && (s64)(prev - now) > warp_max)
			warp_max = prev - now;
		arch_spin_unlock(&warp_lock);
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
	warp_loop();
	atomic_inc(&warp_done);
}

s64 tsc_check_sync(int cpu)
{
	u64 t0;

	warp_last = 0;
	warp_max = 0;
	atomic_set(&warp_arrived, 0);
	atomic_set(&warp_done, 0);
	smp_mb();
	if (smp_call_function_single(cpu, warp_remote, NULL, 0))
		return -1;
	t0 = rdtsc();
	while (atomic_read(&warp_arrived) < 1) {
		if (rdtsc() - t0 > ns_to_cycles(2000000000ull)) {
			pr_err("tsc: CPU %d did not join the sync check\n", cpu);
			/* Let it through whenever it arrives. */
			atomic_inc(&warp_arrived);
			return -1;
		}
		cpu_relax();
	}
	atomic_inc(&warp_arrived);
	warp_loop();
	t0 = rdtsc();
	while (atomic_read(&warp_done) < 1 && rdtsc() - t0 < ns_to_cycles(2000000000ull))
		cpu_relax();
	return warp_max;
}
