/*
 * rcu/rcupdate.h - the RCU-sched API (Linux names and meaning) and the
 * hooks the kernel calls into rcu/.
 *
 * The contract callers keep (perfbook-style):
 *  - A reader is any region where preemption or interrupts are disabled,
 *    and every NMI handler.  rcu_read_lock_sched() is preempt_disable().
 *    A reader may not block.
 *  - An updater publishes with rcu_assign_pointer() (a release store: the
 *    initialisation of the new object is visible before the pointer) and
 *    readers fetch with rcu_dereference*() (a dependency-ordered load:
 *    the object's fields are read after the pointer).
 *  - synchronize_sched() returns only after every reader that was running
 *    when it was called has finished; call_rcu_sched(head, fn) runs fn
 *    after such a grace period, in a kernel thread, never in the caller.
 *    Both are full memory barriers on entry and exit with respect to every
 *    CPU's readers: the updater's stores before the call are seen by any
 *    reader that starts after it returns, and the readers' loads inside
 *    pre-existing sections happen before anything after it.
 *  - synchronize_sched(), synchronize_sched_expedited() and
 *    rcu_barrier_sched() must not be called from inside a reader; doing so
 *    is reported (WARN with a backtrace, rcu_misuse_reports; a WARN the
 *    running KTAP case did not announce fails it) and the call returns at
 *    once instead of deadlocking.
 *
 * Implementation: rcu/tree.c (grace periods), rcu/segcblist.c (callback
 * lists), rcu/expedited.c, rcu/poll.c (full polled cookies), rcu/kvfree.c
 * (kfree_rcu()), rcu/stall.c, rcu/torture.c.  Built unchanged in the
 * kernel and on the host (tests/host/rcu/shim), kvfree.c in the kernel
 * only.
 */
#pragma once

#include "kernel/types.h"
#include "kernel/atomic.h"
#include "kernel/preempt.h"

struct rcu_head {
	struct rcu_head *next;
	void (*func)(struct rcu_head *head);
};
typedef void (*rcu_callback_t)(struct rcu_head *head);

/* Marks a pointer RCU-protected (documentation only here, sparse in Linux). */
#define __rcu

/* ---- read side ---- */

static inline void rcu_read_lock_sched(void) { preempt_disable(); }
static inline void rcu_read_unlock_sched(void) { preempt_enable(); }
static inline void rcu_read_lock_sched_notrace(void) { preempt_disable(); }
static inline void rcu_read_unlock_sched_notrace(void) { preempt_enable(); }


/* True unless this CPU is idle with no irq/NMI: rcu_dereference is legal. */
bool rcu_is_watching(void);

/*
 * True if this context is an RCU-sched reader.  In the test build
 * (CONFIG_LOCKDEP, RCU-lockdep) also only while RCU watches this CPU:
 * the idle loop runs with irqs off, but in its extended quiescent state
 * no grace period waits for it, so it is never a reader there (Linux's
 * "RCU used illegally from extended quiescent state").
 */
static inline bool rcu_read_lock_sched_held(void)
{
#ifdef CONFIG_LOCKDEP
	if (!rcu_is_watching())
		return false;
#endif
	return preempt_count() != 0 || irqs_disabled();
}

/*
 * RCU-lockdep (test build): a check that fails reports "suspicious RCU
 * usage" once per call site, through WARN() (kernel/lockdep.c).  In the
 * benchmark build the condition is not even evaluated.
 */
#ifdef CONFIG_LOCKDEP
void lockdep_rcu_suspicious(const char *file, int line, const char *s);
#define RCU_LOCKDEP_WARN(c, s) do {					\
	static bool __warned;						\
	if (unlikely(c) && !__warned) {					\
		__warned = true;					\
		lockdep_rcu_suspicious(__FILE__, __LINE__, s);		\
	}								\
} while (0)
#else
#define RCU_LOCKDEP_WARN(c, s)	do { (void)sizeof(c); } while (0)
#endif

/* Out of line so the read path stays a compare and a branch. */
void rcu_dereference_sched_warn(const char *file, int line);

/*
 * The load is an acquire on the host so ThreadSanitizer sees the
 * publication; on x86 an acquire load is a plain mov, so the kernel pays
 * nothing more than Linux's READ_ONCE (which relies on the address
 * dependency, preserved by every CPU but Alpha).
 */
#define rcu_dereference_raw(p) smp_load_acquire(&(p))
/*
 * Inside a reader (rcu_read_lock_any_held()), or where c says the pointer
 * cannot change (the update-side lock: lockdep_is_held(&lock)).
 */
