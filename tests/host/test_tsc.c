/* tests/host/test_tsc.c: arch/x86_64/tsc_pick.c, which TSC rate the boot
 * believes: CPUID 0x15 with a crystal is exact; otherwise the measured
 * rate, bounded by CPUID 0x16's base frequency, which is never used as
 * the rate while a measurement within 2% of it exists; and the
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

int main(void)
{
	RUN(tsc_leaf15_exact);
	RUN(tsc_leaf16_is_only_a_bound);
	RUN(tsc_adjust_follows_the_warp);
	return ktest_summary();
}
