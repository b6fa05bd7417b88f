/*
 * tests/host/timer_shim/kernel/time.h - host stand-in for kernel/time.h:
 * jiffies is the test's counter (read atomically: shim ticks advance it
 * while other shim CPUs read it), ktime_get_ns() the monotonic clock.
 */
#pragma once

#include <time.h>
#include "kernel/types.h"

extern unsigned long shim_jiffies;
#define jiffies __atomic_load_n(&shim_jiffies, __ATOMIC_RELAXED)
#define HZ 1000

static inline unsigned long msecs_to_jiffies(unsigned int ms) { return ms; }
static inline unsigned int jiffies_to_msecs(unsigned long j) { return (unsigned int)j; }

#define time_after(a, b) ((long)((b) - (a)) < 0)
#define time_before(a, b) time_after(b, a)
#define time_after_eq(a, b) ((long)((a) - (b)) >= 0)

static inline u64 ktime_get_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ull + (u64)ts.tv_nsec;
}
void mdelay(unsigned long ms);
