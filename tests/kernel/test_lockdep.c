/*
 * tests/kernel/test_lockdep.c - KTAP suite `lockdep`: the test build's
 * self-checks (lockdep, RCU-lockdep, rcu/'s invariants) must be able to
 * fail.  Each case provokes one report on purpose, announces it with
 * ktap_expect_warnings() and checks that exactly it came: an AB-BA pair
 * across two CPUs that never deadlocks, a lock taken in the timer
 * interrupt and with irqs on in a thread, an irq-safe lock held while an
 * irq-unsafe one is taken, rcu_dereference() (and its
 * condition forms) outside a reader, synchronize_sched() under a
 * spinlock, might_sleep() inside rcu_read_lock() and under a spinning
 * lock (with sched.provoke_bugs), lockdep_assert_held() and
 * lockdep_assert_irqs_disabled() broken, a kthread that returns holding
 * a lock, CONFIG_DEBUG_PREEMPT's smp_processor_id() in an unbound
 * preemptible thread, lockdep_assert_preemption_disabled()/enabled()
 * broken, a kthread and an irq handler that leave preemption off, an rcu_node bit set for an offline CPU, an SRCU scan that
 * finds more unlocks than locks.  One more case checks that rcu_read_lock_held() and friends
 * answer truthfully in task, irq and NMI context, and logs how full
 * lockdep's tables are.  In the
 * benchmark build every case skips: nothing is compiled in to report.
 */
#include "kernel/ktap.h"
#include "tests/kernel/test_helpers.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/cpu.h"
#include "kernel/time.h"
#include "kernel/timer.h"
#include "kernel/printk.h"
#include "kernel/spinlock.h"
#include "kernel/mutex.h"
#include "kernel/string.h"
#include "rcu/rcupdate.h"
#include "rcu/rculist.h"
#include "rcu/srcu.h"
#include "rcu/tree.h"

#ifdef CONFIG_LOCKDEP

/* One report of kind what came since (reports0, warns0), and no other. */
static void expect_one(int reports0, unsigned long warns0, const char *what)
{
	KTAP_EXPECT_EQ(atomic_read(&lockdep_reports), reports0 + 1);
	KTAP_EXPECT_EQ(READ_ONCE(warn_count), warns0 + 1);
	KTAP_EXPECT(lockdep_last_report && !strcmp(lockdep_last_report, what));
}

/* ---- AB-BA across two CPUs, one after the other: never deadlocks ---- */

static DEFINE_SPINLOCK(ld_a);
static DEFINE_SPINLOCK(ld_b);

static int abba_b_then_a(void *unused)
{
	(void)unused;
	spin_lock(&ld_b);
	spin_lock(&ld_a);	/* A after B: closes the cycle */
	spin_unlock(&ld_a);
	spin_unlock(&ld_b);
	return 0;
}

static void lockdep_abba_across_cpus(void)
{
	int r0 = atomic_read(&lockdep_reports), cpu = farthest_cpu();
	unsigned long w0 = READ_ONCE(warn_count);
	struct task *t;

	spin_lock(&ld_a);
	spin_lock(&ld_b);	/* B after A */
	spin_unlock(&ld_b);
	spin_unlock(&ld_a);
	KTAP_EXPECT_EQ(atomic_read(&lockdep_reports), r0);
	ktap_expect_warnings(1, "an AB-BA lockdep report");
	t = start_on(abba_b_then_a, NULL, cpu, PRIO_NORMAL, "ld-abba");
	KTAP_ASSERT(t);
	kthread_join(t);
	ktap_log("B then A on CPU %d after A then B on CPU %d", cpu, smp_processor_id());
	expect_one(r0, w0, "possible circular locking dependency detected");
}

/* ---- a lock of the timer interrupt taken with irqs on in a thread ---- */

static DEFINE_SPINLOCK(ld_tick_lock);
static struct timer_list ld_timer;
static volatile bool ld_timer_ran;

static void ld_timer_fn(struct timer_list *t)
{
	(void)t;
	spin_lock(&ld_tick_lock);	/* hardirq context: the tick */
	ld_timer_ran = true;
	spin_unlock(&ld_tick_lock);
}