#define rcu_dereference_check(p, c) ({					\
	RCU_LOCKDEP_WARN(!((c) || rcu_read_lock_any_held()),		\
			 "suspicious rcu_dereference_check() usage");	\
	rcu_dereference_raw(p); })
#define rcu_dereference(p) rcu_dereference_check(p, 0)
#define rcu_dereference_sched_check(p, c) ({				\
	if (unlikely(!((c) || rcu_read_lock_sched_held())))		\
		rcu_dereference_sched_warn(__FILE__, __LINE__);		\
	rcu_dereference_raw(p); })
#define rcu_dereference_sched(p) rcu_dereference_sched_check(p, 0)
/* The updater holds the lock (c) that keeps p from changing: no reader. */
#define rcu_dereference_protected(p, c) ({				\
	RCU_LOCKDEP_WARN(!(c), "suspicious rcu_dereference_protected() usage"); \
	READ_ONCE(p); })
/* Only the pointer's value, never dereferenced: no ordering needed. */
#define rcu_access_pointer(p) READ_ONCE(p)

/* Release: the object's initialisation is visible before the pointer. */
#define rcu_assign_pointer(p, v) smp_store_release(&(p), (v))
/* NULL, or an object no reader can reach yet: no ordering needed. */
#define RCU_INIT_POINTER(p, v) WRITE_ONCE(p, v)

/* ---- update side ---- */

void synchronize_sched(void);
void synchronize_sched_expedited(void);
void call_rcu_sched(struct rcu_head *head, rcu_callback_t func);
void rcu_barrier_sched(void);

/* Polled grace periods: a cookie, true once a full GP has passed since. */
unsigned long get_state_synchronize_sched(void);
/* The same, and makes sure a grace period will start to satisfy it. */
unsigned long start_poll_synchronize_sched(void);
bool poll_state_synchronize_sched(unsigned long oldstate);
void cond_synchronize_sched(unsigned long oldstate);

/*
 * Full polled cookies (Linux 6.2's struct rcu_gp_oldstate; rcu/poll.c).
 * A plain cookie above counts normal grace periods only.  A full one
 * snapshots both the normal and the flavour's expedited sequence, and is
 * satisfied by whichever kind of grace period ends first after it was
 * taken: poll_state_synchronize_*_full() true means every reader of the
 * flavour that was running when the cookie was taken has finished (and,
 * as for the plain form, is a full barrier against them).  An expedited
 * grace period that was already running when the cookie was taken never
 * satisfies it; the one after it does.
 *  - get_state_*_full() only snapshots: nothing starts a grace period.
 *  - start_poll_*_full() also makes sure a normal grace period will come.
 *  - cond_synchronize_*_full() returns at once if the cookie is
 *    satisfied, else waits for a normal grace period (may sleep).
 *  - start_poll_synchronize_*_expedited[_full]() snapshots and has an
 *    expedited grace period run soon, in the rcu_exp_poll kthread (the
 *    caller never waits: legal with irqs off and in irq context, not
 *    in NMI).  A plain cookie counts only normal grace periods here, so
 *    the plain form also requests the normal one; the full form's
 *    cookie is satisfied by the expedited one.
 * Cookies are values: store them in objects and test them any time
 * later, however many grace periods (and counter wraps) have passed; a
 * satisfied cookie stays satisfied.  Two special values, never returned
 * by a snapshot (their state bits are set):
 *  - RCU_GET_STATE_COMPLETED (get_completed_synchronize_rcu[_full]()):
 *    always satisfied, e.g. for an object that was never published.
 *  - RCU_GET_STATE_NEVER (get_never_synchronize_rcu[_full](); not a
 *    Linux name): never satisfied by polling, e.g. for an object still
 *    published; cond_synchronize_*() on it waits a full grace period.
 * Any other value with state bits set is treated as RCU_GET_STATE_NEVER.
 * All but cond_ are legal in any context but NMI, readers included.
 */
#define RCU_GET_STATE_COMPLETED	0x1UL
#define RCU_GET_STATE_NEVER	0x2UL

struct rcu_gp_oldstate {
	unsigned long rgos_norm;	/* rcu_state.gp_seq snapshot */
	unsigned long rgos_exp;		/* the flavour's expedited_sequence snapshot */
};

