/*
 * kernel/math.h - integer square root and sample statistics, for the
 * benchmark rows of the test and scenario suites (the kernel has no
 * floating point, so a standard deviation is an int_sqrt of a variance).
 *
 * Pure C: tests/host builds kernel/math.c unchanged and checks it against
 * the host's libm.
 */
#pragma once

#include "kernel/types.h"

/* floor(sqrt(x)), Linux's name and type (unsigned long is 64 bits here). */
unsigned long int_sqrt(unsigned long x);

/*
 * Over n samples: the mean, the sample standard deviation (n - 1 in the
 * divisor; 0 for n < 2), the median (mean of the middle two for even n),
 * min and max, all in the samples' unit, rounded down.  Callers that want
 * three decimals pass samples in thousandths.  Sorts v in place.  Squares
 * that would overflow 64 bits are taken of deviations scaled down by a
 * power of two, so huge outliers cost precision, never a wrong result.
 */
struct stats {
	u64 mean, stddev, median, min, max;
};
void stats_compute(u64 *v, int n, struct stats *st);
