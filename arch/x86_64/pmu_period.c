/* arch/x86_64/pmu_period.c: the PMU counter's MSR and period, as Linux's
 * perf_event_intel chooses them.  Through the legacy MSR 0xC1 a write
 * keeps bits 31:0 and sign-extends bit 31, so a period of 2^31 or more
 * would load a small positive count that takes days to overflow: there
 * the period stays below 2^31 (Linux's max_period).  The full-width alias
 * 0x4C1, where PERF_CAPABILITIES offers it, takes the whole width; either
 * way the period stays below half the counter (an overflow must be seen
 * before the count comes round again).  Pure: tests/host/test_pmu.c. */
#include "arch/x86_64/pmu.h"

void pmu_choose_counter(u64 period, unsigned int width, bool full_width,
			struct pmu_counter *c)
{
	c->msr = full_width ? MSR_IA32_PMC0 : MSR_PMC0;
	if (!full_width && period > (1ull << 31) - 1)
		period = (1ull << 31) - 1;
	if (width < 64 && period > (1ull << (width - 1)) - 1)
		period = (1ull << (width - 1)) - 1;
	c->period = period;
}

u64 pmu_counter_value(const struct pmu_counter *c, unsigned int width)
{
	u64 mask = width >= 64 ? ~0ull : (1ull << width) - 1;

	return (-c->period) & mask;
}