static void lockdep_irq_lock_taken_with_irqs_on(void)
{
	int r0 = atomic_read(&lockdep_reports);
	unsigned long w0 = READ_ONCE(warn_count);

	spin_lock(&ld_tick_lock);	/* irqs on: HARDIRQ-ON-W */
	spin_unlock(&ld_tick_lock);
	KTAP_EXPECT_EQ(atomic_read(&lockdep_reports), r0);
	ktap_expect_warnings(1, "an inconsistent-lock-state report");
	ld_timer_ran = false;
	timer_setup(&ld_timer, ld_timer_fn, 0);
	ld_timer.expires = jiffies + 1;
	add_timer(&ld_timer);
	KTAP_ASSERT(WAIT_UNTIL(ld_timer_ran, 10000));
	del_timer_sync(&ld_timer);
	expect_one(r0, w0, "inconsistent lock state");
}

/* ---- an irq-safe lock held while an irq-unsafe one is taken ---- */

static DEFINE_SPINLOCK(ld_safe);	/* the tick takes it */
static DEFINE_SPINLOCK(ld_unsafe);	/* a thread takes it with irqs on */

static void ld_safe_timer_fn(struct timer_list *t)
{
	(void)t;
	spin_lock(&ld_safe);		/* hardirq context: IN-HARDIRQ-W */
	ld_timer_ran = true;
	spin_unlock(&ld_safe);
}

/*
 * Each lock is used consistently by itself; only the order joins them:
 * a CPU holding ld_unsafe with irqs on, interrupted by the tick, waits for
 * ld_safe, held by a CPU that waits for ld_unsafe.  Never happens here.
 */
static void lockdep_irq_safe_then_unsafe_order(void)
{
	int r0 = atomic_read(&lockdep_reports);
	unsigned long w0 = READ_ONCE(warn_count), flags;

	spin_lock(&ld_unsafe);		/* irqs on: HARDIRQ-ON-W */
	spin_unlock(&ld_unsafe);
	ld_timer_ran = false;
	timer_setup(&ld_timer, ld_safe_timer_fn, 0);
	ld_timer.expires = jiffies + 1;
	add_timer(&ld_timer);
	KTAP_ASSERT(WAIT_UNTIL(ld_timer_ran, 10000));
	del_timer_sync(&ld_timer);
	KTAP_EXPECT_EQ(atomic_read(&lockdep_reports), r0);
	ktap_expect_warnings(1, "a HARDIRQ-safe -> HARDIRQ-unsafe lock order");
	spin_lock_irqsave(&ld_safe, flags);
	spin_lock(&ld_unsafe);
	spin_unlock(&ld_unsafe);
	spin_unlock_irqrestore(&ld_safe, flags);
	expect_one(r0, w0, "HARDIRQ-safe -> HARDIRQ-unsafe lock order detected");
}

/* ---- RCU-lockdep: dereferences outside readers ---- */

struct ld_obj {
	int v;
	struct list_head list;
};
static struct ld_obj ld_obj = { .v = 7 };
static struct ld_obj *ld_ptr;
static LIST_HEAD(ld_list);
DEFINE_STATIC_SRCU(ld_srcu);

