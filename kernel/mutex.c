/*
 * kernel/mutex.c - the sleeping mutex (see kernel/mutex.h).
 *
 * Lost wake-ups are excluded the way wait queues exclude them: a waiter
 * sets WAITERS and its own sleeping state while holding wait_lock, and an
 * unlocker that sees WAITERS takes wait_lock to wake the first waiter.  A
 * woken waiter that finds the mutex stolen sets WAITERS again and sleeps.
 */
#include "kernel/mutex.h"
#include "kernel/sched.h"
#include "kernel/printk.h"

atomic_t mutex_bugs = ATOMIC_INIT(0);

/* The validator's hooks (kernel/lockdep.h); the caller is the site. */
#ifdef CONFIG_LOCKDEP
#define mutex_dep_acquire(m, try) \
	lock_acquire(&(m)->dep_map, 0, (try), false, NULL, _RET_IP_)
#define mutex_dep_release(m)	lock_release(&(m)->dep_map, _RET_IP_)
#else
#define mutex_dep_acquire(m, try)	do { } while (0)
#define mutex_dep_release(m)		do { } while (0)
#endif

struct mutex_waiter {
	struct list_head list;
	struct task *task;
};

#ifdef CONFIG_LOCKDEP
void __mutex_init(struct mutex *m, const char *name, const struct lock_class_key *key)
{
	atomic_long_set(&m->owner, 0);
	spin_lock_init(&m->wait_lock);
	INIT_LIST_HEAD(&m->wait_list);
	m->name = name;
	lockdep_init_map(&m->dep_map, name, key);
	m->dep_map.sleeping = true;
}
#else
void mutex_init(struct mutex *m)
{
	atomic_long_set(&m->owner, 0);
	spin_lock_init(&m->wait_lock);
	INIT_LIST_HEAD(&m->wait_list);
	m->name = "mutex";
}
#endif

struct task *mutex_owner(struct mutex *m)
{
	return (struct task *)(atomic_long_read(&m->owner) & ~MUTEX_FLAGS);
}

bool mutex_trylock(struct mutex *m)
{
	long old = atomic_long_read(&m->owner);

	while (!(old & ~MUTEX_FLAGS)) {
		long seen = atomic_long_cmpxchg(&m->owner, old, (long)current | (old & MUTEX_FLAGS));
		if (seen == old) {
			mutex_dep_acquire(m, true);
			return true;
		}
		old = seen;
	}
	return false;
}

static void mutex_lock_slowpath(struct mutex *m)
{
	struct mutex_waiter w = { .task = current };
	long me = (long)current;

	spin_lock(&m->wait_lock);
	list_add_tail(&w.list, &m->wait_list);
	for (;;) {
		long old = atomic_long_read(&m->owner);

		if (!(old & ~MUTEX_FLAGS)) {
			/* Free: take it, keeping WAITERS if others still wait. */
			long new = me | (m->wait_list.next == m->wait_list.prev ? 0 : MUTEX_FLAG_WAITERS);
			if (atomic_long_cmpxchg(&m->owner, old, new) == old)
				break;
			continue;
		}
		if (!(old & MUTEX_FLAG_WAITERS) &&
		    atomic_long_cmpxchg(&m->owner, old, old | MUTEX_FLAG_WAITERS) != old)
			continue;
		set_current_state(TASK_UNINTERRUPTIBLE);
		spin_unlock(&m->wait_lock);
		schedule();
		spin_lock(&m->wait_lock);
	}
	__set_current_state(TASK_RUNNING);
	list_del(&w.list);
	spin_unlock(&m->wait_lock);
}

void mutex_lock(struct mutex *m)
{
	might_sleep();
	mutex_dep_acquire(m, false);
	if (atomic_long_cmpxchg(&m->owner, 0, (long)current) == 0)
		return;
	mutex_lock_slowpath(m);
}

void mutex_unlock(struct mutex *m)
{
	long me = (long)current;
	long old;

#ifdef CONFIG_LOCKDEP
	if ((atomic_long_read(&m->owner) & ~MUTEX_FLAGS) == me)
		mutex_dep_release(m);	/* a wrong owner is reported below */
#endif
	old = atomic_long_cmpxchg(&m->owner, me, 0);
	if (likely(old == me))
		return;
	if ((old & ~MUTEX_FLAGS) != me) {
		printk(KERN_ERR "BUG: mutex %s (%p) unlocked by %s, owner %p\n",
		       m->name ? m->name : "?", (void *)m, current->name,
		       (void *)(old & ~MUTEX_FLAGS));
		dump_stack();
		atomic_inc(&mutex_bugs);
		return;
	}
	/* WAITERS set: release, then wake the first waiter. */
	atomic_long_xchg(&m->owner, 0);
	spin_lock(&m->wait_lock);
	if (!list_empty(&m->wait_list)) {
		struct mutex_waiter *w = list_first_entry(&m->wait_list,
							  struct mutex_waiter, list);
		wake_up_process(w->task);
	}
	spin_unlock(&m->wait_lock);
}
