/*
 * kernel/wait.h - wait queues and completions (Linux API).
 *
 * A wait queue is a spinlock and a list of sleeping tasks.  The sleeper
 * queues itself and sets its state *before* testing the condition, and the
 * waker sets the condition before waking: whichever runs second sees the
 * other's write, so no wake-up is lost.  Waking removes the entry from the
 * queue (Linux's autoremove), so a task is woken once per wait.  The lock
 * is irq-safe: irq handlers and timers may wake.
 *
 * A completion is a counted event on a wait queue: complete() lets one
 * waiter through, complete_all() every present and future one.
 */
#pragma once

#include "kernel/types.h"
#include "kernel/list.h"
#include "kernel/spinlock.h"

struct task;

#define WQ_FLAG_EXCLUSIVE	0x1

struct wait_queue_entry {
	unsigned int flags;
	struct task *task;
	struct list_head entry;
};

typedef struct wait_queue_head {
	spinlock_t lock;
	struct list_head head;
} wait_queue_head_t;

#define __WAIT_QUEUE_HEAD_INITIALIZER(name)				\
	{ .lock = __SPIN_LOCK_UNLOCKED(name.lock), .head = LIST_HEAD_INIT((name).head) }
#define DECLARE_WAIT_QUEUE_HEAD(name)					\
	wait_queue_head_t name = __WAIT_QUEUE_HEAD_INITIALIZER(name)

static inline void init_waitqueue_head(wait_queue_head_t *wq)
{
	spin_lock_init(&wq->lock);
	INIT_LIST_HEAD(&wq->head);
}

#define DEFINE_WAIT(name)						\
	struct wait_queue_entry name = { .flags = 0, .task = current,	\
		.entry = LIST_HEAD_INIT((name).entry) }

void prepare_to_wait(wait_queue_head_t *wq, struct wait_queue_entry *w, long state);
void prepare_to_wait_exclusive(wait_queue_head_t *wq, struct wait_queue_entry *w,
			       long state);
void finish_wait(wait_queue_head_t *wq, struct wait_queue_entry *w);
/* Wakes every non-exclusive waiter and up to nr_exclusive exclusive ones. */
void __wake_up(wait_queue_head_t *wq, int nr_exclusive);
#define wake_up(wq)	__wake_up((wq), 1)
#define wake_up_all(wq)	__wake_up((wq), 0)
#define wake_up_interruptible(wq)	__wake_up((wq), 1)
#define wake_up_interruptible_all(wq)	__wake_up((wq), 0)
static inline bool waitqueue_active(wait_queue_head_t *wq)
{
	return !list_empty(&wq->head);
}

#ifdef CONFIG_SANITIZE
/*
 * Test build: called by __wake_up() at its barrier, before it looks for
 * sleepers (NULL: none).  A test that stands for a store buffer makes its
 * condition true here, where the barrier would drain it
 * (sched_wake_up_barrier_orders_the_condition).
 */
extern void (*wait_inject_mb_hook)(wait_queue_head_t *wq);
#endif

#define wait_event(wq, cond) do {					\
	might_sleep();							\
	if (cond)							\
		break;							\
	DEFINE_WAIT(__w);						\
	for (;;) {							\
		prepare_to_wait(&(wq), &__w, TASK_UNINTERRUPTIBLE);	\
		if (cond)						\
			break;						\
		schedule();						\
	}								\
	finish_wait(&(wq), &__w);					\
} while (0)

/* There are no signals: the interruptible form never returns early. */
#define wait_event_interruptible(wq, cond) ({ wait_event(wq, cond); 0; })

/*
 * Returns 0 if cond is still false when the timeout elapsed, else the
 * jiffies left (at least 1), as Linux.
 */
#define wait_event_timeout(wq, cond, timeout) ({			\
	long __ret = (timeout);						\
	might_sleep();							\
	if (!(cond)) {							\
		DEFINE_WAIT(__w);					\
		for (;;) {						\
			prepare_to_wait(&(wq), &__w, TASK_UNINTERRUPTIBLE); \
			if (cond)					\
				break;					\
			if (!__ret)					\
				break;					\
			__ret = schedule_timeout(__ret);		\
		}							\
		finish_wait(&(wq), &__w);				\
		if ((cond) && !__ret)					\
			__ret = 1;					\
	} else if (!__ret) {						\
		__ret = 1;						\
	}								\
	__ret; })

struct completion {
	unsigned int done;
	wait_queue_head_t wait;
};

#define COMPLETION_INITIALIZER(name)					\
	{ 0, __WAIT_QUEUE_HEAD_INITIALIZER((name).wait) }
#define DECLARE_COMPLETION(name) struct completion name = COMPLETION_INITIALIZER(name)

static inline void init_completion(struct completion *c)
{
	c->done = 0;
	init_waitqueue_head(&c->wait);
}
static inline void reinit_completion(struct completion *c) { c->done = 0; }

void complete(struct completion *c);
void complete_all(struct completion *c);
void wait_for_completion(struct completion *c);
/* Returns 0 on timeout, else the jiffies left (at least 1). */
unsigned long wait_for_completion_timeout(struct completion *c, unsigned long timeout);
bool try_wait_for_completion(struct completion *c);
bool completion_done(struct completion *c);

#include "kernel/sched.h"	/* current, schedule(): after the types above */
