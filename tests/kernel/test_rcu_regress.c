/*
 * tests/kernel/test_rcu_regress.c - KTAP suite `rcu_regress`: RCU bugs
 * that no torture run saw, each forced deterministically instead of
 * waited for:
 *
 *   - rcu_barrier_sched() while a CPU's callbacks are being invoked: it
 *     must wait for them (they stay counted in ->len until invoked);
 *   - every path that may report an expedited quiescent state, entered
 *     from inside a reader of each kind (preemption, bh or irqs disabled):
 *     the closing preempt_enable()/local_bh_enable() with irqs off, the
 *     IPI handler inside a bh-off reader, the tick inside preempt-off and
 *     bh-off readers, cond_resched() with irqs off; and preemptible RCU's
 *     outermost rcu_read_unlock() with irqs off, which must not note a
 *     normal QS;
 *   - a grace period's start, checked for a stall by another CPU before
 *     the new deadline is out: no stall may be reported.
 *
 * A test build with rcu.inject=barrier or rcu.inject=exp_irqoff puts the
 * bug back, and the matching case fails (tests/qemu-configs runs both).
 * The SRCU callback-stranding bug is a host test
 * (tests/host/rcu/srcu_regress.c): it needs the callback kthread held off
 * at an exact point.  Cases need a second CPU (SKIP at -smp 1).  Every
 * wait is bounded and says what it waited for.
 */
#include "kernel/ktap.h"
#include "tests/kernel/test_helpers.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "rcu/rcupdate.h"
#include "rcu/tree.h"


/* ---- rcu_barrier_sched() while callbacks are being invoked --------------- */

/*
 * cb_slow runs in rcuc/N like every callback, then stops being a reader
 * (bh back on) and sleeps until the case releases it: a callback the
 * host stalled, made as long as the case needs.  Sleeping keeps grace
 * periods going, so a barrier that wrongly skipped this CPU can return.
 */
static struct {
	struct rcu_head head;
	int running;
	int release;
	int done;
	int barrier_returned;
	int done_when_barrier_returned;
} bar;

static void cb_slow(struct rcu_head *rh)
{
	(void)rh;
	local_bh_enable();
	__atomic_store_n(&bar.running, 1, __ATOMIC_SEQ_CST);
	WAIT_UNTIL(__atomic_load_n(&bar.release, __ATOMIC_ACQUIRE), 20000);
	__atomic_store_n(&bar.done, 1, __ATOMIC_SEQ_CST);
	local_bh_disable();
}

static int queue_slow_cb(void *unused)
{
	(void)unused;
	call_rcu_sched(&bar.head, cb_slow);
	return 0;
}

static int barrier_thread(void *unused)
{
	(void)unused;
	rcu_barrier_sched();
	bar.done_when_barrier_returned = __atomic_load_n(&bar.done, __ATOMIC_SEQ_CST);
	__atomic_store_n(&bar.barrier_returned, 1, __ATOMIC_SEQ_CST);
	return 0;
}

/* rcu_barrier_sched() has queued its callback on cpu's list. */
static bool barrier_queued_on(int cpu)
{
	struct rcu_data *rdp = per_cpu_ptr(&rcu_data, cpu);
	struct rcu_head *p;
	unsigned long flags;
	bool found = false;

	spin_lock_irqsave(&rdp->lock, flags);
	for (p = rdp->cblist.head; p && !found; p = p->next)
		found = p == &rdp->barrier_head;
	spin_unlock_irqrestore(&rdp->lock, flags);
	return found;
}

