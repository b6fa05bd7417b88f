/* tests/host/locks_shim/kernel/time.h - host stand-in: the monotonic clock. */
#pragma once

#include <time.h>
#include "kernel/types.h"

static inline u64 ktime_get_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ull + (u64)ts.tv_nsec;
}
