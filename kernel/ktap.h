/* kernel/ktap.h: the in-kernel test framework.  Output is KTAP version 1,
 * as Linux's KUnit prints it, so kunit.py-style tools and tests/runner.py
 * read it:
 *
 *   KTAP version 1
 *   1..2
 *       KTAP version 1
 *       # Subtest: mm
 *       1..3
 *       ok 1 page_alloc
 *       not ok 2 kmalloc_poison
 *       ok 3 wx # SKIP no NX on this CPU
 *   not ok 1 mm
 *
 * A suite is a static list of cases placed in the `ktap_suites` section:
 *
 *   static void page_alloc(void) { KTAP_EXPECT(alloc_page() != NULL); }
 *   KTAP_SUITE(mm, KTAP_CASE(page_alloc), KTAP_CASE(kmalloc_poison));
 *
 * Cases are void functions; KTAP_EXPECT records a failure and goes on,
 * KTAP_ASSERT records it and returns from the case.  test=all or
 * test=mm,rcu on the command line selects suites; test=paper_* selects by
 * prefix. */
#pragma once

#include "kernel/types.h"
#include "kernel/printk.h"

struct ktap_case {
	const char *name;
	void (*run)(void);
	unsigned int timeout_ms;	/* 0: the default (ktap.timeout=) */
};

struct ktap_suite {
	const char *name;
	const struct ktap_case *cases;
	int (*init)(void);		/* optional; non-zero skips the suite */
	void (*exit)(void);		/* optional */
};

#define KTAP_CASE(fn) { #fn, fn, 0 }
#define KTAP_CASE_TIMEOUT(fn, ms) { #fn, fn, ms }

#define KTAP_SUITE_FULL(sname, init_fn, exit_fn, ...)                            \
	static const struct ktap_case __ktap_cases_##sname[] = { __VA_ARGS__, { 0 } }; \
	static const struct ktap_suite __ktap_suite_##sname                          \
		__used __section("ktap_suites") __aligned(8) = {                     \
		#sname, __ktap_cases_##sname, init_fn, exit_fn }
#define KTAP_SUITE(sname, ...) KTAP_SUITE_FULL(sname, NULL, NULL, __VA_ARGS__)

/* Marks the running case failed, printing why as a KTAP diagnostic. */
void ktap_fail(const char *fmt, ...) __printf(1, 2);
/* Marks the running case skipped (reported "# SKIP reason"). */
void ktap_skip(const char *fmt, ...) __printf(1, 2);
/* A diagnostic line ("# ...") at the running case's indentation. */
void ktap_log(const char *fmt, ...) __printf(1, 2);
/* True while the running case has not failed. */
bool ktap_case_ok(void);
/*
 * The running case is about to provoke n WARNINGs on purpose (a misuse it
 * checks is reported; `what` says which, or NULL).  Any other WARNING while
 * a case runs (WARN(), from any CPU) fails the case: the core reports a bug
 * with a WARN, and the framework decides that inside a test a bug nobody
 * announced is a failure.  The log says so first, in a line
 * "# expected: ..." (ktap_expect_alarm()).
 */
void ktap_expect_warnings(unsigned int n, const char *what);
/*
 * The running case is about to provoke an alarm on purpose that is not a
 * WARNING (a stall report, a lockup or BUG report): says so in the log,
 * "# expected: <what>, from case <name>", on the line before the alarm,
 * so that a reader of the console tells it from a real one.
 */
void ktap_expect_alarm(const char *fmt, ...) __printf(1, 2);

#define KTAP_EXPECT(cond) do {                                              \
	if (!(cond))                                                        \
		ktap_fail("EXPECTATION FAILED at %s:%d: %s", __FILE__, __LINE__, #cond); \
	} while (0)
#define KTAP_EXPECT_EQ(a, b) do {                                           \
	long long __a = (long long)(a), __b = (long long)(b);               \
	if (__a != __b)                                                     \
		ktap_fail("EXPECTATION FAILED at %s:%d: %s == %s (%lld vs %lld)", \
			  __FILE__, __LINE__, #a, #b, __a, __b);            \
	} while (0)
#define KTAP_ASSERT(cond) do {                                              \
	if (!(cond)) {                                                      \
		ktap_fail("ASSERTION FAILED at %s:%d: %s", __FILE__, __LINE__, #cond); \
		return;                                                     \
	} } while (0)

/* Runs the suites named in a comma-separated list ("all" for every one);
 * returns the number of failed suites, or -1 if a name matched none. */
int ktap_run(const char *selection);
/* Prints the name of every suite this build has (for `help`). */
void ktap_list_suites(void);
/* Runs one case in a kthread and reports a case that outlives its timeout
 * as failed; before the scheduler runs, it calls the case directly. */
bool ktap_run_case(const struct ktap_case *c, unsigned int timeout_ms);
