/* tests/scenarios/paper_gc.c: "RCU is a Poor Man's Garbage Collector" and
 * "RCU is a Way of Providing Existence Guarantees".
 *
 * paper_gc: updaters replace a shared object as fast as they can and hand
 * the old one to call_rcu_sched(), never waiting; readers use whatever
 * they find.  Collection happens by itself, after grace periods.  The
 * memory in flight (replaced, not yet freed) is sampled; it must stay
 * under gc.max_in_flight, and after rcu_barrier_sched() every object ever
 * replaced must have been freed exactly once.  No reader may see a freed
 * (poisoned) object.
 *
 * paper_existence: a hash table whose elements carry their own lock and a
 * deleted flag.  A looker-up finds the element under rcu_read_lock_sched(),
 * takes the element's lock, and re-checks `deleted`: RCU guarantees the
 * element still exists (its lock is real memory) even if a deleter has
 * just unlinked it.  Deleters mark, unlink and call_rcu_sched() the
 * element, and put a fresh one in.  Checked: an element is never used
 * (under its lock) after it was marked deleted, and no looker-up touches
 * freed memory.
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
#if SCEN_HAVE_RCU
#include "rcu/rculist.h"
#endif

static unsigned int gc_ms;
core_param(gc.ms, gc_ms, uint, "duration of paper_gc and paper_existence runs in ms (default 200 quick, 2000 full)");
static unsigned int gc_max_in_flight = 1000000;
core_param(gc.max_in_flight, gc_max_in_flight, uint,
	   "paper_gc fails if more replaced objects than this wait for collection at once");

#define GC_MAGIC 0x6cc0ffeeul

#if SCEN_HAVE_RCU

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
#endif

static void gc_under_update_load(void)
{
#if !SCEN_HAVE_RCU
	ktap_skip("needs rcu/rcupdate.h (RCU-sched, issue 5)");
#else
	int cpus[NR_CPUS], n = scen_online_cpus(cpus, NR_CPUS);
	unsigned int ms = gc_ms ? gc_ms : scen_full() ? 2000 : 200;

	if (n < 2) {
		ktap_skip("needs 2 CPUs (readers beside the updater)");
		return;
	}
	if (scen_rcu_update_missing()) {
		ktap_skip("%s", scen_rcu_update_missing());
		return;
	}
	struct gc_ctx *x = kzalloc(sizeof(*x), GFP_KERNEL);
	struct scen_group *g = scen_group_alloc();
	struct gc_obj *first = kmalloc(sizeof(*first), GFP_KERNEL);

	if (!x || !g || !first) {
		kfree(x);
		kfree(g);
		kfree(first);
		ktap_fail("out of memory");
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

	scen_group_run_for(g, ms);
	int ret = scen_group_start(g, cpus, n, gc_worker, x);

	if (!ret)
		ret = scen_group_wait(g, ms + 60000);
	if (ret) {
		ktap_fail("the run did not finish (%d)", ret);
		return;
	}
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
#endif
}

KTAP_SUITE(paper_gc, KTAP_CASE(gc_under_update_load));

/* ---- paper_existence ----------------------------------------------------- */

#if SCEN_HAVE_RCU

#define EX_BUCKETS 16
#define EX_KEYS 64
#define EX_MAGIC 0xe1157ul

struct ex_el {
	struct list_head list;
	unsigned long magic;
	long key;
	spinlock_t lock;
	bool deleted;
	long uses;
	struct rcu_head rh;
};

struct ex_ctx {
	struct list_head bucket[EX_BUCKETS];
	spinlock_t table_lock;
	int deleters;
	unsigned long lookups[NR_CPUS], found[NR_CPUS], raced[NR_CPUS], bad[NR_CPUS];
	unsigned long deletes[NR_CPUS];
};

static atomic_long_t ex_allocated, ex_freed;

static void ex_free_cb(struct rcu_head *rh)
{
	struct ex_el *p = container_of(rh, struct ex_el, rh);

	p->magic = 0;
	kfree(p);
	atomic_long_inc(&ex_freed);
}

static struct ex_el *ex_new(long key)
{
	struct ex_el *p = kmalloc(sizeof(*p), GFP_KERNEL);

	if (p) {
		p->magic = EX_MAGIC;
		p->key = key;
		spin_lock_init(&p->lock);
		p->deleted = false;
		p->uses = 0;
		atomic_long_inc(&ex_allocated);
	}
	return p;
}

/* Look up, lock, re-check, use. */
static void ex_lookup(struct ex_ctx *x, int idx, long key)
{
	struct ex_el *p, *hit = NULL;

	rcu_read_lock_sched();
	list_for_each_entry_rcu(p, &x->bucket[key % EX_BUCKETS], list) {
		if (READ_ONCE(p->magic) != EX_MAGIC) {
			x->bad[idx]++;	/* walked onto freed memory */
			break;
		}
		if (READ_ONCE(p->key) == key) {
			hit = p;
			break;
		}
	}
	x->lookups[idx]++;
	if (hit) {
		spin_lock(&hit->lock);
		if (hit->deleted) {
			x->raced[idx]++;	/* gone meanwhile: it still exists, so we could look */
		} else {
			hit->uses++;
			x->found[idx]++;
		}
		if (hit->magic != EX_MAGIC)
			x->bad[idx]++;
		spin_unlock(&hit->lock);
	}
	rcu_read_unlock_sched();
}

