/*
 * tests/host/rcu/gpbench.c - grace-period latency on the host shim, by CPU
 * count and rcu_node geometry: synchronize_sched() and
 * synchronize_sched_expedited() from CPU 0, --iters times each, while the
 * other CPUs are idle (load=idle: the GP kthread's scan of the dynticks
 * counters ends the wait) or run short readers back to back (load=busy:
 * every CPU reports up the tree itself; expedited ones are IPI'd).
 * The rcu_node tree is built for exactly N CPUs (rcu.geometry_cpus=N):
 * --geometry tree (default) with --fanout F at every level (default 16,
 * the kernel's), --geometry flat: one node holding every CPU; or as
 * --cmdline says.
 *
 * Wall latency here is mostly tick granularity and host scheduling, so the
 * row also gives what the tree changes, from rcu/'s own counters (struct
 * rcu_node n_qs_lock, rcu_state.sum_report_depth), per normal GP:
 * root_acq, the root's lock acquisitions on the QS-report path (its
 * contention: about N flat, at most its children in a tree); max_acq, the
 * busiest node's; report_depth, the node locks the root-emptying report
 * took from its leaf; root_wait_ns, time spent waiting for the root's lock
 * there; report_to_end_us, from the root-emptying report to
 * rcu_gp_cleanup() (the GP kthread's wake-up: host scheduling).  Asserted (structure, not time): levels is
 * ceil(log_F(N)) for the tree and 1 flat, every root-emptying report took
 * exactly `levels` locks, and no interior node was taken more than once per
 * child per GP.
 * Prints rows `# bench name=gp type=normal|expedited cpus=N host=1 geometry=...`.
 * Fails if a wait took longer than --max-ms, or a synchronize_sched()
 * returned without a grace period having completed.
 *
 *   gpbench --cpus 16 [--iters 40] [--load idle|busy] [--geometry tree|flat]
 *           [--fanout 4] [--cmdline 'rcu.geometry_cpus=16 rcu.fanout_leaf=4']
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim/shim.h"
#include "rcu/tree.h"
#include "kernel/sched.h"
#include "kernel/time.h"

static bool stop_load;		/* READ_ONCE/WRITE_ONCE */
static unsigned long load_reads;

static int busy_load(void *arg)
{
	unsigned long n = 0;

	(void)arg;
	while (!READ_ONCE(stop_load)) {
		rcu_read_lock_sched();
		n += READ_ONCE(rcu_state.gp_seq) & 1;
		rcu_read_unlock_sched();
		udelay(2);
		cond_resched();
	}
	__atomic_fetch_add(&load_reads, n + 1, __ATOMIC_RELAXED);
	return 0;
}

struct lat {
	u64 min, max, sum;
	int n;
};

static void lat_add(struct lat *l, u64 ns)
{
	if (!l->n || ns < l->min)
		l->min = ns;
	if (ns > l->max)
		l->max = ns;
	l->sum += ns;
	l->n++;
}

/* rcu/'s QS-path counters, summed over the nodes of each kind. */
struct qs_counts {
	unsigned long node[RCU_MAX_NODES];
	unsigned long gps, reports, depth_sum;
	u64 root_wait_cycles, report_to_end_ns;
};

static void qs_counts_read(struct qs_counts *c)
{
	int i;

	for (i = 0; i < rcu_state.num_nodes; i++)
		c->node[i] = READ_ONCE(rcu_state.node[i].n_qs_lock);
	c->gps = rcu_batches_completed_sched();
	c->reports = READ_ONCE(rcu_state.n_root_reports);
	c->depth_sum = READ_ONCE(rcu_state.sum_report_depth);
	c->root_wait_cycles = READ_ONCE(rcu_state.node[0].qs_wait_cycles);
	c->report_to_end_ns = READ_ONCE(rcu_state.sum_report_to_end_ns);
}

