/*
 * kernel/spinlock.h - ticket spinlock, the kernel's basic busy-wait lock.
 *
 * Two layers, as in Linux:
 *  - arch_spinlock_t: the bare ticket algorithm on __atomic builtins (FIFO:
 *    a CPU takes a ticket from `next` and waits for `owner` to reach it),
 *    taken as a test-and-set lock under a hypervisor (as Linux's
 *    virt_spin_lock()), and with a watchdog on the wait.
 *    No preemption or irq handling; used where those are already off (the
 *    run queues) and by the host tests.
 *  - spinlock_t: adds preempt_disable() (so holding a lock is an RCU-sched
 *    read-side critical section, as the article relies on), the irq/bh
 *    variants, and always-on debug checks: recursion on the same CPU,
 *    unlocking a lock that is not held, and a lock held far too long (the
 *    waiter names the holder CPU and NMIs it for a backtrace).  The checks
 *    cost one load and one store on the uncontended path.
 */
#pragma once

#include "kernel/types.h"
#include "kernel/atomic.h"
#include "kernel/preempt.h"
#include "kernel/smp.h"
#include "kernel/lockdep.h"

typedef struct {
	u16 owner;	/* ticket now being served; written only by the holder */
	u16 next;	/* next ticket to hand out */
#ifdef CONFIG_LOCKDEP
	struct lockdep_map dep_map;	/* its class (kernel/lockdep.h) */
#endif
} arch_spinlock_t;

#ifdef CONFIG_LOCKDEP
#define __ARCH_SPIN_LOCK_UNLOCKED	{ 0, 0, STATIC_LOCKDEP_MAP_INIT(0) }
#else
#define __ARCH_SPIN_LOCK_UNLOCKED	{ 0, 0 }
#endif

/*
 * The lock validator's hooks (kernel/lockdep.h), one call per place a
 * lock is taken or let go, so that the lock code reads the same with or
 * without them: empty inlines in the benchmark build.  The acquire hook
 * runs before the wait, so a deadlock is reported before it hangs.
 */
#ifdef CONFIG_LOCKDEP
#define lockdep_lock_acquire(map, sub, try, read, name)		\
	lock_acquire((map), (sub), (try), (read), (name), 0)
