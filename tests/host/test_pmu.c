/* tests/host/test_pmu.c: arch/x86_64/pmu_period.c, how the profiler's PMU
 * counter is written for a period, against a model of what the CPU does
 * with the write (SDM vol 3 20.2.6: through MSR 0xC1 bits 31:0 are kept
 * and bit 31 is sign-extended; through 0x4C1 the whole width is taken).
 * TCG has no PMU, so this is where a period of 2^31 cycles or more (1 Hz
 * on a 2.2 GHz CPU) is seen.  Uses ktest.h. */
#include <stdio.h>
#include "arch/x86_64/pmu.h"
#include "ktest.h"

/* The counter after writing v to msr, on a counter of width bits. */
static u64 counter_after_write(u32 msr, u64 v, unsigned int width)
{
	u64 mask = width >= 64 ? ~0ull : (1ull << width) - 1;

	if (msr == MSR_PMC0)
		v = (u64)(s64)(int32_t)(u32)v;
	return v & mask;
}

/* Events until the counter overflows (wraps past all ones). */
static u64 events_to_overflow(u64 counter, unsigned int width)
{
	u64 mask = width >= 64 ? ~0ull : (1ull << width) - 1;

	return ((mask - counter) & mask) + 1;
}

static u64 overflow_after(u64 period, unsigned int width, bool full_width, u64 *chosen)
{
	struct pmu_counter c;

	pmu_choose_counter(period, width, full_width, &c);
	*chosen = c.period;
	return events_to_overflow(counter_after_write(c.msr, pmu_counter_value(&c, width), width),
				  width);
}

/* Whatever is chosen, the counter must overflow after the chosen period,
 * and that period must be the one asked for where it fits. */
static void pmu_period_as_written(void)
{
	static const u64 periods[] = { 10000, 2200000, 2200000000ull, (1ull << 31) - 1,
				       1ull << 31, 1ull << 40, 1ull << 47, ~0ull };
	static const unsigned int widths[] = { 40, 48 };
	u64 chosen;

	for (unsigned i = 0; i < sizeof(periods) / sizeof(periods[0]); i++)
		for (unsigned w = 0; w < 2; w++)
			for (int fw = 0; fw < 2; fw++) {
				u64 got = overflow_after(periods[i], widths[w], fw, &chosen);

				EXPECT_MSG(got == chosen, "period %llu width %u %s: overflows after %llu, chose %llu",
					   (unsigned long long)periods[i], widths[w], fw ? "full-width" : "legacy",
					   (unsigned long long)got, (unsigned long long)chosen);
				EXPECT(chosen <= periods[i]);
				EXPECT(chosen < 1ull << (widths[w] - 1));
			}
}

/* 1 Hz on a 2.2 GHz CPU: the full width keeps the period; the legacy MSR
 * clamps it below 2^31 (Linux's max_period) instead of loading a count
 * that overflows after days. */
static void pmu_one_hz(void)
{
	u64 chosen;
	struct pmu_counter c;

	EXPECT_EQ(overflow_after(2200000000ull, 48, true, &chosen), 2200000000ull);
	EXPECT_EQ(chosen, 2200000000ull);
	EXPECT_EQ(overflow_after(2200000000ull, 48, false, &chosen), (1ull << 31) - 1);
	pmu_choose_counter(2200000000ull, 48, true, &c);
	EXPECT_EQ(c.msr, MSR_IA32_PMC0);
	pmu_choose_counter(2200000000ull, 48, false, &c);
	EXPECT_EQ(c.msr, MSR_PMC0);
	/* A period that fits goes through unchanged either way. */
	EXPECT_EQ(overflow_after(2200000, 48, false, &chosen), 2200000);
}

int main(void)
{
	RUN(pmu_period_as_written);
	RUN(pmu_one_hz);
	return ktest_summary();
}
