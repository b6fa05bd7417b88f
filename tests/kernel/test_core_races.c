/*
 * tests/kernel/test_core_races.c - KTAP suite `core_races`: the kernel
 * core's windows an adversary (an NMI, a host that stalls a vCPU) opens,
 * forced open rather than waited for.
 *  - kthread_stop() of a thread inside wait_event_timeout(): the waker's
 *    wake-up read the sleeping state and stalls before its store while
 *    the thread exits; the dead thread must stay dead.
 *  - A cross-CPU call run from the poll of a CPU waiting with irqs off
 *    sees what it would from the IPI: hardirq, over a reader.
 *  - A nested smp_call_function_single() from an IPI handler (3 CPUs)
 *    or a timer handler (2) while an expedited RCU-sched grace period
 *    runs: the handler is a reader, and the grace period must not end
 *    while it runs, though its CPU takes the expedited call from the
 *    nested call's poll, not from an IPI.
 *  - del_timer_sync() while the handler runs on CPU 1 and re-arms: on
 *    return the timer is neither pending nor running.
 *  - A thread that sleeps on a CPU going down is woken while that CPU
 *    is held just after its switch away (->on_cpu clear), runs on
 *    another CPU and exits: its task struct is dropped once there, and
 *    not again by the held CPU, so its joiner's handle stays good.
 *  - smp_call_function_single() to a CPU that goes down while the
 *    sender is stopped just before it queues: the call is refused, not
 *    left for a dead CPU, and calls reach the CPU once it is back.
 *  - smp_call_function_many(wait) whose target goes offline after the
 *    call was queued, before it ran: the sender returns only after it.
 * The windows are widened by test-build switches (CONFIG_SANITIZE); every
 * wait is bounded.
 */
#include "kernel/ktap.h"
#include "tests/kernel/test_helpers.h"
#include "kernel/sched.h"
#include "kernel/cpu.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/wait.h"
#include "kernel/timer.h"
#include "kernel/preempt.h"
#include "kernel/string.h"
#include "rcu/rcupdate.h"
#include "asm/cpu.h"

/* ---- kthread_stop() against a thread leaving wait_event_timeout() ---- */

static DECLARE_WAIT_QUEUE_HEAD(stop_wq);
static int stop_in_window;

/*
 * The condition, as wait_event_timeout() evaluates it after
 * prepare_to_wait(): the thread's state is already TASK_UNINTERRUPTIBLE
 * but it has not slept.  It stays in that window until it is asked to
 * stop, so kthread_stop()'s wake-up reads the sleeping state while the
 * thread is still running, and then returns true: the thread leaves the
 * wait and exits while the waker is inside its wake-up.
 */
static bool stop_cond(void)
{
	if (READ_ONCE(current->state) == TASK_UNINTERRUPTIBLE) {
		/*
		 * With irqs off, from here to kthread_exit(): the waker holds
		 * this CPU's run-queue lock for as long as its stall lasts,
		 * and a tick or a preemption meanwhile would wait for that
		 * lock, closing the window the stall opened.
		 */
		local_irq_disable();
		WRITE_ONCE(stop_in_window, 1);
		if (!SPIN_UNTIL(kthread_should_stop(), 10000))
			local_irq_enable();
	}
	return kthread_should_stop();
}

/* The shape of rcu_gp_kthread's and srcu_cb_kthread's wait. */
static int stop_victim(void *unused)
{
	(void)unused;
	while (!kthread_should_stop())
		wait_event_timeout(stop_wq, stop_cond(), msecs_to_jiffies(1000));
	return 42;
}

