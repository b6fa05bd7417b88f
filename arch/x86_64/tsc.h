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
 * TSC in turns under a lock.  Where a step backwards is seen and the CPU
 * has IA32_TSC_ADJUST, cpu's TSC is moved by it once and the check run
 * again (Linux's tsc_sync.c).  Returns the largest backwards step seen
 * in the last run, in cycles (0: in sync as far as can be seen), -1 if
 * cpu did not join. */
s64 tsc_check_sync(int cpu);

/* Each AP, before it reads any time: its TSC_ADJUST set to the boot
 * CPU's.  tsc_adjust_fixed_cpus(): how many needed it. */
void tsc_adjust_init_ap(void);
int tsc_adjust_fixed_cpus(void);

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
/* A reference clock to time the TSC against (tsc_pick.c, pure): read()
 * its count, tsc() an ordered TSC read (the host test fakes both). */
struct tsc_ref {
	u64 (*read)(void);
	u64 (*tsc)(void);
	u64 hz;
	unsigned int bits;	/* significant bits of the count */
};
/* Runs measurements of ms each and returns the median kHz; each gives up
 * after limit TSC cycles.  0 if the reference never moved (absent or
 * gated), or if runs good measurements could not be had. */
u64 tsc_measure_median_khz(const struct tsc_ref *ref, unsigned int ms, u64 limit, int runs);
/* The TSC_ADJUST change for a target CPU whose warp check saw
 * target_warp (its reads behind CPU 0's) and source_warp (CPU 0's behind
 * its): positive moves it forward. */
s64 tsc_adjust_correction(s64 target_warp, s64 source_warp);
