/*
 * rcu/kvfree.h - kfree_rcu()'s boot hooks and its counters, for kmain(),
 * the tests and the benchmarks (the API is in rcu/rcupdate.h).
 */
#pragma once

#include "kernel/atomic.h"

struct kfree_rcu_stats {
	atomic_long_t freed;		/* objects freed after their GP */
	atomic_long_t batches;		/* call_rcu()s: one per batch, all CPUs' */
	atomic_long_t pages;		/* pages of pointers allocated now */
	atomic_long_t by_head;		/* on rcu_head chains, counted as batched */
	atomic_long_t by_sync;		/* mightsleep: synchronize_rcu(), kfree() */
	atomic_long_t slots_busy;	/* monitor found the batch in flight */
	atomic_long_t shrunk;		/* cached pages given back */
	atomic_long_t handed_over;	/* objects moved off a CPU going down */
	atomic_long_t atomic_reports;	/* mightsleep from atomic context */
	atomic_long_t leaked;		/* ...that could not be queued */
	/*
	 * Where a queued object's time in flight goes, summed over the
	 * objects in jiffies (ms at the default hz=1000): queued -> its batch handed to a grace
	 * period (wait_hand), -> that GP's end, its callback (wait_gp),
	 * -> freed by a worker (wait_free).  Divided by freed, each is a
	 * mean per object; together, by Little's law, the mean memory in
	 * flight over the queueing rate.
	 */
	atomic_long_t wait_hand, wait_gp, wait_free;
	atomic_long_t batch_max;	/* objects in the largest batch */
};
extern struct kfree_rcu_stats kfree_rcu_stats;
/* Objects handed in and queued so far (summed over the CPUs, whose own
 * counts a queueing CPU bumps under its lock: no shared line per object). */
long kfree_rcu_queued(void);

/* Where the objects in flight are now, for the benchmarks (racy sums). */
struct kfree_rcu_breakdown {
	long on_cpus;		/* queued on the CPUs, not yet handed to a GP */
	long in_gp;		/* handed to a grace period not yet over */
	long to_free;		/* past their grace period, not yet freed */
	long pages_cached;	/* empty pages kept for later */
};
void kfree_rcu_breakdown(struct kfree_rcu_breakdown *kb);

/* kmain(), after rcu_late_init(): each CPU's state, the hotplug hooks
 * and the shrinker. */
void kfree_rcu_init_late(void);
/* Each CPU as it comes up, before it runs tasks (smp_ap_main()). */
void kfree_rcu_init_percpu(int cpu);
/* Pointers one page holds. */
unsigned long kfree_rcu_bulk_max(void);
/* Gives back every cached page now; returns how many. */
unsigned long kfree_rcu_shrink(void);

/* kfree_rcu.drain_ms: how long the first object queued after a batch
 * waits for company. */
extern unsigned int kfree_rcu_drain_ms;
/* kfree_rcu.gp_gap: the pace, in units of the last batch's GP wait. */
extern unsigned int kfree_rcu_gp_gap;

#ifdef CONFIG_SANITIZE
/* Test build: no page of pointers can be had while set (the fallbacks). */
extern bool kfree_rcu_inject_nopage;
/* kfree_rcu.inject=MASK, faults the kfree_rcu suite must catch: */
#define KFREE_INJECT_NO_GP	0x1	/* batches freed without a grace period */
#define KFREE_INJECT_BARRIER	0x2	/* kvfree_rcu_barrier() returns at once */
#define KFREE_INJECT_ODEBUG	0x4	/* no double-queue check: freed twice */
#define KFREE_INJECT_ATOMIC	0x8	/* mightsleep's atomic check is off */
#define KFREE_INJECT_HANDOVER	0x10	/* a CPU going down keeps its queue */
extern unsigned int kfree_rcu_inject;
/*
 * Test build: kvfree_rcu_barrier_window_arm() holds the batch in flight
 * (its callback takes one more grace period each time, until released)
 * and makes the next kvfree_rcu_barrier() sleep between its snapshot and
 * its first check until kvfree_rcu_barrier_window_release() (30 s at
 * most; _waiting() is true meanwhile), so a test can take a CPU down
 * there.  Its first check releases the batch; _busy() then says whether
 * the batch was in flight at it (1), not (0), or no check yet (-1).
 * _close() undoes an arm on a test's error path.
 */
void kvfree_rcu_barrier_window_arm(void);
bool kvfree_rcu_barrier_window_waiting(void);
void kvfree_rcu_barrier_window_release(void);
int kvfree_rcu_barrier_window_busy(void);
void kvfree_rcu_barrier_window_close(void);
#endif
