/*
 * kernel/rwlock.h - the two reader-writer spinlocks the article compares
 * RCU against.
 *
 * rwlock_t is the 2007 Linux x86 rwlock, the one measured in the article:
 * one shared counter starting at RW_LOCK_BIAS; a reader atomically takes
 * one unit from it, a writer takes the whole bias.  Every reader writes
 * the same cache line, which is why its read side stops scaling.  Readers
 * are preferred: a stream of readers can starve a writer.
 *
 * rwlock_fair_t is a queued (fair) rwlock in the shape of Linux's qrwlock:
 * a word with the reader count above bit 8 and the writer state in the
 * low byte, plus a FIFO ticket lock that queues whoever cannot get in at
 * once.  A waiting writer stops new readers, so nobody starves.
 *
 * Both disable preemption while held, like spinlock_t.  read_lock() and
 * friends take either type (C11 _Generic), as Linux callers expect.
 *
 * Both record the CPU of the writer holding them, as spinlock_t does its
 * owner, so a lockup report on either names the writer and asks it for
 * its backtrace.  Only writers store it (after they got in, before they
 * let go): the read side stays one RMW.  Readers are not recorded.
 */
#pragma once

#include "kernel/types.h"
#include "kernel/atomic.h"
#include "kernel/preempt.h"
#include "kernel/spinlock.h"

/* ---- rwlock_t: the 2007 counter rwlock --------------------------------- */

#define RW_LOCK_BIAS	0x01000000

typedef struct {
	atomic_t cnt;	/* BIAS - readers, or 0 when write-held */
	int owner;	/* writer CPU + 1, 0 when not write-held */
} rwlock_t;

#define __RW_LOCK_UNLOCKED(x)	{ .cnt = ATOMIC_INIT(RW_LOCK_BIAS), .owner = 0 }
#define DEFINE_RWLOCK(x)	rwlock_t x = __RW_LOCK_UNLOCKED(x)
static inline void rwlock_init(rwlock_t *rw)
{
	atomic_set(&rw->cnt, RW_LOCK_BIAS);
	rw->owner = 0;
}

/*
 * The writer's CPU, or -1.  Read locklessly by the lockup report on
 * another CPU (relaxed atomics: a report may name a writer that just
 * left, never a torn value).
 */
static inline int rw_owner_cpu(const int *owner)
{
	return __atomic_load_n(owner, __ATOMIC_RELAXED) - 1;
}

static inline void rw_set_owner(int *owner, int cpu)
{
	__atomic_store_n(owner, cpu + 1, __ATOMIC_RELAXED);
}

void __read_lock_failed(rwlock_t *rw);
void __write_lock_failed(rwlock_t *rw);

/* Fast paths are one locked RMW each, as in 2.6.23's asm. */
static inline void arch_read_lock(rwlock_t *rw)
{
	if (unlikely(atomic_sub_return(1, &rw->cnt) < 0))
		__read_lock_failed(rw);
}

static inline void arch_read_unlock(rwlock_t *rw)
{
	/* Release ordering: a value-returning RMW is a full barrier. */
	(void)atomic_add_return(1, &rw->cnt);
}

static inline void arch_write_lock(rwlock_t *rw)
{
	if (unlikely(atomic_sub_return(RW_LOCK_BIAS, &rw->cnt) != 0))
		__write_lock_failed(rw);
	rw_set_owner(&rw->owner, smp_processor_id());
}

static inline void arch_write_unlock(rwlock_t *rw)
{
	rw_set_owner(&rw->owner, -1);
	(void)atomic_add_return(RW_LOCK_BIAS, &rw->cnt);
}

static inline bool arch_read_trylock(rwlock_t *rw)
{
	if (atomic_sub_return(1, &rw->cnt) >= 0)
		return true;
	(void)atomic_add_return(1, &rw->cnt);
	return false;
}

static inline bool arch_write_trylock(rwlock_t *rw)
{
	if (atomic_cmpxchg(&rw->cnt, RW_LOCK_BIAS, 0) != RW_LOCK_BIAS)
		return false;
	rw_set_owner(&rw->owner, smp_processor_id());
	return true;
}

/* ---- rwlock_fair_t: queued, fair --------------------------------------- */

#define QW_LOCKED	0x0ff		/* a writer holds it */
#define QW_WAITING	0x100		/* a writer is queued: readers queue too */
#define QW_WMASK	0x1ff
#define QR_BIAS		0x200		/* one reader */

typedef struct {
	atomic_t cnts;
	arch_spinlock_t wait_lock;	/* FIFO of those who could not get in */
	int owner;			/* writer CPU + 1, 0 when not write-held */
} rwlock_fair_t;

#define __RW_LOCK_FAIR_UNLOCKED(x)	{ .cnts = ATOMIC_INIT(0), \
					  .wait_lock = __ARCH_SPIN_LOCK_UNLOCKED, \
					  .owner = 0 }