/* The levels the geometry must have: leaves of fl CPUs, then fanout f. */
static int expected_levels(int ncpus, unsigned int fl, unsigned int f)
{
	int n = (ncpus + (int)fl - 1) / (int)fl, l = 1;

	while (n > 1) {
		n = (n + (int)f - 1) / (int)f;
		l++;
	}
	return l;
}

int main(int argc, char **argv)
{
	struct shim_opts o = { .ncpus = 4, .idle_tick_every = 8 };
	struct task *load[64] = { 0 };
	struct lat lat[2] = { { 0 } };
	const char *loadname = "idle", *type[2] = { "normal", "expedited" };
	/* max_ms only catches a grace period that hangs: the latencies are
	 * figures to print, and a loaded host stretches them freely. */
	int iters = 40, max_ms = 60000, i, k, fanout = 16;
	const char *geom = "tree";
	char geometry[128];
	struct qs_counts *c0 = calloc(1, sizeof(*c0)), *c1 = calloc(1, sizeof(*c1));
	unsigned long dgps, root_acq, max_acq = 0, dreports, ddepth;
	int exp_levels = 0;
	long errs, nogp = 0;
	bool ok = true;

	for (i = 1; i < argc; i++) {
		if (shim_parse_opt(&o, argc, argv, &i))
			continue;
		if (!strcmp(argv[i], "--iters") && i + 1 < argc)
			iters = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--load") && i + 1 < argc)
			loadname = argv[++i];
		else if (!strcmp(argv[i], "--max-ms") && i + 1 < argc)
			max_ms = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--geometry") && i + 1 < argc)
			geom = argv[++i];
		else if (!strcmp(argv[i], "--fanout") && i + 1 < argc)
			fanout = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: %s --cpus N [--iters N] [--load idle|busy] "
				"[--geometry tree|flat] [--fanout F] [--cmdline OPTS] [--max-ms MS]\n",
				argv[0]);
			return 2;
		}
	}
	if (o.ncpus < 2 || o.ncpus > 64 || iters < 1 ||
	    (strcmp(loadname, "idle") && strcmp(loadname, "busy")) ||
	    (strcmp(geom, "tree") && strcmp(geom, "flat")) || fanout < 2 || fanout > 64 ||
	    !c0 || !c1) {
		fprintf(stderr, "gpbench: need 2..64 CPUs, iters >= 1, load idle or busy, "
			"geometry tree or flat, fanout 2..64\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	shim_printk_quiet(true);
	/* The tree is built for the CPUs there are, unless the caller says. */
	if (!o.cmdline) {
		int f = !strcmp(geom, "flat") ? 64 : fanout;	/* flat: one node, N <= 64 */

		snprintf(geometry, sizeof(geometry),
			 "rcu.geometry_cpus=%d rcu.fanout_leaf=%d rcu.fanout=%d", o.ncpus, f, f);
		o.cmdline = geometry;
		exp_levels = expected_levels(o.ncpus, f, f);
	} else {
		geom = "cmdline";
	}
	shim_boot(&o);
	if (!strcmp(loadname, "busy"))
		for (i = 1; i < o.ncpus; i++) {
			load[i] = kthread_create_on_cpu(busy_load, NULL, i, "busy_load");
			if (load[i])
				wake_up_process(load[i]);
		}
	msleep(20);
	for (k = 0; k < 2; k++) {
		if (k == 0)
			qs_counts_read(c0);
		for (i = 0; i < iters; i++) {
			unsigned long g0 = rcu_batches_completed_sched();
			unsigned long e0 = rcu_exp_batches_completed_sched();
			u64 t0 = shim_now_ns(), dt;

			if (k == 0)
				synchronize_sched();
			else
				synchronize_sched_expedited();
			dt = shim_now_ns() - t0;
			lat_add(&lat[k], dt);
			if (k == 0 ? rcu_batches_completed_sched() == g0
				   : rcu_exp_batches_completed_sched() == e0)
				nogp++;
			if (dt > (u64)max_ms * 1000000ull) {
				printf("not ok: a %s grace period took %llu ms (limit %d)\n", type[k],
				       (unsigned long long)(dt / 1000000), max_ms);
				ok = false;
			}
		}
		if (k == 0)
			qs_counts_read(c1);
	}
	WRITE_ONCE(stop_load, true);
	for (i = 1; i < o.ncpus; i++)
		if (load[i])
			kthread_stop(load[i]);
	errs = shim_shutdown();

	/* Per normal GP: the root's, the busiest node's acquisitions; depth. */
	dgps = c1->gps - c0->gps;
	dreports = c1->reports - c0->reports;
	ddepth = c1->depth_sum - c0->depth_sum;
	root_acq = c1->node[0] - c0->node[0];
	for (i = 0; i < rcu_state.num_nodes; i++) {
		struct rcu_node *rnp = &rcu_state.node[i];
		unsigned long d = c1->node[i] - c0->node[i];
		/* An interior node's children; a GP half in the window counts too. */
		unsigned long kids = rnp->grphi - rnp->grplo + 1;

		if (d > max_acq)
			max_acq = d;
		if (rnp->level < rcu_state.num_levels - 1 && d > kids * (dgps + 1)) {
			printf("not ok: interior node %d (level %d, %lu children) taken %lu times "
			       "in %lu GPs on the QS path\n", i, rnp->level, kids, d, dgps);
			ok = false;
		}
	}
	if (exp_levels && rcu_state.num_levels != exp_levels) {
		printf("not ok: %s geometry at %d CPUs has %d levels, expected %d\n", geom,
		       o.ncpus, rcu_state.num_levels, exp_levels);
		ok = false;
	}
	if (dreports && ddepth != dreports * (unsigned long)rcu_state.num_levels) {
		printf("not ok: %lu root-emptying reports took %lu node locks, not %d each\n",
		       dreports, ddepth, rcu_state.num_levels);
		ok = false;
	}
	if (!dgps)
		dgps = 1;
	for (k = 0; k < 2; k++) {
		printf("# bench name=gp type=%s cpus=%d host=1 load=%s geometry=%s fanout_leaf=%u "
		       "fanout=%u levels=%d nodes=%d iters=%d min_us=%llu mean_us=%llu max_us=%llu",
		       type[k], o.ncpus, loadname, geom, rcu_fanout_leaf, rcu_fanout,
		       rcu_state.num_levels, rcu_state.num_nodes, lat[k].n,
		       (unsigned long long)(lat[k].min / 1000),
		       (unsigned long long)(lat[k].sum / lat[k].n / 1000),
		       (unsigned long long)(lat[k].max / 1000));
		/* The tree's counters: normal GPs only (expedited ones skip it). */
		if (k == 0)
			printf(" gps=%lu root_acq=%lu.%02lu max_acq=%lu.%02lu report_depth=%lu.%02lu"
			       " root_wait_ns=%llu report_to_end_us=%llu",
			       c1->gps - c0->gps, root_acq / dgps, root_acq * 100 / dgps % 100,
			       max_acq / dgps, max_acq * 100 / dgps % 100,
			       dreports ? ddepth / dreports : 0,
			       dreports ? ddepth * 100 / dreports % 100 : 0,
			       (unsigned long long)(cycles_to_ns(c1->root_wait_cycles -
							    c0->root_wait_cycles) / dgps),
			       (unsigned long long)((c1->report_to_end_ns - c0->report_to_end_ns) /
						    dgps / 1000));
		printf("\n");
	}
	free(c0);
	free(c1);
	if (nogp) {
		printf("not ok: %ld waits returned with no grace period counted\n", nogp);
		ok = false;
	}
	if (errs) {
		printf("not ok: %ld WARN/BUG/shim errors\n", errs);
		ok = false;
	}
	printf("%s host gp bench at %d CPUs (load=%s)\n", ok ? "ok" : "not ok", o.ncpus, loadname);
	return ok ? 0 : 1;
}
