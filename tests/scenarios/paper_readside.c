/* tests/scenarios/paper_readside.c: the article's first performance
 * graphs: read-side cost of each reader type by CPU count (cs_ns=0), the
 * empty loop beside it (Quick Quiz 1 of the article, docs/article.md), the
 * harness's own cost per section beside that (readside_harness), and the
 * goal ratios at the largest count.  Prints `# bench name=readside ...`
 * rows (docs/design.md); the checks that can fail are refscale's: every
 * reader did all its sections, left preempt_count as it found it, and the
 * primitive is idle afterwards.
 *
 *   refscale.cpus=1,2,4,8,16   CPU counts (those above the online count are
 *                              skipped; default 1,2,4,8,16 full, 1,2,4,..,N quick)
 *   refscale.types=rwlock,...  reader types (default: all)
 */
#include "tests/scenarios/refscale.h"
#include "kernel/cmdline.h"
#include "kernel/ktap.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "kernel/system.h"
#include "kernel/time.h"

static char *rs_cpus_param;
core_param(refscale.cpus, rs_cpus_param, charp,
	   "CPU counts of paper_readside, e.g. 1,2,4,8,16 (default: 1 and all online quick; powers of two up to those online full)");
static char *rs_types_param;
core_param(refscale.types, rs_types_param, charp,
	   "reader types of paper_readside (default all): empty,rcu-sched,rcu,rcu-nonpreempt,rwlock,rwlock-fair,spinlock,refcnt,refcnt-percpu,seqlock,srcu");
static int cpu_counts(unsigned int *out, int max)
{
	int online = num_online_cpus(), n = 0;

	if (rs_cpus_param) {
		unsigned int v[16];
		int k = scen_parse_list(rs_cpus_param, v, 16);

		if (k < 0) {
			ktap_log("refscale.cpus='%s' is not a list of numbers; using the default",
				 rs_cpus_param);
		} else {
			for (int i = 0; i < k && n < max; i++)
				if (v[i] >= 1 && (int)v[i] <= online)
					out[n++] = v[i];
				else
					ktap_log("refscale.cpus: %u CPUs not online (%d are): skipped",
						 v[i], online);
			return n;
		}
	}
	/* Quick: 1 CPU and all online, the two ends the goals compare. */
	if (!scen_full()) {
		out[n++] = 1;
		if (online > 1 && n < max)
			out[n++] = (unsigned int)online;
		return n;
	}
	for (unsigned int c = 1; (int)c <= online && n < max; c *= 2)
		out[n++] = c;
	return n;
}

/*
 * The harness alone at the empty loop's loop count (so at its batch
 * sizes): `# bench name=readside_harness type=harness ...`, whose
 * ns_per_op is what timing adds to every gross figure per section and
 * whose batch_ns the part of it inside the timed batches.
 */
static void readside_harness(int cpus, const struct rs_result *empty)
{
	struct rs_result h;
	int ret = refscale_measure(&rs_ops_harness, cpus, 0, empty->loops, refscale_runs(), &h);

	if (ret) {
		ktap_fail("the harness at %d CPUs: measurement failed (%d)", cpus, ret);
		return;
	}
	refscale_print_row("readside_harness", &rs_ops_harness, &h, NULL);
}

static void readside_type(const char *type)
{
	const struct rs_ops *ops = rs_ops_find(type);
	unsigned int counts[16];
	int n, fails = 0;

	if (!refscale_case_ops(ops, type, rs_types_param, "refscale.types"))
		return;
	if (ops->note)
		ktap_log("%s: %s", type, ops->note);
	n = cpu_counts(counts, 16);
	for (int i = 0; i < n; i++) {
		int cpus = (int)counts[i];
		struct rs_result *r = refscale_zero(ops, cpus), etmp;
		int ret = refscale_measure(ops, cpus, 0, refscale_loops(0), refscale_runs(), r);

		if (ret) {
			ktap_fail("%s at %d CPUs: measurement failed (%d)", type, cpus, ret);
			r->runs = 0;
			fails++;
			continue;
		}
		const struct rs_result *e = strcmp(type, "empty") ? refscale_empty_at(cpus, 0, &etmp) : NULL;

		refscale_print_row("readside", ops, r, e);
		if (r->ps.mean == 0)
			ktap_log("%s at %d CPUs: below the TSC's resolution", type, cpus);
		if (!strcmp(type, "empty"))
			readside_harness(cpus, r);
	}
	if (!n)
		ktap_skip("no CPU count to measure");
}

