/* arch/x86_64/tsc.h: TSC calibration and the cross-CPU sync check. */
#pragma once

#include "kernel/types.h"

extern bool tsc_invariant;
extern const char *tsc_method;	/* "cpuid-15h", "cpuid-16h", "hpet", "pmtimer", "pit" */

/* Finds the TSC frequency (CPUID 0x15/0x16, else HPET, else the ACPI PM
 * timer, else the PIT; tsc.calibrate= tries one of them first) and hands
 * it to kernel/time.c.  Needs acpi_info. */
void tsc_init(void);

/* Runs the warp check between CPU 0 (the caller) and cpu: both read the
 * TSC in turns under a lock; returns the largest backwards step seen, in
 * cycles (0: in sync as far as can be seen).  -1 if cpu did not join. */
s64 tsc_check_sync(int cpu);

/* Reference clocks, exposed for the tests: elapsed time in ns of a busy
 * wait of about ms milliseconds on each, or 0 if that clock is absent. */
u64 tsc_measure_khz_hpet(unsigned int ms);
u64 tsc_measure_khz_pmtimer(unsigned int ms);
u64 tsc_measure_khz_pit(unsigned int ms);
