/* tests/host/ktest.h: a tiny test helper for the host unit tests.
 *
 *   static void cmdline_empty(void) { EXPECT_EQ(parse(""), 0); }
 *   int main(void) { RUN(cmdline_empty); return ktest_summary(); }
 *
 * RUN prints "PASS name" or "FAIL name" per case, after the lines of the
 * expectations that failed; ktest_summary() prints "N passed, N failed"
 * of cases and returns the exit status (0 only if none failed and at
 * least one ran).  EXPECT* record a failure and go on (EXPECT_MSG with a
 * printf-style message); ASSERT* return
 * from the case.  Header-only: one test program includes it once. */
#pragma once

#include <stdio.h>
#include <string.h>

static int ktest_passed, ktest_failed;
static int ktest_case_failures;

#define KTEST_FAIL(fmt, ...) do {                                               \
	printf("    %s:%d: " fmt "\n", __FILE__, __LINE__, ##__VA_ARGS__);       \
	ktest_case_failures++;                                                  \
	} while (0)

#define EXPECT(cond) do {                                                       \
	if (!(cond))                                                            \
		KTEST_FAIL("expected %s", #cond);                               \
	} while (0)
#define EXPECT_MSG(cond, fmt, ...) do {                                         \
	if (!(cond))                                                            \
		KTEST_FAIL("expected %s: " fmt, #cond, ##__VA_ARGS__);          \
	} while (0)
#define EXPECT_EQ(a, b) do {                                                    \
	long long __a = (long long)(a), __b = (long long)(b);                   \
	if (__a != __b)                                                         \
		KTEST_FAIL("expected %s == %s (%lld vs %lld)", #a, #b, __a, __b); \
	} while (0)
#define EXPECT_STREQ(a, b) do {                                                 \
	const char *__a = (a), *__b = (b);                                      \
	if (!__a || !__b || strcmp(__a, __b))                                   \
		KTEST_FAIL("expected %s == %s (\"%s\" vs \"%s\")", #a, #b,      \
			   __a ? __a : "(null)", __b ? __b : "(null)");         \
	} while (0)
#define ASSERT(cond) do {                                                       \
	if (!(cond)) {                                                          \
		KTEST_FAIL("assertion %s failed", #cond);                       \
		return;                                                         \
	} } while (0)

static inline void ktest_run(const char *name, void (*fn)(void))
{
	ktest_case_failures = 0;
	fn();
	if (ktest_case_failures) {
		printf("FAIL %s\n", name);
		ktest_failed++;
	} else {
		printf("PASS %s\n", name);
		ktest_passed++;
	}
	fflush(stdout);
}
#define RUN(fn) ktest_run(#fn, fn)

static inline int ktest_summary(void)
{
	printf("%d passed, %d failed\n", ktest_passed, ktest_failed);
	return ktest_failed || !ktest_passed;
}
