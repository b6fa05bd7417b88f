/* kernel/time.h: the kernel's clocks.  jiffies counts the ticks (hz per
 * second) of the CPU that holds its duty (kernel/tick_sched.c);
 * ktime_get_ns() is nanoseconds since boot from the TSC (calibrated by
 * arch/x86_64/tsc.c), comparable across CPUs once the TSC sync check has
 * passed. */
#pragma once

#include "kernel/types.h"

/* A host test build defines jiffies before this header, as a relaxed
 * atomic load of the counter its tick thread advances. */
#ifndef jiffies
extern volatile u64 jiffies;
#endif
extern unsigned int hz;		/* ticks per second, `hz=` (default 1000) */
#define HZ hz

/* TSC frequency in kHz (a conservative guess until calibrated). */
extern u64 tsc_khz;
/* The largest TSC step backwards seen between CPUs after the boot's sync
 * (arch); 0 when they agree.  Benchmark rows carry it when nonzero. */
extern u64 tsc_sync_skew;

static inline unsigned long msecs_to_jiffies(unsigned int ms)
{
	return ((u64)ms * hz + 999) / 1000;
}

static inline unsigned int jiffies_to_msecs(unsigned long j)
{
	return (unsigned int)((u64)j * 1000 / hz);
}

#define time_after(a, b) ((long)((b) - (a)) < 0)
#define time_before(a, b) time_after(b, a)
#define time_after_eq(a, b) ((long)((a) - (b)) >= 0)

/* Raw cycle counter (rdtsc), unordered: for cheap stamps. */
u64 get_cycles(void);
/* Ordered against earlier instructions (lfence; rdtsc): for measuring. */
u64 get_cycles_ordered(void);
u64 ktime_get_ns(void);
/* A get_cycles() stamp on ktime_get_ns()'s scale (trace timestamps). */
u64 cycles_to_ktime_ns(u64 tsc);
u64 cycles_to_ns(u64 cycles);
u64 ns_to_cycles(u64 ns);
/* Busy-wait delays, TSC-based, never shorter than asked. */
void udelay(unsigned long us);
void ndelay(unsigned long ns);
void mdelay(unsigned long ms);

/* Set by the arch's calibration (tsc.c); recomputes the conversions. */
void time_set_tsc_khz(u64 khz);