static void kthread_stop_from_wait_event(void)
{
	struct task *t;
	int ret;

	if (num_online_cpus() < 2) {
		ktap_skip("needs 2 CPUs");
		return;
	}
	WRITE_ONCE(stop_in_window, 0);
	t = kthread_create_on_cpu(stop_victim, NULL, 1, "stopvictim");
	KTAP_ASSERT(t);
	get_task_struct(t);
	wake_up_process(t);
	if (!WAIT_UNTIL(READ_ONCE(stop_in_window), 10000)) {
		ktap_fail("the thread on CPU 1 never reached its wait (10 s)");
		kthread_stop(t);	/* it gives up its spin by itself */
		put_task_struct(t);
		return;
	}
#ifdef CONFIG_SANITIZE
	/* kthread_stop()'s wake-up stalls between its load and store of
	 * ->state until the thread has changed it (or 200 ms). */
	WRITE_ONCE(sched_inject_wake_stall, t);
#endif
	ret = kthread_stop(t);
	KTAP_EXPECT_EQ(ret, 42);
	/* It exits after completing: dead and switched out for good. */
	KTAP_EXPECT(WAIT_UNTIL(READ_ONCE(t->state) == TASK_DEAD &&
			       !smp_load_acquire(&t->on_cpu), 10000));
#ifdef CONFIG_SANITIZE
	/* The stall was taken: the window was open. */
	KTAP_EXPECT(READ_ONCE(sched_inject_wake_stall) == NULL);
	WRITE_ONCE(sched_inject_wake_stall, NULL);
#else
	ktap_log("no wake-up stall in this build: the window was not forced");
#endif
	put_task_struct(t);
}

/* ---- the context a cross-CPU call runs in ---- */

static struct {
	int in_irq;
	int count;	/* preempt_count() minus the call's own hardirq level */
	int ran;
} probe;

static void ctx_probe(void *unused)
{
	(void)unused;
	probe.in_irq = in_irq() != 0;
	probe.count = preempt_count() - HARDIRQ_OFFSET;
	smp_store_release(&probe.ran, 1);
}

/* On CPU 1: a call back to CPU 0, which is waiting for this one. */
static void ctx_outer(void *unused)
{
	(void)unused;
	smp_call_function_single(0, ctx_probe, NULL, 1);
}

/*
 * CPU 0 runs ctx_probe once from the call IPI (it waits with irqs on) and
 * once from its own wait's poll (irqs off).  Both are hardirq context;
 * the code under the call had preempt_count 0 and irqs on the first time
 * (no reader), irqs off the second (a reader), and the count says so.
 */
static void polled_call_sees_irq_context(void)
{
	unsigned long flags;
	int ret;

	if (num_online_cpus() < 2) {
		ktap_skip("needs 2 CPUs");
		return;
	}
	memset(&probe, 0, sizeof(probe));
	KTAP_EXPECT_EQ(smp_call_function_single(1, ctx_outer, NULL, 1), 0);
	KTAP_ASSERT(smp_load_acquire(&probe.ran));
	KTAP_EXPECT(probe.in_irq);
	KTAP_EXPECT_EQ(probe.count, 0);

	memset(&probe, 0, sizeof(probe));
	local_irq_save(flags);
	ret = smp_call_function_single(1, ctx_outer, NULL, 1);
	local_irq_restore(flags);
	KTAP_EXPECT_EQ(ret, 0);
	KTAP_ASSERT(smp_load_acquire(&probe.ran));
	if (!probe.in_irq)
		ktap_fail("a call run from the poll of a waiter with irqs off was not in irq context");
	if (probe.count <= 0)
		ktap_fail("a call run from the poll of a waiter with irqs off saw no reader under it "
			  "(preempt_count %d over its hardirq level)", probe.count);
}

/* ---- a nested call from an IPI handler during an expedited GP ---- */

static struct {
	int started;		/* outer runs on CPU 1 */
	int sync_returned;	/* synchronize_sched_expedited() returned */
	int done;		/* outer is about to leave its reader */
	int exited;		/* outer returned */
	int deferred;		/* CPU 1 took the expedited call and deferred it */
	int gave_up;		/* the expedited call never reached CPU 1's poll */
	atomic_t calls;
} nest;

static void nest_noop(void *unused)
{
	(void)unused;
	atomic_inc(&nest.calls);
}