#define lockdep_lock_release(map)	lock_release((map), 0)
/* A call site's own class: a static key per arch_spin_lock_init(). */
#define arch_spin_lock_init(l) do {					\
	static const struct lock_class_key __key = { .name = #l };	\
	*(l) = (arch_spinlock_t)__ARCH_SPIN_LOCK_UNLOCKED;		\
	lockdep_init_map(&(l)->dep_map, #l, &__key);			\
} while (0)
#else
/*
 * No validator: the bare operations are the API itself, under the names
 * they always had, so the benchmark build compiles exactly as before.
 */
#define __arch_spin_lock	arch_spin_lock
#define __arch_spin_trylock	arch_spin_trylock
#define __arch_spin_unlock	arch_spin_unlock
#define arch_spin_lock_nested(l, subclass)	arch_spin_lock(l)
#define lockdep_lock_acquire(map, sub, try, read, name)	do { } while (0)
#define lockdep_lock_release(map)			do { } while (0)
#define arch_spin_lock_init(l)	(*(l) = (arch_spinlock_t)__ARCH_SPIN_LOCK_UNLOCKED)
#endif

static inline bool arch_spin_is_locked(arch_spinlock_t *l)
{
	return __atomic_load_n(&l->owner, __ATOMIC_RELAXED) !=
	       __atomic_load_n(&l->next, __ATOMIC_RELAXED);
}

/*
 * Free means owner == next.  A stale `owner` read is harmless: `owner`
 * never passes `next`, so if `next` still equals the value we read, the
 * lock is free right now and the cmpxchg takes the ticket it serves.
 * The load of `owner` must be the acquire: it is what reads the last
 * holder's release store, while the cmpxchg on `next` only reads a
 * ticket taken with a relaxed add.  (With both relaxed the last holder's
 * critical section was not ordered before ours: tests/host/test_locks.c's
 * trylock-only hammer makes TSan show it.)
 */
static inline bool __arch_spin_trylock(arch_spinlock_t *l)
{
	u16 o = __atomic_load_n(&l->owner, __ATOMIC_ACQUIRE);

	return __atomic_compare_exchange_n(&l->next, &o, (u16)(o + 1), false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

/*
 * A ticket handoff needs the next waiter to be running.  Under a
 * hypervisor it may not be: the host has descheduled its vCPU, and every
 * later waiter then waits for it too (lock-waiter preemption).  16 vCPUs
 * on 2 host cores handed a leaf rcu_node lock on 27 times a second while
 * its users asked for it thousands of times: torture=rcu made no progress
 * for ten minutes and no watchdog fired, since the queue did move.  As
 * Linux's virt_spin_lock() does without paravirt spinlocks, such a machine
 * takes the same word as a test-and-set lock instead: whichever waiter
 * runs when it is free gets it.  That is unfair, so bare metal keeps the
 * FIFO tickets.  Chosen once at boot (spin_lock_setup(), spinlock.virt=);
 * the two ways mix safely, since the trylock wins only when no ticket is
 * outstanding.
 */
extern bool virt_spin_lock_enabled;

/*
 * The slow path (kernel/spinlock.c): waits for `ticket`, or with ticket
 * -1 test-and-test-and-sets (reads until the lock looks free, then
 * tries).  A wait past spinlock.timeout_ms with the lock not moving is
 * reported, with every CPU's backtrace: no silent hang on a run queue.
 */
void arch_spin_lock_wait(arch_spinlock_t *l, int ticket);

static inline void __arch_spin_lock(arch_spinlock_t *l)
{
	u16 t;

	if (__atomic_load_n(&virt_spin_lock_enabled, __ATOMIC_RELAXED)) {
		if (!__arch_spin_trylock(l))
			arch_spin_lock_wait(l, -1);
		return;
	}
	t = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);
	/* Acquire: the critical section cannot start before we own it. */
	if (__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != t)
		arch_spin_lock_wait(l, t);
}

static inline void __arch_spin_unlock(arch_spinlock_t *l)
{
	u16 o = __atomic_load_n(&l->owner, __ATOMIC_RELAXED);

	/* Release: everything in the critical section is visible first. */
	__atomic_store_n(&l->owner, (u16)(o + 1), __ATOMIC_RELEASE);
	jitter_site(JITTER_LOCK_RELEASE);	/* test build only */
}

#ifdef CONFIG_LOCKDEP
/* The API: the bare lock, with the validator's hooks around it (always
 * inline, so that the hooks' return address is the caller's site). */
static inline __attribute__((always_inline)) void arch_spin_lock(arch_spinlock_t *l)
{
	lockdep_lock_acquire(&l->dep_map, 0, false, false, NULL);
	__arch_spin_lock(l);
}

/*
 * Two locks of one class held at once (two timer bases, taken in a fixed
 * order): the inner one is told apart by its subclass, as Linux's
 * spin_lock_nested().
 */
static inline __attribute__((always_inline)) void arch_spin_lock_nested(arch_spinlock_t *l, unsigned int subclass)
{
	lockdep_lock_acquire(&l->dep_map, subclass, false, false, NULL);
	__arch_spin_lock(l);
}

static inline __attribute__((always_inline)) bool arch_spin_trylock(arch_spinlock_t *l)
{
	if (!__arch_spin_trylock(l))
		return false;
	lockdep_lock_acquire(&l->dep_map, 0, true, false, NULL);
	return true;
}

static inline __attribute__((always_inline)) void arch_spin_unlock(arch_spinlock_t *l)
{
	lockdep_lock_release(&l->dep_map);
	__arch_spin_unlock(l);
}
#endif

#define SPINLOCK_MAGIC	0xdead4eadu

typedef struct spinlock {
	arch_spinlock_t raw;
	u32 magic;		/* catches use after free (0x6b poison) */
	int owner;		/* holder CPU + 1, 0 when free: a zeroed lock is valid */
	int recursion;		/* reported recursive acquisitions to undo */
	const char *name;
#ifdef CONFIG_LOCKDEP
	struct lockdep_map dep_map;	/* its class (raw's is unused) */
#endif
} spinlock_t;

#ifdef CONFIG_LOCKDEP
#define __SPIN_DEP_MAP_INIT(x)	, .dep_map = STATIC_LOCKDEP_MAP_INIT(#x)
#else
#define __SPIN_DEP_MAP_INIT(x)
#endif
#define __SPIN_LOCK_UNLOCKED(x)						\
	{ .raw = __ARCH_SPIN_LOCK_UNLOCKED, .magic = SPINLOCK_MAGIC,	\
	  .owner = 0, .recursion = 0, .name = #x __SPIN_DEP_MAP_INIT(x) }
#define DEFINE_SPINLOCK(x)	spinlock_t x = __SPIN_LOCK_UNLOCKED(x)

#ifdef CONFIG_LOCKDEP
/* Each call site is a lock class of its own (a static key there). */
#define spin_lock_init(l) do {						\
	static const struct lock_class_key __key = { .name = #l };	\
	*(l) = (spinlock_t)__SPIN_LOCK_UNLOCKED(dynamic);		\
	(l)->name = #l;							\
	lockdep_init_map(&(l)->dep_map, #l, &__key);			\
} while (0)
#else
static inline void spin_lock_init(spinlock_t *l)
{
	*l = (spinlock_t)__SPIN_LOCK_UNLOCKED(dynamic);
}
#endif

static inline bool spin_is_locked(spinlock_t *l)
{
	return arch_spin_is_locked(&l->raw);
}

/* Debug counters and knobs, read by the lock tests (kernel/spinlock.c). */
extern atomic_t spinlock_bugs;		/* recursion, bad unlock, bad magic */
extern atomic_t spinlock_lockups;	/* "held far too long" reports */
extern atomic_t raw_spinlock_lockups;	/* the same for a bare arch_spinlock_t */
extern int spinlock_last_lockup_holder;	/* holder CPU named by the last one */
extern atomic_t spinlock_holder_not_running;	/* lockups not reported: holder not run */
extern unsigned int spinlock_timeout_ms;	/* spinlock.timeout_ms= */

/*
 * Give one lock (a spinlock_t, arch_spinlock_t or rwlock, by address) a
 * watchdog of its own, ms instead of spinlock.timeout_ms; NULL ends it.
 * For what provokes a lockup on purpose: the short limit must not apply
 * to every other lock meanwhile (a run queue's lock held by a vCPU the
 * host did not run for 200 ms is no lockup).  One lock at a time.
 */
void spin_lockup_watch(const void *lock, unsigned int ms);
/* The limit, in ns, for a wait on lock (0: no watchdog). */
u64 spin_lockup_limit_ns(const void *lock);

/* Out of line: the slow paths and the reports. */
void spin_lock_wait(spinlock_t *l, int ticket);	/* -1: test-and-set */
void spin_lock_setup(bool under_hypervisor);	/* after the command line */
bool spin_bug_magic(spinlock_t *l);
bool spin_bug_recursion(spinlock_t *l);
bool spin_bug_unlock(spinlock_t *l);
/* A lock held past spinlock.timeout_ms by a CPU that is not running (a
 * vCPU the host does not run): no lockup; said once per wait (*said). */
bool lockup_holder_not_running(int holder, const char *kind, const void *lock, bool *said);

/*
 * `owner` is read by other CPUs (the recursion check, lockup reports)
 * while the holder writes it: relaxed atomics, so the host's TSan agrees.
 */
static inline int spin_owner_cpu(spinlock_t *l)
{
	return __atomic_load_n(&l->owner, __ATOMIC_RELAXED) - 1;
}

static inline void spin_set_owner(spinlock_t *l, int cpu)
{
	__atomic_store_n(&l->owner, cpu + 1, __ATOMIC_RELAXED);
}

/*
 * With the validator the lock takes a subclass, for two locks of one
 * class held at once in a fixed order (spin_lock_nested(), as Linux's);
 * without it the function is what it always was.
 */
#ifdef CONFIG_LOCKDEP
#define do_raw_spin_lock(l)	do_raw_spin_lock_nested(l, 0)
static inline void do_raw_spin_lock_nested(spinlock_t *l, unsigned int subclass)
#else
static inline void do_raw_spin_lock(spinlock_t *l)
#endif
{
	u16 t;

	if (unlikely(l->magic != SPINLOCK_MAGIC) && spin_bug_magic(l))
		return;
	/*
	 * Held by this CPU already: a sure deadlock (preemption is off while
	 * a spinlock is held, so it is this context or an irq on top of it).
	 * Report it and count the nesting instead of hanging.
	 */
	if (unlikely(spin_owner_cpu(l) == smp_processor_id()) &&
	    spin_bug_recursion(l))
		return;
	lockdep_lock_acquire(&l->dep_map, subclass, false, false, NULL);
	if (__atomic_load_n(&virt_spin_lock_enabled, __ATOMIC_RELAXED)) {
		if (unlikely(!__arch_spin_trylock(&l->raw)))
			spin_lock_wait(l, -1);
	} else {
		t = __atomic_fetch_add(&l->raw.next, 1, __ATOMIC_RELAXED);
		if (unlikely(__atomic_load_n(&l->raw.owner, __ATOMIC_ACQUIRE) != t))
			spin_lock_wait(l, t);
	}
	spin_set_owner(l, smp_processor_id());
}

static inline bool do_raw_spin_trylock(spinlock_t *l)
{
	if (!__arch_spin_trylock(&l->raw))
		return false;
	lockdep_lock_acquire(&l->dep_map, 0, true, false, NULL);
	spin_set_owner(l, smp_processor_id());
	return true;
}

/*
 * Returns false for an unlock that must not count: the lock was not held
 * by this CPU, so the caller's matching preempt_disable() never happened
 * either, and letting preempt_enable() run would drive the count negative.
 */
static inline bool do_raw_spin_unlock(spinlock_t *l)
{
	if (unlikely(spin_owner_cpu(l) != smp_processor_id() || l->recursion))
		return spin_bug_unlock(l);
	lockdep_lock_release(&l->dep_map);
	spin_set_owner(l, -1);
	__arch_spin_unlock(&l->raw);
	return true;
}

#define spin_lock(l)	do { preempt_disable(); do_raw_spin_lock(l); } while (0)
#ifdef CONFIG_LOCKDEP
#define spin_lock_nested(l, subclass)					\
	do { preempt_disable(); do_raw_spin_lock_nested(l, subclass); } while (0)
#else
#define spin_lock_nested(l, subclass)	spin_lock(l)
#endif
#define spin_unlock(l)	do { if (do_raw_spin_unlock(l)) preempt_enable(); } while (0)

static inline bool spin_trylock(spinlock_t *l)
{
	preempt_disable();
	if (do_raw_spin_trylock(l))
		return true;
	preempt_enable();
	return false;
}

#define spin_lock_irq(l)						\
	do { local_irq_disable(); preempt_disable(); do_raw_spin_lock(l); } while (0)
#define spin_unlock_irq(l)						\
	do { bool __c = do_raw_spin_unlock(l); local_irq_enable();	\
	     if (__c) preempt_enable(); } while (0)
#define spin_lock_irqsave(l, flags)					\
	do { local_irq_save(flags); preempt_disable(); do_raw_spin_lock(l); } while (0)
#define spin_unlock_irqrestore(l, flags)				\
	do { bool __c = do_raw_spin_unlock(l); local_irq_restore(flags); \
	     if (__c) preempt_enable(); } while (0)
#define spin_lock_bh(l)	do { local_bh_disable(); do_raw_spin_lock(l); } while (0)
#define spin_unlock_bh(l)						\
	do { if (do_raw_spin_unlock(l)) local_bh_enable(); } while (0)
