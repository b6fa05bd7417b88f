/*
 * tests/kernel/test_srcu.c - KTAP suite `srcu`: sleepable RCU (rcu/srcu.c).
 * A reader that sleeps inside srcu_struct A's section holds up
 * synchronize_srcu(A) (normal and expedited) and A's callbacks until it
 * leaves, and holds up neither B's grace periods or callbacks nor RCU's;
 * synchronize_srcu(A) inside A's own section (the article's Quick
 * Quiz 3, docs/article.md) is reported
 * and returns, inside B's section it waits and works; srcu_barrier()
 * waits for every callback; a reader that comes and goes between a
 * scan's two sums does not end a grace period, nor does one that counted
 * itself after the flip it read the index before; the grace-period latency rows
 * `# bench name=gp type=srcu|srcu-expedited`.  Every wait is bounded.
 */
#include "kernel/ktap.h"
#include "tests/kernel/test_helpers.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/math.h"
#include "kernel/printk.h"
#include "rcu/srcu.h"

DEFINE_STATIC_SRCU(srcu_test_a);
DEFINE_STATIC_SRCU(srcu_test_b);

struct sleeper {
	struct srcu_struct *ss;
	volatile bool in_section;
	volatile bool release;
	volatile u64 unlock_ns;
};

/* Sleeps (really: off the run queue) inside its section until released. */
static int sleeper_fn(void *p)
{
	struct sleeper *s = p;
	u64 end = ktime_get_ns() + 10000000000ull;
	int idx = srcu_read_lock(s->ss);

	s->in_section = true;
	while (!s->release && ktime_get_ns() < end)
		msleep(5);
	s->unlock_ns = ktime_get_ns();
	srcu_read_unlock(s->ss, idx);
	return 0;
}

struct waiter {
	struct srcu_struct *ss;		/* NULL: synchronize_rcu() */
	bool expedited;
	volatile u64 done_ns;
};

static int waiter_fn(void *p)
{
	struct waiter *w = p;

	if (!w->ss)
		synchronize_rcu();
	else if (w->expedited)
		synchronize_srcu_expedited(w->ss);
	else
		synchronize_srcu(w->ss);
	w->done_ns = ktime_get_ns();
	return 0;
}

static struct task *start(int (*fn)(void *), void *arg, const char *name)
{
	return kthread_run(fn, arg, name);
}

/* Takes a sleeping reader of A; returns false (case failed) if it never got in. */
static bool sleeper_start(struct sleeper *s, struct task **t)
{
	*t = start(sleeper_fn, s, "srcu-sleeper");
	if (!*t) {
		ktap_fail("cannot create the reader");
		return false;
	}
	if (!WAIT_UNTIL(s->in_section, 2000)) {
		s->release = true;
		kthread_join(*t);
		*t = NULL;
		ktap_fail("the reader never entered its section");
		return false;
	}
	return true;
}

static void sleeping_reader_holds_own_struct(bool expedited)
{
	static struct sleeper s;
	static struct waiter wa, wb, wr;
	struct task *st, *ta, *tb, *tr;
	u64 after;

	s = (struct sleeper){ .ss = &srcu_test_a };
	wa = (struct waiter){ .ss = &srcu_test_a, .expedited = expedited };
	wb = (struct waiter){ .ss = &srcu_test_b, .expedited = expedited };
	wr = (struct waiter){ .ss = NULL };
	if (!sleeper_start(&s, &st))
		return;
	ta = start(waiter_fn, &wa, "srcu-wait-a");
	tb = start(waiter_fn, &wb, "srcu-wait-b");
	tr = start(waiter_fn, &wr, "srcu-wait-rcu");
	KTAP_ASSERT(ta && tb && tr);
	/* B and RCU do not wait for A's reader... */
	KTAP_EXPECT(WAIT_UNTIL(wb.done_ns && wr.done_ns, 2000));
	/* ...A does, for as long as it sleeps. */
	WAIT_WINDOW(wa.done_ns, 300);
	KTAP_EXPECT(!wa.done_ns);
	KTAP_EXPECT(s.in_section);
	s.release = true;
	KTAP_EXPECT(WAIT_UNTIL(wa.done_ns, 5000));
	kthread_join(st);
	kthread_join(ta);
	kthread_join(tb);
	kthread_join(tr);
	KTAP_ASSERT(wa.done_ns && s.unlock_ns);
	KTAP_EXPECT(wa.done_ns >= s.unlock_ns);
	after = wa.done_ns >= s.unlock_ns ? (wa.done_ns - s.unlock_ns) / 1000 : 0;
	ktap_log("synchronize_srcu%s(A) ended %lu us after A's sleeping reader left; "
		 "B's and RCU's did not wait", expedited ? "_expedited" : "", after);
	KTAP_EXPECT(after < WAIT_MIN_MS * 1000ull);	/* a hang guard: the figure is above */
}