/*
 * CPU 1's IPI handler: an RCU-sched reader with irqs off.  It keeps
 * making nested calls to CPU 0 and waiting for them, so the expedited
 * grace period's call for CPU 1 can only run from that wait's poll.  Once
 * it has (deferred, as a reader's CPU must), or the grace period has
 * ended (it must not have), it stays in the reader up to 100 ms more
 * for the grace period to end early if it is going to.
 */
static void nest_outer(void *unused)
{
	u64 end = ktime_get_ns() + 10000ull * 1000000ull;

	(void)unused;
	WRITE_ONCE(nest.started, 1);
	for (;;) {
		if (this_cpu_read(rcu_need_deferred_qs)) {
			WRITE_ONCE(nest.deferred, 1);
			break;
		}
		if (READ_ONCE(nest.sync_returned))
			break;
		if (ktime_get_ns() > end) {
			WRITE_ONCE(nest.gave_up, 1);
			break;
		}
		smp_call_function_single(0, nest_noop, NULL, 1);
	}
	SPIN_WINDOW(READ_ONCE(nest.sync_returned), 100);
	WRITE_ONCE(nest.done, 1);
	smp_store_release(&nest.exited, 1);
}

/* Sends nest_outer to CPU 1 from CPU 2: a call from CPU 0 would hold
 * CPU 0's one slot for CPU 1 until it returned, so the grace period's
 * own call from CPU 0 could not even be queued meanwhile. */
static int nest_sender(void *unused)
{
	(void)unused;
	return smp_call_function_single(1, nest_outer, NULL, 0);
}

static struct timer_list nest_timer;

static void nest_timer_fn(struct timer_list *t)
{
	(void)t;
	nest_outer(NULL);
}

/*
 * launch: "ipi" runs nest_outer in CPU 1's call IPI (sent from CPU 2),
 * "timer" in CPU 1's tick, as a timer handler.  Either is an irq handler,
 * so an RCU-sched reader, that waits on a call to CPU 0 with irqs off.
 */
static void nested_call_during_expedited_gp(bool ipi)
{
	int done_at_return;
	struct task *sender = NULL;

	/* No leftover deferred QS on CPU 1: let a normal GP clear it. */
	synchronize_sched();
	memset(&nest, 0, sizeof(nest));
	smp_mb();
	if (ipi) {
		sender = kthread_create_on_cpu(nest_sender, NULL, 2, "nestsend");
		KTAP_ASSERT(sender);
		wake_up_process(sender);
	} else {
		timer_setup(&nest_timer, nest_timer_fn, 0);
		nest_timer.expires = jiffies;
		add_timer_on(&nest_timer, 1);
	}
	if (!WAIT_UNTIL(READ_ONCE(nest.started), 10000)) {
		ktap_fail("CPU 1 never ran the outer handler (10 s)");
		return;
	}
	synchronize_sched_expedited();
	done_at_return = READ_ONCE(nest.done);
	WRITE_ONCE(nest.sync_returned, 1);
	if (!WAIT_UNTIL(smp_load_acquire(&nest.exited), 20000)) {
		ktap_fail("CPU 1's outer handler never returned (20 s)");
		return;
	}
	if (sender)
		KTAP_EXPECT_EQ(kthread_join(sender), 0);
	else
		del_timer_sync(&nest_timer);
	if (!done_at_return)
		ktap_fail("synchronize_sched_expedited() returned while CPU 1's %s handler, "
			  "a reader, still ran (its CPU took the expedited call from a poll)",
			  ipi ? "IPI" : "timer");
	KTAP_EXPECT(!READ_ONCE(nest.gave_up));
	KTAP_EXPECT(READ_ONCE(nest.deferred));
	ktap_log("%d nested calls made by CPU 1's handler", atomic_read(&nest.calls));
}