static void rcu_lockdep_dereference_outside_reader(void)
{
	int r0 = atomic_read(&lockdep_reports), n = 0, idx;
	unsigned long w0 = READ_ONCE(warn_count);
	struct ld_obj *p;

	rcu_assign_pointer(ld_ptr, &ld_obj);
	if (list_empty(&ld_list))
		list_add_rcu(&ld_obj.list, &ld_list);
	/* Inside the matching reader, or under the named lock: silent. */
	rcu_read_lock();
	p = rcu_dereference(ld_ptr);
	list_for_each_entry_rcu(p, &ld_list, list)
		n++;
	rcu_read_unlock();
	rcu_read_lock_sched();
	p = rcu_dereference(ld_ptr);	/* RCU-sched readers count too */
	rcu_read_unlock_sched();
	idx = srcu_read_lock(&ld_srcu);
	p = srcu_dereference(ld_ptr, &ld_srcu);
	srcu_read_unlock(&ld_srcu, idx);
	spin_lock(&ld_a);
	p = rcu_dereference_protected(ld_ptr, lockdep_is_held(&ld_a));
	p = rcu_dereference_check(ld_ptr, lockdep_is_held(&ld_a));
	spin_unlock(&ld_a);
	KTAP_EXPECT_EQ(atomic_read(&lockdep_reports), r0);
	KTAP_EXPECT_EQ(n, 1);

	/* Outside: each form reports once. */
	ktap_expect_warnings(1, "suspicious RCU usage: rcu_dereference()");
	p = rcu_dereference(ld_ptr);
	expect_one(r0, w0, "suspicious RCU usage");
	KTAP_EXPECT_EQ(p->v, 7);
	ktap_expect_warnings(1, "suspicious RCU usage: rcu_dereference_protected()");
	p = rcu_dereference_protected(ld_ptr, lockdep_is_held(&ld_a));
	expect_one(r0 + 1, w0 + 1, "suspicious RCU usage");
	ktap_expect_warnings(1, "suspicious RCU usage: srcu_dereference()");
	p = srcu_dereference(ld_ptr, &ld_srcu);
	expect_one(r0 + 2, w0 + 2, "suspicious RCU usage");
	ktap_expect_warnings(1, "suspicious RCU usage: RCU list walk");
	list_for_each_entry_rcu(p, &ld_list, list, lockdep_is_held(&ld_b))
		n++;
	expect_one(r0 + 3, w0 + 3, "suspicious RCU usage");
	/* Under the lock the condition names: silent. */
	spin_lock(&ld_b);
	list_for_each_entry_rcu(p, &ld_list, list, lockdep_is_held(&ld_b))
		n++;
	spin_unlock(&ld_b);
	KTAP_EXPECT_EQ(atomic_read(&lockdep_reports), r0 + 4);
}

/* ---- synchronize_sched() under a spinlock ---- */

static DEFINE_SPINLOCK(ld_sync_lock);

static void lockdep_synchronize_sched_under_spinlock(void)
{
	int m0 = atomic_read(&rcu_misuse_reports);
	unsigned long w0 = READ_ONCE(warn_count);

	ktap_expect_warnings(1, "synchronize_sched() under a spinlock");
	spin_lock(&ld_sync_lock);
	KTAP_EXPECT_EQ(lockdep_depth(), 1);	/* the report lists it */
	synchronize_sched();
	spin_unlock(&ld_sync_lock);
	KTAP_EXPECT_EQ(atomic_read(&rcu_misuse_reports), m0 + 1);
	KTAP_EXPECT_EQ(READ_ONCE(warn_count), w0 + 1);
}

/* ---- might_sleep() in a reader, with a spinning lock held ---- */

extern bool sched_provoke_bugs;		/* tests/kernel/test_sched.c */
static DEFINE_MUTEX(ld_sleep_mutex);
static arch_spinlock_t ld_raw_lock = __ARCH_SPIN_LOCK_UNLOCKED;

/*
 * Neither preemption nor irqs are off in either: only the RCU nesting
 * and lockdep's held-lock list say it is wrong.  A mutex or an SRCU
 * reader is fine.  The reports are "BUG:" lines, which the judge fails
 * unless allowed: they come only with sched.provoke_bugs (lockdep-2).
 */
static void lockdep_might_sleep_in_reader_or_under_lock(void)
{
	int sbugs = atomic_read(&sched_sleep_bugs), idx;

	mutex_lock(&ld_sleep_mutex);
	idx = srcu_read_lock(&ld_srcu);
	might_sleep();
	srcu_read_unlock(&ld_srcu, idx);
	mutex_unlock(&ld_sleep_mutex);
	KTAP_EXPECT_EQ(atomic_read(&sched_sleep_bugs), sbugs);
	if (!sched_provoke_bugs) {
		ktap_skip("provokes BUG reports: boot with sched.provoke_bugs");
		return;
	}
	ktap_expect_alarm("2 BUG reports: sleeping function called from invalid "
			  "context, inside rcu_read_lock(), then holding ld_raw_lock");
	rcu_read_lock();
	might_sleep();
	rcu_read_unlock();
	KTAP_EXPECT_EQ(atomic_read(&sched_sleep_bugs), sbugs + 1);
	arch_spin_lock(&ld_raw_lock);	/* preemption stays on */
	KTAP_EXPECT_EQ(lockdep_depth_spinning(), 1);
	might_sleep();
	arch_spin_unlock(&ld_raw_lock);
	KTAP_EXPECT_EQ(atomic_read(&sched_sleep_bugs), sbugs + 2);
}