static void srcu_sleeping_reader_holds_own_struct_only(void)
{
	sleeping_reader_holds_own_struct(false);
}

static void srcu_expedited_sleeping_reader_holds_own_struct_only(void)
{
	sleeping_reader_holds_own_struct(true);
}

/* ---- Quick Quiz 3 -------------------------------------------------------- */

static void srcu_qq3_misuse_reported(void)
{
	int misuse0 = atomic_read(&srcu_misuse_reports);
	unsigned long b0 = srcu_batches_completed(&srcu_test_b);
	int ia, ib;

	ia = srcu_read_lock(&srcu_test_a);
	KTAP_EXPECT(srcu_read_lock_held(&srcu_test_a));
	KTAP_EXPECT(!srcu_read_lock_held(&srcu_test_b));
	/* Would wait for this very reader: reported, returns. */
	ktap_expect_warnings(3, "synchronize_srcu() and its expedited form inside a reader of the same srcu_struct, and later once more");
	synchronize_srcu(&srcu_test_a);
	synchronize_srcu_expedited(&srcu_test_a);
	KTAP_EXPECT_EQ(atomic_read(&srcu_misuse_reports) - misuse0, 2);
	/* Another struct's grace period is legal here and really waits. */
	synchronize_srcu(&srcu_test_b);
	KTAP_EXPECT(srcu_batches_completed(&srcu_test_b) > b0);
	/* Nested in B, then A ends first: the record follows. */
	ib = srcu_read_lock(&srcu_test_b);
	srcu_read_unlock(&srcu_test_a, ia);
	KTAP_EXPECT(!srcu_read_lock_held(&srcu_test_a));
	KTAP_EXPECT(srcu_read_lock_held(&srcu_test_b));
	synchronize_srcu(&srcu_test_b);		/* misuse again */
	synchronize_srcu(&srcu_test_a);		/* fine now */
	srcu_read_unlock(&srcu_test_b, ib);
	KTAP_EXPECT_EQ(current->srcu_held_depth, 0);
	KTAP_EXPECT_EQ(atomic_read(&srcu_misuse_reports) - misuse0, 3);
}

/*
 * The record of held structs against an interrupt (issue 27, bug 4): an
 * interrupt whose handler is a reader of B, landing inside this task's
 * srcu_read_lock(&A) with the same current, must leave the record saying
 * A, not B.  srcu_held_push_hook (test build) fires that reader, irqs
 * off as a handler runs, between the push's two stores.  Then
 * synchronize_srcu(&B) inside A is legal and must wait, here for a
 * reader of B in another task that began before it; synchronize_srcu(&A)
 * is the misuse and must be reported.
 */
DEFINE_STATIC_SRCU(srcu_test_c);
DEFINE_STATIC_SRCU(srcu_test_d);
DEFINE_STATIC_SRCU(srcu_test_e);

#ifdef CONFIG_SANITIZE
static struct srcu_struct *irq_hook_on;
static int irq_hook_fired;

