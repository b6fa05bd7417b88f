/*
 * tests/host/rcu/shim/kernel/time.h - the host's kernel/time.h (found
 * before the real one by include-path order).  The same interface; two
 * differences the host needs:
 *  - jiffies is read with a relaxed atomic load.  The kernel's
 *    `volatile u64 jiffies` is one mov on x86, written only by CPU 0's
 *    tick; on the host the tick is a timer thread, and ThreadSanitizer
 *    must see the reads as the intended concurrent loads they are.
 *  - hz is fixed at 1000 (1 jiffy = 1 ms of host time).
 */
#pragma once

#include "kernel/types.h"

extern u64 shim_jiffies;
#define jiffies ((u64)__atomic_load_n(&shim_jiffies, __ATOMIC_RELAXED))
extern unsigned int hz;
#define HZ hz
extern u64 tsc_khz;

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

u64 get_cycles(void);
u64 get_cycles_ordered(void);
u64 ktime_get_ns(void);
u64 cycles_to_ns(u64 cycles);
u64 ns_to_cycles(u64 ns);
/* Busy-waits that are interrupt points (irqs, NMIs), as on real hardware. */
void udelay(unsigned long us);
void ndelay(unsigned long ns);
void mdelay(unsigned long ms);
void time_set_tsc_khz(u64 khz);
