/* tests/scenarios/paper_readside.c: the article's performance graphs.
 *
 * paper_readside: read-side cost of each reader type by CPU count
 * (cs_ns=0), the empty loop beside it (Quick Quiz 1), the harness's own
 * cost per section beside that (readside_harness), and the goal ratios
 * at the largest count.  paper_cslen: the same at the most CPUs, by
 * critical-section length.  Both print `# bench name=readside ...` rows
 * (DESIGN.md); the checks that can fail are refscale's: every reader did
 * all its sections, left preempt_count as it found it, and the primitive
 * is idle afterwards.
 *
 *   refscale.cpus=1,2,4,8,16   CPU counts (those above the online count are
 *                              skipped; default 1,2,4,8,16 full, 1,2,4,..,N quick)
 *   refscale.types=rwlock,...  reader types (default: all)
 *   cslen.cs_ns=0,1000,...     section lengths of paper_cslen
 *   cslen.types=...            its reader types
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
static char *cslen_param;
core_param(cslen.cs_ns, cslen_param, charp,
	   "critical-section lengths (ns) of paper_cslen (default 1000 quick; 0,100,200,500,1000,2000,5000,10000,20000 full)");
static char *cslen_types_param;
core_param(cslen.types, cslen_types_param, charp,
	   "reader types of paper_cslen (default: empty,rcu-sched,rcu,rcu-nonpreempt,rwlock,rwlock-fair,spinlock,refcnt,refcnt-percpu,seqlock,srcu)");
static unsigned int cslen_cpus_param;
core_param(cslen.cpus, cslen_cpus_param, uint, "CPUs of paper_cslen (default: 16, or all online if fewer)");

/* Results at cs_ns=0 by type and CPU count, for net_ns and the goals. */
static struct rs_result rs_zero[16][NR_CPUS + 1];

static int ops_index(const struct rs_ops *ops)
{
	return (int)(ops - rs_ops_table);
}

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

/* The empty loop at cs_ns > 0, measured once per point. */
static struct empty_at_cs {
	int cpus;
	unsigned int cs_ns;
	struct rs_result r;
} empty_cs[32];

/* paper_cslen's own empty rows, for the other types' net_ns. */
static void empty_keep(int cpus, unsigned int cs_ns, const struct rs_result *r)
{
	for (unsigned int i = 0; cs_ns && i < ARRAY_SIZE(empty_cs); i++)
		if (!empty_cs[i].r.runs) {
			empty_cs[i].cpus = cpus;
			empty_cs[i].cs_ns = cs_ns;
			empty_cs[i].r = *r;
			return;
		}
}

/* The empty loop at this point, measured now if not yet. */
static const struct rs_result *empty_at(int cpus, unsigned int cs_ns, struct rs_result *tmp)
{
	const struct rs_ops *e = rs_ops_find("empty");
	struct empty_at_cs *slot = NULL;

	if (cs_ns == 0 && rs_zero[ops_index(e)][cpus].runs)
		return &rs_zero[ops_index(e)][cpus];
	for (unsigned int i = 0; cs_ns && i < ARRAY_SIZE(empty_cs); i++) {
		if (empty_cs[i].r.runs && empty_cs[i].cpus == cpus && empty_cs[i].cs_ns == cs_ns)
			return &empty_cs[i].r;
		if (!slot && !empty_cs[i].r.runs)
			slot = &empty_cs[i];
	}
	if (refscale_measure(e, cpus, cs_ns, refscale_loops(cs_ns), refscale_runs(), tmp))
		return NULL;
	if (slot) {
		slot->cpus = cpus;
		slot->cs_ns = cs_ns;
		slot->r = *tmp;
	}
	return tmp;
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

	if (!ops) {
		ktap_fail("no reader type %s", type);
		return;
	}
	if (!scen_list_has(rs_types_param, type)) {
		ktap_skip("not in refscale.types=");
		return;
	}
	if (ops->missing) {
		ktap_skip("%s", ops->missing);
		return;
	}
	if (ops->note)
		ktap_log("%s: %s", type, ops->note);
	n = cpu_counts(counts, 16);
	for (int i = 0; i < n; i++) {
		int cpus = (int)counts[i];
		struct rs_result *r = &rs_zero[ops_index(ops)][cpus], etmp;
		int ret = refscale_measure(ops, cpus, 0, refscale_loops(0), refscale_runs(), r);

		if (ret) {
			ktap_fail("%s at %d CPUs: measurement failed (%d)", type, cpus, ret);
			r->runs = 0;
			fails++;
			continue;
		}
		const struct rs_result *e = strcmp(type, "empty") ? empty_at(cpus, 0, &etmp) : NULL;

		refscale_print_row("readside", ops, r, e);
		if (r->ps.mean == 0)
			ktap_log("%s at %d CPUs: below the TSC's resolution", type, cpus);
		if (!e)
			readside_harness(cpus, r);
	}
	if (!n)
		ktap_skip("no CPU count to measure");
}