static void irq_reader_of_b(struct srcu_struct *ss)
{
	unsigned long flags;
	int idx;

	if (ss != READ_ONCE(irq_hook_on))
		return;
	WRITE_ONCE(irq_hook_on, NULL);	/* once: B's own push comes here too */
	local_irq_save(flags);
	idx = srcu_read_lock(&srcu_test_b);
	srcu_read_unlock(&srcu_test_b, idx);
	local_irq_restore(flags);
	irq_hook_fired++;
}
#endif

/* A reader of ss in another task, released after a while by a helper. */
static int release_later(void *p)
{
	struct sleeper *s = p;

	msleep(100);
	s->release = true;
	return 0;
}

/* synchronize_srcu(ss) in this task must wait for another task's reader. */
static void legal_wait_waits(struct srcu_struct *ss, const char *name)
{
	static struct sleeper s;
	int misuse0 = atomic_read(&srcu_misuse_reports);
	unsigned long gp0 = srcu_batches_completed(ss);
	struct task *st, *rt;

	s = (struct sleeper){ .ss = ss };
	if (!sleeper_start(&s, &st))
		return;
	rt = start(release_later, &s, "srcu-release");
	KTAP_ASSERT(rt);
	synchronize_srcu(ss);
	if (!s.unlock_ns || atomic_read(&srcu_misuse_reports) != misuse0)
		ktap_fail("synchronize_srcu(%s) returned while another task's reader of it "
			  "that began before it was still inside (%d misuse reports)", name,
			  atomic_read(&srcu_misuse_reports) - misuse0);
	KTAP_EXPECT(srcu_batches_completed(ss) > gp0);
	kthread_join(rt);
	kthread_join(st);
}

static void srcu_held_record_vs_irq_reader(void)
{
#ifdef CONFIG_SANITIZE
	int misuse0, ia;

	irq_hook_fired = 0;
	WRITE_ONCE(irq_hook_on, &srcu_test_a);
	WRITE_ONCE(srcu_held_push_hook, irq_reader_of_b);
	ia = srcu_read_lock(&srcu_test_a);
	WRITE_ONCE(srcu_held_push_hook, NULL);
	KTAP_EXPECT_EQ(irq_hook_fired, 1);
	KTAP_EXPECT(srcu_read_lock_held(&srcu_test_a));
	KTAP_EXPECT(!srcu_read_lock_held(&srcu_test_b));
	legal_wait_waits(&srcu_test_b, "B");
	misuse0 = atomic_read(&srcu_misuse_reports);
	ktap_expect_warnings(1, "synchronize_srcu(A) inside a reader of A");
	synchronize_srcu(&srcu_test_a);		/* the misuse: reported, returns */
	KTAP_EXPECT_EQ(atomic_read(&srcu_misuse_reports) - misuse0, 1);
	srcu_read_unlock(&srcu_test_a, ia);
	KTAP_EXPECT_EQ(current->srcu_held_depth, 0);
#else
	ktap_skip("needs the test build (srcu_held_push_hook)");
#endif
}

/*
 * More nested sections than the record has slots (issue 27, bug 4): A..E
 * nested, then A ends, then D ends.  The task reads B, C and E; the
 * record must not claim D, and synchronize_srcu(&D) must wait for
 * another task's reader of D.  A record that overflowed answers "not
 * held" until the task has left every section; then it works again.
 */
static void srcu_held_record_overflow(void)
{
	struct srcu_struct *ss[5] = { &srcu_test_a, &srcu_test_b, &srcu_test_c,
				      &srcu_test_d, &srcu_test_e };
	int idx[5], misuse0;

	for (int i = 0; i < 5; i++)
		idx[i] = srcu_read_lock(ss[i]);
	srcu_read_unlock(ss[0], idx[0]);
	srcu_read_unlock(ss[3], idx[3]);
	KTAP_EXPECT(!srcu_read_lock_held(&srcu_test_d));
	KTAP_EXPECT(!srcu_read_lock_held(&srcu_test_a));
	legal_wait_waits(&srcu_test_d, "D");
	srcu_read_unlock(ss[4], idx[4]);
	srcu_read_unlock(ss[1], idx[1]);
	srcu_read_unlock(ss[2], idx[2]);
	KTAP_EXPECT_EQ(current->srcu_held_depth, 0);
	/* Trusted again: the misuse is caught. */
	idx[0] = srcu_read_lock(&srcu_test_a);
	KTAP_EXPECT(srcu_read_lock_held(&srcu_test_a));
	misuse0 = atomic_read(&srcu_misuse_reports);
	ktap_expect_warnings(1, "synchronize_srcu(A) inside a reader of A, the record trusted again");
	synchronize_srcu(&srcu_test_a);
	KTAP_EXPECT_EQ(atomic_read(&srcu_misuse_reports) - misuse0, 1);
	srcu_read_unlock(&srcu_test_a, idx[0]);
}