/* ---- the assertions: silent when the contract holds ---- */

static void lockdep_asserts_fire_when_broken(void)
{
	int r0 = atomic_read(&lockdep_reports);
	unsigned long w0 = READ_ONCE(warn_count), flags;

	spin_lock(&ld_a);
	lockdep_assert_held(&ld_a);
	spin_unlock(&ld_a);
	local_irq_save(flags);
	lockdep_assert_irqs_disabled();
	local_irq_restore(flags);
	KTAP_EXPECT_EQ(READ_ONCE(warn_count), w0);

	ktap_expect_warnings(1, "lockdep_assert_held(&ld_a) with ld_a free");
	lockdep_assert_held(&ld_a);
	expect_one(r0, w0, "lockdep_assert_held");
	ktap_expect_warnings(1, "lockdep_assert_irqs_disabled() with irqs on");
	lockdep_assert_irqs_disabled();
	KTAP_EXPECT_EQ(READ_ONCE(warn_count), w0 + 2);
}

/* ---- a kthread that returns holding a lock ---- */

static DEFINE_MUTEX(ld_leak_mutex);	/* left locked for good: used once */

static int ld_leak_fn(void *unused)
{
	(void)unused;
	mutex_lock(&ld_leak_mutex);
	return 0;
}

static void lockdep_kthread_returns_holding_lock(void)
{
	int r0 = atomic_read(&lockdep_reports);
	unsigned long w0 = READ_ONCE(warn_count);
	struct task *t;

	ktap_expect_warnings(1, "a kthread returns holding ld_leak_mutex");
	t = start_on(ld_leak_fn, NULL, smp_processor_id(), PRIO_NORMAL, "ld-leak");
	KTAP_ASSERT(t);
	kthread_join(t);
	expect_one(r0, w0, "lock held when a context ends");
}

/* ---- CONFIG_DEBUG_PREEMPT: smp_processor_id(), preemption asserts, leaks ---- */

static int dp_cpu_read;

/* Unbound, preemption on: the CPU it reads may be stale at once. */
static int dp_unbound_fn(void *unused)
{
	(void)unused;
	WRITE_ONCE(dp_cpu_read, smp_processor_id());
	return 0;
}

/* Returns with preemption off: kthread_main()'s check ("exited with
 * preempt_count"). */
static int dp_leak_fn(void *unused)
{
	(void)unused;
	preempt_disable();
	return 0;
}

/* Runs in the call IPI's hardirq context and leaves preemption off. */
static void dp_irq_leak(void *unused)
{
	(void)unused;
	preempt_count_add(1);
}

/* A second call after it: runs once the leaking irq has exited. */
static void dp_irq_done(void *unused)
{
	(void)unused;
}