static void nested_call_from_ipi_during_expedited_gp(void)
{
	if (num_online_cpus() < 3) {
		ktap_skip("needs 3 CPUs: with 2, CPU 0's call slot for CPU 1 is busy "
			  "while its IPI handler runs, so no expedited call can reach it");
		return;
	}
	nested_call_during_expedited_gp(true);
}

static void nested_call_from_timer_during_expedited_gp(void)
{
	if (num_online_cpus() < 2) {
		ktap_skip("needs 2 CPUs");
		return;
	}
	nested_call_during_expedited_gp(false);
}

/* ---- del_timer_sync() against a handler that re-arms its timer ---- */

static struct {
	struct timer_list t;
	int running;		/* the handler's first run has started */
	int sync_waiting;	/* del_timer_sync() waits for the running handler */
	int no_wait_seen;	/* ... not seen within 5 s */
	int runs;
} rearm;

#ifdef CONFIG_SANITIZE
static void rearm_hook(enum timer_inject_point where, struct timer_list *t)
{
	if (where == TIMER_INJECT_SYNC_WAIT && t == &rearm.t)
		WRITE_ONCE(rearm.sync_waiting, 1);
}
#endif

/* CPU 1's tick: re-arms for the next tick, the first time only once CPU
 * 0's del_timer_sync() is waiting for this very run. */
static void rearm_fn(struct timer_list *t)
{
	WRITE_ONCE(rearm.runs, rearm.runs + 1);
	if (!READ_ONCE(rearm.running)) {
		WRITE_ONCE(rearm.running, 1);
		if (!SPIN_UNTIL(READ_ONCE(rearm.sync_waiting), 5000))
			WRITE_ONCE(rearm.no_wait_seen, 1);
	}
	t->expires = jiffies;
	add_timer(t);
}

static void del_timer_sync_rearming_handler(void)
{
	int runs;
	u64 ticks;

	if (num_online_cpus() < 2) {
		ktap_skip("needs 2 CPUs");
		return;
	}
	memset(&rearm, 0, sizeof(rearm));
	timer_setup(&rearm.t, rearm_fn, 0);
#ifdef CONFIG_SANITIZE
	__atomic_store_n(&timer_inject_hook, rearm_hook, __ATOMIC_RELEASE);
#else
	rearm.sync_waiting = 1;	/* no hook: the window is not forced */
#endif
	rearm.t.expires = jiffies;
	add_timer_on(&rearm.t, 1);
	if (!WAIT_UNTIL(READ_ONCE(rearm.running), 10000)) {
		ktap_fail("CPU 1's tick never ran the handler (10 s)");
		del_timer_sync(&rearm.t);
		return;
	}
	del_timer_sync(&rearm.t);
#ifdef CONFIG_SANITIZE
	__atomic_store_n(&timer_inject_hook, NULL, __ATOMIC_RELEASE);
	KTAP_EXPECT(!READ_ONCE(rearm.no_wait_seen));
#endif
	if (timer_pending(&rearm.t))
		ktap_fail("del_timer_sync() returned with the timer pending again "
			  "(its handler re-armed it)");
	/* Neither pending nor running: three more ticks of CPU 1 run nothing. */
	KTAP_EXPECT(test_keep_ticking(1, true));
	runs = READ_ONCE(rearm.runs);
	ticks = cpu_ticks(1);
	KTAP_EXPECT(WAIT_UNTIL(cpu_ticks(1) >= ticks + 3, 10000));
	KTAP_EXPECT_EQ(READ_ONCE(rearm.runs), runs);
	test_keep_ticking(1, false);
	del_timer_sync(&rearm.t);
}

/* ---- a thread dies elsewhere while its old CPU finishes its switch ---- */

#ifdef CONFIG_SANITIZE
static struct {
	struct task *victim;
	int cpu;		/* the CPU going down */
	int sleep;		/* the victim may go to sleep now */
	int held;		/* cpu holds in the victim's switch away */
	int woken;		/* the victim was woken while cpu held */
	int released;		/* it died elsewhere; cpu went on */
} fin;

