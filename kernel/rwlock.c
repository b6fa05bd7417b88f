/*
 * kernel/rwlock.c - slow paths of the two rwlocks in kernel/rwlock.h.
 *
 * The counter rwlock's slow paths are those of Linux 2.6.23 x86
 * (__read_lock_failed / __write_lock_failed): undo the failed attempt,
 * spin reading until it could succeed, retry.  The fair rwlock's are
 * qrwlock's: queue on a FIFO ticket lock, then wait for the lock word.
 * Every spin has the spinlock watchdog: a lock word stuck in one state
 * far too long is reported once, with a backtrace, and the wait goes on.
 * The report names the writer CPU holding the lock, if one does, and asks
 * that CPU for its backtrace by NMI, as the spinlock lockup report does.
 */
#include "kernel/rwlock.h"
#include "kernel/printk.h"
#include "kernel/time.h"

atomic_t rwlock_lockups = ATOMIC_INIT(0);
int rwlock_last_lockup_writer = -1;

struct rw_watch {
	u64 start;
	unsigned long spins;
	int seen;	/* the lock word when the clock (re)started */
	bool reported;
	bool said;	/* the writer was found not running */
};

/*
 * As spin_lock_wait(): the clock restarts whenever the lock word changes,
 * so a lock that others keep taking and releasing (a reader stream, a
 * queue of writers) is not reported; a lock stuck in one state is.
 */
static void rw_watch(struct rw_watch *w, const atomic_t *word, const int *owner,
		     const void *lock, const char *what)
{
	u64 now, limit = spin_lockup_limit_ns(lock);
	int v;

	cpu_relax();
	if (w->reported || (++w->spins & 1023))
		return;
	now = ktime_get_ns();
	v = atomic_read(word);
	if (!w->start || v != w->seen) {
		w->start = now;
		w->seen = v;
		return;
	}
	if (limit && now - w->start > limit) {
		int writer = rw_owner_cpu(owner), cpu = smp_processor_id();

		if (lockup_holder_not_running(writer, what, lock, &w->said)) {
			w->start = ktime_get_ns();
			return;
		}
		w->reported = true;
		__atomic_store_n(&rwlock_last_lockup_writer, writer, __ATOMIC_RELAXED);
		if (writer >= 0)
			printk(KERN_ERR "BUG: rwlock lockup suspected on CPU#%d: %s of %p "
			       "waited more than %u ms, write-held by CPU#%d\n", cpu,
			       what, lock, (unsigned)(limit / 1000000), writer);
		else
			printk(KERN_ERR "BUG: rwlock lockup suspected on CPU#%d: %s of %p "
			       "waited more than %u ms, held by readers\n", cpu,
			       what, lock, (unsigned)(limit / 1000000));
		dump_stack();
		if (writer >= 0 && writer != cpu)
			trigger_cpu_backtrace(writer);
		atomic_inc(&rwlock_lockups);
	}
}

void __read_lock_failed(rwlock_t *rw)
{
	struct rw_watch w = { 0 };

	do {
		(void)atomic_add_return(1, &rw->cnt);
		while (atomic_read(&rw->cnt) < 1)
			rw_watch(&w, &rw->cnt, &rw->owner, rw, "read_lock");
	} while (atomic_sub_return(1, &rw->cnt) < 0);
}

void __write_lock_failed(rwlock_t *rw)
{
	struct rw_watch w = { 0 };

	do {
		(void)atomic_add_return(RW_LOCK_BIAS, &rw->cnt);
		while (atomic_read(&rw->cnt) != RW_LOCK_BIAS)
			rw_watch(&w, &rw->cnt, &rw->owner, rw, "write_lock");
	} while (atomic_sub_return(RW_LOCK_BIAS, &rw->cnt) != 0);
}

/*
 * A reader found a writer holding or waiting: back out, queue behind
 * everyone already waiting, then wait only for the holding writer to go
 * (a waiting writer is behind us in the queue, or is us being let in).
 */
void queued_read_lock_slowpath(rwlock_fair_t *rw)
{
	struct rw_watch w = { 0 };

	(void)atomic_sub_return(QR_BIAS, &rw->cnts);
	arch_spin_lock(&rw->wait_lock);
	(void)atomic_add_return(QR_BIAS, &rw->cnts);
	while (__atomic_load_n(&rw->cnts.counter, __ATOMIC_ACQUIRE) & QW_LOCKED)
		rw_watch(&w, &rw->cnts, &rw->owner, rw, "read_lock_fair");
	arch_spin_unlock(&rw->wait_lock);
}

/*
 * A writer queues, announces itself (QW_WAITING stops new readers at the
 * fast path), then waits for the readers in the lock to drain and takes
 * it.  Only the queue head can be here, so QW_WAITING has one owner.
 */
void queued_write_lock_slowpath(rwlock_fair_t *rw)
{
	struct rw_watch w = { 0 };

	arch_spin_lock(&rw->wait_lock);
	if (atomic_cmpxchg(&rw->cnts, 0, QW_LOCKED) == 0)
		goto out;
	atomic_or(QW_WAITING, &rw->cnts);
	for (;;) {
		if (atomic_read(&rw->cnts) == QW_WAITING &&
		    atomic_cmpxchg(&rw->cnts, QW_WAITING, QW_LOCKED) == QW_WAITING)
			break;
		rw_watch(&w, &rw->cnts, &rw->owner, rw, "write_lock_fair");
	}
out:
	arch_spin_unlock(&rw->wait_lock);
}
