/*
 * kernel/wait.c - wait queues and completions (see kernel/wait.h for the
 * ordering argument that keeps wake-ups from being lost).
 */
#include "kernel/wait.h"
#include "kernel/sched.h"
#include "kernel/time.h"

void prepare_to_wait(wait_queue_head_t *wq, struct wait_queue_entry *w, long state)
{
	unsigned long flags;

	spin_lock_irqsave(&wq->lock, flags);
	/* Under the lock: a waker may be reading the entry still queued. */
	w->flags &= ~WQ_FLAG_EXCLUSIVE;
	if (list_empty(&w->entry))
		list_add_tail(&w->entry, &wq->head);
	set_current_state(state);
	spin_unlock_irqrestore(&wq->lock, flags);
}

void prepare_to_wait_exclusive(wait_queue_head_t *wq, struct wait_queue_entry *w,
			       long state)
{
	unsigned long flags;

	spin_lock_irqsave(&wq->lock, flags);
	/* Under the lock: a waker may be reading the entry still queued. */
	w->flags |= WQ_FLAG_EXCLUSIVE;
	if (list_empty(&w->entry))
		list_add_tail(&w->entry, &wq->head);
	set_current_state(state);
	spin_unlock_irqrestore(&wq->lock, flags);
}

void finish_wait(wait_queue_head_t *wq, struct wait_queue_entry *w)
{
	unsigned long flags;

	__set_current_state(TASK_RUNNING);
	spin_lock_irqsave(&wq->lock, flags);
	if (!list_empty(&w->entry))
		list_del_init(&w->entry);
	spin_unlock_irqrestore(&wq->lock, flags);
}

/* wq->lock held.  A woken entry leaves the queue (autoremove). */
static void __wake_up_locked(wait_queue_head_t *wq, int nr_exclusive)
{
	struct wait_queue_entry *w, *n;

	lockdep_assert_held(&wq->lock);
	list_for_each_entry_safe(w, n, &wq->head, entry) {
		bool exclusive = w->flags & WQ_FLAG_EXCLUSIVE;

		list_del_init(&w->entry);
		wake_up_process(w->task);
		if (exclusive && nr_exclusive && !--nr_exclusive)
			break;
	}
}

/*
 * wq->lock held, taken with spin_lock_irqsave(flags): wake and unlock.
 * A wakee on another CPU takes wq->lock as it wakes (finish_wait(), or
 * its completion's count): its reschedule IPI waits until we have let
 * the lock go (kernel/sched.c, resched_ipi()).  Preemption stays off
 * until irqs are back on, so that a wakee of this CPU preempts us then.
 * An empty queue skips all that: the bracket costs an expedited grace
 * period a tenth of its time (issue 30), and most wake-ups find no one.
 */
static void wake_up_unlock(wait_queue_head_t *wq, int nr_exclusive, unsigned long flags)
{
	if (list_empty(&wq->head)) {
		spin_unlock_irqrestore(&wq->lock, flags);
		return;
	}
	resched_ipi_defer_begin();
	__wake_up_locked(wq, nr_exclusive);
	preempt_disable();
	spin_unlock(&wq->lock);
	resched_ipi_defer_end();
	local_irq_restore(flags);
	preempt_enable();
}

/*
 * Linux's wq_has_sleeper(): the caller made its condition true before
 * the call; the full barrier orders that store before our read of the
 * list, as set_current_state()'s orders a sleeper's list_add before its
 * test of the condition (prepare_to_wait()).  So either we see the
 * sleeper on the list or it sees the condition: an empty list needs no
 * lock.  (A load may pass an earlier store on x86: without the barrier
 * both could read the old values, and the sleeper would never wake;
 * tests/model/wait_wake.pml.)
 */
#ifdef CONFIG_SANITIZE
void (*wait_inject_mb_hook)(wait_queue_head_t *wq);
#define wake_up_mb(wq) do {						\
	void (*__hook)(wait_queue_head_t *) =				\
		__atomic_load_n(&wait_inject_mb_hook, __ATOMIC_ACQUIRE);	\
	smp_mb();							\
	if (__hook)							\
		__hook(wq);						\
} while (0)
#else
#define wake_up_mb(wq)	smp_mb()
#endif

static bool wq_has_sleeper(wait_queue_head_t *wq)
{
	wake_up_mb(wq);
	return !list_empty(&wq->head);
}

void __wake_up(wait_queue_head_t *wq, int nr_exclusive)
{
	unsigned long flags;

	if (!wq_has_sleeper(wq))
		return;
	spin_lock_irqsave(&wq->lock, flags);
	wake_up_unlock(wq, nr_exclusive, flags);
}

#define COMPLETE_ALL	(~0u)

/* The count is the condition and changes under the lock, which orders
 * it against the waiter's test (do_wait_for_common()): no fast path. */
void complete(struct completion *c)
{
	unsigned long flags;

	spin_lock_irqsave(&c->wait.lock, flags);
	if (c->done != COMPLETE_ALL)
		c->done++;
	wake_up_unlock(&c->wait, 1, flags);
}

void complete_all(struct completion *c)
{
	unsigned long flags;

	spin_lock_irqsave(&c->wait.lock, flags);
	c->done = COMPLETE_ALL;
	wake_up_unlock(&c->wait, 0, flags);
}

static long do_wait_for_common(struct completion *c, long timeout)
{
	unsigned long flags;
	struct wait_queue_entry w = { .flags = WQ_FLAG_EXCLUSIVE, .task = current,
				      .entry = LIST_HEAD_INIT(w.entry) };

	might_sleep();
	spin_lock_irqsave(&c->wait.lock, flags);
	while (!c->done && timeout) {
		if (list_empty(&w.entry))
			list_add_tail(&w.entry, &c->wait.head);
		set_current_state(TASK_UNINTERRUPTIBLE);
		spin_unlock_irqrestore(&c->wait.lock, flags);
		timeout = schedule_timeout(timeout);
		spin_lock_irqsave(&c->wait.lock, flags);
	}
	if (!list_empty(&w.entry))
		list_del_init(&w.entry);
	__set_current_state(TASK_RUNNING);
	if (c->done) {
		if (c->done != COMPLETE_ALL)
			c->done--;
		if (!timeout)
			timeout = 1;
	} else {
		timeout = 0;
	}
	spin_unlock_irqrestore(&c->wait.lock, flags);
	return timeout;
}

void wait_for_completion(struct completion *c)
{
	do_wait_for_common(c, MAX_SCHEDULE_TIMEOUT);
}

unsigned long wait_for_completion_timeout(struct completion *c, unsigned long timeout)
{
	if ((long)timeout < 0)
		timeout = MAX_SCHEDULE_TIMEOUT;
	return (unsigned long)do_wait_for_common(c, (long)timeout);
}

bool try_wait_for_completion(struct completion *c)
{
	unsigned long flags;
	bool ok = false;

	spin_lock_irqsave(&c->wait.lock, flags);
	if (c->done) {
		if (c->done != COMPLETE_ALL)
			c->done--;
		ok = true;
	}
	spin_unlock_irqrestore(&c->wait.lock, flags);
	return ok;
}

bool completion_done(struct completion *c)
{
	return READ_ONCE(c->done) != 0;
}
