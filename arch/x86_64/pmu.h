/* arch/x86_64/pmu.h: how the profiler programs the architectural PMU's
 * counter 0 for a period (arch/x86_64/pmu_period.c, pure: host-tested,
 * since TCG has no PMU; arch/x86_64/profile_nmi.c applies it). */
#pragma once

#include "kernel/types.h"

#define MSR_PMC0	0xc1	/* legacy: a write takes bits 31:0, sign-extends bit 31 */
#define MSR_IA32_PMC0	0x4c1	/* full-width alias (PERF_CAPABILITIES bit 13) */

struct pmu_counter {
	u32 msr;		/* where counter 0 is written */
	u64 period;		/* events between overflows, as clamped */
};

/* period: events wanted per overflow; width: the counter's bits (CPUID
 * 0xa, at least 32); full_width: CPUID.1:ECX.PDCM and
 * IA32_PERF_CAPABILITIES bit 13 (full-width writes) both set. */
void pmu_choose_counter(u64 period, unsigned int width, bool full_width,
			struct pmu_counter *c);
/* What to write to c->msr so that the counter overflows after c->period
 * events. */
u64 pmu_counter_value(const struct pmu_counter *c, unsigned int width);
