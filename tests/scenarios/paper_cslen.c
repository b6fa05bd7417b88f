/* tests/scenarios/paper_cslen.c: the article's second performance graph:
 * read-side cost of each reader type at the most CPUs, by critical-section
 * length, as `# bench name=readside ... cs_ns=N` rows (paper_readside
 * measures cs_ns=0).
 *
 *   cslen.cs_ns=0,1000,...     section lengths
 *   cslen.types=...            reader types
 *   cslen.cpus=N               CPUs (default 16, or all online if fewer)
 */
#include "tests/scenarios/refscale.h"
#include "kernel/cmdline.h"
#include "kernel/ktap.h"
#include "kernel/smp.h"
#include "kernel/string.h"

static char *cslen_param;
core_param(cslen.cs_ns, cslen_param, charp,
	   "critical-section lengths (ns) of paper_cslen (default 1000 quick; 0,100,200,500,1000,2000,5000,10000,20000 full)");
static char *cslen_types_param;
core_param(cslen.types, cslen_types_param, charp,
	   "reader types of paper_cslen (default: empty,rcu-sched,rcu,rcu-nonpreempt,rwlock,rwlock-fair,spinlock,refcnt,refcnt-percpu,seqlock,srcu)");
static unsigned int cslen_cpus_param;
core_param(cslen.cpus, cslen_cpus_param, uint, "CPUs of paper_cslen (default: 16, or all online if fewer)");

static void cslen_type(const char *type)
{
	const struct rs_ops *ops = rs_ops_find(type);
	unsigned int cs[32];
	int n, cpus = cslen_cpus_param ? (int)cslen_cpus_param : 16;

	if (!refscale_case_ops(ops, type, cslen_types_param, "cslen.types"))
		return;
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
			e = refscale_empty_at(cpus, cs[i], &etmp);
		else
			refscale_empty_keep(cpus, cs[i], &r);
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
