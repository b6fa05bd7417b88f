/* tests/host/test_tsc.c: arch/x86_64/tsc_pick.c, which TSC rate the boot
 * believes: CPUID 0x15 with a crystal is exact; otherwise the measured
 * rate, bounded by CPUID 0x16's base frequency, which is never used as
 * the rate while a measurement within 2% of it exists; the measurement
 * against a (fake) reference clock, through stalls of the CPU; and the
 * TSC_ADJUST correction a warp asks for.  Uses ktest.h. */
#include <stdio.h>
#include "arch/x86_64/tsc.h"
#include "ktest.h"

static void tsc_leaf15_exact(void)
{
	enum tsc_pick why;

	/* 24 MHz crystal, ratio 176/2: 2112 MHz (a Coffee Lake client). */
	EXPECT_EQ(tsc_leaf15_khz(2, 176, 24000000), 2112000);
	EXPECT_EQ(tsc_leaf15_khz(2, 176, 0), 0);	/* no crystal */
	EXPECT_EQ(tsc_leaf15_khz(0, 176, 24000000), 0);
	EXPECT_EQ(tsc_pick_khz(2112000, 2100000, 2111000, &why), 2112000);
	EXPECT_EQ(why, TSC_PICK_LEAF15);
}

/* The Skylake laptop case: 0x15 has no crystal, 0x16 says 2600 MHz,
 * the TSC really runs at 2592.1 MHz (0.3% below): the measurement wins. */
static void tsc_leaf16_is_only_a_bound(void)
{
	enum tsc_pick why;

	EXPECT_EQ(tsc_pick_khz(0, 2600000, 2592100, &why), 2592100);
	EXPECT_EQ(why, TSC_PICK_MEASURED);
	/* A measurement 10% off (a lying HPET period): 0x16 bounds it. */
	EXPECT_EQ(tsc_pick_khz(0, 2600000, 2860000, &why), 2600000);
	EXPECT_EQ(why, TSC_PICK_LEAF16_BOUND);
	EXPECT_EQ(tsc_pick_khz(0, 2600000, 2548000, &why), 2548000);	/* 2% */
	EXPECT_EQ(tsc_pick_khz(0, 2600000, 2547999, &why), 2600000);
	/* No second source: whichever exists. */
	EXPECT_EQ(tsc_pick_khz(0, 0, 2592100, &why), 2592100);
	EXPECT_EQ(why, TSC_PICK_MEASURED);
	EXPECT_EQ(tsc_pick_khz(0, 2600000, 0, &why), 2600000);
	EXPECT_EQ(why, TSC_PICK_LEAF16);
	EXPECT_EQ(tsc_pick_khz(0, 0, 0, &why), 0);
	EXPECT_EQ(why, TSC_PICK_NONE);
}

/* Linux's check_tsc_sync_target(): the side that saw time go backwards
 * is the one behind; the target moves toward CPU 0 by that much. */
static void tsc_adjust_follows_the_warp(void)
{
	EXPECT_EQ(tsc_adjust_correction(0, 0), 0);
	EXPECT_EQ(tsc_adjust_correction(1500, 0), 1500);	/* target behind */
	EXPECT_EQ(tsc_adjust_correction(0, 900), -900);		/* target ahead */
	EXPECT_EQ(tsc_adjust_correction(300, 900), 300);	/* both: its own first */
}

/* A fake machine: a 2 GHz TSC, a PM timer (3.579545 MHz, 24 bits) on the
 * same time line.  Each TSC read moves time by 500 ns; stall_at names the
 * TSC read before which the CPU is stopped for stall_ns (a vCPU the host
 * did not run, an SMI). */
static u64 fake_ns, fake_tsc_reads, stall_at, stall_ns;
static int ref_frozen;

static u64 fake_tsc(void)
{
	if (++fake_tsc_reads == stall_at)
		fake_ns += stall_ns;
	fake_ns += 500;
	return fake_ns * 2;
}

static u64 fake_pmtmr(void)
{
	return ref_frozen ? 0xffffff : (u64)((unsigned __int128)fake_ns * 3579545 / 1000000000);
}

static u64 measure_fake(u64 stall_read, u64 stall_for, int frozen)
{
	const struct tsc_ref ref = { fake_pmtmr, fake_tsc, 3579545, 24 };

	fake_ns = 1000000;
	fake_tsc_reads = 0;
	stall_at = stall_read;
	stall_ns = stall_for;
	ref_frozen = frozen;
	/* the kernel's limit: 20 x 10 ms at an assumed 8 GHz */
	return tsc_measure_median_khz(&ref, 10, 8000000ull * 200, 5);
}

/* The boot found no clock and guessed 8 GHz (smp-2, a loaded host: "TSC
 * 8000000 kHz by guess ... PM timer 2095995 kHz"): a stall of the CPU
 * between a read of the reference and the TSC read that checks the time
 * limit made a counting PM timer look absent, and one such run failed
 * the whole median. */
static void tsc_measure_survives_a_stall(void)
{
	u64 khz = measure_fake(0, 0, 0);

	EXPECT(khz >= 1999000 && khz <= 2001000);
	/* Stopped for 1 s, longer than the limit (800 ms of real time at
	 * the assumed 8 GHz, 0.4 s at 2 GHz), in the first run's wait loop:
	 * still measured, not "absent". */
	khz = measure_fake(10, 1000000000, 0);
	EXPECT_MSG(khz >= 1999000 && khz <= 2001000, "%llu kHz", (unsigned long long)khz);
	/* Stopped for 4.69 s: the 24-bit counter wrapped (4.687 s) to just
	 * past where it was, and the run is short; it is run again. */
	khz = measure_fake(10, 4690000000ull, 0);
	EXPECT_MSG(khz >= 1999000 && khz <= 2001000, "%llu kHz", (unsigned long long)khz);
	/* A reference that does not count is absent, at once. */
	EXPECT_EQ(measure_fake(0, 0, 1), 0);
	EXPECT(fake_tsc_reads < 8000000ull * 200 / 1000 + 100);
}

int main(void)
{
	RUN(tsc_leaf15_exact);
	RUN(tsc_leaf16_is_only_a_bound);
	RUN(tsc_adjust_follows_the_warp);
	RUN(tsc_measure_survives_a_stall);
	return ktest_summary();
}