static inline unsigned long get_completed_synchronize_rcu(void) { return RCU_GET_STATE_COMPLETED; }
static inline unsigned long get_never_synchronize_rcu(void) { return RCU_GET_STATE_NEVER; }
static inline void get_completed_synchronize_rcu_full(struct rcu_gp_oldstate *rgosp)
{
	rgosp->rgos_norm = RCU_GET_STATE_COMPLETED;
	rgosp->rgos_exp = RCU_GET_STATE_COMPLETED;
}
static inline void get_never_synchronize_rcu_full(struct rcu_gp_oldstate *rgosp)
{
	rgosp->rgos_norm = RCU_GET_STATE_NEVER;
	rgosp->rgos_exp = RCU_GET_STATE_NEVER;
}
/* Two cookies taken at the same time (either half equal, as Linux). */
static inline bool same_state_synchronize_rcu_full(const struct rcu_gp_oldstate *a,
						   const struct rcu_gp_oldstate *b)
{
	return a->rgos_norm == b->rgos_norm || a->rgos_exp == b->rgos_exp;
}

void get_state_synchronize_sched_full(struct rcu_gp_oldstate *rgosp);
void start_poll_synchronize_sched_full(struct rcu_gp_oldstate *rgosp);
bool poll_state_synchronize_sched_full(struct rcu_gp_oldstate *rgosp);
void cond_synchronize_sched_full(struct rcu_gp_oldstate *rgosp);
unsigned long start_poll_synchronize_sched_expedited(void);
void start_poll_synchronize_sched_expedited_full(struct rcu_gp_oldstate *rgosp);

/* Grace periods completed since boot (for torture and benchmarks). */
unsigned long rcu_batches_completed_sched(void);
unsigned long rcu_exp_batches_completed_sched(void);

/* Misuse reports (synchronize inside a reader, each one a WARN); tests
 * read this. */
extern atomic_t rcu_misuse_reports;
/* rcu_dereference_sched() outside a reader (warned once, counted always). */
extern atomic_t rcu_deref_warnings;

/* ---- the plain rcu_*() names: preemptible RCU (rcu/preempt.c) ----
 *
 * The build chooses (Makefile PREEMPT_RCU=1, the default, defines
 * CONFIG_PREEMPT_RCU):
 *  - CONFIG_PREEMPT_RCU: rcu_read_lock() only bumps the running task's
 *    nesting count; the reader may be preempted (never sleep: use SRCU).
 *    A task switched out inside a section is queued on its CPU's leaf
 *    rcu_node and holds up every grace period that started before it
 *    blocked until its outermost rcu_read_unlock().  Grace periods are
 *    RCU-sched's own, so synchronize_rcu() also waits for RCU-sched
 *    readers (one grace-period machine serves both, as Linux's since
 *    4.20); synchronize_rcu_expedited() waits for rcu_read_lock()
 *    readers only.
 *  - otherwise: the names map onto RCU-sched, the answer of the article's
 *    Quick Quiz 1 (docs/article.md) for a non-preemptible kernel (a reader is a preempt-disabled
 *    region).
 * synchronize_rcu() and friends called inside an rcu_read_lock() section
 * of the calling task are reported (rcu_misuse_reports) and return at once.
 */
#ifdef CONFIG_PREEMPT_RCU
#include "kernel/sched.h"

/* The unlock slow path (rcu/preempt.c) looks at these bits. */
#define RCU_SPECIAL_BLOCKED	0x1	/* queued on a leaf's blkd_tasks */
#define RCU_SPECIAL_NEED_QS	0x2	/* a tick saw this reader hold up a GP */
#define RCU_SPECIAL_EXP_HINT	0x4	/* an expedited GP waits for this CPU */
#define RCU_SPECIAL_BOOSTED	0x8	/* prio raised; lower it on unlock */

void rcu_read_unlock_special(struct task *t);

static inline void __rcu_read_lock(void)
{
	current->rcu_read_lock_nesting++;
	barrier();	/* the section's accesses stay after the increment */
}

/*
 * The count and the special bits are only ever changed by this task, by
 * an interrupt on its CPU (which balances what it does before returning)
 * or by the scheduler's context switch away from it: all on this CPU, so
 * plain accesses and compiler barriers order them.
 */
static inline void __rcu_read_unlock(void)
{
	struct task *t = current;

	barrier();	/* the section's accesses stay before the decrement */
	if (--t->rcu_read_lock_nesting == 0) {
		barrier();
		if (unlikely(READ_ONCE(t->rcu_read_unlock_special)))
			rcu_read_unlock_special(t);
	}
}

static inline void rcu_read_lock(void) { __rcu_read_lock(); }
static inline void rcu_read_unlock(void) { __rcu_read_unlock(); }
/* Depth of the running task's rcu_read_lock() nesting. */
static inline int rcu_preempt_depth(void) { return current->rcu_read_lock_nesting; }
/* In the test build also false where RCU does not watch (idle, EQS). */
static inline bool rcu_read_lock_held(void)
{
#ifdef CONFIG_LOCKDEP
	if (!rcu_is_watching())
		return false;
#endif
	return rcu_preempt_depth() > 0;
}

