/*
 * rcu/srcu.h - sleepable RCU (SRCU), Linux's API: srcu_read_lock()
 * returns an index that srcu_read_unlock() is given back;
 * synchronize_srcu(), synchronize_srcu_expedited(), call_srcu(),
 * srcu_barrier().  Implementation in rcu/srcu.c.
 *
 * The contract callers keep:
 *  - A reader may sleep (block, wait, be preempted) inside its section.
 *  - A grace period of srcu_struct ss waits only for readers of ss: readers
 *    of another srcu_struct, or of RCU, never delay it.
 *  - synchronize_srcu(ss) inside a reader of the same ss would wait for
 *    itself forever (the article's Quick Quiz 3, docs/article.md): it is detected per task,
 *    reported with a backtrace (srcu_misuse_reports) and returns at once.
 *    Inside a reader of another srcu_struct it is legal and waits.
 *  - Ordering: as RCU's.  Every reader that began before synchronize_srcu()
 *    was called has ended (its loads done) before it returns, and every
 *    reader that begins after it returns sees the caller's prior stores.
 *
 * Readers: per-CPU counter pairs, one per index.  srcu_read_lock() adds
 * one to this CPU's lock count of the current index (srcu_idx & 1);
 * srcu_read_unlock() adds one to the unlock count of the same index (on
 * whatever CPU it runs: only the sums matter).  Both are full-barrier
 * atomic adds.  A grace period waits for the inactive index's sums to
 * match, flips srcu_idx, then waits for the old index's to match.
 */
#pragma once

#include "rcu/rcu.h"
#include "rcu/rcupdate.h"
#include "rcu/segcblist.h"
#include "kernel/percpu.h"
#include "kernel/spinlock.h"
#include "kernel/list.h"
#include "kernel/sched.h"

struct srcu_data {
	atomic_long_t lock_count[2];
	atomic_long_t unlock_count[2];
} ____cacheline_aligned;

struct srcu_struct {
	unsigned long srcu_idx;		/* readers use srcu_idx & 1 */
	unsigned long srcu_gp_seq;	/* rcu_seq: state 1 scan 1, 2 scan 2 */
	unsigned long srcu_gp_seq_needed;
	spinlock_t lock;		/* the GP state and the callbacks */
	struct rcu_segcblist cblist;
	bool on_list;			/* in the callback kthread's list */
	int srcu_waiters;		/* synchronize_srcu() callers asleep, under ->lock */
	struct list_head list;
	const char *name;
#ifdef CONFIG_SANITIZE
	/* srcu_cb_progress_check(): callbacks on the list at one pass of the
	 * callback kthread not yet taken out, and the GP that covers them. */
	long cbs_watched;
	unsigned long cbs_watched_gp;
#endif
	struct srcu_data sda[NR_CPUS];
};

/* A statically initialised srcu_struct (no init_srcu_struct() needed). */
#define __SRCU_STRUCT_INIT(n) {						\
	.srcu_gp_seq = RCU_SEQ_INITIAL_VAL,				\
	.srcu_gp_seq_needed = RCU_SEQ_INITIAL_VAL,			\
	.lock = __SPIN_LOCK_UNLOCKED(n.lock),				\
	.cblist = { .tails = { &n.cblist.head, &n.cblist.head,		\
			       &n.cblist.head, &n.cblist.head } },	\
	.list = LIST_HEAD_INIT(n.list),					\
	.name = #n,							\
}
#define DEFINE_SRCU(n)		struct srcu_struct n = __SRCU_STRUCT_INIT(n)
#define DEFINE_STATIC_SRCU(n)	static struct srcu_struct n = __SRCU_STRUCT_INIT(n)

int init_srcu_struct(struct srcu_struct *ss);
/*
 * Waits for its callbacks; then WARNs if the struct is still in use: a
 * reader inside, a synchronize_srcu() caller still waiting on it, or a
 * grace period (or callback) requested since.  The caller is to free it.
 */
void cleanup_srcu_struct(struct srcu_struct *ss);

/* What cleanup_srcu_struct() found still using the struct (one WARN each). */
enum srcu_cleanup_report {
	SRCU_CLEANUP_READERS,	/* a reader inside */
	SRCU_CLEANUP_WAITERS,	/* a synchronize_srcu() caller not yet returned */
	SRCU_CLEANUP_GP,	/* a GP in flight or requested, or callbacks queued */
	SRCU_CLEANUP_NR
};
/* Counts of those reports; tests read them. */
extern atomic_t srcu_cleanup_reports[SRCU_CLEANUP_NR];

/* Where the test build's srcu_inject_hook is called. */
enum srcu_inject_site {
	SRCU_INJECT_SYNC_WAITING,	/* synchronize_srcu(), counted as a waiter, about to poll */
	SRCU_INJECT_CLEANUP,		/* cleanup_srcu_struct() past its srcu_barrier() */
	SRCU_INJECT_SCAN_MID,		/* a scan between its two sums (ss->lock held,
					 * irqs off; the index scanned is
					 * (srcu_idx & 1) ^ 1) */
};

#ifdef CONFIG_SANITIZE
/*
 * Test build: called by srcu_held_push() between its two stores, where
 * an interrupt whose handler is an SRCU reader may land (with the same
 * current).  NULL: nothing.
 */
