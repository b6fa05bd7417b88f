/* tests/kernel/bounded_wait.h: the one bounded wait loop under the tests'
 * waits (tests/kernel/test_helpers.h; tests/host/test_timer.c on the
 * host).  BOUNDED_WAIT(cond, ms, step) evaluates cond until it holds or
 * ms have passed, doing step between tries; true if cond. */
#pragma once

#include "kernel/time.h"

#define BOUNDED_WAIT(cond, ms, step) ({					\
	u64 __end = ktime_get_ns() + (u64)(ms) * 1000000ull;		\
	bool __ok;							\
	while (!(__ok = (cond)) && ktime_get_ns() < __end)		\
		step;							\
	__ok; })