/* ---- callbacks ----------------------------------------------------------- */

#define NCB 64

static struct rcu_head cb_heads[2][NCB];
static atomic_t cb_ran[2];

static void cb_a(struct rcu_head *h) { (void)h; atomic_inc(&cb_ran[0]); }
static void cb_b(struct rcu_head *h) { (void)h; atomic_inc(&cb_ran[1]); }

static void srcu_call_srcu_and_barrier(void)
{
	static struct sleeper s;
	struct task *st;

	atomic_set(&cb_ran[0], 0);
	atomic_set(&cb_ran[1], 0);
	s = (struct sleeper){ .ss = &srcu_test_a };
	if (!sleeper_start(&s, &st))
		return;
	for (int i = 0; i < NCB; i++) {
		call_srcu(&srcu_test_a, &cb_heads[0][i], cb_a);
		call_srcu(&srcu_test_b, &cb_heads[1][i], cb_b);
	}
	/* B's run although A's reader sleeps; A's wait. */
	KTAP_EXPECT(WAIT_UNTIL(atomic_read(&cb_ran[1]) == NCB, 2000));
	msleep(100);
	KTAP_EXPECT_EQ(atomic_read(&cb_ran[0]), 0);
	s.release = true;
	kthread_join(st);
	srcu_barrier(&srcu_test_a);
	KTAP_EXPECT_EQ(atomic_read(&cb_ran[0]), NCB);
	srcu_barrier(&srcu_test_b);
	KTAP_EXPECT_EQ(atomic_read(&cb_ran[1]), NCB);
}

/* A dynamically initialised struct works the same and cleans up. */
static void srcu_init_cleanup_dynamic(void)
{
	static struct srcu_struct ss;
	static struct rcu_head h;
	unsigned long b0;
	int idx;

	KTAP_ASSERT(init_srcu_struct(&ss) == 0);
	b0 = srcu_batches_completed(&ss);
	idx = srcu_read_lock(&ss);
	srcu_read_unlock(&ss, idx);
	synchronize_srcu(&ss);
	KTAP_EXPECT(srcu_batches_completed(&ss) > b0);
	atomic_set(&cb_ran[0], 0);
	call_srcu(&ss, &h, cb_a);
	cleanup_srcu_struct(&ss);	/* srcu_barrier() inside */
	KTAP_EXPECT_EQ(atomic_read(&cb_ran[0]), 1);
}

/*
 * cleanup_srcu_struct() of a struct still in use (issue 27) is reported,
 * each way once: srcu_inject_hook (test build) holds each window open.
 *  1. a reader that enters just after the cleanup's srcu_barrier();
 *  2. a synchronize_srcu() caller held after it counted itself a waiter:
 *     its grace period ends in the barrier, but it has not returned;
 *  3. just after the barrier, a reader and a synchronize_srcu() caller:
 *     a grace period in flight, and the reader and the waiter as well.
 */
#ifdef CONFIG_SANITIZE
static struct srcu_struct cleanup_ss;
static volatile bool cleanup_hold_waiter;
static int cleanup_hook_mode;		/* 1: reader, 2: reader + a waiter */
static int cleanup_hook_idx;
static struct waiter cleanup_late_w;
static struct task *cleanup_late_wt;

