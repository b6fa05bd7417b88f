/* tests/scenarios/paper_deadlock.c: the article's "Deadlock Immunity".
 *
 * An RCU reader may take the update lock inside its read-side critical
 * section (the read-to-update upgrade), on every CPU at once, and always
 * gets through.  The same upgrade on a reader-writer lock, read-held
 * while write-acquiring, can never succeed: the writer waits for the
 * readers to leave and one of them is itself.  The rwlock attempt is made
 * with a bounded wait (write_trylock until a deadline, which is what
 * write_lock() would spin on for ever) and reported as deadlocked; the
 * case then checks that the lock is fine once the read hold is dropped,
 * so a "deadlock" caused by a broken lock is not mistaken for the real
 * one.
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
#if SCEN_HAVE_RCU
#include "rcu/rculist.h"
#endif

static unsigned int deadlock_wait_ms = 200;
core_param(deadlock.wait_ms, deadlock_wait_ms, uint,
	   "how long paper_deadlock's rwlock upgrade waits before calling it deadlocked");

#define DL_ELEMS 16

struct dl_el {
	struct list_head list;
	long key;
	long data;
};

static LIST_HEAD(dl_head);
static DEFINE_SPINLOCK(dl_lock);	/* the article's my_lock */
static struct dl_el dl_elems[DL_ELEMS];
static atomic_t dl_updates;

static bool need_update(struct dl_el *p, int cpu)
{
	/* Its own element, and one every CPU updates, so the lock is fought over. */
	return p->key == cpu % DL_ELEMS || p->key == DL_ELEMS - 1;
}

#if SCEN_HAVE_RCU
/* The article's fragment, one upgrade per pass, on each worker's CPU. */
static void dl_upgrader(struct scen_worker *w)
{
	long passes = scen_full() ? 100000 : 2000;
	struct dl_el *p;

	if (!scen_start_barrier(w))
		return;
	for (long i = 0; i < passes && !READ_ONCE(w->g->stop); i++) {
		rcu_read_lock_sched();
		list_for_each_entry_rcu(p, &dl_head, list) {
			READ_ONCE(p->data);	/* do_something_with(p) */
			if (need_update(p, w->cpu)) {
				spin_lock(&dl_lock);
				p->data++;	/* do_update(p) */
				spin_unlock(&dl_lock);
				atomic_inc(&dl_updates);
			}
		}
		rcu_read_unlock_sched();
		if ((i & 63) == 0)
			scen_yield();
	}
}
#endif

static void rcu_read_to_update_upgrade(void)
{
#if !SCEN_HAVE_RCU
	ktap_skip("needs rcu/rcupdate.h (RCU-sched, issue 5)");
#else
	int cpus[NR_CPUS], n = scen_online_cpus(cpus, NR_CPUS);
	long passes = scen_full() ? 100000 : 2000, expect = 0;
	struct scen_group *g = scen_group_alloc();

	KTAP_ASSERT(g);
	INIT_LIST_HEAD(&dl_head);
	for (int i = 0; i < DL_ELEMS; i++) {
		dl_elems[i].key = i;
		dl_elems[i].data = 0;
		list_add_tail_rcu(&dl_elems[i].list, &dl_head);
	}
	atomic_set(&dl_updates, 0);
	for (int c = 0; c < n; c++)
		for (int i = 0; i < DL_ELEMS; i++)
			expect += need_update(&dl_elems[i], cpus[c]) ? passes : 0;

	u64 t0 = ktime_get_ns();
	int ret = scen_group_start(g, cpus, n, dl_upgrader, NULL);

	if (!ret)
		ret = scen_group_wait(g, 120000);
	u64 t1 = ktime_get_ns();
	long sum = 0;

	for (int i = 0; i < DL_ELEMS; i++)
		sum += dl_elems[i].data;
	ktap_log("bench name=deadlock type=rcu-sched cpus=%d upgrades=%d result=%s elapsed_ns=%llu",
		 n, atomic_read(&dl_updates), ret ? "hung" : "completed",
		 (unsigned long long)(t1 - t0));
	if (ret)
		ktap_fail("RCU read-to-update upgrade did not complete (%d)", ret);
	/* Every upgrade happened and none was lost under the lock. */
	KTAP_EXPECT_EQ(atomic_read(&dl_updates), expect);
	KTAP_EXPECT_EQ(sum, expect);
	scen_group_free(g, ret);
#endif
}

/* Spins on write_trylock() until the deadline: write_lock() without the
 * "for ever".  Returns the ns it waited, or 0 if it got the lock. */
#define BOUNDED_WRITE_LOCK(rw, wait_ms, got) ({				\
	u64 __t0 = ktime_get_ns(), __end = __t0 + (u64)(wait_ms) * 1000000; \
	(got) = false;							\
	while (ktime_get_ns() < __end)					\
		if (write_trylock(rw)) {				\
			(got) = true;					\
			break;						\
		}							\
	ktime_get_ns() - __t0; })

static DEFINE_RWLOCK(dl_rwlock);
static DEFINE_RWLOCK_FAIR(dl_rwlock_fair);

#define RWLOCK_UPGRADE(type, rw) do {						\
	bool got;								\
	u64 waited;								\
										\
	read_lock(rw);								\
	waited = BOUNDED_WRITE_LOCK(rw, deadlock_wait_ms, got);			\
	if (got) {								\
		write_unlock(rw);						\
		read_unlock(rw);						\
		ktap_fail(type ": write lock granted while this thread read-holds it"); \
		break;								\
	}									\
	read_unlock(rw);							\
	ktap_log("bench name=deadlock type=" type " cpus=1 upgrades=0 result=deadlocked elapsed_ns=%llu", \
		 (unsigned long long)waited);					\
	ktap_log(type ": read-to-write upgrade deadlocked: no write lock in %u ms (write_lock() would spin for ever)", \
		 deadlock_wait_ms);						\
	/* Not a broken lock: once the read hold is gone it is free. */	\
	waited = BOUNDED_WRITE_LOCK(rw, deadlock_wait_ms, got);			\
	KTAP_EXPECT(got);							\
	if (got)								\
		write_unlock(rw);						\
	} while (0)

static void rwlock_read_to_write_upgrade_deadlocks(void)
{
	RWLOCK_UPGRADE("rwlock", &dl_rwlock);
	KTAP_EXPECT_EQ(atomic_read(&dl_rwlock.cnt), RW_LOCK_BIAS);
}

static void rwlock_fair_read_to_write_upgrade_deadlocks(void)
{
	RWLOCK_UPGRADE("rwlock-fair", &dl_rwlock_fair);
	KTAP_EXPECT_EQ(atomic_read(&dl_rwlock_fair.cnts), 0);
}

KTAP_SUITE(paper_deadlock,
	   KTAP_CASE(rcu_read_to_update_upgrade),
	   KTAP_CASE(rwlock_read_to_write_upgrade_deadlocks),
	   KTAP_CASE(rwlock_fair_read_to_write_upgrade_deadlocks));
