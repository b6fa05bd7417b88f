/*
 * kernel/mutex.h - the sleeping mutex (Linux API).
 *
 * `owner` holds the owning task pointer with a flag in bit 0: WAITERS
 * says someone sleeps on wait_list, so the owner must take the slow path
 * at unlock to wake them.  Uncontended lock and unlock are one cmpxchg
 * each.  Sleeping, so not from atomic context (might_sleep() checks).
 * Lock stealing is allowed (a running locker may get in before a woken
 * waiter), as in Linux: throughput over strict FIFO.
 */
#pragma once

#include "kernel/types.h"
#include "kernel/atomic.h"
#include "kernel/list.h"
#include "kernel/spinlock.h"

struct task;

#define MUTEX_FLAG_WAITERS	0x1l
#define MUTEX_FLAGS		0x1l

struct mutex {
	atomic_long_t owner;
	spinlock_t wait_lock;
	struct list_head wait_list;
	const char *name;
#ifdef CONFIG_LOCKDEP
	struct lockdep_map dep_map;	/* its class (kernel/lockdep.h) */
#endif
};

#ifdef CONFIG_LOCKDEP
#define __MUTEX_DEP_MAP_INIT(x)	, .dep_map = STATIC_LOCKDEP_SLEEPING_MAP_INIT(#x)
#else
#define __MUTEX_DEP_MAP_INIT(x)
#endif
#define __MUTEX_INITIALIZER(x) { .owner = ATOMIC_LONG_INIT(0),		\
	.wait_lock = __SPIN_LOCK_UNLOCKED(x.wait_lock),			\
	.wait_list = LIST_HEAD_INIT((x).wait_list), .name = #x		\
	__MUTEX_DEP_MAP_INIT(x) }
#define DEFINE_MUTEX(x)	struct mutex x = __MUTEX_INITIALIZER(x)

#ifdef CONFIG_LOCKDEP
/* Each call site is a lock class of its own. */
void __mutex_init(struct mutex *m, const char *name, const struct lock_class_key *key);
#define mutex_init(m) do {						\
	static const struct lock_class_key __key = { .name = #m };	\
	__mutex_init((m), #m, &__key);					\
} while (0)
#else
void mutex_init(struct mutex *m);
#endif
void mutex_lock(struct mutex *m);
bool mutex_trylock(struct mutex *m);
void mutex_unlock(struct mutex *m);
static inline bool mutex_is_locked(struct mutex *m)
{
	return (atomic_long_read(&m->owner) & ~MUTEX_FLAGS) != 0;
}
struct task *mutex_owner(struct mutex *m);

extern atomic_t mutex_bugs;	/* unlock by a task that does not own it */
