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
#ifdef CONFIG_LOCKDEP
	struct lockdep_map dep_map;
#endif
} rwlock_t;

/*
 * The validator (kernel/lockdep.h): a writer is a lock like any other; a
 * reader is recorded as held (for lockdep_assert_held() and the irq-usage
 * check) but adds no dependency, since readers of these reader-preferring
 * or queued locks nest and share.
 */
#ifdef CONFIG_LOCKDEP
#define __RW_DEP_MAP_INIT(x)	, .dep_map = STATIC_LOCKDEP_MAP_INIT(#x)
#define rw_dep_acquire(rw, read, try)					\
	lock_acquire(&(rw)->dep_map, 0, (try), (read), NULL, 0)
#define rw_dep_release(rw)	lock_release(&(rw)->dep_map, 0)
#define __rw_dep_init(rw, n) do {					\
	static const struct lock_class_key __key = { .name = n };	\
	lockdep_init_map(&(rw)->dep_map, n, &__key);			\
} while (0)
#else
#define __RW_DEP_MAP_INIT(x)
#define rw_dep_acquire(rw, read, try)	do { } while (0)
#define rw_dep_release(rw)		do { } while (0)
#define __rw_dep_init(rw, n)		do { } while (0)
#endif

#define __RW_LOCK_UNLOCKED(x)	{ .cnt = ATOMIC_INIT(RW_LOCK_BIAS), .owner = 0 __RW_DEP_MAP_INIT(x) }
#define DEFINE_RWLOCK(x)	rwlock_t x = __RW_LOCK_UNLOCKED(x)
#ifndef CONFIG_LOCKDEP
#define __rwlock_init		rwlock_init	/* the benchmark build's, as it was */
#define __rwlock_fair_init	rwlock_fair_init
#endif
static inline void __rwlock_init(rwlock_t *rw)
{
	atomic_set(&rw->cnt, RW_LOCK_BIAS);
	rw->owner = 0;
}
#ifdef CONFIG_LOCKDEP
#define rwlock_init(rw)	do { __rwlock_init(rw); __rw_dep_init(rw, #rw); } while (0)
#endif

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
#ifdef CONFIG_LOCKDEP
	struct lockdep_map dep_map;
#endif
} rwlock_fair_t;

#define __RW_LOCK_FAIR_UNLOCKED(x)	{ .cnts = ATOMIC_INIT(0), \
					  .wait_lock = __ARCH_SPIN_LOCK_UNLOCKED, \
					  .owner = 0 __RW_DEP_MAP_INIT(x) }
#define DEFINE_RWLOCK_FAIR(x)	rwlock_fair_t x = __RW_LOCK_FAIR_UNLOCKED(x)
static inline void __rwlock_fair_init(rwlock_fair_t *rw)
{
	*rw = (rwlock_fair_t)__RW_LOCK_FAIR_UNLOCKED(x);
}
#ifdef CONFIG_LOCKDEP
#define rwlock_fair_init(rw) do {					\
	__rwlock_fair_init(rw);						\
	__rw_dep_init(rw, #rw);						\
	__rw_dep_init(&(rw)->wait_lock, "rwlock_fair wait_lock");	\
} while (0)
#endif

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

/* The lock operation with the validator's hook: still one RMW without it. */
#define __RW_LOCK(op, rw, read)	do { rw_dep_acquire(rw, read, false); __RW_OP(op, rw); } while (0)
#define __RW_UNLOCK(op, rw)	do { rw_dep_release(rw); __RW_OP(op, rw); } while (0)
#define __RW_TRYLOCK(op, rw, read) ({ bool __t = __RW_OP(op, rw);	\
	if (__t)							\
		rw_dep_acquire(rw, read, true);				\
	__t; })

#define read_lock(rw)	do { preempt_disable(); __RW_LOCK(read_lock, rw, true); } while (0)
#define read_unlock(rw)	do { __RW_UNLOCK(read_unlock, rw); preempt_enable(); } while (0)
#define write_lock(rw)	do { preempt_disable(); __RW_LOCK(write_lock, rw, false); } while (0)
#define write_unlock(rw) do { __RW_UNLOCK(write_unlock, rw); preempt_enable(); } while (0)

#define read_trylock(rw)  ({ bool __ok; preempt_disable();		\
	__ok = __RW_TRYLOCK(read_trylock, rw, true); if (!__ok) preempt_enable(); __ok; })
#define write_trylock(rw) ({ bool __ok; preempt_disable();		\
	__ok = __RW_TRYLOCK(write_trylock, rw, false); if (!__ok) preempt_enable(); __ok; })

#define read_lock_irq(rw)	do { local_irq_disable(); read_lock(rw); } while (0)
#define read_unlock_irq(rw)	do { __RW_UNLOCK(read_unlock, rw); local_irq_enable(); \
				     preempt_enable(); } while (0)
#define write_lock_irq(rw)	do { local_irq_disable(); write_lock(rw); } while (0)
#define write_unlock_irq(rw)	do { __RW_UNLOCK(write_unlock, rw); local_irq_enable(); \
				     preempt_enable(); } while (0)
#define read_lock_irqsave(rw, f)  do { local_irq_save(f); read_lock(rw); } while (0)
#define read_unlock_irqrestore(rw, f) do { __RW_UNLOCK(read_unlock, rw); \
		local_irq_restore(f); preempt_enable(); } while (0)
#define write_lock_irqsave(rw, f) do { local_irq_save(f); write_lock(rw); } while (0)
#define write_unlock_irqrestore(rw, f) do { __RW_UNLOCK(write_unlock, rw); \
		local_irq_restore(f); preempt_enable(); } while (0)
#define read_lock_bh(rw)	do { local_bh_disable(); __RW_LOCK(read_lock, rw, true); } while (0)
#define read_unlock_bh(rw)	do { __RW_UNLOCK(read_unlock, rw); local_bh_enable(); } while (0)
#define write_lock_bh(rw)	do { local_bh_disable(); __RW_LOCK(write_lock, rw, false); } while (0)
#define write_unlock_bh(rw)	do { __RW_UNLOCK(write_unlock, rw); local_bh_enable(); } while (0)

/* Counted by the slow paths' watchdog (same knob as spinlocks); the
 * writer CPU the last report named (-1: none, readers held it). */
extern atomic_t rwlock_lockups;
extern int rwlock_last_lockup_writer;
