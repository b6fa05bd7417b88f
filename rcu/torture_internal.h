/*
 * rcu/torture_internal.h - what rcu/torture.c (the writer, the readers,
 * the run) shares with its stressors in rcu/torture_cb.c (callback
 * barrier, forward progress, object debugging) and rcu/torture_threads.c
 * (irq/NMI readers, CPU stall, read_exit, stutter, shuffle).  Not for use
 * outside rcu/torture*.c.
 */
#pragma once

#include "rcu/torture.h"
#include "rcu/tree.h"
#include "rcu/srcu.h"
#include "kernel/printk.h"
#include "kernel/cmdline.h"
#include "kernel/time.h"

enum torture_mode { TM_SYNC, TM_EXP, TM_ASYNC, TM_POLLED, TM_BUSTED };
/* Which RCU: RCU-sched, preemptible RCU (rcu/preempt.c), SRCU (rcu/srcu.c). */
enum torture_flavor { TF_SCHED, TF_RCU, TF_SRCU };

struct rcu_torture_ops {
	const char *name;
	enum torture_mode mode;
	enum torture_flavor flavor;
};

extern const struct rcu_torture_ops *cur_ops;
extern struct srcu_struct rcu_torture_srcu;
extern struct srcu_struct rcu_torture_srcu_irq;

/* ---- a small per-thread PRNG (no floating point, no shared state) ---- */

struct torture_random {
	u64 s;
};

static inline u32 torture_random(struct torture_random *r)
{
	r->s ^= r->s << 13;
	r->s ^= r->s >> 7;
	r->s ^= r->s << 17;
	return (u32)(r->s >> 11);
}

static inline void torture_random_init(struct torture_random *r, u64 seed)
{
	r->s = seed * 0x9e3779b97f4a7c15ull + get_cycles() + 1;
}

/* ---- a bounded hold ---- */

/**
 * torture_hold_until - spin until a condition holds or a time has passed
 * @cond: the condition, an expression evaluated again after each wait
 * @ns: the longest hold, in nanoseconds (ktime_get_ns())
 *
 * Holds the CPU in 10 us steps (udelay()) until @cond is true or @ns
 * have passed since the call: a stressor's bounded hold, which keeps a
 * window open until the other side has acted and never longer than @ns.
 * Any context, irqs off and NMI included; it neither sleeps nor yields.
 * @cond is evaluated at least once, even with @ns 0.
 *
 * Return: true if @cond was true when last evaluated, false if the hold
 * ran to its bound.
 */
#define torture_hold_until(cond, ns)						\
({										\
	u64 __thu_end = ktime_get_ns() + (ns);					\
	bool __thu_done;							\
										\
	while (!(__thu_done = !!(cond)) && ktime_get_ns() < __thu_end)		\
		udelay(10);							\
	__thu_done;								\
})

/* ---- the flavour's primitives ---- */

void torture_call(struct rcu_head *head, rcu_callback_t func);
void torture_barrier(void);
/*
 * A barrier that has not returned in this long, while no other one has
 * returned either, is stuck (a callback stranded): the run ends with an
 * ERROR instead of hanging in its stop.  Three RCU CPU stall timeouts
 * (a grace period that long is reported as a stall anyway), and three of
 * srcu_barrier()'s "still waiting" periods.  Jiffies: they lag the wall
 * on a loaded host, which makes the bound more lenient there.
 */
#define TORTURE_BARRIER_STUCK_S	30

/* The test build (CONFIG_SANITIZE): its extra holds and checks are plain
 * conditions on this, so both builds compile them. */
#ifdef CONFIG_SANITIZE
#define TORTURE_TEST_BUILD	true
#else
#define TORTURE_TEST_BUILD	false
#endif
void torture_sync_normal(void);
void torture_sync_exp(void);
unsigned long torture_completed(void);	/* GPs of the flavour, normal ones */
unsigned long torture_completed_any(void);	/* ... normal and expedited */
/*
 * Before its first wake-up: t runs at the readers' priority, below the
 * writers for rcu and srcu (whose every wake-up then preempts a reader).
 * Every thread that busy-reads or spins beside the readers runs there:
 * above them it would starve one it preempted inside its section, and an
 * SRCU reader is never boosted, so the grace period would wait on it.
 */
void torture_reader_prio(struct task *t);

/* ---- run state ---- */

/* Set when the run ends; every torture thread polls it. */
bool torture_must_stop(void);
/* Sleeps while stutter has paused the test (rcu/torture_threads.c). */
void stutter_wait(void);
/* One reader critical section of the flavour, from a thread (r != NULL);
 * a bare body (no lock taken here) from irq or NMI context, where r
 * dawdles the hardirq way (often, briefly) and NULL not at all. */
void rcu_torture_one_read(struct torture_random *r);
void rcu_torture_one_read_body(struct torture_random *r, int cpu);
/* The flavour's own read-side lock (idx: SRCU's index), from a thread. */
void rcutorture_flavour_lock(int *idx);
void rcutorture_flavour_unlock(int idx);
/* Counts an error and prints the first few messages. */
void torture_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- the stressors (each a no-op unless its torture.* option is set) ---- */

int rcu_torture_cb_start(void);		/* n_barrier_cbs, fwd_progress, object_debug */
bool rcu_torture_cb_pending(void);	/* one has not yet done its part once */
void rcu_torture_cb_stop(void);
bool rcu_torture_cb_report(void);	/* prints; false if a stressor failed */
/* torture.kfree_rcu (rcu/torture_kfree.c; the host shim's stand-ins are
 * no-ops): the object a reader fetched at its start, checked at its end. */
int rcu_torture_kfree_start(void);
bool rcu_torture_kfree_pending(void);
void rcu_torture_kfree_stop(void);
bool rcu_torture_kfree_report(void);
void *rcu_torture_kfree_read_start(void);
void rcu_torture_kfree_read_end(void *obj, int cpu);
int rcu_torture_threads_start(void);	/* irqreader, stall_cpu, read_exit, stutter, shuffle */
bool rcu_torture_threads_pending(void);
void rcu_torture_threads_stop(void);
bool rcu_torture_threads_report(void);
/* cpu_kthreads' callbacks, for n_barrier_cbs's barrier check: snap before
 * the barrier; after it, how many queued before the snapshot have not run. */
void cpu_kthread_cbs_snap(void);
long cpu_kthread_cbs_missed(void);
/* Shuffle: reader i restarts on the (i + rotate)-th online CPU other than
 * idle_cpu (-1: none), which keeps no reader. */
void rcu_torture_readers_shuffle(unsigned int rotate, int idle_cpu);