static void cleanup_hook(struct srcu_struct *ss, enum srcu_inject_site where)
{
	if (ss != &cleanup_ss)
		return;
	if (where == SRCU_INJECT_SYNC_WAITING) {
		u64 end = ktime_get_ns() + 10000000000ull;

		while (READ_ONCE(cleanup_hold_waiter) && ktime_get_ns() < end)
			msleep(5);
		return;
	}
	if (where != SRCU_INJECT_CLEANUP)
		return;
	if (cleanup_hook_mode >= 1)
		cleanup_hook_idx = srcu_read_lock(ss);
	if (cleanup_hook_mode == 2) {
		cleanup_late_w = (struct waiter){ .ss = ss };
		cleanup_late_wt = start(waiter_fn, &cleanup_late_w, "srcu-late-waiter");
		if (cleanup_late_wt)
			WAIT_UNTIL(READ_ONCE(ss->srcu_waiters) == 1, 2000);
	}
}

static void cleanup_reports_snap(int *r)
{
	for (int i = 0; i < SRCU_CLEANUP_NR; i++)
		r[i] = atomic_read(&srcu_cleanup_reports[i]);
}

static void cleanup_reports_expect(const int *r0, int readers, int waiters, int gp)
{
	KTAP_EXPECT_EQ(atomic_read(&srcu_cleanup_reports[SRCU_CLEANUP_READERS]) -
		       r0[SRCU_CLEANUP_READERS], readers);
	KTAP_EXPECT_EQ(atomic_read(&srcu_cleanup_reports[SRCU_CLEANUP_WAITERS]) -
		       r0[SRCU_CLEANUP_WAITERS], waiters);
	KTAP_EXPECT_EQ(atomic_read(&srcu_cleanup_reports[SRCU_CLEANUP_GP]) -
		       r0[SRCU_CLEANUP_GP], gp);
}
#endif

static void srcu_cleanup_reports_active_struct(void)
{
#ifdef CONFIG_SANITIZE
	static struct waiter w;
	int r0[SRCU_CLEANUP_NR], idx;
	struct task *wt;
	bool held;

	WRITE_ONCE(srcu_inject_hook, cleanup_hook);

	/* 1. A reader inside. */
	init_srcu_struct(&cleanup_ss);
	cleanup_reports_snap(r0);
	cleanup_hook_mode = 1;
	ktap_expect_warnings(1, "cleanup_srcu_struct() with a reader inside");
	cleanup_srcu_struct(&cleanup_ss);
	cleanup_hook_mode = 0;
	srcu_read_unlock(&cleanup_ss, cleanup_hook_idx);
	cleanup_reports_expect(r0, 1, 0, 0);

	/* 2. A synchronize_srcu() caller that has not returned. */
	init_srcu_struct(&cleanup_ss);
	cleanup_reports_snap(r0);
	WRITE_ONCE(cleanup_hold_waiter, true);
	idx = srcu_read_lock(&cleanup_ss);	/* so that it must wait */
	w = (struct waiter){ .ss = &cleanup_ss };
	wt = start(waiter_fn, &w, "srcu-waiter");
	held = wt && WAIT_UNTIL(READ_ONCE(cleanup_ss.srcu_waiters) == 1, 2000);
	srcu_read_unlock(&cleanup_ss, idx);
	if (held) {
		ktap_expect_warnings(1, "cleanup_srcu_struct() with a synchronize_srcu() caller held");
		cleanup_srcu_struct(&cleanup_ss);
		KTAP_EXPECT_EQ(w.done_ns, 0);	/* still held: the window was open */
	} else {
		ktap_fail("the synchronize_srcu() caller never waited");
	}
	WRITE_ONCE(cleanup_hold_waiter, false);
	if (wt)
		kthread_join(wt);
	KTAP_EXPECT(w.done_ns != 0);
	KTAP_EXPECT_EQ(cleanup_ss.srcu_waiters, 0);
	if (held)
		cleanup_reports_expect(r0, 0, 1, 0);

	/* 3. A grace period in flight (with its reader and its waiter). */
	init_srcu_struct(&cleanup_ss);
	cleanup_reports_snap(r0);
	cleanup_hook_mode = 2;
	ktap_expect_warnings(3, "cleanup_srcu_struct() with a grace period in flight, "
			     "its reader and its waiter");
	cleanup_srcu_struct(&cleanup_ss);
	cleanup_hook_mode = 0;
	srcu_read_unlock(&cleanup_ss, cleanup_hook_idx);
	if (cleanup_late_wt)
		kthread_join(cleanup_late_wt);
	else
		ktap_fail("cannot create the late waiter");
	cleanup_late_wt = NULL;
	KTAP_EXPECT(cleanup_late_w.done_ns != 0);
	cleanup_reports_expect(r0, 1, 1, 1);

	WRITE_ONCE(srcu_inject_hook, NULL);
#else
	ktap_skip("needs the test build (srcu_inject_hook)");
#endif
}

