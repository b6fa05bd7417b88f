/* arch/x86_64/tsc_pick.c: which TSC rate to believe, as pure code for
 * the host test (tests/host/test_tsc.c).  CPUID leaf 0x15 with its
 * crystal field is exact (Linux: X86_FEATURE_TSC_KNOWN_FREQ).  Without
 * the crystal (most 2015-2020 Intel client parts), leaf 0x16's base
 * frequency is a marketing figure the SDM says not to use as the TSC
 * rate: the TSC is measured against the HPET, PM timer or PIT, and 0x16
 * only bounds that measurement, as Linux's tsc_refine_calibration_work()
 * keeps the early value when the refined one is more than 1% off.
 * Also the TSC_ADJUST correction an AP's warp asks for. */
#include "arch/x86_64/tsc.h"

#define LEAF16_BOUND_DIV 50	/* 2%: a laptop's 0x16 is ~0.3% off */

u64 tsc_leaf15_khz(u32 denom, u32 numer, u32 crystal_hz)
{
	if (!denom || !numer || !crystal_hz)
		return 0;
	return (u64)crystal_hz * numer / denom / 1000;
}

u64 tsc_pick_khz(u64 leaf15_khz, u64 leaf16_khz, u64 measured_khz,
		 enum tsc_pick *why)
{
	if (leaf15_khz) {
		*why = TSC_PICK_LEAF15;
		return leaf15_khz;
	}
	if (measured_khz && leaf16_khz) {
		u64 diff = measured_khz > leaf16_khz ? measured_khz - leaf16_khz
						     : leaf16_khz - measured_khz;

		if (diff > leaf16_khz / LEAF16_BOUND_DIV) {
			*why = TSC_PICK_LEAF16_BOUND;
			return leaf16_khz;
		}
	}
	if (measured_khz) {
		*why = TSC_PICK_MEASURED;
		return measured_khz;
	}
	if (leaf16_khz) {
		*why = TSC_PICK_LEAF16;
		return leaf16_khz;
	}
	*why = TSC_PICK_NONE;
	return 0;
}

s64 tsc_adjust_correction(s64 target_warp, s64 source_warp)
{
	if (target_warp > 0)
		return target_warp;	/* the target read smaller: it is behind */
	if (source_warp > 0)
		return -source_warp;	/* CPU 0 read smaller: the target is ahead */
	return 0;
}