/* Spins on fin.cpu (preemptibly: the grace period and the parking of
 * cpu_down() need the CPU) until cpu_down() is past its hooks, then
 * sleeps there once and exits wherever it is woken. */
static int fin_victim(void *unused)
{
	(void)unused;
	if (!SPIN_UNTIL(READ_ONCE(fin.sleep), 30000))
		return -1;
	set_current_state(TASK_UNINTERRUPTIBLE);
	schedule();
	__set_current_state(TASK_RUNNING);
	return 7;
}

static void fin_hook(enum sched_inject_point where, struct task *t, int cpu)
{
	if (cpu != READ_ONCE(fin.cpu))
		return;
	switch (where) {
	case SCHED_INJECT_DYING_BEGIN:
		/* The victim sleeps on cpu, which holds in its switch away. */
		WRITE_ONCE(fin.sleep, 1);
		SPIN_UNTIL(READ_ONCE(fin.held), 30000);
		break;
	case SCHED_INJECT_DYING:
		/* The run queue is dying and the victim neither queued nor
		 * on its CPU: the wake-up moves it to another CPU. */
		if (READ_ONCE(fin.held))
			WRITE_ONCE(fin.woken, wake_up_process(fin.victim));
		break;
	case SCHED_INJECT_FINISH:
		/* Its sleep, not a preemption (which leaves it queued). */
		if (t != READ_ONCE(fin.victim) || READ_ONCE(t->on_rq) || READ_ONCE(fin.held))
			return;
		WRITE_ONCE(fin.held, 1);
		/* Until it has run elsewhere, exited and been switched out
		 * there: an NMI or a host that stops this vCPU, made long. */
		SPIN_UNTIL(READ_ONCE(t->state) == TASK_DEAD &&
			   !smp_load_acquire(&t->on_cpu), 30000);
		WRITE_ONCE(fin.released, 1);
		break;
	}
}
#endif

static void dead_thread_dropped_once_across_cpu_down(void)
{
#ifdef CONFIG_SANITIZE
	struct task *t;
	int cpu = 1, ret, usage;

	if (num_online_cpus() < 2 || !cpu_online(cpu)) {
		ktap_skip("needs CPU 1 online and another");
		return;
	}
	memset(&fin, 0, sizeof(fin));
	t = kthread_create_on_cpu(fin_victim, NULL, cpu, "finvictim");
	KTAP_ASSERT(t);
	t->bound_cpu = -1;	/* created there, free to move */
	WRITE_ONCE(fin.victim, t);
	WRITE_ONCE(fin.cpu, cpu);
	__atomic_store_n(&sched_inject_hook, fin_hook, __ATOMIC_RELEASE);
	wake_up_process(t);
	ret = cpu_down(cpu);
	__atomic_store_n(&sched_inject_hook, NULL, __ATOMIC_RELEASE);
	KTAP_EXPECT_EQ(ret, 0);
	KTAP_EXPECT(READ_ONCE(fin.held));
	KTAP_EXPECT(READ_ONCE(fin.woken));
	KTAP_EXPECT(READ_ONCE(fin.released));
	if (!READ_ONCE(fin.woken))
		wake_up_process(t);	/* the window was not opened: end it */
	/* The joiner's handle is all that is left. */
	usage = atomic_read(&t->usage);
	if (usage != 1) {
		ktap_fail("the exited thread's task struct has usage %#x, not 1 "
			  "(0x6b6b6b6b: freed under its joiner)", usage);
		/* leaked: joining freed memory would only spread the damage */
	} else {
		KTAP_EXPECT_EQ(kthread_join(t), 7);
	}
	if (!cpu_online(cpu))
		KTAP_EXPECT_EQ(cpu_up(cpu), 0);
#else
	ktap_skip("needs the test build (sched_inject_hook)");
#endif
}

/* ---- a cross-CPU call against its target going down ---- */

