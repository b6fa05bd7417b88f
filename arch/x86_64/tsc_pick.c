/* arch/x86_64/tsc_pick.c: which TSC rate to believe, as pure code for
 * the host test (tests/host/test_tsc.c).  CPUID leaf 0x15 with its
 * crystal field is exact (Linux: X86_FEATURE_TSC_KNOWN_FREQ).  Without
 * the crystal (most 2015-2020 Intel client parts), leaf 0x16's base
 * frequency is a marketing figure the SDM says not to use as the TSC
 * rate: the TSC is measured against the HPET, PM timer or PIT, and 0x16
 * only bounds that measurement, as Linux's tsc_refine_calibration_work()
 * keeps the early value when the refined one is more than 1% off.
 * Also the measurement against a reference clock, and the TSC_ADJUST
 * correction an AP's warp asks for. */
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

/* Reads the reference between two TSC reads, retrying while they are far
 * apart (an SMI, or the host preempting a vCPU, in between).  *tsc is the
 * midpoint. */
static u64 read_ref_tsc(const struct tsc_ref *ref, u64 *tsc)
{
	u64 a, b, r;

	for (int i = 0;; i++) {
		a = ref->tsc();
		r = ref->read();
		b = ref->tsc();
		/* 100k cycles: 20-100 us on any CPU we run on. */
		if (b - a < 100000 || i == 50)
			break;
	}
	*tsc = a + (b - a) / 2;
	return r;
}

#define MEASURE_ABSENT 0
#define MEASURE_SHORT (~0ull)

/* Counts TSC cycles over ms of the reference.  MEASURE_ABSENT if it did
 * not move within limit cycles (gated, absent), MEASURE_SHORT if it moved
 * but was not seen to reach its count (the CPU stopped longer than the
 * counter takes to wrap, or counts far too slowly). */
static u64 measure(const struct tsc_ref *ref, unsigned int ms, u64 limit)
{
	u64 mask = ref->bits >= 64 ? ~0ull : (1ull << ref->bits) - 1;
	u64 want = ref->hz * ms / 1000, r0, r1, t0, t1;

	r0 = read_ref_tsc(ref, &t0);
	do {
		r1 = ref->read();
		if (ref->tsc() - t0 > limit) {
			/* The time is up by the TSC, but this CPU may have
			 * been stopped (an SMI, the host) since the read just
			 * made: ask the reference again before judging it. */
			r1 = ref->read();
			if (((r1 - r0) & mask) >= want)
				break;
			return ((r1 - r0) & mask) ? MEASURE_SHORT : MEASURE_ABSENT;
		}
	} while (((r1 - r0) & mask) < want);
	r1 = read_ref_tsc(ref, &t1);
	if (!((r1 - r0) & mask))
		return MEASURE_SHORT;
	return (t1 - t0) * ref->hz / ((r1 - r0) & mask) / 1000;
}

#define MEDIAN_MAX_RUNS 15

/* A run that came up short is run again (up to three times the runs): one
 * stall of the CPU must not make a working clock look absent. */
u64 tsc_measure_median_khz(const struct tsc_ref *ref, unsigned int ms, u64 limit, int runs)
{
	u64 v[MEDIAN_MAX_RUNS];
	int n = 0;

	if (runs < 1 || runs > MEDIAN_MAX_RUNS)
		return 0;
	for (int tries = 0; n < runs && tries < 3 * runs; tries++) {
		u64 khz = measure(ref, ms, limit);

		if (khz == MEASURE_ABSENT)
			return 0;
		if (khz != MEASURE_SHORT)
			v[n++] = khz;
	}
	if (n < runs)
		return 0;
	for (int i = 1; i < n; i++)		/* insertion sort: a few values */
		for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
			u64 t = v[j]; v[j] = v[j - 1]; v[j - 1] = t;
		}
	return v[n / 2];
}