/*
 * A reader of the index being scanned that locks and unlocks between the
 * scan's two sums (a reader that read the index just before a flip):
 * the scan sums the unlocks first (barrier A, Linux's order), so it sees
 * the lock without the unlock and waits one more poll.  Summed the other
 * way (mutant 24) it would see the unlock without the lock: with an
 * older reader still inside, the sums would match and the grace period
 * end under it; alone, it is more unlocks than locks, which the scan's
 * invariant reports.  The hook (test build) puts the reader there.
 */
#ifdef CONFIG_SANITIZE
static struct srcu_struct scan_ss;
static int scan_hook_armed;
static volatile bool scan_hook_ran;

static void scan_mid_hook(struct srcu_struct *ss, enum srcu_inject_site where)
{
	int idx, cpu = raw_smp_processor_id();

	if (ss != &scan_ss || where != SRCU_INJECT_SCAN_MID ||
	    !__atomic_exchange_n(&scan_hook_armed, 0, __ATOMIC_RELAXED))
		return;
	idx = (READ_ONCE(ss->srcu_idx) & 1) ^ 1;
	atomic_long_inc_return(&ss->sda[cpu].lock_count[idx]);
	atomic_long_inc_return(&ss->sda[cpu].unlock_count[idx]);
	scan_hook_ran = true;
}
#endif

static void srcu_scan_reader_between_sums(void)
{
#ifdef CONFIG_SANITIZE
	unsigned long w0 = READ_ONCE(warn_count), b0;

	init_srcu_struct(&scan_ss);
	b0 = srcu_batches_completed(&scan_ss);
	scan_hook_ran = false;
	WRITE_ONCE(scan_hook_armed, 1);
	WRITE_ONCE(srcu_inject_hook, scan_mid_hook);
	synchronize_srcu(&scan_ss);
	WRITE_ONCE(srcu_inject_hook, NULL);
	KTAP_EXPECT(scan_hook_ran);
	KTAP_EXPECT(srcu_batches_completed(&scan_ss) > b0);
	KTAP_EXPECT_EQ(READ_ONCE(warn_count), w0);
	cleanup_srcu_struct(&scan_ss);
#else
	ktap_skip("needs the test build (srcu_inject_hook)");
#endif
}

/*
 * A reader that read the index just before a flip and counted itself
 * after that grace period's second scan (an interrupt, an NMI or the
 * host delayed it between the two): it is inside, counted on the index
 * that is inactive now, and the next grace period must wait for it.
 * That is what the first scan is for (mutant 22 skips it: the flip makes
 * that index active again, the second scan sums the other one, and the
 * grace period ends under the reader).  The case counts the late reader
 * in by hand, as srcu_read_lock() would, and judges by what the next
 * grace period does: it ends (the bug), or it scans the reader's index
 * before its flip (SRCU_INJECT_SCAN_MID, test build), where it stays
 * until the reader leaves.
 */
#ifdef CONFIG_SANITIZE
static struct srcu_struct late_ss;
static int late_idx;
static volatile bool late_scanned;