static void ex_delete(struct ex_ctx *x, int idx, long key)
{
	struct ex_el *p, *fresh = ex_new(key);

	if (!fresh)
		return;
	spin_lock(&x->table_lock);
	list_for_each_entry(p, &x->bucket[key % EX_BUCKETS], list) {
		if (p->key == key) {
			spin_lock(&p->lock);
			p->deleted = true;
			spin_unlock(&p->lock);
			list_del_rcu(&p->list);
			call_rcu_sched(&p->rh, ex_free_cb);
			x->deletes[idx]++;
			break;
		}
	}
	list_add_rcu(&fresh->list, &x->bucket[key % EX_BUCKETS]);
	spin_unlock(&x->table_lock);
}

#define EX_MIN_DELETES 8

static void ex_worker(struct scen_worker *w)
{
	struct ex_ctx *x = w->arg;
	unsigned long seed = 777 + (unsigned long)w->idx * 104729;

	scen_owe(w);	/* one pass each, and EX_MIN_DELETES from a deleter */
	if (!scen_start_barrier(w))
		return;
	while (!scen_should_stop(w)) {
		for (int i = 0; i < 32; i++) {
			seed = seed * 6364136223846793005ul + 1442695040888963407ul;
			long key = (long)((seed >> 33) % EX_KEYS);

			if (w->idx < x->deleters)
				ex_delete(x, w->idx, key);
			else
				ex_lookup(x, w->idx, key);
		}
		if (w->idx >= x->deleters || x->deletes[w->idx] >= EX_MIN_DELETES)
			scen_paid(w);
		scen_yield();
	}
}
#endif

static void existence_lookup_lock_recheck(void)
{
#if !SCEN_HAVE_RCU
	ktap_skip("needs rcu/rcupdate.h (RCU-sched, issue 5)");
#else
	int cpus[NR_CPUS], n = scen_online_cpus(cpus, NR_CPUS);
	unsigned int ms = gc_ms ? gc_ms : scen_full() ? 2000 : 200;

	if (n < 2) {
		ktap_skip("needs 2 CPUs (lookers-up beside the deleter)");
		return;
	}
	if (scen_rcu_update_missing()) {
		ktap_skip("%s", scen_rcu_update_missing());
		return;
	}
	struct ex_ctx *x = kzalloc(sizeof(*x), GFP_KERNEL);
	struct scen_group *g = scen_group_alloc();

	if (!x || !g) {
		kfree(x);
		kfree(g);
		ktap_fail("out of memory");
		return;
	}
	atomic_long_set(&ex_allocated, 0);
	atomic_long_set(&ex_freed, 0);
	for (int b = 0; b < EX_BUCKETS; b++)
		INIT_LIST_HEAD(&x->bucket[b]);
	spin_lock_init(&x->table_lock);
	for (long k = 0; k < EX_KEYS; k++) {
		struct ex_el *p = ex_new(k);

		KTAP_ASSERT(p);
		list_add_rcu(&p->list, &x->bucket[k % EX_BUCKETS]);
	}
	x->deleters = n >= 4 ? 2 : 1;
	scen_group_run_for(g, ms);
	int ret = scen_group_start(g, cpus, n, ex_worker, x);

	if (!ret)
		ret = scen_group_wait(g, ms + 60000);
	if (ret) {
		ktap_fail("the run did not finish (%d)", ret);
		return;
	}
	rcu_barrier_sched();
	unsigned long lookups = 0, found = 0, raced = 0, bad = 0, deletes = 0;

	for (int i = 0; i < n; i++) {
		lookups += x->lookups[i];
		found += x->found[i];
		raced += x->raced[i];
		bad += x->bad[i];
		deletes += x->deletes[i];
	}
	ktap_log("bench name=existence cpus=%d deleters=%d ms=%u lookups=%lu found=%lu raced_deleted=%lu deletes=%lu bad=%lu",
		 n, x->deleters, ms, lookups, found, raced, deletes, bad);
	if (bad)
		ktap_fail("%lu lookups touched a freed element", bad);
	KTAP_EXPECT_EQ(atomic_long_read(&ex_freed), (long)deletes);
	KTAP_EXPECT(lookups > 0 && deletes > 0);
	/* What is left: EX_KEYS live elements, none marked deleted. */
	long left = 0;

	for (int b = 0; b < EX_BUCKETS; b++) {
		struct ex_el *p, *t;

		list_for_each_entry_safe(p, t, &x->bucket[b], list) {
			if (p->deleted || p->magic != EX_MAGIC)
				ktap_fail("element %ld left in the table is deleted or freed", p->key);
			list_del(&p->list);
			kfree(p);
			left++;
		}
	}
	KTAP_EXPECT_EQ(left, EX_KEYS);
	kfree(x);
	scen_group_free(g, 0);
#endif
}

KTAP_SUITE(paper_existence, KTAP_CASE(existence_lookup_lock_recheck));