/* What the rows depend on; the platform is the boot's "# platform:" line. */
static void readside_platform(void)
{
	ktap_log("readside: tsc_khz=%llu cpus_online=%d mode=%s loops=%ld runs=%d",
		 (unsigned long long)tsc_khz, num_online_cpus(),
		 scen_full() ? "full" : "quick", refscale_loops(0), refscale_runs());
	KTAP_EXPECT(tsc_khz > 0);
}

static void readside_empty(void) { readside_type("empty"); }
static void readside_rcu_sched(void) { readside_type("rcu-sched"); }
static void readside_rcu(void) { readside_type("rcu"); }
static void readside_rcu_nonpreempt(void) { readside_type("rcu-nonpreempt"); }
static void readside_rwlock(void) { readside_type("rwlock"); }
static void readside_rwlock_fair(void) { readside_type("rwlock-fair"); }
static void readside_spinlock(void) { readside_type("spinlock"); }
static void readside_refcnt(void) { readside_type("refcnt"); }
static void readside_refcnt_percpu(void) { readside_type("refcnt-percpu"); }
static void readside_seqlock(void) { readside_type("seqlock"); }
static void readside_srcu(void) { readside_type("srcu"); }

/* The read-side goals, as figures (never asserted: speed is reported). */
static u64 mean_of(const char *type, int cpus)
{
	const struct rs_ops *ops = rs_ops_find(type);

	const struct rs_result *r = ops ? refscale_zero(ops, cpus) : NULL;

	return r && r->runs ? r->ps.mean : 0;
}

/* The batch median (batch_ns=) of a row: the cost without the host's
 * descheduling. */
static u64 batch_of(const char *type, int cpus)
{
	const struct rs_ops *ops = rs_ops_find(type);

	const struct rs_result *r = ops ? refscale_zero(ops, cpus) : NULL;

	return r && r->runs ? r->batch_ps : 0;
}

/* a/b as a fixed-point number with three decimals ("x1000"). */
static char *ratio(char *buf, size_t size, u64 a, u64 b)
{
	if (!a || !b) {
		snprintf(buf, size, "na");
		return buf;
	}
	return scen_fmt_ps(buf, size, (s64)(a * 1000 / b));
}

/* One row of the ratios the article's goals are about, at n CPUs, from
 * the figure of() gives each type.  A figure, not a verdict: the case
 * passes whatever they are, and the report judges the goals (tools/report/
 * goals.py), so neither the row nor the case is named a goal. */
static void ratios_row(const char *name, int n, u64 (*of)(const char *type, int cpus))
{
	char r1[SCEN_FMT_BUF], r2[SCEN_FMT_BUF], r3[SCEN_FMT_BUF], r4[SCEN_FMT_BUF];
	u64 rs = of("rcu-sched", n);

	ktap_log("bench name=%s cpus=%d rwlock_over_rcu_sched=%s refcnt_over_rcu_sched=%s rcu_sched_n_over_1=%s rcu_nonpreempt_over_empty=%s",
		 name, n, ratio(r1, sizeof(r1), of("rwlock", n), rs),
		 ratio(r2, sizeof(r2), of("refcnt", n), rs),
		 ratio(r3, sizeof(r3), rs, of("rcu-sched", 1)),
		 ratio(r4, sizeof(r4), of("rcu-nonpreempt", n), of("empty", n)));
}

static void readside_ratios(void)
{
	int n = 0;

	for (int c = NR_CPUS; c >= 1; c--)
		if (mean_of("rcu-sched", c) || mean_of("rwlock", c)) {
			n = c;
			break;
		}
	if (!n) {
		ktap_skip("no rcu-sched or rwlock rows measured");
		return;
	}
	ratios_row("readside_ratios", n, mean_of);
	ratios_row("readside_ratios_batch", n, batch_of);
}

KTAP_SUITE(paper_readside,
	   KTAP_CASE(readside_platform),
	   KTAP_CASE(readside_empty),
	   KTAP_CASE(readside_rcu_sched),
	   KTAP_CASE(readside_rcu),
	   KTAP_CASE(readside_rcu_nonpreempt),
	   KTAP_CASE(readside_rwlock),
	   KTAP_CASE(readside_rwlock_fair),
	   KTAP_CASE(readside_spinlock),
	   KTAP_CASE(readside_refcnt),
	   KTAP_CASE(readside_refcnt_percpu),
	   KTAP_CASE(readside_seqlock),
	   KTAP_CASE(readside_srcu),
	   KTAP_CASE(readside_ratios));