#ifdef CONFIG_SANITIZE
static struct {
	struct task *sender;
	int cpu;
	int in_window;	/* the sender holds before queueing */
	int cpu_dead;	/* cpu_down(cpu) returned */
	int ret, done;
} xc;
static atomic_t xc_ran;	/* static: a call left queued must not hit a stack */

static void xc_count(void *unused)
{
	(void)unused;
	atomic_inc(&xc_ran);
}

static void xc_hook(enum smp_inject_point where, int cpu)
{
	if (where != SMP_INJECT_QUEUE || cpu != READ_ONCE(xc.cpu) ||
	    current != READ_ONCE(xc.sender))
		return;
	WRITE_ONCE(xc.in_window, 1);
	SPIN_UNTIL(READ_ONCE(xc.cpu_dead), 30000);
}

static int xc_send(void *unused)
{
	(void)unused;
	WRITE_ONCE(xc.ret, smp_call_function_single(READ_ONCE(xc.cpu), xc_count, NULL, 1));
	WRITE_ONCE(xc.done, 1);
	return 0;
}
#endif

static void call_single_to_cpu_going_down(void)
{
#ifdef CONFIG_SANITIZE
	struct task *t;
	int cpu = 1, ret;

	if (num_online_cpus() < 2 || !cpu_online(cpu)) {
		ktap_skip("needs CPU 1 online and another");
		return;
	}
	memset(&xc, 0, sizeof(xc));
	atomic_set(&xc_ran, 0);
	WRITE_ONCE(xc.cpu, cpu);
	/* The sender runs on this CPU: its call slot for cpu is ours too. */
	t = kthread_create_on_cpu(xc_send, NULL, raw_smp_processor_id(), "xcsend");
	KTAP_ASSERT(t);
	WRITE_ONCE(xc.sender, t);
	__atomic_store_n(&smp_inject_call_hook, xc_hook, __ATOMIC_RELEASE);
	wake_up_process(t);
	KTAP_EXPECT(WAIT_UNTIL(READ_ONCE(xc.in_window), 10000));
	ret = cpu_down(cpu);
	WRITE_ONCE(xc.cpu_dead, 1);
	KTAP_EXPECT_EQ(ret, 0);
	KTAP_EXPECT(WAIT_UNTIL(READ_ONCE(xc.done), 30000));
	__atomic_store_n(&smp_inject_call_hook, NULL, __ATOMIC_RELEASE);
	kthread_join(t);
	ktap_log("the call to CPU %d, offline before it was queued, returned %d",
		 cpu, READ_ONCE(xc.ret));
	KTAP_EXPECT_EQ(READ_ONCE(xc.ret), -EINVAL);
	KTAP_EXPECT_EQ(atomic_read(&xc_ran), 0);
	if (!cpu_online(cpu))
		KTAP_ASSERT(cpu_up(cpu) == 0);
	/* Back online, it takes calls again (from the same slot). */
	atomic_set(&xc_ran, 0);
	ret = smp_call_function_single(cpu, xc_count, NULL, 1);
	ktap_log("a call to CPU %d once it was back returned %d", cpu, ret);
	KTAP_EXPECT_EQ(ret, 0);
	KTAP_EXPECT_EQ(atomic_read(&xc_ran), 1);
#else
	ktap_skip("needs the test build (smp_inject_call_hook)");
#endif
}

#ifdef CONFIG_SANITIZE
static struct {
	struct task *sender;
	int cpu;
	int target_ready;	/* the target runs with irqs off */
	int queued;		/* the sender queued and holds before waiting */
	int ran_at_return;	/* calls run when the sender returned */
	int ret, done;
} xm;
static atomic_t xm_ran;

static void xm_count(void *unused)
{
	(void)unused;
	atomic_inc(&xm_ran);
}

/* The target, irqs off: the call stays pending until cpu_down() has
 * taken it out of the mask (its grace period waits for us meanwhile);
 * then, for a while, the sender must not return without it. */