static void debug_preempt_checks_fire_when_broken(void)
{
	int r0 = atomic_read(&lockdep_reports), cpu = farthest_cpu();
	unsigned long w0 = READ_ONCE(warn_count);
	struct task *t;

	/* Allowed: bound (this case thread), preemption off, irqs off. */
	KTAP_EXPECT_EQ(smp_processor_id(), raw_smp_processor_id());
	preempt_disable();
	lockdep_assert_preemption_disabled();
	(void)rcu_needs_cpu();
	preempt_enable();
	lockdep_assert_preemption_enabled();
	KTAP_EXPECT_EQ(READ_ONCE(warn_count), w0);

	ktap_expect_warnings(1, "smp_processor_id() in preemptible code, unbound");
	t = kthread_run(dp_unbound_fn, NULL, "dp-unbound");
	KTAP_ASSERT(t);
	kthread_join(t);
	KTAP_EXPECT_EQ(READ_ONCE(warn_count), w0 + 1);

	ktap_expect_warnings(1, "lockdep_assert_preemption_disabled() in rcu_needs_cpu(), preemptible");
	(void)rcu_needs_cpu();
	expect_one(r0, w0 + 1, "lockdep_assert_preemption_disabled");

	ktap_expect_warnings(1, "lockdep_assert_preemption_enabled() with preemption off");
	preempt_disable();
	lockdep_assert_preemption_enabled();
	preempt_enable();
	expect_one(r0 + 1, w0 + 2, "lockdep_assert_preemption_enabled");

	ktap_expect_warnings(1, "a kthread returns with preemption off");
	t = start_on(dp_leak_fn, NULL, smp_processor_id(), PRIO_NORMAL, "dp-leak");
	KTAP_ASSERT(t);
	kthread_join(t);
	KTAP_EXPECT_EQ(READ_ONCE(warn_count), w0 + 4);

	if (cpu == smp_processor_id()) {
		ktap_skip("the irq-exit leak needs 2 CPUs");
		return;
	}
	ktap_expect_warnings(1, "irq exit: preempt leak (the handler left preemption off)");
	KTAP_EXPECT_EQ(smp_call_function_single(cpu, dp_irq_leak, NULL, 1), 0);
	/* The wait ends when the function has run, before the irq exits. */
	KTAP_EXPECT(WAIT_UNTIL(READ_ONCE(warn_count) == w0 + 5, 10000));
	/*
	 * warn_count counts the WARNING as it starts; its lines are printed
	 * on in the irq exit, irqs off.  A second call there is taken only
	 * after that exit: the report is whole before this case ends, not
	 * printed into the next case's output.
	 */
	KTAP_EXPECT_EQ(smp_call_function_single(cpu, dp_irq_done, NULL, 1), 0);
}

/* ---- an rcu_node bit for an offline CPU ---- */

static void rcu_node_bit_of_offline_cpu(void)
{
	int cpu = farthest_cpu();
	unsigned long w0 = READ_ONCE(warn_count), cookie;
	struct rcu_node *rnp;

	if (cpu == smp_processor_id()) {
		ktap_skip("needs 2 CPUs (one goes offline)");
		return;
	}
	KTAP_ASSERT(cpu_down(cpu) == 0);
	rnp = per_cpu_ptr(&rcu_data, cpu)->mynode;
	ktap_expect_warnings(1, "an rcu_node bit of an offline CPU");
	KTAP_EXPECT(rcu_inject_offline_qsmask(cpu));
	/* The next grace period's first pass reports it and drops the bit:
	 * without the check it would never end (no QS from a dead CPU).  A
	 * polled cookie, since synchronize_sched() with one CPU online
	 * returns at once without a grace period. */
	cookie = start_poll_synchronize_sched();
	KTAP_EXPECT(WAIT_UNTIL(poll_state_synchronize_sched(cookie), 30000));
	KTAP_EXPECT_EQ(READ_ONCE(warn_count), w0 + 1);
	KTAP_EXPECT(!(READ_ONCE(rnp->qsmaskinitnext) & per_cpu_ptr(&rcu_data, cpu)->grpmask));
	KTAP_EXPECT_EQ(cpu_up(cpu), 0);
}

/* ---- SRCU: a scan that sums more unlocks than locks ---- */

DEFINE_STATIC_SRCU(ld_srcu_bad);

static int ld_srcu_sync_fn(void *unused)
{
	(void)unused;
	synchronize_srcu(&ld_srcu_bad);
	return 0;
}

/*
 * An unlock counted on the index the next scan reads, with no lock: what
 * a reader that unlocks with the wrong index leaves.  The scan's
 * invariant reports it; the missing lock is then added, so that the
 * counts match and the grace period ends.
 */
