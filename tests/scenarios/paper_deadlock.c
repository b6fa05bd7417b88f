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
#include "kernel/string.h"
#include "kernel/time.h"
#include "rcu/rculist.h"

static unsigned int deadlock_wait_ms = 200;
core_param(deadlock.wait_ms, deadlock_wait_ms, uint,
	   "how long paper_deadlock's rwlock upgrade waits before calling it deadlocked");

#ifndef EDEADLK
#define EDEADLK 35
#endif

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

/*
 * The count.  Every pass every CPU takes my_lock twice (its own element
 * and the shared one), so the lock is handed round all CPUs: under QEMU
 * TCG with more vCPUs than host cores a FIFO ticket lock then moves only
 * when the host runs the next waiter's vCPU, milliseconds per hand-over (a
 * convoy, not a deadlock: the progress watchdog below tells them apart).
 * Spinlocks are test-and-set under a hypervisor (kernel/spinlock.h), but
 * spinlock.virt=0 brings the tickets back, and a PC may be slow too.  So
 * the quick run does about a hundred upgrades whatever the CPU count
 * (still every CPU upgrading inside its reader, all fighting over one
 * element); bench=full about four thousand.
 */
static unsigned int deadlock_passes;
core_param(deadlock.passes, deadlock_passes, uint,
	   "read-to-update passes per CPU in paper_deadlock (default: 64/CPUs quick, at least 4; 2048/CPUs full, at least 32)");
static unsigned int deadlock_stall_s = 30;
core_param(deadlock.stall_s, deadlock_stall_s, uint,
	   "seconds without a single upgrade before paper_deadlock calls the RCU upgrade hung");

static long dl_passes(int cpus)
{
	if (deadlock_passes)
		return deadlock_passes;
	return scen_full() ? MAX(32l, 2048l / cpus) : MAX(4l, 64l / cpus);
}

struct dl_stat {
	u64 max_wait;		/* cycles, longest spin_lock() */
	unsigned long slow;	/* acquisitions that waited over 1 ms */
	long passes;
} ____cacheline_aligned;

static struct dl_stat dl_stats[NR_CPUS];
static long dl_npasses;

/* The article's fragment, one upgrade per pass, on each worker's CPU. */
static void dl_upgrader(struct scen_worker *w)
{
	struct dl_stat *st = &dl_stats[w->idx];
	u64 slow = scen_ns_to_cycles(1000000);
	struct dl_el *p;

	if (!scen_start_barrier(w))
		return;
	for (long i = 0; i < dl_npasses && !READ_ONCE(w->g->stop); i++) {
		rcu_read_lock_sched();
		list_for_each_entry_rcu(p, &dl_head, list) {
			READ_ONCE(p->data);	/* do_something_with(p) */
			if (need_update(p, w->cpu)) {
				u64 t0 = get_cycles();

				spin_lock(&dl_lock);
				u64 d = get_cycles() - t0;

				p->data++;	/* do_update(p) */
				spin_unlock(&dl_lock);
				atomic_inc(&dl_updates);
				if (d > st->max_wait)
					st->max_wait = d;
				st->slow += d > slow;
			}
		}
		rcu_read_unlock_sched();
		WRITE_ONCE(st->passes, i + 1);
		if ((i & 15) == 0)
			scen_yield();
	}
}

/* Waits for the group while upgrades keep coming: hung only after
 * deadlock.stall_s seconds without one (then names who is stuck where). */
static int dl_wait(struct scen_group *g, int n)
{
	int last = atomic_read(&dl_updates);
	u64 last_ns = ktime_get_ns();

	while (atomic_read(&g->done) < g->n) {
		int now = atomic_read(&dl_updates);

		if (now != last) {
			last = now;
			last_ns = ktime_get_ns();
		} else if (ktime_get_ns() - last_ns > deadlock_stall_s * 1000000000ull) {
			ktap_log("rcu-sched upgrade: no upgrade in %u s at %d done; my_lock %s (owner CPU %d)",
				 deadlock_stall_s, now, spin_is_locked(&dl_lock) ? "held" : "free",
				 spin_owner_cpu(&dl_lock));
			for (int i = 0; i < n; i++)
				if (!READ_ONCE(g->w[i].finished))
					ktap_log("rcu-sched upgrade: worker %d (CPU %d) at pass %ld of %ld",
						 i, g->w[i].cpu, READ_ONCE(dl_stats[i].passes), dl_npasses);
			scen_group_stop(g);
			return scen_group_wait(g, 10000) ? -ETIMEDOUT : -EDEADLK;
		}
		scen_sleep_ms(10);
	}
	return scen_group_wait(g, 10000);
}

static void rcu_read_to_update_upgrade(void)
{
	int cpus[NR_CPUS], n = scen_online_cpus(cpus, NR_CPUS);
	long expect = 0;
	struct scen_group *g = scen_group_alloc();

	KTAP_ASSERT(g);
	dl_npasses = dl_passes(n);
	INIT_LIST_HEAD(&dl_head);
	for (int i = 0; i < DL_ELEMS; i++) {
		dl_elems[i].key = i;
		dl_elems[i].data = 0;
		list_add_tail_rcu(&dl_elems[i].list, &dl_head);
	}
	memset(dl_stats, 0, sizeof(dl_stats));
	atomic_set(&dl_updates, 0);
	for (int c = 0; c < n; c++)
		for (int i = 0; i < DL_ELEMS; i++)
			expect += need_update(&dl_elems[i], cpus[c]) ? dl_npasses : 0;

	u64 t0 = ktime_get_ns();
	scen_convoy_begin(n);
	int ret = scen_group_start(g, cpus, n, dl_upgrader, NULL);

	if (!ret)
		ret = dl_wait(g, n);
	scen_convoy_end(n);
	u64 t1 = ktime_get_ns();
	long sum = 0;
	u64 max_wait = 0;
	unsigned long slow = 0;
	int ups = atomic_read(&dl_updates);
	char b1[SCEN_FMT_BUF], b2[SCEN_FMT_BUF];

	for (int i = 0; i < DL_ELEMS; i++)
		sum += dl_elems[i].data;
	for (int i = 0; i < n; i++) {
		max_wait = MAX(max_wait, dl_stats[i].max_wait);
		slow += dl_stats[i].slow;
	}
	ktap_log("bench name=deadlock type=rcu-sched cpus=%d upgrades=%d result=%s elapsed_ns=%llu passes=%ld ns_per_upgrade=%s max_lock_wait_ns=%s slow_1ms=%lu",
		 n, ups, ret == -EDEADLK || ret == -ETIMEDOUT ? "hung" : ret ? "error" : "completed",
		 (unsigned long long)(t1 - t0), dl_npasses,
		 scen_fmt_ps(b1, sizeof(b1), ups ? (s64)((t1 - t0) * 1000 / (u64)ups) : 0),
		 scen_fmt_ps(b2, sizeof(b2), (s64)scen_cycles_to_ps(max_wait)), slow);
	if (slow)
		ktap_log("rcu-sched upgrade: %lu of %d lock acquisitions waited over 1 ms (longest %s ns): a lock convoy on the host, progress went on",
			 slow, ups, b2);
	if (ret)
		ktap_fail("RCU read-to-update upgrade did not complete (%d)", ret);
	/* Every upgrade happened and none was lost under the lock. */
	KTAP_EXPECT_EQ(atomic_read(&dl_updates), expect);
	KTAP_EXPECT_EQ(sum, expect);
	scen_group_free(g, ret);
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
