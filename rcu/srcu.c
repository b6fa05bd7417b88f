/*
 * rcu/srcu.c - sleepable RCU's update side: the two-scan grace period of
 * each srcu_struct, synchronize_srcu() (and the expedited form, which
 * polls harder), call_srcu()/srcu_barrier() through one callback kthread,
 * and the check of the article's Quick Quiz 3 (docs/article.md).  The
 * reader and the contract are in rcu/srcu.h.
 *
 * A grace period is a small state machine in ->srcu_gp_seq (rcu_seq
 * style) that any waiter or the kthread advances a step at a time under
 * ->lock and never blocks in, so independent srcu_structs never wait on
 * each other, and waiters of one struct share each grace period:
 *   idle -> scan 1: wait until the inactive index (1 ^ idx) has as many
 *           unlocks as locks (readers that fetched it just before the
 *           last flip and counted after it);
 *        -> flip srcu_idx, scan 2: wait until the old index drains;
 *        -> idle, gp_seq advanced: the grace period is over.
 *
 * Ordering (Linux's srcu barriers A-E):
 *  (A) a scan sums the unlocks, then a full barrier, then the locks: if
 *      the sums match, every reader counted in the locks has also been
 *      counted in the unlocks, and its section (ordered before its unlock
 *      by the add's barrier C) is over.  Summing in the other order could
 *      see a reader's unlock on one CPU and miss its lock on another.
 *  (D, E) full barriers around the flip: a reader that sees the new index
 *      counts there, one that saw the old is waited for by scan 2.
 *  The caller's stores before synchronize_srcu() are ordered before the
 *  scans by the full barrier at GP start, and the end is a release store
 *  of gp_seq that the waiter reads with acquire.
 */
#include "rcu/srcu.h"
#include "rcu/tree.h"
#include "kernel/jitter.h"
#include "rcu/inject.h"
#include "rcu/debug_head.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "kernel/time.h"

atomic_t srcu_misuse_reports = ATOMIC_INIT(0);
atomic_t srcu_cleanup_reports[SRCU_CLEANUP_NR];
#ifdef CONFIG_SANITIZE
void (*srcu_held_push_hook)(struct srcu_struct *ss);
void (*srcu_inject_hook)(struct srcu_struct *ss, enum srcu_inject_site where);

static void srcu_inject(struct srcu_struct *ss, enum srcu_inject_site where)
{
	void (*hook)(struct srcu_struct *, enum srcu_inject_site) = READ_ONCE(srcu_inject_hook);

	if (unlikely(hook))
		hook(ss, where);
}
#else
static inline void srcu_inject(struct srcu_struct *ss, enum srcu_inject_site where)
{
	(void)ss;
	(void)where;
}
#endif

static LIST_HEAD(srcu_cb_structs);		/* structs that have callbacks */
static DEFINE_SPINLOCK(srcu_list_lock);	/* taken before any ->lock */
static DECLARE_WAIT_QUEUE_HEAD(srcu_kthread_wq);
static bool srcu_kthread_kick;
static struct task *srcu_kthread;

int init_srcu_struct(struct srcu_struct *ss)
{
	memset(ss, 0, sizeof(*ss));
	ss->srcu_gp_seq = ss->srcu_gp_seq_needed = RCU_SEQ_INITIAL_VAL;
	spin_lock_init(&ss->lock);
	rcu_segcblist_init(&ss->cblist);
	INIT_LIST_HEAD(&ss->list);
	ss->name = "srcu";
	return 0;
}

unsigned long srcu_batches_completed(struct srcu_struct *ss)
{
	return rcu_seq_completed(&ss->srcu_gp_seq);
}

bool srcu_read_lock_held(struct srcu_struct *ss)
{
	struct task *t = current;
	int n = MIN(t->srcu_held_depth, (int)ARRAY_SIZE(t->srcu_held));

	/* Not to be trusted: "not held", so that no legal wait is skipped. */
	if (t->srcu_held_overflow)
		return false;
	for (int i = 0; i < n; i++)
		if (t->srcu_held[i] == ss)
			return true;
	return false;
}