extern void (*srcu_held_push_hook)(struct srcu_struct *ss);
/*
 * Test build: called where a window of the update side may be held open
 * (enum srcu_inject_site).  NULL: nothing.
 */
extern void (*srcu_inject_hook)(struct srcu_struct *ss, enum srcu_inject_site where);
static inline void srcu_held_push_window(struct srcu_struct *ss)
{
	void (*hook)(struct srcu_struct *) = READ_ONCE(srcu_held_push_hook);

	jitter_site(JITTER_SRCU_READ);	/* stress lines an irq's reader up with it */
	if (unlikely(hook))
		hook(ss);
}
#else
static inline void srcu_held_push_window(struct srcu_struct *ss) { (void)ss; }
#endif

/*
 * Quick Quiz 3's per-task record: which srcu_structs this task reads.
 * Slots 0..depth-1 name the sections entered, in order; every slot at or
 * above depth is NULL.  An interrupt (or NMI) handler that is an SRCU
 * reader runs with the same current and pushes and pops the same record,
 * wholly between two of our stores: so the depth is published before the
 * slot is written (the handler pushes above it, and finds NULL there),
 * and a pop clears the slot it frees before it lowers the depth.  Only
 * compiler barriers are needed: the record is this CPU's own business.
 * Sections beyond the slots cannot be recorded, and ones that end out of
 * order then leave the record wrong: srcu_held_overflow marks it so until
 * the task has left every section, and srcu_read_lock_held() then says
 * "not held" (a missed misuse report, never a skipped grace period).
 */
static inline void srcu_held_push(struct srcu_struct *ss)
{
	struct task *t = current;
	int d = t->srcu_held_depth;

	if (d >= (int)ARRAY_SIZE(t->srcu_held))
		t->srcu_held_overflow = true;
	barrier();
	t->srcu_held_depth = d + 1;
	barrier();	/* an interrupt's push and pop nest inside ours */
	srcu_held_push_window(ss);
	if (d < (int)ARRAY_SIZE(t->srcu_held))
		t->srcu_held[d] = ss;
}

static inline void srcu_held_pop(struct srcu_struct *ss)
{
	struct task *t = current;
	int d = t->srcu_held_depth - 1, top = MIN(d, (int)ARRAY_SIZE(t->srcu_held) - 1);

	bool found = false;

	/* Sections of different structs may end out of order. */
	for (int i = top; i >= 0; i--) {
		if (t->srcu_held[i] != ss)
			continue;
		for (int j = i; j < top; j++)
			t->srcu_held[j] = t->srcu_held[j + 1];
		t->srcu_held[top] = NULL;
		found = true;
		break;
	}
	/* Test build: a record that lost a section it holds (an interrupt's
	 * reader overwrote it) would skip a legal wait or report a false
	 * misuse; the record is trusted unless it overflowed. */
	RCU_ASSERT(found || t->srcu_held_overflow);
	barrier();
	jitter_site(JITTER_SRCU_READ);	/* test build: an irq's reader here */
	t->srcu_held_depth = d;
	barrier();
	if (!d)
		t->srcu_held_overflow = false;
}

static inline int srcu_read_lock(struct srcu_struct *ss)
{
	int idx;

	/*
	 * Preemption off between reading the index and counting: at most one
	 * reader per CPU holds a stale index uncounted.  Two scans would do
	 * with more (Linux's reader is preemptible there): a late count on
	 * the inactive index is what the first scan waits for
	 * (tests/mutants/23's header).  The value-returning increment is fully
	 * ordered, a full barrier (B): the section's loads come after the count.
	 */
	preempt_disable();
	idx = READ_ONCE(ss->srcu_idx) & 1;
	atomic_long_inc_return(&ss->sda[smp_processor_id()].lock_count[idx]);
	preempt_enable();
	srcu_held_push(ss);
	return idx;
}

static inline void srcu_read_unlock(struct srcu_struct *ss, int idx)
{
	srcu_held_pop(ss);
	/* Full barrier (C): the section's loads come before the count. */
	atomic_long_inc_return(&ss->sda[raw_smp_processor_id()].unlock_count[idx & 1]);
}

/* Inside a reader of ss, or where c says p cannot change (RCU-lockdep). */
#define srcu_dereference_check(p, ss, c) ({				\
	RCU_LOCKDEP_WARN(!((c) || srcu_read_lock_held(ss)),		\
			 "suspicious srcu_dereference_check() usage");	\
	(void)(ss);							\
	rcu_dereference_raw(p); })
#define srcu_dereference(p, ss) srcu_dereference_check(p, ss, 0)

void synchronize_srcu(struct srcu_struct *ss);
void synchronize_srcu_expedited(struct srcu_struct *ss);
void call_srcu(struct srcu_struct *ss, struct rcu_head *head, rcu_callback_t func);
void srcu_barrier(struct srcu_struct *ss);
/* Grace periods of ss completed so far. */
unsigned long srcu_batches_completed(struct srcu_struct *ss);
/* True if this task is inside a reader of ss (Quick Quiz 3's check);
 * false also when the task's record cannot tell (too deeply nested). */
bool srcu_read_lock_held(struct srcu_struct *ss);

/* Misuse reports (synchronize_srcu inside its own reader); tests read it. */
extern atomic_t srcu_misuse_reports;

/* rcu_late_init(): the callback kthread. */
void srcu_init_late(void);
