/*
 * tests/host/rcu/gpbench.c - grace-period latency on the host shim, by CPU
 * count and rcu_node geometry: synchronize_sched() and
 * synchronize_sched_expedited() from CPU 0, --iters times each, while the
 * other CPUs are idle (load=idle: the GP kthread's scan of the dynticks
 * counters ends the wait) or run short readers back to back (load=busy:
 * every CPU reports up the tree itself; expedited ones are IPI'd).
 * The rcu_node tree is built for exactly N CPUs (rcu.geometry_cpus=N)
 * unless --cmdline says otherwise.
 * Prints rows `# bench name=gp type=normal|expedited cpus=N host=1 ...`.
 * Fails if a wait took longer than --max-ms, or a synchronize_sched()
 * returned without a grace period having completed.
 *
 *   gpbench --cpus 16 [--iters 40] [--load idle|busy] [--cmdline 'rcu.geometry_cpus=16 rcu.fanout_leaf=4']
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

int main(int argc, char **argv)
{
	struct shim_opts o = { .ncpus = 4, .idle_tick_every = 8 };
	struct task *load[64] = { 0 };
	struct lat lat[2] = { { 0 } };
	const char *loadname = "idle", *type[2] = { "normal", "expedited" };
	int iters = 40, max_ms = 5000, i, k;
	char geometry[64];
	long errs, nogp = 0;
	bool ok = true;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--cmdline") && i + 1 < argc)
			o.cmdline = argv[++i];
		else if (!strcmp(argv[i], "--cpus") && i + 1 < argc)
			o.ncpus = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--iters") && i + 1 < argc)
			iters = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--load") && i + 1 < argc)
			loadname = argv[++i];
		else if (!strcmp(argv[i], "--max-ms") && i + 1 < argc)
			max_ms = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: %s --cpus N [--iters N] [--load idle|busy] "
				"[--cmdline OPTS] [--max-ms MS]\n", argv[0]);
			return 2;
		}
	}
	if (o.ncpus < 2 || o.ncpus > 64 || iters < 1 ||
	    (strcmp(loadname, "idle") && strcmp(loadname, "busy"))) {
		fprintf(stderr, "gpbench: need 2..64 CPUs, iters >= 1, load idle or busy\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	shim_printk_quiet(true);
	/* The tree is built for the CPUs there are, unless the caller says. */
	if (!o.cmdline) {
		snprintf(geometry, sizeof(geometry), "rcu.geometry_cpus=%d", o.ncpus);
		o.cmdline = geometry;
	}
	shim_boot(&o);
	if (!strcmp(loadname, "busy"))
		for (i = 1; i < o.ncpus; i++) {
			load[i] = kthread_create_on_cpu(busy_load, NULL, i, "busy_load");
			if (load[i])
				wake_up_process(load[i]);
		}
	msleep(20);
	for (k = 0; k < 2; k++)
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
	WRITE_ONCE(stop_load, true);
	for (i = 1; i < o.ncpus; i++)
		if (load[i])
			kthread_stop(load[i]);
	errs = shim_shutdown();
	for (k = 0; k < 2; k++)
		printf("# bench name=gp type=%s cpus=%d host=1 load=%s fanout_leaf=%u levels=%d "
		       "nodes=%d iters=%d min_us=%llu mean_us=%llu max_us=%llu\n", type[k], o.ncpus,
		       loadname, rcu_fanout_leaf, rcu_state.num_levels, rcu_state.num_nodes,
		       lat[k].n, (unsigned long long)(lat[k].min / 1000),
		       (unsigned long long)(lat[k].sum / lat[k].n / 1000),
		       (unsigned long long)(lat[k].max / 1000));
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