/* Quick Quiz 3: a wait for ss from inside ss's own reader never ends. */
static bool srcu_misuse_check(struct srcu_struct *ss, const char *what)
{
	if (likely(!srcu_read_lock_held(ss)))
		return false;
	atomic_inc(&srcu_misuse_reports);
	WARN(1, "srcu: %s(%s) called inside a read-side critical section of the same "
	     "srcu_struct by %s: it would wait for itself forever; returning without "
	     "waiting\n", what, ss->name, current->name);
	return true;
}

/* ---- the grace period ---- */

static unsigned long srcu_sum(struct srcu_struct *ss, int idx, bool unlocks)
{
	unsigned long sum = 0;

	for (int cpu = 0; cpu < NR_CPUS; cpu++) {
		struct srcu_data *sdp = &ss->sda[cpu];

		sum += atomic_long_read(unlocks ? &sdp->unlock_count[idx] : &sdp->lock_count[idx]);
	}
	return sum;
}

/* No reader of index idx is inside its section (barrier A). */
static bool srcu_readers_active_idx_check(struct srcu_struct *ss, int idx)
{
	unsigned long unlocks = srcu_sum(ss, idx, true), locks;

	smp_mb();	/* A */
	jitter_site(JITTER_SRCU);	/* test build: readers move mid-scan */
	srcu_inject(ss, SRCU_INJECT_SCAN_MID);	/* test build: a reader comes and goes */
	locks = srcu_sum(ss, idx, false);
	/* Each unlock summed follows its lock, which A makes us see: more
	 * unlocks than locks is a reader's unlock of the wrong index, or a
	 * scan that summed in the wrong order. */
	RCU_ASSERT((long)(locks - unlocks) >= 0);
	return locks == unlocks;
}

/* ss->lock held: take the grace period as far as the readers allow. */
static void srcu_gp_advance(struct srcu_struct *ss)
{
	lockdep_assert_held(&ss->lock);
	for (;;) {
		switch (rcu_seq_state(ss->srcu_gp_seq)) {
		case 0:
			if (!ULONG_CMP_LT(ss->srcu_gp_seq, ss->srcu_gp_seq_needed))
				return;
			smp_mb();	/* the callers' updates before the scans */
			WRITE_ONCE(ss->srcu_gp_seq, ss->srcu_gp_seq + 1);
			trace_srcu_grace_period(ss->name, ss->srcu_gp_seq, "start", ss->srcu_idx & 1);
			/* fall through */
		case 1:
			jitter_site(JITTER_SRCU);	/* test build: kernel/jitter.h */
			if (!srcu_readers_active_idx_check(ss, (ss->srcu_idx & 1) ^ 1))
				return;
			smp_mb();	/* D: scan 1 before the flip */
			jitter_site(JITTER_SRCU);
			WRITE_ONCE(ss->srcu_idx, ss->srcu_idx + 1);
			trace_srcu_grace_period(ss->name, ss->srcu_gp_seq, "flip", ss->srcu_idx & 1);
			smp_mb();	/* E: the flip before scan 2 */
			jitter_site(JITTER_SRCU);
			WRITE_ONCE(ss->srcu_gp_seq, ss->srcu_gp_seq + 1);
			/* fall through */
		case 2:
			jitter_site(JITTER_SRCU);
			if (!srcu_readers_active_idx_check(ss, (ss->srcu_idx & 1) ^ 1))
				return;
			smp_mb();	/* the readers' sections before the end */
			trace_srcu_grace_period(ss->name, ss->srcu_gp_seq, "end", ss->srcu_idx & 1);
			rcu_seq_end(&ss->srcu_gp_seq);
			break;
		default:
			WARN_ONCE(1, "srcu: %s: bad grace-period state %#lx\n", ss->name,
				  ss->srcu_gp_seq);
			return;
		}
	}
}

/* ss->lock held: a GP that ends after now; returns its gp_seq value. */
static unsigned long srcu_request_gp(struct srcu_struct *ss)
{
	unsigned long s = rcu_seq_snap(&ss->srcu_gp_seq);

	lockdep_assert_held(&ss->lock);

	if (ULONG_CMP_LT(ss->srcu_gp_seq_needed, s))
		ss->srcu_gp_seq_needed = s;
	return s;
}