static void rcu_barrier_waits_for_invoking(void)
{
	int cpu = farthest_cpu();
	struct task *q, *b;

	if (cpu == raw_smp_processor_id()) {
		ktap_skip("needs a second CPU for the callback");
		return;
	}
	memset(&bar, 0, sizeof(bar));
	q = start_on(queue_slow_cb, NULL, cpu, PRIO_NORMAL, "rcu_regress_q");
	KTAP_ASSERT(q);
	kthread_join(q);
	if (!WAIT_UNTIL(__atomic_load_n(&bar.running, __ATOMIC_SEQ_CST), WAIT_MIN_MS)) {
		ktap_fail("the callback queued on CPU %d was not invoked within %d s", cpu,
			  WAIT_MIN_MS / 1000);
		__atomic_store_n(&bar.release, 1, __ATOMIC_RELEASE);
		rcu_barrier_sched();
		return;
	}
	/* Taken off the list and running: the barrier must wait for it. */
	b = start_on(barrier_thread, NULL, raw_smp_processor_id(), PRIO_NORMAL, "rcu_regress_b");
	KTAP_ASSERT(b);
	if (!WAIT_UNTIL(__atomic_load_n(&bar.barrier_returned, __ATOMIC_SEQ_CST) ||
			barrier_queued_on(cpu), 10000))
		ktap_fail("rcu_barrier_sched() neither returned nor queued on CPU %d in 10 s", cpu);
	ktap_log("barrier: returned=%d queued=%d len=%ld",
		 __atomic_load_n(&bar.barrier_returned, __ATOMIC_SEQ_CST), barrier_queued_on(cpu),
		 READ_ONCE(per_cpu_ptr(&rcu_data, cpu)->cblist.len));
	__atomic_store_n(&bar.release, 1, __ATOMIC_RELEASE);
	if (!WAIT_UNTIL(__atomic_load_n(&bar.barrier_returned, __ATOMIC_SEQ_CST), 20000)) {
		ktap_fail("rcu_barrier_sched() did not return within 20 s of the callback ending");
		return;
	}
	kthread_join(b);
	if (!bar.done_when_barrier_returned)
		ktap_fail("rcu_barrier_sched() returned while the callback it must wait for "
			  "was still running on CPU %d", cpu);
	/* The callback head is ours: let it finish before the case ends. */
	if (!WAIT_UNTIL(__atomic_load_n(&bar.done, __ATOMIC_SEQ_CST), 20000))
		ktap_fail("the callback on CPU %d did not end within 20 s of its release", cpu);
}

/* ---- expedited quiescent states and readers of every kind ---------------- */

/*
 * A reader on another CPU enters with preemption (or bh) disabled, waits
 * for the expedited IPI to find it there and defer, then changes its
 * protection as the shape says and checks, still inside, that its CPU's
 * QS has not been reported (its bit in the expedited mask is still set).
 */
struct exp_case {
	const char *name;
	bool enter_bh;			/* local_bh_disable() instead of preempt_disable() */
	bool (*shape)(struct exp_case *c);	/* false: the QS was reported too early */
	int in;
	int deferred;			/* the IPI arrived and deferred */
	int upd_done;
	const char *what;		/* where it went wrong */
};

static bool exp_qs_pending(void)
{
	return rcu_exp_pending_here(&rcu_sched_exp);
}

/* Counts this CPU's ticks (what must happen: n ticks taken here). */
static u64 my_ticks(void)
{
	int cpu = raw_smp_processor_id();

	return sched_stat(cpu, tick_atomic) + sched_stat(cpu, tick_qs);
}

/* preempt_disable(); [IPI]; local_irq_disable(); preempt_enable(); */
static bool shape_irqoff_preempt_enable(struct exp_case *c)
{
	bool ok;

	local_irq_disable();
	this_cpu_write(sched_need_resched, true);	/* tempt preempt_schedule() too */
	set_preempt_need_resched();
	preempt_enable();
	ok = exp_qs_pending();
	c->what = "preempt_enable() with irqs disabled";
	local_irq_enable();
	return ok;
}

/* local_bh_disable(); [IPI]; local_irq_disable(); local_bh_enable(); */
static bool shape_irqoff_bh_enable(struct exp_case *c)
{
	bool ok;

	local_irq_disable();
	local_bh_enable();
	ok = exp_qs_pending();
	c->what = "local_bh_enable() with irqs disabled";
	local_irq_enable();
	return ok;
}

/* preempt_disable(); [IPI]; local_bh_disable(); preempt_enable(); ... */
static bool shape_bh_after_preempt(struct exp_case *c)
{
	local_bh_disable();
	preempt_enable();
	if (!exp_qs_pending()) {
		c->what = "preempt_enable() with bh disabled";
		local_bh_enable();
		return false;
	}
	local_irq_disable();
	local_bh_enable();
	if (!exp_qs_pending()) {
		c->what = "local_bh_enable() with irqs disabled (after preempt to bh)";
		local_irq_enable();
		return false;
	}
	local_irq_enable();
	return true;
}

/*
 * Let three of this CPU's ticks land inside the reader the caller holds,
 * then say whether its expedited QS is still pending (c->what names the
 * reader).  The 30 s bound is a hang guard: a loaded host delays ticks.
 */