static int xm_target(void *unused)
{
	(void)unused;
	local_irq_disable();
	WRITE_ONCE(xm.target_ready, 1);
	SPIN_UNTIL(!cpu_online(raw_smp_processor_id()), 30000);
	SPIN_WINDOW(READ_ONCE(xm.done), 200);
	local_irq_enable();
	return 0;
}

static void xm_hook(enum smp_inject_point where, int cpu)
{
	if (where != SMP_INJECT_WAIT || cpu != READ_ONCE(xm.cpu) ||
	    current != READ_ONCE(xm.sender))
		return;
	WRITE_ONCE(xm.queued, 1);
	SPIN_UNTIL(!cpu_online(cpu), 30000);
}

static int xm_send(void *unused)
{
	struct cpumask m;

	(void)unused;
	cpumask_clear(&m);
	cpumask_set_cpu(READ_ONCE(xm.cpu), &m);
	WRITE_ONCE(xm.ret, smp_call_function_many(&m, xm_count, NULL, 1));
	WRITE_ONCE(xm.ran_at_return, atomic_read(&xm_ran));
	WRITE_ONCE(xm.done, 1);
	return 0;
}
#endif

static void call_many_waits_for_cpu_going_down(void)
{
#ifdef CONFIG_SANITIZE
	struct task *target, *sender;
	int cpu = 1;

	if (num_online_cpus() < 2 || !cpu_online(cpu)) {
		ktap_skip("needs CPU 1 online and another");
		return;
	}
	memset(&xm, 0, sizeof(xm));
	atomic_set(&xm_ran, 0);
	WRITE_ONCE(xm.cpu, cpu);
	target = kthread_create_on_cpu(xm_target, NULL, cpu, "xmtarget");
	sender = kthread_create_on_cpu(xm_send, NULL, raw_smp_processor_id(), "xmsend");
	KTAP_ASSERT(target && sender);
	target->bound_cpu = -1;
	WRITE_ONCE(xm.sender, sender);
	__atomic_store_n(&smp_inject_call_hook, xm_hook, __ATOMIC_RELEASE);
	wake_up_process(target);
	KTAP_EXPECT(WAIT_UNTIL(READ_ONCE(xm.target_ready), 10000));
	wake_up_process(sender);
	KTAP_EXPECT(WAIT_UNTIL(READ_ONCE(xm.queued), 10000));
	KTAP_EXPECT_EQ(cpu_down(cpu), 0);
	KTAP_EXPECT(WAIT_UNTIL(READ_ONCE(xm.done), 30000));
	__atomic_store_n(&smp_inject_call_hook, NULL, __ATOMIC_RELEASE);
	kthread_join(sender);
	kthread_join(target);
	ktap_log("smp_call_function_many() returned %d having seen %d of 1 call run",
		 READ_ONCE(xm.ret), READ_ONCE(xm.ran_at_return));
	KTAP_EXPECT_EQ(READ_ONCE(xm.ret), 0);
	KTAP_EXPECT_EQ(READ_ONCE(xm.ran_at_return), 1);
	KTAP_EXPECT_EQ(atomic_read(&xm_ran), 1);
	if (!cpu_online(cpu))
		KTAP_EXPECT_EQ(cpu_up(cpu), 0);
#else
	ktap_skip("needs the test build (smp_inject_call_hook)");
#endif
}

KTAP_SUITE(core_races,
	   KTAP_CASE(kthread_stop_from_wait_event),
	   KTAP_CASE(polled_call_sees_irq_context),
	   KTAP_CASE(nested_call_from_ipi_during_expedited_gp),
	   KTAP_CASE(nested_call_from_timer_during_expedited_gp),
	   KTAP_CASE(del_timer_sync_rearming_handler),
	   KTAP_CASE(dead_thread_dropped_once_across_cpu_down),
	   KTAP_CASE(call_single_to_cpu_going_down),
	   KTAP_CASE(call_many_waits_for_cpu_going_down));