/* ss->lock held: tag the untagged callbacks with a GP, and request it. */
static void srcu_accelerate_cbs(struct srcu_struct *ss)
{
	unsigned long s = rcu_seq_snap(&ss->srcu_gp_seq);

	lockdep_assert_held(&ss->lock);

	if (rcu_segcblist_accelerate(&ss->cblist, s) &&
	    ULONG_CMP_LT(ss->srcu_gp_seq_needed, s))
		ss->srcu_gp_seq_needed = s;
}

static void __synchronize_srcu(struct srcu_struct *ss, bool expedited, const char *what)
{
	unsigned long s, flags, start = jiffies, next_warn;
	int spins = 0;
	bool waiting;

	might_sleep();
	if (srcu_misuse_check(ss, what))
		return;
	spin_lock_irqsave(&ss->lock, flags);
	s = srcu_request_gp(ss);
	srcu_gp_advance(ss);
	/*
	 * Counted only once it must sleep (the fast path is left alone), so
	 * that cleanup_srcu_struct() can tell a caller still polling ss.
	 */
	waiting = !rcu_seq_done(&ss->srcu_gp_seq, s);
	if (waiting)
		ss->srcu_waiters++;
	spin_unlock_irqrestore(&ss->lock, flags);
	next_warn = start + 10 * HZ;
	while (waiting) {
		/* Readers may sleep for long: poll, hard at first if expedited. */
		if (expedited && spins++ < 100)
			udelay(2);
		else
			schedule_timeout_uninterruptible(1);
		srcu_inject(ss, SRCU_INJECT_SYNC_WAITING);
		spin_lock_irqsave(&ss->lock, flags);
		srcu_gp_advance(ss);
		waiting = !rcu_seq_done(&ss->srcu_gp_seq, s);
		if (!waiting)
			ss->srcu_waiters--;
		spin_unlock_irqrestore(&ss->lock, flags);
		if (waiting && time_after_eq(jiffies, next_warn)) {
			pr_warn("srcu: %s(%s) has waited %lu s for readers (index %lu)\n",
				what, ss->name, (jiffies - start) / HZ, ss->srcu_idx & 1);
			next_warn = jiffies + 10 * HZ;
		}
	}
	smp_mb();	/* the readers' sections before the caller's frees */
}

void synchronize_srcu(struct srcu_struct *ss)
{
	__synchronize_srcu(ss, false, "synchronize_srcu");
}

void synchronize_srcu_expedited(struct srcu_struct *ss)
{
	__synchronize_srcu(ss, true, "synchronize_srcu_expedited");
}

/* ---- callbacks ---- */

__fastpath void call_srcu(struct srcu_struct *ss, struct rcu_head *head, rcu_callback_t func)
{
	unsigned long flags;
	bool listed;

	if (!debug_rcu_head_queue(head, func, "call_srcu"))
		return;		/* reported; queueing it would corrupt the list */
	head->func = func;
	head->next = NULL;
	spin_lock_irqsave(&ss->lock, flags);
	rcu_segcblist_enqueue(&ss->cblist, head);
	rcu_segcblist_accelerate(&ss->cblist, srcu_request_gp(ss));
	listed = READ_ONCE(ss->on_list);
	spin_unlock_irqrestore(&ss->lock, flags);
	if (!listed) {
		spin_lock_irqsave(&srcu_list_lock, flags);
		if (!ss->on_list) {
			list_add_tail(&ss->list, &srcu_cb_structs);
			WRITE_ONCE(ss->on_list, true);
		}
		spin_unlock_irqrestore(&srcu_list_lock, flags);
	}
	WRITE_ONCE(srcu_kthread_kick, true);
	if (READ_ONCE(srcu_kthread))
		wake_up(&srcu_kthread_wq);
}

#ifdef CONFIG_SANITIZE
/*
 * Test build, ss->lock held, at the end of a pass over ss that took out
 * `taken` callbacks: every callback on the list at one pass is taken out
 * by the first pass that finds the grace period covering it over.  The
 * pass tags whatever call_srcu() could not, so after it every callback on
 * the list waits for rcu_seq_snap() of gp_seq at that pass or sooner;
 * the list is FIFO and a pass takes out every callback whose GP is over.
 * So once gp_seq has reached that snap, those callbacks (the first
 * cbs_watched on the list) must all be out.  A callback left untagged,
 * mis-advanced or never extracted waits for a later call_srcu() or for
 * ever; this says so at the first pass after its GP, without a timeout
 * (grace periods, not time: a kthread delayed on a loaded host is no
 * false alarm).
 */