static void srcu_scan_more_unlocks_than_locks(void)
{
	unsigned long w0 = READ_ONCE(warn_count);
	int cpu = smp_processor_id(), idx;
	struct task *t;

	ktap_expect_warnings(1, "SRCU's scan: more unlocks than locks");
	idx = (READ_ONCE(ld_srcu_bad.srcu_idx) & 1) ^ 1;	/* scanned first */
	atomic_long_inc(&ld_srcu_bad.sda[cpu].unlock_count[idx]);
	t = start_on(ld_srcu_sync_fn, NULL, cpu, PRIO_NORMAL, "ld-srcu");
	KTAP_ASSERT(t);
	KTAP_EXPECT(WAIT_UNTIL(READ_ONCE(warn_count) > w0, 30000));
	atomic_long_inc(&ld_srcu_bad.sda[cpu].lock_count[idx]);
	kthread_join(t);
	KTAP_EXPECT_EQ(READ_ONCE(warn_count), w0 + 1);
}

/* ---- rcu_read_lock_held() and friends, in each context ---- */

struct held_answers {
	bool sched, any, srcu;
};

static void answer(struct held_answers *a)
{
	a->sched = rcu_read_lock_sched_held();
	a->any = rcu_read_lock_any_held();
	a->srcu = srcu_read_lock_held(&ld_srcu);
}

static struct held_answers irq_answers, nmi_answers;
static volatile bool irq_answered, nmi_answered;

static void answer_irq(void *unused)
{
	(void)unused;
	answer(&irq_answers);
	irq_answered = true;
}

static void answer_nmi(void)
{
	answer(&nmi_answers);
	nmi_answered = true;
}

static void rcu_lockdep_held_in_each_context(void)
{
	struct held_answers a;
	unsigned int classes, edges, chains;
	int cpu = farthest_cpu(), idx;

	answer(&a);
	KTAP_EXPECT(!a.sched && !a.any && !a.srcu && !rcu_read_lock_held());
	rcu_read_lock();
	KTAP_EXPECT(rcu_read_lock_held() && rcu_read_lock_any_held());
	rcu_read_unlock();
	preempt_disable();
	answer(&a);
	KTAP_EXPECT(a.sched && a.any && !a.srcu);
	preempt_enable();
	idx = srcu_read_lock(&ld_srcu);
	answer(&a);
	KTAP_EXPECT(a.srcu && !a.sched);
	srcu_read_unlock(&ld_srcu, idx);
	/* A hardirq and an NMI are RCU-sched readers (RCU watches them). */
	irq_answered = false;
	smp_call_function_single(cpu, answer_irq, NULL, 1);
	KTAP_EXPECT(irq_answered && irq_answers.sched && irq_answers.any);
	nmi_answered = false;
	if (smp_call_nmi(cpu, answer_nmi) && WAIT_UNTIL(nmi_answered, 10000))
		KTAP_EXPECT(nmi_answers.sched && nmi_answers.any);
	KTAP_EXPECT(lockdep_enabled());
	lockdep_stats(&classes, &edges, &chains);
	ktap_log("lockdep: %u classes, %u dependencies, %u chains in use", classes,
		 edges, chains);
}

KTAP_SUITE(lockdep,
	KTAP_CASE(lockdep_abba_across_cpus),
	KTAP_CASE(lockdep_irq_lock_taken_with_irqs_on),
	KTAP_CASE(lockdep_irq_safe_then_unsafe_order),
	KTAP_CASE(rcu_lockdep_dereference_outside_reader),
	KTAP_CASE(lockdep_synchronize_sched_under_spinlock),
	KTAP_CASE(lockdep_might_sleep_in_reader_or_under_lock),
	KTAP_CASE(lockdep_asserts_fire_when_broken),
	KTAP_CASE(lockdep_kthread_returns_holding_lock),
	KTAP_CASE(debug_preempt_checks_fire_when_broken),
	KTAP_CASE(rcu_node_bit_of_offline_cpu),
	KTAP_CASE(srcu_scan_more_unlocks_than_locks),
	KTAP_CASE(rcu_lockdep_held_in_each_context));

#else /* !CONFIG_LOCKDEP */

static void lockdep_not_built(void)
{
	ktap_skip("no lock validator in the benchmark build (SANITIZE=1 has it)");
}

KTAP_SUITE(lockdep, KTAP_CASE(lockdep_not_built));

#endif /* CONFIG_LOCKDEP */