static bool ticks_leave_qs_pending(struct exp_case *c, const char *what)
{
	u64 t0 = my_ticks();

	c->what = what;
	if (!SPIN_UNTIL(my_ticks() >= t0 + 3, 30000)) {
		c->what = "(no tick reached this CPU in 30 s)";
		return false;
	}
	return exp_qs_pending();
}

/* The IPI found bh disabled (enter_bh) and deferred; ticks there too. */
static bool shape_tick_in_bh(struct exp_case *c)
{
	bool ok = ticks_leave_qs_pending(c, "the tick inside a bh-disabled reader");

	local_bh_enable();
	return ok;
}

/* Ticks inside the preempt-disabled reader, then inside a bh-disabled one. */
static bool shape_tick_in_preempt(struct exp_case *c)
{
	if (!ticks_leave_qs_pending(c, "the tick inside a preempt-disabled reader")) {
		preempt_enable();
		return false;
	}
	local_bh_disable();
	preempt_enable();
	bool ok = ticks_leave_qs_pending(c, "the tick inside a bh-disabled reader "
					 "(after preempt to bh)");

	local_bh_enable();
	return ok;
}

/*
 * preempt_disable(); [IPI]; local_irq_disable(); preempt count to 0
 * without the enable hook; cond_resched() with a reschedule wanted: a
 * context switch there would be a QS inside the irqs-off reader.
 */
static bool shape_cond_resched_irqoff(struct exp_case *c)
{
	u64 sw0 = current->nr_switches;
	bool ok;

	local_irq_disable();
	preempt_enable_no_resched();
	this_cpu_write(sched_need_resched, true);
	set_preempt_need_resched();
	cond_resched();
	ok = exp_qs_pending() && current->nr_switches == sw0;
	c->what = "cond_resched() with irqs disabled";
	local_irq_enable();
	return ok;
}

static int exp_ok;

static int exp_reader(void *arg)
{
	struct exp_case *c = arg;
	struct rcu_data *rdp;

	if (c->enter_bh)
		local_bh_disable();
	else
		preempt_disable();
	rdp = this_cpu_ptr(&rcu_data);
	__atomic_store_n(&c->in, 1, __ATOMIC_SEQ_CST);
	/* Irqs on: the IPI comes, sees the reader, and defers. */
	if (!SPIN_UNTIL(READ_ONCE(rdp->exp_deferred_qs) && exp_qs_pending(), 10000)) {
		if (c->enter_bh)
			local_bh_enable();
		else
			preempt_enable();
		return 0;
	}
	__atomic_store_n(&c->deferred, 1, __ATOMIC_SEQ_CST);
	exp_ok = c->shape(c);	/* leaves the reader, every protection dropped */
	return 0;
}

static int exp_updater(void *arg)
{
	struct exp_case *c = arg;

	synchronize_sched_expedited();
	__atomic_store_n(&c->upd_done, 1, __ATOMIC_SEQ_CST);
	return 0;
}

static void exp_run(struct exp_case *c)
{
	int cpu = farthest_cpu();
	struct task *r, *u;

	if (cpu == raw_smp_processor_id()) {
		ktap_skip("needs a second CPU for the reader");
		return;
	}
	exp_ok = 0;
	r = start_on(exp_reader, c, cpu, PRIO_NORMAL, "rcu_regress_r");
	KTAP_ASSERT(r);
	if (!WAIT_UNTIL(__atomic_load_n(&c->in, __ATOMIC_SEQ_CST), 10000)) {
		ktap_fail("the reader on CPU %d never started", cpu);
		kthread_join(r);
		return;
	}
	u = start_on(exp_updater, c, raw_smp_processor_id(), PRIO_NORMAL, "rcu_regress_u");
	KTAP_ASSERT(u);
	kthread_join(r);
	if (!WAIT_UNTIL(__atomic_load_n(&c->upd_done, __ATOMIC_SEQ_CST), 20000)) {
		ktap_fail("synchronize_sched_expedited() did not return within 20 s of the reader leaving");
		return;
	}
	kthread_join(u);
	if (!c->deferred) {
		ktap_fail("the expedited IPI did not find the reader on CPU %d and defer "
			  "(the handler reported a QS inside it, or never came)", cpu);
		return;
	}
	if (!exp_ok)
		ktap_fail("%s: the expedited QS was reported by %s, inside the reader",
			  c->name, c->what ? c->what : "?");
}