static void srcu_cb_progress_check(struct srcu_struct *ss, long taken)
{
	unsigned long seq = ss->srcu_gp_seq;
	long n = rcu_segcblist_n_cbs(&ss->cblist);

	lockdep_assert_held(&ss->lock);
	/*
	 * The pass's accelerate always finds a segment: after the advance
	 * the waiting ones hold GPs in (seq, rcu_seq_snap(seq)], and it tags
	 * with that snap.  A callback still untagged has nobody to request
	 * its grace period: it waits for a later call_srcu() or for ever.
	 */
	WARN_ONCE(!rcu_segcblist_restempty(&ss->cblist, RCU_NEXT_READY_TAIL),
		  "srcu: %s: callbacks left untagged by the callback pass (gp_seq %#lx): "
		  "no grace period is requested for them\n", ss->name, seq);
	if (ss->cbs_watched > 0) {
		ss->cbs_watched -= taken;
		if (ss->cbs_watched > 0 && ULONG_CMP_GE(seq, ss->cbs_watched_gp)) {
			WARN_ONCE(1, "srcu: %s: %ld callbacks queued before grace period %#lx "
				  "still queued after it ended (gp_seq %#lx, needed %#lx, %ld "
				  "on the list): stranded\n", ss->name, ss->cbs_watched,
				  ss->cbs_watched_gp, seq, ss->srcu_gp_seq_needed, n);
			ss->cbs_watched = 0;
		}
	}
	if (ss->cbs_watched <= 0 && n) {
		ss->cbs_watched = n;
		ss->cbs_watched_gp = rcu_seq_snap(&ss->srcu_gp_seq);
	}
}
#else
static inline void srcu_cb_progress_check(struct srcu_struct *ss, long taken)
{
	(void)ss;
	(void)taken;
}
#endif

/*
 * One pass over every struct with callbacks: advance its GP, take out the
 * callbacks it made ready.  Returns true if some still wait.
 */
static bool srcu_cb_pass(struct rcu_cblist *done)
{
	struct list_head *pos;
	unsigned long flags;
	bool pending = false;

	spin_lock_irqsave(&srcu_list_lock, flags);
	/* By list_head: a container_of() of the head itself would be misaligned. */
	for (pos = srcu_cb_structs.next; pos != &srcu_cb_structs; pos = pos->next) {
		struct srcu_struct *ss = container_of(pos, struct srcu_struct, list);

		spin_lock(&ss->lock);
		if (!rcu_segcblist_empty(&ss->cblist)) {
			struct rcu_cblist ready;
			long n;

			srcu_gp_advance(ss);
			rcu_segcblist_advance(&ss->cblist,
					      smp_load_acquire(&ss->srcu_gp_seq));
			rcu_cblist_init(&ready);
			n = rcu_segcblist_extract_done_cbs(&ss->cblist, &ready, ~0UL >> 1);
			/*
			 * srcu_barrier() does not read ->len: it waits for its own
			 * callback, which this kthread invokes after every one
			 * taken out before it.  So the count goes at once.
			 */
			rcu_segcblist_add_len(&ss->cblist, -n);
			rcu_cblist_splice(done, &ready);
			/*
			 * Callbacks call_srcu() could not tag (NEXT_READY was
			 * taken by an earlier GP) get a GP now that the advance
			 * freed a segment; otherwise nothing would ever request
			 * one for them (Linux's srcu_invoke_callbacks()).
			 */
			if (!rcu_inject(RCU_INJECT_SRCU_ACCEL))
				srcu_accelerate_cbs(ss);
			srcu_cb_progress_check(ss, n);
			pending |= rcu_segcblist_pend_cbs(&ss->cblist);
		}
		spin_unlock(&ss->lock);
	}
	spin_unlock_irqrestore(&srcu_list_lock, flags);
	return pending;
}

