/*
 * tests/host/rcu/flood.c - a call_rcu_sched() flood on the host shim:
 * one flooder task per CPU queues its share of N callbacks (default two
 * million in all), each on a freshly kmalloc'd object that the callback
 * frees.  Passes when
 *  - every callback ran exactly once, and none before a full grace period
 *    (each object carries get_state_synchronize_sched() from its enqueue;
 *    the callback requires poll_state_synchronize_sched() of it);
 *  - rcu_barrier_sched() returned only after all of them had run;
 *  - memory stayed bounded: the peak of queued-but-not-yet-invoked
 *    callbacks stays under --max-outstanding (default N/2; with grace periods stuck it
 *    would reach N), i.e. grace
 *    periods and batches kept up with the flood instead of piling it up.
 * Prints `# bench name=call_rcu ...` with the rates seen.
 *
 *   flood --cpus 4 --calls 2000000 [--max-outstanding M]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim/shim.h"
#include "rcu/rcupdate.h"
#include "kernel/sched.h"
#include "kernel/slab.h"
#include "kernel/printk.h"
#include "kernel/smp.h"

#define FLOOD_MAGIC 0xf100d5edu

struct flood_obj {
	struct rcu_head rh;
	unsigned long cookie;
	unsigned int magic;
};

static atomic_long_t n_queued, n_invoked, n_early, n_badmagic, n_nomem;
static long peak_outstanding;		/* atomic max */
static long per_cpu_calls;

static void flood_cb(struct rcu_head *rh)
{
	struct flood_obj *o = container_of(rh, struct flood_obj, rh);

	if (o->magic != FLOOD_MAGIC)
		atomic_long_inc(&n_badmagic);
	if (!poll_state_synchronize_sched(o->cookie))
		atomic_long_inc(&n_early);
	o->magic = 0;
	kfree(o);
	atomic_long_inc(&n_invoked);
}

static void note_outstanding(void)
{
	long out = atomic_long_read(&n_queued) - atomic_long_read(&n_invoked);
	long old = __atomic_load_n(&peak_outstanding, __ATOMIC_RELAXED);

	while (out > old &&
	       !__atomic_compare_exchange_n(&peak_outstanding, &old, out, false,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

static int flooder(void *arg)
{
	long i;

	(void)arg;
	for (i = 0; i < per_cpu_calls; i++) {
		struct flood_obj *o = kmalloc(sizeof(*o), GFP_KERNEL);

		if (!o) {
			atomic_long_inc(&n_nomem);
			return 1;
		}
		o->magic = FLOOD_MAGIC;
		o->cookie = get_state_synchronize_sched();
		call_rcu_sched(&o->rh, flood_cb);
		atomic_long_inc(&n_queued);
		if (!(i & 1023)) {
			note_outstanding();
			cond_resched();
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct shim_opts o = { .ncpus = 4, .idle_tick_every = 8 };
	struct task *t[64];
	long calls = 2000000, max_out = -1, total, errs;
	unsigned long gp0;
	u64 start, queued_ns, done_ns;
	bool ok = true;
	int i;

	for (i = 1; i < argc; i++) {
		if (shim_parse_opt(&o, argc, argv, &i))
			continue;
		if (!strcmp(argv[i], "--calls") && i + 1 < argc)
			calls = atol(argv[++i]);
		else if (!strcmp(argv[i], "--max-outstanding") && i + 1 < argc)
			max_out = atol(argv[++i]);
		else {
			fprintf(stderr, "usage: %s --cpus N --calls N [--max-outstanding M]\n", argv[0]);
			return 2;
		}
	}
	if (o.ncpus < 2 || o.ncpus > 64 || calls < o.ncpus) {
		fprintf(stderr, "flood: need 2..64 CPUs and at least one call per CPU\n");
		return 2;
	}
	if (max_out < 0)
		max_out = calls / 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	shim_boot(&o);
	per_cpu_calls = calls / o.ncpus;
	total = per_cpu_calls * o.ncpus;
	gp0 = rcu_batches_completed_sched();
	start = shim_now_ns();
	for (i = 0; i < o.ncpus; i++) {
		t[i] = kthread_create_on_cpu(flooder, NULL, i, "flooder");
		if (!t[i]) {
			printf("not ok: cannot create flooder %d\n", i);
			return 1;
		}
		wake_up_process(t[i]);
	}
	for (i = 0; i < o.ncpus; i++)
		if (kthread_join(t[i]))
			ok = false;
	queued_ns = shim_now_ns() - start;
	rcu_barrier_sched();
	done_ns = shim_now_ns() - start;
	/* rcu_barrier_sched() returned: every callback queued before it has run. */
	if (atomic_long_read(&n_invoked) != total) {
		printf("not ok: rcu_barrier_sched() returned with %ld of %ld callbacks run\n",
		       atomic_long_read(&n_invoked), total);
		ok = false;
	}
	errs = shim_shutdown();
	printf("# flood cpus=%d calls=%ld invoked=%ld early=%ld badmagic=%ld nomem=%ld "
	       "peak_outstanding=%ld limit=%ld gps=%lu shim_errors=%ld\n", o.ncpus, total,
	       atomic_long_read(&n_invoked), atomic_long_read(&n_early),
	       atomic_long_read(&n_badmagic), atomic_long_read(&n_nomem), peak_outstanding,
	       max_out, rcu_batches_completed_sched() - gp0, errs);
	printf("# bench name=call_rcu host=1 cpus=%d calls=%ld queue_per_s=%llu invoke_per_s=%llu "
	       "peak_outstanding=%ld\n", o.ncpus, total,
	       (unsigned long long)(total * 1000000000ull / (queued_ns ? queued_ns : 1)),
	       (unsigned long long)(total * 1000000000ull / (done_ns ? done_ns : 1)),
	       peak_outstanding);
	if (atomic_long_read(&n_early) || atomic_long_read(&n_badmagic) ||
	    atomic_long_read(&n_nomem) || errs)
		ok = false;
	if (peak_outstanding > max_out) {
		printf("not ok: %ld callbacks were waiting at once (limit %ld): memory not bounded\n",
		       peak_outstanding, max_out);
		ok = false;
	}
	printf("%s host call_rcu_sched flood: %ld callbacks at %d CPUs\n", ok ? "ok" : "not ok",
	       total, o.ncpus);
	return ok ? 0 : 1;
}