static void rcu_exp_irqoff_after_preempt_enable(void)
{
	struct exp_case c = { .name = "preempt->irqs", .shape = shape_irqoff_preempt_enable };

	exp_run(&c);
}

static void rcu_exp_irqoff_after_bh_enable(void)
{
	struct exp_case c = { .name = "bh->irqs", .enter_bh = true, .shape = shape_irqoff_bh_enable };

	exp_run(&c);
}

static void rcu_exp_bh_after_preempt_enable(void)
{
	struct exp_case c = { .name = "preempt->bh->irqs", .shape = shape_bh_after_preempt };

	exp_run(&c);
}

static void rcu_exp_tick_in_reader(void)
{
	struct exp_case c1 = { .name = "preempt, tick", .shape = shape_tick_in_preempt };
	struct exp_case c2 = { .name = "bh, tick", .enter_bh = true, .shape = shape_tick_in_bh };

	exp_run(&c1);
	if (ktap_case_ok())
		exp_run(&c2);
}

static void rcu_exp_cond_resched_irqoff(void)
{
	struct exp_case c = { .name = "cond_resched", .shape = shape_cond_resched_irqoff };

	exp_run(&c);
}

/* ---- preemptible RCU: the unlock's normal QS with irqs off --------------- */

#ifdef CONFIG_PREEMPT_RCU
static struct {
	int upd_cpu;
	struct task *upd;
	int noted;		/* the GP waits for this CPU; NEED_QS set */
	int blocked;		/* switched out inside the section: no proof */
	int no_qs_after;	/* cpu_no_qs still set after the irqs-off unlock */
	int upd_done;
	int reader_done;
} pq;

static int pq_updater(void *unused)
{
	(void)unused;
	synchronize_rcu();
	__atomic_store_n(&pq.upd_done, 1, __ATOMIC_SEQ_CST);
	return 0;
}

/*
 * The reader starts the updater from inside its section, so the grace
 * period must wait for it, then disables preemption: its CPU passes no
 * QS and it is not switched out while the grace period reaches it.  Once
 * its CPU has noted that GP, the reader marks itself NEED_QS as a tick
 * that found it preemptible would, and leaves with irqs off.
 */
static int pq_reader(void *unused)
{
	struct rcu_data *rdp;

	(void)unused;
	rcu_read_lock();
	pq.upd = start_on(pq_updater, NULL, pq.upd_cpu, PRIO_NORMAL, "rcu_regress_pu");
	preempt_disable();
	rdp = this_cpu_ptr(&rcu_data);
	/* The tick notes the GP even inside the reader. */
	if (pq.upd && SPIN_UNTIL(READ_ONCE(rdp->core_needs_qs) && READ_ONCE(rdp->cpu_no_qs),
				 10000)) {
		pq.noted = 1;
		pq.blocked = !!(current->rcu_read_unlock_special & RCU_SPECIAL_BLOCKED);
		local_irq_disable();
		current->rcu_read_unlock_special |= RCU_SPECIAL_NEED_QS;
		preempt_enable_no_resched();
		rcu_read_unlock();	/* outermost, NEED_QS, preempt_count 0, irqs off */
		pq.no_qs_after = READ_ONCE(rdp->cpu_no_qs);
		local_irq_enable();
	} else {
		preempt_enable();
		rcu_read_unlock();
	}
	__atomic_store_n(&pq.reader_done, 1, __ATOMIC_SEQ_CST);
	return 0;
}