static void late_scan_hook(struct srcu_struct *ss, enum srcu_inject_site where)
{
	if (ss == &late_ss && where == SRCU_INJECT_SCAN_MID &&
	    (int)((READ_ONCE(ss->srcu_idx) & 1) ^ 1) == late_idx &&
	    rcu_seq_state(READ_ONCE(ss->srcu_gp_seq)) == 1)
		late_scanned = true;
}
#endif

static void srcu_late_reader_waited_for(void)
{
#ifdef CONFIG_SANITIZE
	static struct waiter w;
	struct task *wt;
	int cpu = raw_smp_processor_id();
	bool waited;

	init_srcu_struct(&late_ss);
	synchronize_srcu(&late_ss);	/* one flip behind us: the index read before it */
	late_idx = (READ_ONCE(late_ss.srcu_idx) & 1) ^ 1;
	late_scanned = false;
	atomic_long_inc_return(&late_ss.sda[cpu].lock_count[late_idx]);	/* the late count */
	WRITE_ONCE(srcu_inject_hook, late_scan_hook);
	w = (struct waiter){ .ss = &late_ss };
	wt = start(waiter_fn, &w, "srcu-late-gp");
	KTAP_ASSERT(wt);
	waited = WAIT_UNTIL(late_scanned || w.done_ns, 10000);
	if (w.done_ns)
		ktap_fail("synchronize_srcu() returned while a reader counted late on "
			  "index %d (read before the last flip) was still inside", late_idx);
	else if (!waited)
		ktap_fail("the grace period neither ended nor scanned index %d in 10 s",
			  late_idx);
	/* The reader leaves: the grace period ends. */
	atomic_long_inc_return(&late_ss.sda[cpu].unlock_count[late_idx]);
	kthread_join(wt);
	WRITE_ONCE(srcu_inject_hook, NULL);
	KTAP_EXPECT(w.done_ns != 0);
	cleanup_srcu_struct(&late_ss);
#else
	ktap_skip("needs the test build (srcu_inject_hook)");
#endif
}

/* ---- grace-period latency ------------------------------------------------ */

static void srcu_bench_gp(void)
{
	static const struct { const char *type; bool exp; } kinds[] = {
		{ "srcu", false }, { "srcu-expedited", true },
	};

	for (unsigned int k = 0; k < ARRAY_SIZE(kinds); k++) {
		u64 v[32];
		struct stats st;
		unsigned long b0 = srcu_batches_completed(&srcu_test_a);
		int n = 32;

		for (int i = 0; i < n; i++) {
			u64 t = ktime_get_ns();

			if (kinds[k].exp)
				synchronize_srcu_expedited(&srcu_test_a);
			else
				synchronize_srcu(&srcu_test_a);
			v[i] = ktime_get_ns() - t;
		}
		KTAP_EXPECT(srcu_batches_completed(&srcu_test_a) - b0 >= (unsigned long)n);
		stats_compute(v, n, &st);
		ktap_log("bench name=gp type=%s cpus=%d n=%d min_ns=%lu mean_ns=%lu "
			 "max_ns=%lu median_ns=%lu", kinds[k].type, num_online_cpus(), n,
			 st.min, st.mean, st.max, st.median);
	}
}

KTAP_SUITE(srcu,
	KTAP_CASE(srcu_qq3_misuse_reported),
	KTAP_CASE(srcu_held_record_vs_irq_reader),
	KTAP_CASE(srcu_held_record_overflow),
	KTAP_CASE(srcu_sleeping_reader_holds_own_struct_only),
	KTAP_CASE(srcu_expedited_sleeping_reader_holds_own_struct_only),
	KTAP_CASE(srcu_call_srcu_and_barrier),
	KTAP_CASE(srcu_init_cleanup_dynamic),
	KTAP_CASE(srcu_cleanup_reports_active_struct),
	KTAP_CASE(srcu_scan_reader_between_sums),
	KTAP_CASE(srcu_late_reader_waited_for),
	KTAP_CASE(srcu_bench_gp));
