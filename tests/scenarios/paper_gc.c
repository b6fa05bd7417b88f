/* tests/scenarios/paper_gc.c: "RCU is a Poor Man's Garbage Collector".
 *
 * Updaters replace a shared object as fast as they can and hand the old
 * one to call_rcu_sched(), never waiting; readers use whatever they find.
 * Collection happens by itself, after grace periods.  The memory in flight
 * (replaced, not yet freed) is sampled; it must stay under
 * gc.max_in_flight, and after rcu_barrier_sched() every object ever
 * replaced must have been freed exactly once.  No reader may see a freed
 * (poisoned) object.
 */
#include "tests/scenarios/scenario.h"
#include "kernel/cmdline.h"
#include "kernel/ktap.h"
#include "kernel/list.h"
#include "kernel/printk.h"
#include "kernel/slab.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"
#include "rcu/rculist.h"

static unsigned int gc_ms;
core_param(gc.ms, gc_ms, uint, "duration of each paper_gc run in ms (default 200 quick, 2000 full)");
static unsigned int gc_max_in_flight = 1000000;
core_param(gc.max_in_flight, gc_max_in_flight, uint,
	   "paper_gc fails if more replaced objects than this wait for collection at once");

#define GC_MAGIC 0x6cc0ffeeul


struct gc_obj {
	unsigned long magic;
	long gen;
	struct rcu_head rh;
};

static struct gc_obj *gc_head;
static DEFINE_SPINLOCK(gc_lock);
static atomic_long_t gc_allocated, gc_freed, gc_bad_frees;

static void gc_free_cb(struct rcu_head *rh)
{
	struct gc_obj *p = container_of(rh, struct gc_obj, rh);

	if (p->magic != GC_MAGIC)
		atomic_long_inc(&gc_bad_frees);	/* freed twice, or not ours */
	p->magic = 0;
	kfree(p);
	atomic_long_inc(&gc_freed);
}

struct gc_ctx {
	int updaters;
	unsigned long reads[NR_CPUS], bad[NR_CPUS], updates[NR_CPUS];
	long max_in_flight;
	u64 in_flight_sum, samples;
};

/* However late the host runs them, the updaters replace this many
 * objects and every reader reads once before a run may end. */
#define GC_MIN_UPDATES 16

static void gc_worker(struct scen_worker *w)
{
	struct gc_ctx *x = w->arg;

	scen_owe(w);
	if (!scen_start_barrier(w))
		return;
	if (w->idx < x->updaters) {
		while (!scen_should_stop(w)) {
			struct gc_obj *fresh = kmalloc(sizeof(*fresh), GFP_KERNEL), *old;

			if (!fresh) {
				scen_sleep_ms(1);	/* collection will catch up */
				continue;
			}
			atomic_long_inc(&gc_allocated);
			fresh->magic = GC_MAGIC;
			fresh->gen = (long)x->updates[w->idx];
			spin_lock(&gc_lock);
			old = gc_head;
			rcu_assign_pointer(gc_head, fresh);
			spin_unlock(&gc_lock);
			call_rcu_sched(&old->rh, gc_free_cb);
			if (++x->updates[w->idx] >= GC_MIN_UPDATES)
				scen_paid(w);
			if (w->idx == 0) {
				long f = atomic_long_read(&gc_allocated) - atomic_long_read(&gc_freed) - 1;

				if (f > x->max_in_flight)
					x->max_in_flight = f;
				x->in_flight_sum += (u64)(f > 0 ? f : 0);
				x->samples++;
			}
			scen_yield();
		}
		return;
	}
	while (!scen_should_stop(w)) {
		for (int i = 0; i < 64; i++) {
			struct gc_obj *p;

			rcu_read_lock_sched();
			p = rcu_dereference(gc_head);
			long g = READ_ONCE(p->gen);

			ndelay(100);
			if (READ_ONCE(p->magic) != GC_MAGIC || READ_ONCE(p->gen) != g)
				x->bad[w->idx]++;
			rcu_read_unlock_sched();
			x->reads[w->idx]++;
		}
		scen_paid(w);
		scen_yield();
	}
}

static void gc_under_update_load(void)
{
	int cpus[NR_CPUS], n;
	unsigned int ms = scen_run_ms(gc_ms);
	struct scen_group *g;
	struct gc_ctx *x = scen_setup(cpus, &n, sizeof(*x), &g, "readers beside the updater");

	if (!x)
		return;
	struct gc_obj *first = kmalloc(sizeof(*first), GFP_KERNEL);

	if (!first) {
		scen_setup_undo(x, g);
		return;
	}
	atomic_long_set(&gc_allocated, 1);
	atomic_long_set(&gc_freed, 0);
	atomic_long_set(&gc_bad_frees, 0);
	first->magic = GC_MAGIC;
	first->gen = -1;
	rcu_assign_pointer(gc_head, first);
	x->updaters = n >= 4 ? 2 : 1;
	unsigned long gps0 = rcu_batches_completed_sched();

	if (scen_run(g, cpus, n, gc_worker, x, ms, false, NULL))
		return;		/* left allocated: a worker may still use it */
	long in_flight_end = atomic_long_read(&gc_allocated) - atomic_long_read(&gc_freed) - 1;
	u64 t0 = ktime_get_ns();

	rcu_barrier_sched();	/* every queued callback has run */
	u64 barrier_ns = ktime_get_ns() - t0;
	unsigned long gps = rcu_batches_completed_sched() - gps0;
	unsigned long reads = 0, bad = 0, updates = 0;

	for (int i = 0; i < n; i++) {
		reads += x->reads[i];
		bad += x->bad[i];
		updates += x->updates[i];
	}
	long freed = atomic_long_read(&gc_freed);

	ktap_log("bench name=gc cpus=%d updaters=%d ms=%u updates=%lu freed=%ld gps=%lu max_in_flight=%ld mean_in_flight=%llu in_flight_end=%ld bytes_in_flight_max=%lu barrier_ns=%llu reads=%lu bad=%lu",
		 n, x->updaters, ms, updates, freed, gps, x->max_in_flight,
		 (unsigned long long)(x->samples ? x->in_flight_sum / x->samples : 0),
		 in_flight_end, (unsigned long)x->max_in_flight * sizeof(struct gc_obj),
		 (unsigned long long)barrier_ns, reads, bad);
	if (bad)
		ktap_fail("%lu reads saw a freed or changed object", bad);
	/* Garbage is collected: every replaced object freed, once. */
	KTAP_EXPECT_EQ(freed, (long)updates);
	KTAP_EXPECT_EQ(atomic_long_read(&gc_bad_frees), 0);
	if (x->max_in_flight > (long)gc_max_in_flight)
		ktap_fail("%ld objects waited for collection at once (limit %u)",
			  x->max_in_flight, gc_max_in_flight);
	KTAP_EXPECT(updates >= GC_MIN_UPDATES);
	kfree(gc_head);
	gc_head = NULL;
	kfree(x);
	scen_group_free(g, 0);
}

KTAP_SUITE(paper_gc, KTAP_CASE(gc_under_update_load));
