/*
 * kernel/math.c - int_sqrt() and stats_compute() (see kernel/math.h).
 */
#include "kernel/math.h"

/* Digit by digit, two bits of x per step: exact, no division. */
unsigned long int_sqrt(unsigned long x)
{
	unsigned long r = 0, bit = 1ul << (sizeof(x) * 8 - 2);

	while (bit > x)
		bit >>= 2;
	for (; bit; bit >>= 2) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
	}
	return r;
}

static void sort_u64(u64 *v, int n)
{
	for (int i = 1; i < n; i++) {	/* insertion sort: runs are few */
		u64 x = v[i];
		int j = i - 1;

		for (; j >= 0 && v[j] > x; j--)
			v[j + 1] = v[j];
		v[j + 1] = x;
	}
}

static u64 dev(u64 a, u64 b) { return a > b ? a - b : b - a; }

void stats_compute(u64 *v, int n, struct stats *st)
{
	u64 sum = 0, dmax, limit, sq = 0;
	unsigned shift = 0;

	*st = (struct stats){ 0 };
	if (n <= 0)
		return;
	sort_u64(v, n);
	st->min = v[0];
	st->max = v[n - 1];
	st->median = n % 2 ? v[n / 2] : v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
	/* sum/n + remainders: no overflow however large the samples. */
	u64 rem = 0;
	for (int i = 0; i < n; i++) {
		sum += v[i] / (u64)n;
		rem += v[i] % (u64)n;
	}
	st->mean = sum + rem / (u64)n;
	if (n < 2)
		return;
	/* n squares of (d >> shift) must fit: (d >> shift) <= sqrt(2^64 / n). */
	dmax = MAX(dev(st->max, st->mean), dev(st->min, st->mean));
	limit = int_sqrt(~0ul / (unsigned long)n);
	while ((dmax >> shift) > limit)
		shift++;
	for (int i = 0; i < n; i++) {
		u64 d = dev(v[i], st->mean) >> shift;

		sq += d * d;
	}
	st->stddev = (u64)int_sqrt(sq / (u64)(n - 1)) << shift;
}
