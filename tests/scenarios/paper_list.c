/* tests/scenarios/paper_list.c: the article's "Comparison of Reader-Writer
 * Locking and RCU Code": search() and delete() on a linked list, the
 * rwlock form and the RCU form side by side.
 *
 * Searchers on every CPU but the first look keys up for a while; the
 * deleter on the first CPU deletes elements and puts fresh ones back (so
 * the list keeps its size), the RCU form with the article's
 * list_del_rcu(); spin_unlock(); synchronize_sched(); kfree().  Reported:
 * searches and deletes done, ns per search (summed over searchers) and
 * per delete.  Checked: a searcher never finds an element that has been
 * freed (kfree poisons it with 0x6b, so its magic and key go wrong) or
 * one whose data does not belong to its key; the list ends whole.
 */
#include "tests/scenarios/scenario.h"
#include "kernel/cmdline.h"
#include "kernel/ktap.h"
#include "kernel/list.h"
#include "kernel/printk.h"
#include "kernel/rwlock.h"
#include "kernel/slab.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"
#include "rcu/rculist.h"

static unsigned int list_ms;
core_param(list.ms, list_ms, uint, "duration of each paper_list run in ms (default 200 quick, 2000 full)");

#define LIST_KEYS 64
#define EL_MAGIC 0x5ca1ab1e

struct el {
	struct list_head list;
	long key;
	u32 magic;
	int data;
};

enum list_form { FORM_RWLOCK, FORM_RCU };

struct list_ctx {
	enum list_form form;
	struct list_head head;
	rwlock_t listmutex_rw;		/* rwlock form */
	spinlock_t listmutex;		/* RCU form: updaters only */
	unsigned long searches[NR_CPUS], found[NR_CPUS], bad[NR_CPUS];
	u64 search_cycles[NR_CPUS];
	unsigned long deletes;
	u64 delete_cycles;
	int deleter_done;	/* READ_ONCE: the searchers stop with it */
};

/* A grace period can take longer than a quick run under QEMU: the
 * deleter goes on past the run's end until it has done this many, and
 * the searchers search as long as it deletes. */
#define LIST_MIN_DELETES 3

static int el_data(long key) { return (int)(key * 7 + 1); }

/* A found element must be alive and its own: anything else is a reader
 * that reached freed (poisoned) or foreign memory. */
static bool el_ok(const struct el *p, long key)
{
	return READ_ONCE(p->magic) == EL_MAGIC && READ_ONCE(p->key) == key &&
	       READ_ONCE(p->data) == el_data(key);
}

static int search_rwlock(struct list_ctx *x, long key, int *result, bool *bad)
{
	struct el *p;

	read_lock(&x->listmutex_rw);
	list_for_each_entry(p, &x->head, list) {
		if (p->key == key) {
			*bad = !el_ok(p, key);
			*result = p->data;
			read_unlock(&x->listmutex_rw);
			return 1;
		}
	}
	read_unlock(&x->listmutex_rw);
	return 0;
}

static int delete_rwlock(struct list_ctx *x, long key)
{
	struct el *p;

	write_lock(&x->listmutex_rw);
	list_for_each_entry(p, &x->head, list) {
		if (p->key == key) {
			list_del(&p->list);
			write_unlock(&x->listmutex_rw);
			kfree(p);
			return 1;
		}
	}
	write_unlock(&x->listmutex_rw);
	return 0;
}

static int search_rcu(struct list_ctx *x, long key, int *result, bool *bad)
{
	struct el *p;

	rcu_read_lock_sched();
	list_for_each_entry_rcu(p, &x->head, list) {
		if (READ_ONCE(p->key) == key) {
			*bad = !el_ok(p, key);
			*result = READ_ONCE(p->data);
			rcu_read_unlock_sched();
			return 1;
		}
		/* A poisoned element on the way is as bad as finding one. */
		if (READ_ONCE(p->magic) != EL_MAGIC) {
			*bad = true;
			rcu_read_unlock_sched();
			return 1;
		}
	}
	rcu_read_unlock_sched();
	return 0;
}

static int delete_rcu(struct list_ctx *x, long key)
{
	struct el *p;

	spin_lock(&x->listmutex);
	list_for_each_entry(p, &x->head, list) {
		if (p->key == key) {
			list_del_rcu(&p->list);
			spin_unlock(&x->listmutex);
			synchronize_sched();
			kfree(p);
			return 1;
		}
	}
	spin_unlock(&x->listmutex);
	return 0;
}

static struct el *el_new(long key)
{
	struct el *p = kmalloc(sizeof(*p), GFP_KERNEL);

	if (p) {
		p->key = key;
		p->data = el_data(key);
		p->magic = EL_MAGIC;
	}
	return p;
}

static void insert(struct list_ctx *x, struct el *p)
{
	if (x->form == FORM_RWLOCK) {
		write_lock(&x->listmutex_rw);
		list_add_tail(&p->list, &x->head);
		write_unlock(&x->listmutex_rw);
	} else {
		spin_lock(&x->listmutex);
		list_add_tail_rcu(&p->list, &x->head);
		spin_unlock(&x->listmutex);
	}
}

