/* kernel/ktap.c: running KTAP suites and printing their results. */
#include "kernel/ktap.h"
#include "kernel/cmdline.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "kernel/preempt.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/slab.h"
#include "kernel/smp.h"
#include "kernel/trace.h"
#include "kernel/wait.h"
#include "asm/irqflags.h"

extern const struct ktap_suite __start_ktap_suites[], __stop_ktap_suites[];

static unsigned int ktap_timeout_ms = 120000;
core_param(ktap.timeout, ktap_timeout_ms, uint, "per-case time limit in ms for in-kernel tests");

/* Set while a case runs; cases run one at a time. */
static volatile bool case_failed, case_skipped;
static char skip_reason[128];
static const char *indent = "    ";

static void vlog(const char *fmt, va_list ap)
{
	char msg[400];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (!strncmp(msg, "bench ", 6))
		printk_bench(indent, "%s", msg);	/* marks a TSC skew */
	else
		printk_raw("%s# %s\n", indent, msg);
}

void ktap_log(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(fmt, ap);
	va_end(ap);
}

void ktap_fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(fmt, ap);
	va_end(ap);
	case_failed = true;
}

void ktap_skip(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(skip_reason, sizeof(skip_reason), fmt, ap);
	va_end(ap);
	case_skipped = true;
}

/* warn_count when the running case started, and the WARNINGs it announced. */
static unsigned long case_warn_start, case_warns_expected;

/* The running case's name, for the "# expected:" lines. */
static const char *case_name = "?";

void ktap_expect_alarm(const char *fmt, ...)
{
	char what[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	ktap_log("expected: %s, from case %s", what, case_name);
}

void ktap_expect_warnings(unsigned int n, const char *what)
{
	if (!n)
		return;
	if (what)
		ktap_expect_alarm("%u WARNING%s (%s)", n, n == 1 ? "" : "s", what);
	else
		ktap_expect_alarm("%u WARNING%s", n, n == 1 ? "" : "s");
	WRITE_ONCE(case_warns_expected, case_warns_expected + n);
}

static unsigned long unexpected_warnings(void)
{
	unsigned long seen = READ_ONCE(warn_count) - case_warn_start;
	unsigned long expected = READ_ONCE(case_warns_expected);

	return seen > expected ? seen - expected : 0;
}

bool ktap_case_ok(void)
{
	return !case_failed && !unexpected_warnings();
}

/* ---- each case in a kthread, with a time limit ---- */

struct ktap_run {
	const struct ktap_case *c;
	struct completion done;
};

static int ktap_case_thread(void *p)
{
	struct ktap_run *r = p;

	r->c->run();
	complete(&r->done);
	return 0;
}

/*
 * The case runs on this CPU (the boot CPU, like kmain before it).  A case
 * that overruns is reported failed and abandoned: it cannot be killed, so
 * its thread and this record are left to it.
 */
bool ktap_run_case(const struct ktap_case *c, unsigned int timeout_ms)
{
	struct ktap_run *r;
	struct task *t;

	if (!sched_running || in_atomic() || irqs_disabled()) {
		c->run();
		return true;
	}
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r) {
		c->run();
		return true;
	}
	r->c = c;
	init_completion(&r->done);
	t = kthread_create_on_cpu(ktap_case_thread, r, smp_processor_id(), c->name);
	if (!t) {
		kfree(r);
		c->run();
		return true;
	}
	wake_up_process(t);
	if (!wait_for_completion_timeout(&r->done, msecs_to_jiffies(timeout_ms))) {
		printk(KERN_ERR "ktap: case %s still running after %u ms; abandoned\n",
		       c->name, timeout_ms);
		trace_dump("timeout");
		return false;
	}
	kthread_join(t);
	kfree(r);
	return true;
}

/* Suite names are C identifiers; on the command line '-' may stand for
 * '_' (test=selftest-crash), and a trailing '*' matches any rest
 * (test=paper_*). */
static bool name_matches(const char *name, const char *p, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (p[i] == '*' && i == len - 1)
			return true;
		char c = p[i] == '-' ? '_' : p[i];
		if (!name[i] || name[i] != c)
			return false;
	}
	return !name[len];
}

/*
 * The selection is a list of entries: suite names (or patterns), "all"
 * (every suite but the selftest_ ones, which crash on purpose), and
 * exclusions: "-suite" leaves a suite out, "-suite.case" one case of it
 * (reported "# SKIP excluded by test="), e.g. test=all,-profile.qq6_
 * preemptible_reader for a case that another configuration runs.
 * for_each_entry() calls fn on each, with its length, until fn returns
 * true.
 */
static bool for_each_entry(const char *sel, bool (*fn)(const char *p, size_t len, void *arg),
			   void *arg)
{
	for (const char *p = sel; *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len && fn(p, len, arg))
			return true;
		p += len;
		if (*p == ',')
			p++;
	}
	return false;
}

struct entry_query {
	const char *suite, *kase;	/* kase: NULL for the suite itself */
};

/* An exclusion "-suite" or "-suite.case": does it name q's suite (a
 * whole-suite one, when q->kase is NULL) or q's case? */