static void readside_platform(void)
{
	bool hv = arch_under_hypervisor();

	ktap_log("platform: %s", hv ? "qemu" : "hardware");
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

/* The goals, as figures (never asserted: speed is reported). */
static u64 mean_of(const char *type, int cpus)
{
	const struct rs_ops *ops = rs_ops_find(type);

	return ops && rs_zero[ops_index(ops)][cpus].runs ? rs_zero[ops_index(ops)][cpus].ps.mean : 0;
}

/* The batch median (batch_ns=) of a row: the cost without the host's
 * descheduling. */
static u64 batch_of(const char *type, int cpus)
{
	const struct rs_ops *ops = rs_ops_find(type);

	return ops && rs_zero[ops_index(ops)][cpus].runs ? rs_zero[ops_index(ops)][cpus].batch_ps : 0;
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

static void readside_goals(void)
{
	int n = 0;
	char r1[SCEN_FMT_BUF], r2[SCEN_FMT_BUF], r3[SCEN_FMT_BUF], r4[SCEN_FMT_BUF];

	for (int c = NR_CPUS; c >= 1; c--)
		if (mean_of("rcu-sched", c) || mean_of("rwlock", c)) {
			n = c;
			break;
		}
	if (!n) {
		ktap_skip("no rcu-sched or rwlock rows measured");
		return;
	}
	u64 rs = mean_of("rcu-sched", n);

	ktap_log("bench name=readside_goals cpus=%d rwlock_over_rcu_sched=%s refcnt_over_rcu_sched=%s rcu_sched_n_over_1=%s rcu_nonpreempt_over_empty=%s",
		 n, ratio(r1, sizeof(r1), mean_of("rwlock", n), rs),
		 ratio(r2, sizeof(r2), mean_of("refcnt", n), rs),
		 ratio(r3, sizeof(r3), rs, mean_of("rcu-sched", 1)),
		 ratio(r4, sizeof(r4), mean_of("rcu-nonpreempt", n), mean_of("empty", n)));
	u64 bs = batch_of("rcu-sched", n);

	ktap_log("bench name=readside_goals_batch cpus=%d rwlock_over_rcu_sched=%s refcnt_over_rcu_sched=%s rcu_sched_n_over_1=%s rcu_nonpreempt_over_empty=%s",
		 n, ratio(r1, sizeof(r1), batch_of("rwlock", n), bs),
		 ratio(r2, sizeof(r2), batch_of("refcnt", n), bs),
		 ratio(r3, sizeof(r3), bs, batch_of("rcu-sched", 1)),
		 ratio(r4, sizeof(r4), batch_of("rcu-nonpreempt", n), batch_of("empty", n)));
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
	   KTAP_CASE(readside_goals));

/* ---- paper_cslen: cost by critical-section length ------------------------ */

static void cslen_type(const char *type)
{
	const struct rs_ops *ops = rs_ops_find(type);
	unsigned int cs[32];
	int n, cpus = cslen_cpus_param ? (int)cslen_cpus_param : 16;

	if (!ops) {
		ktap_fail("no reader type %s", type);
		return;
	}
	if (!scen_list_has(cslen_types_param, type)) {
		ktap_skip("not in cslen.types=");
		return;
	}
	if (ops->missing) {
		ktap_skip("%s", ops->missing);
		return;
	}
	if (cpus > num_online_cpus())
		cpus = num_online_cpus();
	if (cslen_param) {
		n = scen_parse_list(cslen_param, cs, 32);
		if (n < 0) {
			ktap_fail("cslen.cs_ns='%s' is not a list of numbers", cslen_param);
			return;
		}
	} else if (scen_full()) {
		static const unsigned int full[] = { 0, 100, 200, 500, 1000, 2000, 5000, 10000, 20000 };

		n = ARRAY_SIZE(full);
		memcpy(cs, full, sizeof(full));
	} else {
		/* cs_ns=0 at these CPUs is paper_readside's. */
		cs[0] = 1000;
		n = 1;
	}
	for (int i = 0; i < n; i++) {
		struct rs_result r, etmp;
		long loops = refscale_loops(cs[i]);
		int ret = refscale_measure(ops, cpus, cs[i], loops, refscale_runs(), &r);

		if (ret) {
			ktap_fail("%s at cs_ns=%u: measurement failed (%d)", type, cs[i], ret);
			continue;
		}
		const struct rs_result *e = NULL;

		if (strcmp(type, "empty"))
			e = empty_at(cpus, cs[i], &etmp);
		else
			empty_keep(cpus, cs[i], &r);
		refscale_print_row("readside", ops, &r, e);
		/* The work inside is real: a section cannot be shorter than it
		 * (ndelay never returns early), whatever the lock costs. */
		if (cs[i] && r.ps.min < (u64)cs[i] * 1000)
			ktap_fail("%s at cs_ns=%u: %llu ps per section, shorter than its work",
				  type, cs[i], (unsigned long long)r.ps.min);
	}
}

static void cslen_empty(void) { cslen_type("empty"); }
static void cslen_rcu_sched(void) { cslen_type("rcu-sched"); }
static void cslen_rcu(void) { cslen_type("rcu"); }
static void cslen_rcu_nonpreempt(void) { cslen_type("rcu-nonpreempt"); }
static void cslen_rwlock(void) { cslen_type("rwlock"); }
static void cslen_rwlock_fair(void) { cslen_type("rwlock-fair"); }
static void cslen_spinlock(void) { cslen_type("spinlock"); }
static void cslen_refcnt(void) { cslen_type("refcnt"); }
static void cslen_refcnt_percpu(void) { cslen_type("refcnt-percpu"); }
static void cslen_seqlock(void) { cslen_type("seqlock"); }
static void cslen_srcu(void) { cslen_type("srcu"); }

KTAP_SUITE(paper_cslen,
	   KTAP_CASE(cslen_empty),
	   KTAP_CASE(cslen_rcu_sched),
	   KTAP_CASE(cslen_rcu),
	   KTAP_CASE(cslen_rcu_nonpreempt),
	   KTAP_CASE(cslen_rwlock),
	   KTAP_CASE(cslen_rwlock_fair),
	   KTAP_CASE(cslen_spinlock),
	   KTAP_CASE(cslen_refcnt),
	   KTAP_CASE(cslen_refcnt_percpu),
	   KTAP_CASE(cslen_seqlock),
	   KTAP_CASE(cslen_srcu));
