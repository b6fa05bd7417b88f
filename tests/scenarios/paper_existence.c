/* tests/scenarios/paper_existence.c: "RCU is a Way of Providing
 * Existence Guarantees".
 *
 * A hash table whose elements carry their own lock and a deleted flag.  A
 * looker-up finds the element under rcu_read_lock_sched(), takes the
 * element's lock, and re-checks `deleted`: RCU guarantees the element
 * still exists (its lock is real memory) even if a deleter has just
 * unlinked it.  Deleters mark, unlink and call_rcu_sched() the element,
 * and put a fresh one in.  Checked: an element is never used (under its
 * lock) after it was marked deleted, and no looker-up touches freed
 * memory.
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

static unsigned int existence_ms;
core_param(existence.ms, existence_ms, uint,
	   "duration of each paper_existence run in ms (default 200 quick, 2000 full)");

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

static void existence_lookup_lock_recheck(void)
{
	int cpus[NR_CPUS], n;
	unsigned int ms = scen_run_ms(existence_ms);
	struct scen_group *g;
	struct ex_ctx *x = scen_setup(cpus, &n, sizeof(*x), &g, "lookers-up beside the deleter");

	if (!x)
		return;
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
	if (scen_run(g, cpus, n, ex_worker, x, ms, false, NULL))
		return;		/* left allocated: a worker may still use it */
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
}

KTAP_SUITE(paper_existence, KTAP_CASE(existence_lookup_lock_recheck));
