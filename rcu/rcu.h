/*
 * rcu/rcu.h - grace-period sequence numbers, shared by every flavour in
 * rcu/ (Linux keeps them in kernel/rcu/rcu.h).  Not for use outside rcu/.
 *
 * A sequence number's low RCU_SEQ_CTR_SHIFT bits are the state of the
 * grace period (0 idle, else in progress: SRCU uses 1 and 2 for its two
 * scans), the rest counts grace periods.  Writers move it only through
 * rcu_seq_start() and rcu_seq_end() (SRCU also steps its state by one
 * between its scans); waiters take rcu_seq_snap() and poll rcu_seq_done().
 */
#pragma once

#include "kernel/atomic.h"
#include "rcu/segcblist.h"	/* ULONG_CMP_GE */
#include "rcu/rcupdate.h"	/* RCU_GET_STATE_* */
#include "kernel/printk.h"

/*
 * RCU_ASSERT(c): c is an invariant of rcu/'s state, written where the
 * state changes.  In the test build (CONFIG_SANITIZE) it is
 * WARN_ON_ONCE(!(c)), so every path a test takes checks it (a WARNING the
 * running KTAP case did not announce fails it); it is not compiled, not
 * even evaluated, in the benchmark build.  Like WARN_ON_ONCE() it yields
 * true when the check fired (the invariant is broken), for a repair.
 */
#ifdef CONFIG_SANITIZE
#define RCU_ASSERT(c)	WARN_ON_ONCE(!(c))
#else
#define RCU_ASSERT(c)	({ (void)sizeof(c); false; })
#endif

#define RCU_SEQ_CTR_SHIFT	2
#define RCU_SEQ_STATE_MASK	((1UL << RCU_SEQ_CTR_SHIFT) - 1)

/* Every sequence starts 300 grace periods before the counter wraps, so
 * that code comparing them without ULONG_CMP_*() fails soon after boot. */
#define RCU_SEQ_INITIAL_VAL	((0UL - 300UL) << RCU_SEQ_CTR_SHIFT)

static inline unsigned long rcu_seq_state(unsigned long s)
{
	return s & RCU_SEQ_STATE_MASK;
}

static inline unsigned long rcu_seq_ctr(unsigned long s)
{
	return s >> RCU_SEQ_CTR_SHIFT;
}

/* The number of grace periods *sp has completed since boot. */
static inline unsigned long rcu_seq_completed(unsigned long *sp)
{
	return rcu_seq_ctr(smp_load_acquire(sp) - RCU_SEQ_INITIAL_VAL);
}

/* The sequence once the GP now running (or the next, if idle) has ended. */
static inline unsigned long rcu_seq_endval(unsigned long s)
{
	return (s | RCU_SEQ_STATE_MASK) + 1;
}

/* Marks a grace period as started.  The caller orders its own accesses
 * around it (a full barrier after, where the GP's checks must follow). */
static inline void rcu_seq_start(unsigned long *sp)
{
	RCU_ASSERT(!rcu_seq_state(*sp));	/* idle -> started only */
	smp_store_release(sp, *sp + 1);
}

/*
 * Marks the grace period as ended.  The release orders every QS report
 * (and the grace period's other accesses) before the new value: whoever
 * sees it with rcu_seq_done() may free what the grace period protected.
 */
static inline void rcu_seq_end(unsigned long *sp)
{
	RCU_ASSERT(rcu_seq_state(*sp));	/* only a started one ends */
	smp_store_release(sp, rcu_seq_endval(*sp));
}

/*
 * The value *sp must reach for a full grace period to have passed since
 * now: the end of the next GP if one is running (it may have started
 * before our caller's update), else the end of the next one to start.
 * The full barrier orders the caller's prior accesses (its removal of an
 * object) before the load: any GP that counts started after them.
 */
static inline unsigned long rcu_seq_snap(unsigned long *sp)
{
	smp_mb();
	return (smp_load_acquire(sp) + 2 * RCU_SEQ_STATE_MASK + 1) & ~RCU_SEQ_STATE_MASK;
}

/*
 * True once *sp has reached s.  The acquire pairs with the release in
 * rcu_seq_end(): the caller's later accesses (freeing) follow every QS
 * report of that grace period.
 */
static inline bool rcu_seq_done(unsigned long *sp, unsigned long s)
{
	return ULONG_CMP_GE(smp_load_acquire(sp), s);
}

/*
 * Is the polled cookie s satisfied once the sequence reads cur?  Linux's
 * rcu_seq_done_exact() on values: a snapshot is at most
 * 2 * RCU_SEQ_STATE_MASK + 1 ahead of the sequence it was taken from, so
 * only a cur within that distance below s means "not yet"; every other
 * cur, however far ahead or wrapped, is past it.  A cookie stored for
 * longer than half the counter's range therefore still reads as done.
 * RCU_GET_STATE_COMPLETED is always done; a value with state bits set
 * (RCU_GET_STATE_NEVER) never, since no snapshot has them.
 */
static inline bool rcu_cookie_done(unsigned long cur, unsigned long s)
{
	if (s == RCU_GET_STATE_COMPLETED)
		return true;
	if (rcu_seq_state(s))
		return false;
	return ULONG_CMP_GE(cur, s) || ULONG_CMP_LT(cur, s - (2 * RCU_SEQ_STATE_MASK + 1));
}