static int srcu_cb_kthread(void *unused)
{
	(void)unused;
	while (!kthread_should_stop()) {
		struct rcu_cblist done;
		struct rcu_head *rhp, *next;
		bool pending;

		WRITE_ONCE(srcu_kthread_kick, false);
		rcu_cblist_init(&done);
		pending = srcu_cb_pass(&done);
		for (rhp = done.head; rhp; rhp = next) {
			next = rhp->next;
			local_bh_disable();	/* as RCU's callbacks run */
			debug_rcu_head_unqueue(rhp);
			rhp->func(rhp);
			local_bh_enable();
		}
		if (pending)
			schedule_timeout_uninterruptible(1);
		else
			wait_event_timeout(srcu_kthread_wq, READ_ONCE(srcu_kthread_kick) ||
					   kthread_should_stop(), HZ);
	}
	return 0;
}

struct srcu_barrier_head {
	struct rcu_head head;
	struct completion done;
};

static void srcu_barrier_cb(struct rcu_head *head)
{
	complete(&container_of(head, struct srcu_barrier_head, head)->done);
}

/* ss's callbacks run in order, so the last one queued runs last. */
void srcu_barrier(struct srcu_struct *ss)
{
	struct srcu_barrier_head b;

	might_sleep();
	if (srcu_misuse_check(ss, "srcu_barrier"))
		return;
	init_completion(&b.done);
	call_srcu(ss, &b.head, srcu_barrier_cb);
	while (!wait_for_completion_timeout(&b.done, 10 * HZ))
		pr_warn("srcu: srcu_barrier(%s) still waiting after 10 s more\n", ss->name);
}

/* One WARN per way ss is still in use, counted for the tests. */
static void srcu_cleanup_report(struct srcu_struct *ss, enum srcu_cleanup_report r,
				const char *what)
{
	atomic_inc(&srcu_cleanup_reports[r]);
	WARN(1, "srcu: cleanup_srcu_struct(%s) of an active srcu_struct (%s): "
	     "gp_seq %#lx needed %#lx, %d waiters, %ld callbacks\n", ss->name, what,
	     READ_ONCE(ss->srcu_gp_seq), READ_ONCE(ss->srcu_gp_seq_needed),
	     READ_ONCE(ss->srcu_waiters), rcu_segcblist_n_cbs(&ss->cblist));
}

/*
 * After srcu_barrier() every grace period requested before the call is
 * over and every callback has run: anything still using ss now began
 * after, or outlived its grace period (a synchronize_srcu() caller that
 * has not returned yet), and will touch freed memory: as Linux's
 * cleanup_srcu_struct(), say so ("Active srcu_struct").
 */
void cleanup_srcu_struct(struct srcu_struct *ss)
{
	unsigned long flags;
	bool readers = false, waiters, gp;

	srcu_barrier(ss);
	srcu_inject(ss, SRCU_INJECT_CLEANUP);
	spin_lock_irqsave(&srcu_list_lock, flags);
	if (ss->on_list) {
		list_del_init(&ss->list);
		ss->on_list = false;
	}
	spin_unlock_irqrestore(&srcu_list_lock, flags);
	for (int idx = 0; idx < 2; idx++)
		readers |= srcu_sum(ss, idx, false) != srcu_sum(ss, idx, true);
	spin_lock_irqsave(&ss->lock, flags);
	waiters = ss->srcu_waiters != 0;
	gp = rcu_seq_state(ss->srcu_gp_seq) ||
	     ULONG_CMP_LT(ss->srcu_gp_seq, ss->srcu_gp_seq_needed) ||
	     !rcu_segcblist_empty(&ss->cblist);
	spin_unlock_irqrestore(&ss->lock, flags);
	if (readers)
		srcu_cleanup_report(ss, SRCU_CLEANUP_READERS, "a reader still inside");
	if (waiters)
		srcu_cleanup_report(ss, SRCU_CLEANUP_WAITERS, "a synchronize_srcu() caller still waiting");
	if (gp)
		srcu_cleanup_report(ss, SRCU_CLEANUP_GP, "a grace period in flight or callbacks queued");
}

void srcu_init_late(void)
{
	struct task *t = kthread_create(srcu_cb_kthread, NULL, "srcu_cb");

	if (!t) {
		pr_err("srcu: cannot create the callback kthread; call_srcu() callbacks will not run\n");
		return;
	}
	set_task_prio(t, PRIO_HIGH);
	WRITE_ONCE(srcu_kthread, t);
	wake_up_process(t);
}