static void rcu_preempt_unlock_irqoff_no_qs(void)
{
	struct task *gp = READ_ONCE(rcu_state.gp_kthread);
	int me = raw_smp_processor_id(), cpu, rcpu = -1;
	struct task *r;

	/* The reader holds its CPU: not the one the GP kthread needs. */
	for_each_online_cpu(cpu)
		if (gp && cpu != READ_ONCE(gp->cpu) && (rcpu < 0 || rcpu == me))
			rcpu = cpu;
	if (num_online_cpus() < 2 || rcpu < 0) {
		ktap_skip("needs a second CPU for the reader");
		return;
	}
	memset(&pq, 0, sizeof(pq));
	pq.upd_cpu = rcpu == me ? farthest_cpu() : me;
	r = start_on(pq_reader, NULL, rcpu, PRIO_NORMAL, "rcu_regress_pr");
	KTAP_ASSERT(r);
	if (!WAIT_UNTIL(__atomic_load_n(&pq.reader_done, __ATOMIC_SEQ_CST), 20000)) {
		ktap_fail("the reader on CPU %d did not end within 20 s", rcpu);
		return;
	}
	kthread_join(r);
	if (!pq.upd) {
		ktap_fail("could not start the updater thread");
		return;
	}
	if (!WAIT_UNTIL(__atomic_load_n(&pq.upd_done, __ATOMIC_SEQ_CST), 20000)) {
		ktap_fail("synchronize_rcu() did not return within 20 s of the reader leaving");
		return;
	}
	kthread_join(pq.upd);
	if (!pq.noted) {
		ktap_fail("the grace period never reached the reader's CPU %d in 10 s", rcpu);
		return;
	}
	if (pq.blocked) {
		ktap_skip("the reader was switched out before the GP reached it (no proof)");
		return;
	}
	if (!pq.no_qs_after)
		ktap_fail("rcu_read_unlock() with irqs disabled noted a quiescent state");
}
#else
static void rcu_preempt_unlock_irqoff_no_qs(void)
{
	ktap_skip("CONFIG_PREEMPT_RCU is off");
}
#endif

/* ---- no stall report at the start of a grace period -------------------- */

/*
 * rcu_gp_init() must store the new stall deadline before the new gp_seq:
 * a tick that sees the new grace period with the last one's deadline
 * (past, whenever that one began more than a stall timeout ago) reports
 * a stall at once, naming nobody.  rcu_stall_window_arm() (test build)
 * makes the next grace period's start that case and holds it until
 * another CPU's tick has checked it; every other CPU spins meanwhile so
 * that its tick keeps coming, and this one polls for the same reason.
 */
#ifdef CONFIG_SANITIZE
static int stall_window_stop;

static int stall_window_spinner(void *unused)
{
	(void)unused;
	while (!smp_load_acquire(&stall_window_stop))
		cond_resched();
	return 0;
}
#endif

static void rcu_stall_none_at_gp_start(void)
{
#ifdef CONFIG_SANITIZE
	struct task *spin[NR_CPUS] = { 0 };
	int me, cpu, result;
	unsigned long cookie;
	u64 end;

	if (num_online_cpus() < 2) {
		ktap_skip("needs a second CPU to check for stalls");
		return;
	}
	WRITE_ONCE(stall_window_stop, 0);
	preempt_disable();
	me = raw_smp_processor_id();
	preempt_enable();
	for_each_online_cpu(cpu)
		if (cpu != me)
			spin[cpu] = start_on(stall_window_spinner, NULL, cpu, PRIO_NORMAL,
					     "stall_window");
	rcu_stall_window_arm();
	cookie = start_poll_synchronize_sched();
	end = ktime_get_ns() + 30000ull * 1000000ull;
	while ((result = rcu_stall_window_result()) < 0 && ktime_get_ns() < end)
		cond_resched();
	smp_store_release(&stall_window_stop, 1);
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		if (spin[cpu])
			kthread_join(spin[cpu]);
	KTAP_EXPECT(WAIT_UNTIL(poll_state_synchronize_sched(cookie), 30000));
	if (result < 0) {
		ktap_fail("no CPU checked the new grace period for a stall within 30 s");
		return;
	}
	if (result)
		ktap_fail("a stall was reported at the start of a grace period: its CPU "
			  "saw the new gp_seq with the last grace period's deadline");
#else
	ktap_skip("needs the test build (rcu_stall_window_arm)");
#endif
}

KTAP_SUITE(rcu_regress,
	   KTAP_CASE(rcu_barrier_waits_for_invoking),
	   KTAP_CASE(rcu_exp_irqoff_after_preempt_enable),
	   KTAP_CASE(rcu_exp_irqoff_after_bh_enable),
	   KTAP_CASE(rcu_exp_bh_after_preempt_enable),
	   KTAP_CASE(rcu_exp_tick_in_reader),
	   KTAP_CASE(rcu_exp_cond_resched_irqoff),
	   KTAP_CASE(rcu_preempt_unlock_irqoff_no_qs),
	   KTAP_CASE(rcu_stall_none_at_gp_start));
