/* tests/host/mm_shim/kernel/spinlock.h: host stand-in for kernel/spinlock.h
 * used by the pmm/kmalloc tests: a plain test-and-set lock on GCC atomics
 * (ThreadSanitizer understands them); there are no interrupts to mask, so
 * the irqsave forms only fill in flags. */
#pragma once

#include "kernel/types.h"

typedef struct { int locked; } spinlock_t;

#define DEFINE_SPINLOCK(x)	spinlock_t x = { 0 }
static inline void spin_lock_init(spinlock_t *l) { __atomic_store_n(&l->locked, 0, __ATOMIC_RELAXED); }

static inline void spin_lock(spinlock_t *l)
{
	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED))
			;
}

static inline void spin_unlock(spinlock_t *l) { __atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE); }

#define spin_lock_irqsave(l, flags)	 do { (flags) = 0; spin_lock(l); } while (0)
#define spin_unlock_irqrestore(l, flags) do { (void)(flags); spin_unlock(l); } while (0)

/* No interrupts and no lockdep here: the kernel's contract checks
 * (kernel/lockdep.h) compile to nothing, as in the benchmark build. */
#define lockdep_assert_irqs_disabled()	do { } while (0)
#define lockdep_assert_held(l)		do { (void)(l); } while (0)