void synchronize_rcu(void);
void synchronize_rcu_expedited(void);
void call_rcu(struct rcu_head *head, rcu_callback_t func);
void rcu_barrier(void);
unsigned long get_state_synchronize_rcu(void);
unsigned long start_poll_synchronize_rcu(void);
bool poll_state_synchronize_rcu(unsigned long oldstate);
void cond_synchronize_rcu(unsigned long oldstate);
/* Full cookies: the expedited half is synchronize_rcu_expedited()'s. */
void get_state_synchronize_rcu_full(struct rcu_gp_oldstate *rgosp);
void start_poll_synchronize_rcu_full(struct rcu_gp_oldstate *rgosp);
bool poll_state_synchronize_rcu_full(struct rcu_gp_oldstate *rgosp);
void cond_synchronize_rcu_full(struct rcu_gp_oldstate *rgosp);
unsigned long start_poll_synchronize_rcu_expedited(void);
void start_poll_synchronize_rcu_expedited_full(struct rcu_gp_oldstate *rgosp);
#else /* !CONFIG_PREEMPT_RCU */
static inline void rcu_read_lock(void) { rcu_read_lock_sched(); }
static inline void rcu_read_unlock(void) { rcu_read_unlock_sched(); }
static inline int rcu_preempt_depth(void) { return 0; }
static inline bool rcu_read_lock_held(void) { return rcu_read_lock_sched_held(); }
static inline void synchronize_rcu(void) { synchronize_sched(); }
static inline void synchronize_rcu_expedited(void) { synchronize_sched_expedited(); }
static inline void call_rcu(struct rcu_head *head, rcu_callback_t func)
{
	call_rcu_sched(head, func);
}
static inline void rcu_barrier(void) { rcu_barrier_sched(); }
static inline unsigned long get_state_synchronize_rcu(void) { return get_state_synchronize_sched(); }
static inline unsigned long start_poll_synchronize_rcu(void) { return start_poll_synchronize_sched(); }
static inline bool poll_state_synchronize_rcu(unsigned long s) { return poll_state_synchronize_sched(s); }
static inline void cond_synchronize_rcu(unsigned long s) { cond_synchronize_sched(s); }
static inline void get_state_synchronize_rcu_full(struct rcu_gp_oldstate *r)
{
	get_state_synchronize_sched_full(r);
}
static inline void start_poll_synchronize_rcu_full(struct rcu_gp_oldstate *r)
{
	start_poll_synchronize_sched_full(r);
}
static inline bool poll_state_synchronize_rcu_full(struct rcu_gp_oldstate *r)
{
	return poll_state_synchronize_sched_full(r);
}
static inline void cond_synchronize_rcu_full(struct rcu_gp_oldstate *r)
{
	cond_synchronize_sched_full(r);
}
static inline unsigned long start_poll_synchronize_rcu_expedited(void)
{
	return start_poll_synchronize_sched_expedited();
}
static inline void start_poll_synchronize_rcu_expedited_full(struct rcu_gp_oldstate *r)
{
	start_poll_synchronize_sched_expedited_full(r);
}
#endif /* CONFIG_PREEMPT_RCU */

/*
 * ---- the poor man's garbage collector: kfree_rcu() (rcu/kvfree.c) ----
 *
 *  - kfree_rcu(ptr, rhf): kfree(ptr) after a grace period; rhf is the
 *    name of ptr's struct rcu_head field.  Never sleeps, never waits:
 *    legal in any context but NMI (irqs off, irq handlers, inside any
 *    reader).  kfree_rcu(NULL, rhf) does nothing.  The grace period is
 *    call_rcu()'s, which waits for every rcu_read_lock() reader (either
 *    build) and every RCU-sched reader (preemption, irqs or bh off,
 *    rcu_read_lock_sched()): one call serves objects read under either.
 *    Not for SRCU readers (use call_srcu()).
 *  - kvfree_rcu_mightsleep(ptr): the same for an object without an
 *    rcu_head.  It may sleep: when no page of pointers can be had it
 *    waits in synchronize_rcu() and frees the object itself.  Only where
 *    sleeping is legal (not inside any reader, irqs and preemption on);
 *    from atomic context it is reported (WARN) and never sleeps: it
 *    queues the object if a page has room, else leaks it (counted in
 *    kfree_rcu_stats.leaked), since freeing it at once could be a use
 *    after free.
 *  - kvfree_rcu_barrier(): returns once every object handed to either of
 *    the above before the call has been freed.  Sleeps: only where
 *    synchronize_rcu() is legal.
 * kfree_rcu()'s objects are gathered per CPU on a chain through their
 * own rcu_head (no allocation, no byte beyond the object), the
 * one-argument form's into pages of pointers; every CPU's go
 * together to one grace period (one call_rcu() per batch, not per object
 * or per CPU), paced so that kfree_rcu() keeps grace periods busy a quarter
 * of the time at most (kfree_rcu.gp_gap), and are freed in bulk by the
 * kfree_rcu/N kthreads.  Handing an object in twice while it is still queued
 * is a bug: the test build reports it (ODEBUG, rcu/debug_head.c) and
 * frees the object once.
 */
