/* arch/x86_64/tsc.h: TSC calibration and the cross-CPU sync check. */
#pragma once

#include "kernel/types.h"

extern bool tsc_invariant;
extern const char *tsc_method;	/* "cpuid-15h", "cpuid-16h", "hpet", "pmtimer", "pit", "guess" */

/* Finds the TSC frequency (CPUID 0x15 with a crystal, else measured on
 * the HPET, the ACPI PM timer or the PIT and bounded by CPUID 0x16;
 * tsc.calibrate= tries one of them first) and hands it to kernel/time.c.
 * Needs acpi_info. */
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

/* The choice between CPUID and a measurement (arch/x86_64/tsc_pick.c,
 * pure: host-tested). */
enum tsc_pick {
	TSC_PICK_NONE,		/* nothing known */
	TSC_PICK_LEAF15,	/* CPUID 0x15 with its crystal: exact */
	TSC_PICK_MEASURED,	/* measured, within 2% of 0x16 if it exists */
	TSC_PICK_LEAF16_BOUND,	/* measured more than 2% off 0x16: 0x16 kept */
	TSC_PICK_LEAF16,	/* nothing measured: 0x16's base frequency */
};
/* CPUID 0x15: EAX denominator, EBX numerator, ECX crystal Hz; 0 unless
 * all three are given. */
u64 tsc_leaf15_khz(u32 denom, u32 numer, u32 crystal_hz);
u64 tsc_pick_khz(u64 leaf15_khz, u64 leaf16_khz, u64 measured_khz, enum tsc_pick *why);