/* Past the run's end, RCU searchers go on while the deleter is short of
 * its deletes (each waits for a grace period), for at most 10 s more.
 * rwlock searchers stop on time: the 2007 rwlock starves the writer while
 * they search, and it gets in only once they have stopped. */
static bool searching_on(struct scen_worker *w, struct list_ctx *x)
{
	return x->form == FORM_RCU &&
	       !READ_ONCE(w->g->stop) && !smp_load_acquire(&x->deleter_done) &&
	       READ_ONCE(x->deletes) < LIST_MIN_DELETES &&
	       ktime_get_ns() < w->g->end_ns + 10000000000ull;
}

static void list_worker(struct scen_worker *w)
{
	struct list_ctx *x = w->arg;
	unsigned long seed = 12345 + (unsigned long)w->idx * 7919;

	if (!scen_start_barrier(w))
		return;
	if (w->idx == 0) {
		/* The deleter: delete a key, put a fresh element back. */
		while (!READ_ONCE(w->g->stop) &&
		       (x->deletes < LIST_MIN_DELETES || !scen_should_stop(w))) {
			seed = seed * 6364136223846793005ul + 1442695040888963407ul;
			long key = (long)((seed >> 33) % LIST_KEYS);
			struct el *fresh = el_new(key);
			u64 t0 = get_cycles();
			int done;

			if (!fresh)
				break;
			done = x->form == FORM_RCU ? delete_rcu(x, key) : delete_rwlock(x, key);
			x->delete_cycles += get_cycles() - t0;
			x->deletes += done;
			insert(x, fresh);
			scen_yield();
		}
		smp_store_release(&x->deleter_done, 1);
		return;
	}
	while (!scen_should_stop(w) || searching_on(w, x)) {
		u64 t0 = get_cycles();

		for (int i = 0; i < 64; i++) {
			seed = seed * 6364136223846793005ul + 1442695040888963407ul;
			long key = (long)((seed >> 33) % LIST_KEYS);
			int result = 0, f;
			bool bad = false;

			f = x->form == FORM_RCU ? search_rcu(x, key, &result, &bad)
						: search_rwlock(x, key, &result, &bad);
			x->found[w->idx] += f;
			x->bad[w->idx] += bad || (f && result != el_data(key));
		}
		x->search_cycles[w->idx] += get_cycles() - t0;
		x->searches[w->idx] += 64;
		scen_yield();
	}
}

static void list_run(enum list_form form)
{
	const char *type = form == FORM_RCU ? "rcu-sched" : "rwlock";
	int cpus[NR_CPUS], n;
	unsigned int ms = scen_run_ms(list_ms);
	struct scen_group *g;
	struct list_ctx *x = scen_setup(cpus, &n, sizeof(*x), &g, "searchers beside the deleter");

	if (!x)
		return;
	x->form = form;
	INIT_LIST_HEAD(&x->head);
	rwlock_init(&x->listmutex_rw);
	spin_lock_init(&x->listmutex);
	for (long k = 0; k < LIST_KEYS; k++) {
		struct el *p = el_new(k);

		KTAP_ASSERT(p);
		insert(x, p);
	}
	if (scen_run(g, cpus, n, list_worker, x, ms, true, type))
		return;		/* left allocated: a worker may still use it */
	unsigned long searches = 0, found = 0, bad = 0;
	u64 cycles = 0;

	for (int i = 1; i < n; i++) {
		searches += x->searches[i];
		found += x->found[i];
		bad += x->bad[i];
		cycles += x->search_cycles[i];
	}
	char b1[SCEN_FMT_BUF], b2[SCEN_FMT_BUF];

	ktap_log("bench name=list type=%s cpus=%d searchers=%d ms=%u searches=%lu found=%lu deletes=%lu ns_per_search=%s ns_per_delete=%s bad=%lu",
		 type, n, n - 1, ms, searches, found, x->deletes,
		 scen_fmt_ps(b1, sizeof(b1), searches ? (s64)(scen_cycles_to_ps(cycles) / searches) : 0),
		 scen_fmt_ps(b2, sizeof(b2), x->deletes ? (s64)(scen_cycles_to_ps(x->delete_cycles) / x->deletes) : 0),
		 bad);
	if (bad)
		ktap_fail("%s: %lu searches found a freed or wrong element", type, bad);
	KTAP_EXPECT(searches > 0);
	KTAP_EXPECT(x->deletes >= LIST_MIN_DELETES);

	/* The list is whole: every key once, each element alive. */
	struct el *p, *t;
	int count = 0;
	bool seen[LIST_KEYS] = { false };

	list_for_each_entry_safe(p, t, &x->head, list) {
		if (p->key >= 0 && p->key < LIST_KEYS && el_ok(p, p->key) && !seen[p->key])
			seen[p->key] = true;
		else
			ktap_fail("%s: list element %ld broken or repeated", type, p->key);
		count++;
		list_del(&p->list);
		kfree(p);
	}
	KTAP_EXPECT_EQ(count, LIST_KEYS);
	kfree(x);
	scen_group_free(g, 0);
}

static void list_rwlock(void) { list_run(FORM_RWLOCK); }
static void list_rcu(void) { list_run(FORM_RCU); }

KTAP_SUITE(paper_list,
	   KTAP_CASE(list_rcu),
	   KTAP_CASE(list_rwlock));