void kvfree_call_rcu(struct rcu_head *head, void *ptr);
void kvfree_rcu_barrier(void);
#define kfree_rcu(ptr, rhf) do {					\
		typeof(ptr) ___p = (ptr);				\
									\
		if (___p)						\
			kvfree_call_rcu(&___p->rhf, (void *)___p);	\
	} while (0)
#define kvfree_rcu_mightsleep(ptr) kvfree_call_rcu(NULL, (void *)(ptr))

/*
 * Quick Quiz 1, for measurement only: rcu_read_lock() as a kernel built
 * without preemption (CONFIG_PREEMPT=n) compiles it, which is to say
 * nothing at all.  There only a context switch ends a reader; here a tick
 * that finds preempt_count 0 is a quiescent state too, so this is NOT a
 * correct reader in this kernel: tests/scenarios/readers.c times it as
 * the article's empty-bodied baseline.
 */
static inline void rcu_read_lock_nopreempt_build(void) { }
static inline void rcu_read_unlock_nopreempt_build(void) { }

/* Grace periods and expedited ones that synchronize_rcu() counts. */
unsigned long rcu_batches_completed(void);
unsigned long rcu_exp_batches_completed(void);

/* Priority boosting (rcu.boost, rcu.boost_delay_ms) and its counters. */
extern bool rcu_boost_enabled;
extern unsigned int rcu_boost_delay_ms;
extern atomic_t rcu_boosts;		/* readers raised so far */
/* Tasks queued on a leaf's blkd_tasks so far (preempted readers). */
extern atomic_long_t rcu_preempt_blocked_total;

/*
 * Any reader that synchronize_rcu() waits for: rcu_read_lock(), or an
 * RCU-sched reader, since one grace-period machine serves both (above).
 * What rcu_dereference() checks.
 */
static inline bool rcu_read_lock_any_held(void)
{
	return rcu_read_lock_held() || rcu_read_lock_sched_held();
}

/* ---- hooks the kernel calls ---- */

void rcu_init(void);			/* boot CPU, before SMP */
void rcu_init_percpu(int cpu);		/* each CPU as it comes up */
/* The CPU, irqs off, before it can run any reader (boot or cpu_up()):
 * the grace periods that start from now on wait for it. */
void rcu_cpu_starting(int cpu);
/* The outgoing CPU, irqs off, after its last reader (cpu_down()): its QS
 * for a grace period in progress, and later ones do not wait for it. */
void rcu_report_dead(int cpu);
/* Any CPU, once cpu is dead: its callbacks move here (tags kept). */
void rcu_migrate_callbacks(int cpu);
#ifdef CONFIG_SANITIZE
/* Test build, after rcu_migrate_callbacks(): RCU owns nothing of cpu
 * any more, and its leaf's blocked readers are still waited for. */
void rcu_cpu_dead_check(int cpu);
#else
static inline void rcu_cpu_dead_check(int cpu) { (void)cpu; }
#endif
void rcu_late_init(void);		/* kthreads can be created */
void rcu_note_context_switch(bool preempt);	/* schedule(), irqs off */
void rcu_idle_enter(void);		/* idle loop, irqs off */
void rcu_idle_exit(void);
/* Tickless idle: whether this CPU's tick must keep running for RCU (it
 * has callbacks queued; irqs off). */
bool rcu_needs_cpu(void);
void rcu_irq_enter(void);		/* every irq entry/exit */
void rcu_irq_exit(void);
void rcu_nmi_enter(void);		/* every NMI */
void rcu_nmi_exit(void);
void rcu_sched_clock_irq(int user);	/* the tick, on every CPU */
void rcu_preempt_deferred_qs(void);	/* preempt_enable() hit 0, flag set */
