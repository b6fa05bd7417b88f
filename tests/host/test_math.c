/*
 * tests/host/test_math.c - host test of kernel/math.c: int_sqrt() exact
 * (floor) on every small value, on squares and their neighbours up to
 * 2^64 - 1, and on random values; stats_compute() against a long-double
 * reference, including samples whose squared deviations overflow 64 bits.
 * Exits non-zero on any failure.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "kernel/math.h"
#include "ktest.h"


static int is_floor_sqrt(unsigned long x, unsigned long r)
{
	unsigned __int128 r2 = (unsigned __int128)r * r, r1 = (unsigned __int128)(r + 1) * (r + 1);

	return r2 <= x && r1 > x;
}

static unsigned long rnd64(void)
{
	return ((unsigned long)random() << 42) ^ ((unsigned long)random() << 21) ^
	       (unsigned long)random();
}

static void test_int_sqrt(void)
{
	for (unsigned long x = 0; x < 1000000; x++)
		if (!is_floor_sqrt(x, int_sqrt(x))) {
			EXPECT_MSG(0, "int_sqrt(%lu) = %lu", x, int_sqrt(x));
			break;
		}
	for (unsigned long r = 1; r < (1ul << 32); r = r * 3 + 1) {
		unsigned long sq = r * r;

		EXPECT_MSG(int_sqrt(sq) == r, "int_sqrt(%lu^2) = %lu", r, int_sqrt(sq));
		EXPECT_MSG(int_sqrt(sq - 1) == r - 1, "int_sqrt(%lu^2 - 1) = %lu", r, int_sqrt(sq - 1));
		EXPECT_MSG(is_floor_sqrt(sq + 1, int_sqrt(sq + 1)), "int_sqrt(%lu^2 + 1)", r);
	}
	EXPECT_MSG(int_sqrt(~0ul) == 0xfffffffful, "int_sqrt(2^64-1) = %lu", int_sqrt(~0ul));
	for (int i = 0; i < 200000; i++) {
		unsigned long x = rnd64();

		if (!is_floor_sqrt(x, int_sqrt(x))) {
			EXPECT_MSG(0, "int_sqrt(%lu) = %lu", x, int_sqrt(x));
			break;
		}
	}
	printf("int_sqrt: exact on 0..10^6, squares +-1 to 2^64, 2e5 random values\n");
}

/* The reference: long double, then the same rounding down as the kernel. */
static void check_stats(u64 *v, int n, const char *what)
{
	u64 copy[64];
	struct stats st;
	long double sum = 0, mean, var = 0, sd;

	for (int i = 0; i < n; i++) {
		copy[i] = v[i];
		sum += v[i];
	}
	stats_compute(copy, n, &st);
	for (int i = 1; i < n; i++)
		EXPECT_MSG(copy[i - 1] <= copy[i], "%s: not sorted at %d", what, i);
	mean = sum / n;
	for (int i = 0; i < n; i++)
		var += (v[i] - mean) * (v[i] - mean);
	sd = n > 1 ? sqrtl(var / (n - 1)) : 0;
	EXPECT_MSG(fabsl(st.mean - mean) <= 1 + mean * 1e-15L, "%s: mean %llu, want %.3Lf",
	      what, (unsigned long long)st.mean, mean);
	/* Exact but for the integer mean and, for huge spreads, the scaling. */
	EXPECT_MSG(fabsl(st.stddev - sd) <= 2 + sd * 1e-6L, "%s: stddev %llu, want %.3Lf",
	      what, (unsigned long long)st.stddev, sd);
	EXPECT_MSG(st.min == copy[0] && st.max == copy[n - 1], "%s: min/max", what);
	u64 med = n % 2 ? copy[n / 2] : copy[n / 2 - 1] + (copy[n / 2] - copy[n / 2 - 1]) / 2;
	EXPECT_MSG(st.median == med, "%s: median %llu want %llu", what,
	      (unsigned long long)st.median, (unsigned long long)med);
}

static void test_stats(void)
{
	u64 one[1] = { 42 }, same[5] = { 7, 7, 7, 7, 7 };
	u64 small[7] = { 5, 1, 4, 1, 5, 9, 2 }, even[6] = { 10, 20, 30, 40, 50, 61 };
	u64 huge[4] = { 0, ~0ull, 1ull << 63, 12345 }, big[64];
	struct stats st;

	stats_compute(one, 1, &st);
	EXPECT_MSG(st.mean == 42 && st.stddev == 0 && st.median == 42, "one sample");
	stats_compute(one, 0, &st);
	EXPECT_MSG(st.mean == 0 && st.max == 0, "no samples");
	check_stats(same, 5, "equal");
	check_stats(small, 7, "small");
	check_stats(even, 6, "even");
	check_stats(huge, 4, "huge");
	for (int round = 0; round < 2000; round++) {
		int n = 2 + (int)(random() % 63);
		unsigned shift = (unsigned)(random() % 64);

		for (int i = 0; i < n; i++)
			big[i] = rnd64() >> shift;
		check_stats(big, n, "random");
	}
	printf("stats_compute: mean, stddev, median, min, max match long double\n");
}

int main(void)
{
	srandom(4);
	RUN(test_int_sqrt);
	RUN(test_stats);
	return ktest_summary();
}