static bool excludes(const char *p, size_t len, void *arg)
{
	struct entry_query *q = arg;
	size_t dot = 0;

	if (*p != '-')
		return false;
	p++, len--;
	while (dot < len && p[dot] != '.')
		dot++;
	if (dot == len)
		return !q->kase && name_matches(q->suite, p, len);
	return q->kase && name_matches(q->suite, p, dot) &&
	       name_matches(q->kase, p + dot + 1, len - dot - 1);
}

static bool includes(const char *p, size_t len, void *arg)
{
	struct entry_query *q = arg;

	if (*p == '-')
		return false;
	if (len == 3 && !strncmp(p, "all", 3))
		return strncmp(q->suite, "selftest_", 9) != 0;
	return name_matches(q->suite, p, len);
}

static bool selected(const char *name, const char *sel)
{
	struct entry_query q = { name, NULL };

	return for_each_entry(sel, includes, &q) && !for_each_entry(sel, excludes, &q);
}

static bool case_excluded(const char *suite, const char *kase, const char *sel)
{
	struct entry_query q = { suite, kase };

	return for_each_entry(sel, excludes, &q);
}

/* An exclusion that names no suite or case is a typo: it would leave
 * everything in without a word.  Returns true (and says so) for one. */
static bool exclusion_unknown(const char *p, size_t len, void *arg)
{
	(void)arg;
	if (*p != '-')
		return false;
	for (const struct ktap_suite *s = __start_ktap_suites; s < __stop_ktap_suites; s++) {
		struct entry_query q = { s->name, NULL };

		if (excludes(p, len, &q))
			return false;
		for (int i = 0; s->cases[i].name; i++) {
			q.kase = s->cases[i].name;
			if (excludes(p, len, &q))
				return false;
		}
	}
	printk(KERN_ERR "ktap: the exclusion '%.*s' names no suite or case\n", (int)len, p);
	return true;
}

static int count_cases(const struct ktap_suite *s)
{
	int n = 0;
	while (s->cases[n].name)
		n++;
	return n;
}

/* Returns true if the suite passed (skipped cases do not fail it). */
static bool run_suite(const struct ktap_suite *s, int index, const char *selection)
{
	int n = count_cases(s);
	bool ok = true;

	printk_raw("    KTAP version 1\n    # Subtest: %s\n    1..%d\n", s->name, n);
	if (s->init && s->init()) {
		for (int i = 0; i < n; i++)
			printk_raw("    ok %d %s # SKIP suite init failed\n", i + 1, s->cases[i].name);
		printk_raw("ok %d %s # SKIP suite init failed\n", index, s->name);
		return true;
	}
	for (int i = 0; i < n; i++) {
		const struct ktap_case *c = &s->cases[i];
		if (case_excluded(s->name, c->name, selection)) {
			printk_raw("    ok %d %s # SKIP excluded by test=\n", i + 1, c->name);
			continue;
		}
		case_failed = case_skipped = false;
		case_warns_expected = 0;
		case_name = c->name;
		case_warn_start = READ_ONCE(warn_count);
		unsigned int t = c->timeout_ms ? c->timeout_ms : ktap_timeout_ms;
		u64 start = ktime_get_ns();
		if (!ktap_run_case(c, t)) {
			ktap_log("case %s did not finish within %u ms", c->name, t);
			case_failed = true;
		}
		unsigned long unexpected = unexpected_warnings();
		if (unexpected) {
			ktap_log("%lu WARNING(s) the case did not announce (above)", unexpected);
			case_failed = true;
		}
		/* where a slow run's time goes, for trimming make test */
		ktap_log("duration_ms=%llu", (unsigned long long)((ktime_get_ns() - start) / 1000000));
		if (case_failed) {
			ok = false;
			printk_raw("    not ok %d %s\n", i + 1, c->name);
		} else if (case_skipped) {
			printk_raw("    ok %d %s # SKIP %s\n", i + 1, c->name, skip_reason);
		} else {
			printk_raw("    ok %d %s\n", i + 1, c->name);
		}
	}
	if (s->exit)
		s->exit();
	printk_raw("%s %d %s\n", ok ? "ok" : "not ok", index, s->name);
	return ok;
}

void ktap_list_suites(void)
{
	for (const struct ktap_suite *s = __start_ktap_suites; s < __stop_ktap_suites; s++)
		printk(KERN_INFO "ktap:   %s\n", s->name);
}

int ktap_run(const char *selection)
{
	int total = 0, failed = 0, index = 0;

	for (const struct ktap_suite *s = __start_ktap_suites; s < __stop_ktap_suites; s++)
		if (selected(s->name, selection))
			total++;
	if (for_each_entry(selection, exclusion_unknown, NULL)) {
		printk_raw("KTAP version 1\n1..1\nnot ok 1 %s # an exclusion names nothing\n",
			   selection);
		return -1;
	}
	if (!total) {
		printk(KERN_ERR "ktap: no test suite matches '%s'; suites are:\n", selection);
		ktap_list_suites();
		printk_raw("KTAP version 1\n1..1\nnot ok 1 %s # no such suite\n", selection);
		return -1;
	}
	printk_raw("KTAP version 1\n1..%d\n", total);
	for (const struct ktap_suite *s = __start_ktap_suites; s < __stop_ktap_suites; s++)
		if (selected(s->name, selection) && !run_suite(s, ++index, selection))
			failed++;
	printk_raw("# ktap: %d of %d suites failed\n", failed, total);
	return failed;
}