#define DEFINE_RWLOCK_FAIR(x)	rwlock_fair_t x = __RW_LOCK_FAIR_UNLOCKED(x)
static inline void rwlock_fair_init(rwlock_fair_t *rw)
{
	*rw = (rwlock_fair_t)__RW_LOCK_FAIR_UNLOCKED(x);
}

void queued_read_lock_slowpath(rwlock_fair_t *rw);
void queued_write_lock_slowpath(rwlock_fair_t *rw);

static inline void arch_read_lock_fair(rwlock_fair_t *rw)
{
	if (unlikely(atomic_add_return(QR_BIAS, &rw->cnts) & QW_WMASK))
		queued_read_lock_slowpath(rw);
}

static inline void arch_read_unlock_fair(rwlock_fair_t *rw)
{
	(void)atomic_sub_return(QR_BIAS, &rw->cnts);
}

static inline void arch_write_lock_fair(rwlock_fair_t *rw)
{
	if (unlikely(atomic_cmpxchg(&rw->cnts, 0, QW_LOCKED) != 0))
		queued_write_lock_slowpath(rw);
	rw_set_owner(&rw->owner, smp_processor_id());
}

static inline void arch_write_unlock_fair(rwlock_fair_t *rw)
{
	rw_set_owner(&rw->owner, -1);
	(void)atomic_sub_return(QW_LOCKED, &rw->cnts);
}

static inline bool arch_read_trylock_fair(rwlock_fair_t *rw)
{
	int c = atomic_read(&rw->cnts);

	if (c & QW_WMASK)
		return false;
	if (atomic_add_return(QR_BIAS, &rw->cnts) & QW_WMASK) {
		(void)atomic_sub_return(QR_BIAS, &rw->cnts);
		return false;
	}
	return true;
}

static inline bool arch_write_trylock_fair(rwlock_fair_t *rw)
{
	if (atomic_cmpxchg(&rw->cnts, 0, QW_LOCKED) != 0)
		return false;
	rw_set_owner(&rw->owner, smp_processor_id());
	return true;
}

/* ---- the Linux API, on either type ------------------------------------- */

#define __RW_OP(op, rw)	_Generic((rw),					\
	rwlock_t *: arch_##op,						\
	rwlock_fair_t *: arch_##op##_fair)(rw)

#define read_lock(rw)	do { preempt_disable(); __RW_OP(read_lock, rw); } while (0)
#define read_unlock(rw)	do { __RW_OP(read_unlock, rw); preempt_enable(); } while (0)
#define write_lock(rw)	do { preempt_disable(); __RW_OP(write_lock, rw); } while (0)
#define write_unlock(rw) do { __RW_OP(write_unlock, rw); preempt_enable(); } while (0)

#define read_trylock(rw)  ({ bool __ok; preempt_disable();		\
	__ok = __RW_OP(read_trylock, rw); if (!__ok) preempt_enable(); __ok; })
#define write_trylock(rw) ({ bool __ok; preempt_disable();		\
	__ok = __RW_OP(write_trylock, rw); if (!__ok) preempt_enable(); __ok; })

#define read_lock_irq(rw)	do { local_irq_disable(); read_lock(rw); } while (0)
#define read_unlock_irq(rw)	do { __RW_OP(read_unlock, rw); local_irq_enable(); \
				     preempt_enable(); } while (0)
#define write_lock_irq(rw)	do { local_irq_disable(); write_lock(rw); } while (0)
#define write_unlock_irq(rw)	do { __RW_OP(write_unlock, rw); local_irq_enable(); \
				     preempt_enable(); } while (0)
#define read_lock_irqsave(rw, f)  do { local_irq_save(f); read_lock(rw); } while (0)
#define read_unlock_irqrestore(rw, f) do { __RW_OP(read_unlock, rw); \
		local_irq_restore(f); preempt_enable(); } while (0)
#define write_lock_irqsave(rw, f) do { local_irq_save(f); write_lock(rw); } while (0)
#define write_unlock_irqrestore(rw, f) do { __RW_OP(write_unlock, rw); \
		local_irq_restore(f); preempt_enable(); } while (0)
#define read_lock_bh(rw)	do { local_bh_disable(); __RW_OP(read_lock, rw); } while (0)
#define read_unlock_bh(rw)	do { __RW_OP(read_unlock, rw); local_bh_enable(); } while (0)
#define write_lock_bh(rw)	do { local_bh_disable(); __RW_OP(write_lock, rw); } while (0)
#define write_unlock_bh(rw)	do { __RW_OP(write_unlock, rw); local_bh_enable(); } while (0)

/* Counted by the slow paths' watchdog (same knob as spinlocks); the
 * writer CPU the last report named (-1: none, readers held it). */
extern atomic_t rwlock_lockups;
extern int rwlock_last_lockup_writer;
