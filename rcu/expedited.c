/*
 * rcu/expedited.c - expedited grace periods: one machine, forced by
 * cross-CPU calls instead of waiting for ticks, for two flavours
 * (Linux's tree_exp.h, flattened: with at most 64 CPUs one mask word
 * holds the whole wait):
 *  - RCU-sched, synchronize_sched_expedited(): its readers are regions
 *    with preemption, bh or irqs disabled (the hooks are below);
 *  - preemptible RCU, synchronize_rcu_expedited(): its readers are
 *    rcu_read_lock() sections, which may also be preempted and queued on
 *    their leaf (the hooks are in rcu/preempt.c).
 * Each flavour has its own struct rcu_exp_state (sequence, mask, mutex,
 * wait queue), so that the two run independently, and its struct
 * rcu_exp_ops (rcu/tree.h): how the cross-CPU call tells whether the CPU
 * is in a reader, how a reader found there reports when it ends, how a
 * CPU's quiescent state (QS) is reported, and the tasks blocked in
 * readers that the grace period must also wait for.
 *
 * A grace period (synchronize_exp()):
 *   rcu_exp_gp_seq_snap()     the sequence value that covers the caller;
 *   exp_funnel_lock()         the flavour's mutex, unless another caller's
 *                             grace period already covered us;
 *   rcu_exp_gp_seq_start()
 *   sync_rcu_exp_select_cpus() the non-idle CPUs into ->expmask, the
 *                             blocked tasks snapshotted, the calls sent
 *                             (rcu_exp_handler() on each CPU);
 *   rcu_exp_wait_wake()       wait for the mask and the tasks, with stall
 *                             reports; rcu_exp_gp_seq_end(); unlock, which
 *                             wakes the callers queued behind us.
 *
 * Ordering contract:
 *  - The caller's updates are ordered before the idle checks and the
 *    calls by the full barrier in rcu_seq_snap() and the one after
 *    rcu_seq_start(); a CPU found idle (dynticks even, read with a
 *    full-barrier RMW) has finished every earlier reader and will see the
 *    updates in any later one (as in tree.c's contract (2)).
 *  - A CPU clears its bit with a full-barrier RMW (rcu_report_exp_rdp())
 *    after its readers end.  The waiter reads the mask with acquire, so
 *    its return is ordered after all those readers.
 *  - RCU-sched: the bit is cleared in the call's handler when it
 *    interrupted no reader, else at the reader's closing
 *    preempt_enable()/local_bh_enable() through rcu_preempt_deferred_qs()
 *    if irqs are on there, or at the CPU's next context switch or QS
 *    tick.  Every one of these checks that no preemption, bh or irq
 *    disabling is still in force: each is a reader.
 */
#include "rcu/tree.h"
#include "kernel/cpu.h"
#include "rcu/inject.h"
#include "kernel/printk.h"

static const struct rcu_exp_ops rcu_sched_exp_ops;

struct rcu_exp_state rcu_sched_exp = { .name = "rcu_sched", .ops = &rcu_sched_exp_ops };
#ifdef CONFIG_PREEMPT_RCU
struct rcu_exp_state rcu_preempt_exp = { .name = "rcu_preempt", .ops = &rcu_preempt_exp_ops };
#endif

DEFINE_PER_CPU(bool, rcu_need_deferred_qs);

static void rcu_exp_init_state(struct rcu_exp_state *es)
{
	es->expedited_sequence = RCU_SEQ_INITIAL_VAL;
	atomic_long_set(&es->expmask, 0);
	rcu_mutex_init(&es->exp_mutex);
	init_waitqueue_head(&es->expedited_wq);
}

void rcu_exp_init(void)
{
	rcu_exp_init_state(&rcu_sched_exp);
#ifdef CONFIG_PREEMPT_RCU
	rcu_exp_init_state(&rcu_preempt_exp);
#endif
}

/* ---- the machine ---- */

static unsigned long rcu_exp_gp_seq_snap(struct rcu_exp_state *es)
{
	return rcu_seq_snap(&es->expedited_sequence);
}

static bool rcu_exp_gp_seq_done(struct rcu_exp_state *es, unsigned long s)
{
	return rcu_seq_done(&es->expedited_sequence, s);
}

/* The caller's updates before the checks that follow. */
static void rcu_exp_gp_seq_start(struct rcu_exp_state *es)
{
	WRITE_ONCE(es->gp_start, jiffies);
	rcu_seq_start(&es->expedited_sequence);
	trace_rcu_exp_grace_period(es->name, es->expedited_sequence, "start", 0);
	smp_mb();
}

/* The readers' accesses (seen through the mask) before the caller's frees. */
static void rcu_exp_gp_seq_end(struct rcu_exp_state *es)
{
	smp_mb();
	trace_rcu_exp_grace_period(es->name, es->expedited_sequence, "end", 0);
	rcu_seq_end(&es->expedited_sequence);
}

unsigned long rcu_exp_completed(struct rcu_exp_state *es)
{
	return rcu_seq_completed(&es->expedited_sequence);
}

unsigned long rcu_exp_batches_completed_sched(void)
{
	return rcu_exp_completed(&rcu_sched_exp);
}

/*
 * The flavour's mutex, one grace period at a time (Linux's funnel of
 * rcu_node mutexes, reduced to one): true, without it, if a grace period
 * that started after the snapshot s ended while we waited for it.
 */
static bool exp_funnel_lock(struct rcu_exp_state *es, unsigned long s)
{
	rcu_mutex_lock(&es->exp_mutex);
	if (rcu_exp_gp_seq_done(es, s)) {
		rcu_mutex_unlock(&es->exp_mutex);
		return true;
	}
	return false;
}

/* Preemption off: "here" is only this CPU while the caller stays on it. */
bool rcu_exp_pending_here(struct rcu_exp_state *es)
{
	lockdep_assert_preemption_disabled();
	return atomic_long_read(&es->expmask) & (1UL << smp_processor_id());
}

/*
 * This CPU has passed a QS for es's running grace period: clear its bit.
 * can_wake is false in the scheduler's context switch (a wakeup there
 * could take the run-queue lock we are under); the waiter polls each
 * tick, so that only delays it.
 */
void rcu_report_exp_rdp(struct rcu_exp_state *es, bool can_wake)
{
	unsigned long bit = 1UL << smp_processor_id();

	lockdep_assert_preemption_disabled();	/* the QS is this CPU's */
	if (atomic_long_fetch_andnot(bit, &es->expmask) == (long)bit && can_wake)
		wake_up(&es->expedited_wq);
}

/* The cross-CPU call, in irq context on the target, irqs off. */
static void rcu_exp_handler(void *info)
{
	struct rcu_exp_state *es = info;

	if (!rcu_exp_pending_here(es))
		return;
	if (es->ops->cpu_in_reader())
		es->ops->defer_qs();	/* the reader's end reports */
	else
		es->ops->report_qs(true);
}

/*
 * Every online CPU that may be in a reader that began before the grace
 * period: all but ours (which runs us preemptibly, so is in no reader)
 * and the idle ones (in an extended QS).  The mask is visible before the
 * blocked tasks are snapshotted (a task queued later on a CPU whose bit
 * is still set is then covered too: rcu/preempt.c) and before any handler
 * runs.
 */
static void sync_rcu_exp_select_cpus(struct rcu_exp_state *es)
{
	unsigned long mask = 0;
	int cpu, me;

	preempt_disable();
	me = smp_processor_id();
	for_each_online_cpu(cpu) {
		if (cpu == me || cpu >= rcu_state.ncpus)
			continue;
		if (rcu_dynticks_in_eqs(rcu_dynticks_snap(per_cpu_ptr(&rcu_data, cpu))))
			continue;
		mask |= 1UL << cpu;
	}
	atomic_long_set(&es->expmask, (long)mask);
	smp_mb();
	if (es->ops->gp_init_blocked)
		es->ops->gp_init_blocked();
	for_each_online_cpu(cpu)
		if (mask & (1UL << cpu)) {
			trace_rcu_exp_grace_period(es->name, es->expedited_sequence, "ipi", cpu);
			smp_call_function_single(cpu, rcu_exp_handler, es, 0);
		}
	preempt_enable();
}

static bool sync_rcu_exp_done(struct rcu_exp_state *es)
{
	if (atomic_long_read_acquire(&es->expmask))
		return false;
	return !es->ops->has_blocked || !es->ops->has_blocked();
}

/* Appends what snprintf() would write to buf[len..size), clipped; returns
 * the new length. */
size_t rcu_exp_stall_append(char *buf, size_t size, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (len + 1 >= size)
		return len;
	va_start(ap, fmt);
	n = vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return len;
	return MIN(len + (size_t)n, size - 1);
}

/*
 * One format for both flavours (Linux's), printed as one line so that no
 * other CPU's output splits it: the CPUs, then "P" and the name of each
 * blocked task, the jiffies since the grace period started and its
 * number (those completed before it); then the named CPUs' backtraces.
 */
static void rcu_exp_stall_report(struct rcu_exp_state *es)
{
	unsigned long mask = atomic_long_read(&es->expmask);
	char line[400];
	size_t len = 0;
	int cpu;

	for (cpu = 0; cpu < NR_CPUS; cpu++)
		if (mask & (1UL << cpu))
			len = rcu_exp_stall_append(line, sizeof(line), len, " %d", cpu);
	if (es->ops->print_blocked)
		len = es->ops->print_blocked(line, sizeof(line), len);
	line[len] = '\0';
	printk(KERN_ERR "rcu: INFO: %s detected expedited stalls on CPUs/tasks: {%s } "
	       "%lu jiffies s: %lu\n", es->name, line, jiffies - READ_ONCE(es->gp_start),
	       rcu_exp_completed(es));
	rcu_stall_report_end(es->name, mask);
}

/* Wait for the CPUs and tasks, each tick, with a stall report every
 * stall timeout (Linux's synchronize_rcu_expedited_wait()). */
static void synchronize_rcu_expedited_wait(struct rcu_exp_state *es)
{
	unsigned long next = jiffies + rcu_jiffies_till_stall_check();

	while (!sync_rcu_exp_done(es)) {
		wait_event_timeout(es->expedited_wq, sync_rcu_exp_done(es), 1);
		if (sync_rcu_exp_done(es))
			break;
		if (es->ops->wait_tick)
			es->ops->wait_tick();
		if (time_after_eq(jiffies, next)) {
			rcu_exp_stall_report(es);
			next = jiffies + rcu_jiffies_till_stall_check();
		}
	}
}

/* The grace period is over: end it and let the callers queued on the
 * mutex find their snapshots done. */
static void rcu_exp_wait_wake(struct rcu_exp_state *es)
{
	synchronize_rcu_expedited_wait(es);
	rcu_exp_gp_seq_end(es);
	rcu_mutex_unlock(&es->exp_mutex);
}

/*
 * CPU hotplug is held off for the duration: the CPUs found online stay
 * online until each has reported (kernel/cpu.h).
 */
void synchronize_exp(struct rcu_exp_state *es)
{
	unsigned long s;

	cpus_read_lock();
	s = rcu_exp_gp_seq_snap(es);
	if (!exp_funnel_lock(es, s)) {
		rcu_exp_gp_seq_start(es);
		sync_rcu_exp_select_cpus(es);
		rcu_exp_wait_wake(es);
	}
	cpus_read_unlock();
}

/* ---- RCU-sched's flavour: a reader is any region with preemption, bh
 * or irqs disabled ---- */

/* This CPU is outside every RCU-sched reader: the deferral is over. */
static void rcu_sched_exp_report_qs(bool can_wake)
{
	this_cpu_write(rcu_need_deferred_qs, false);
	preempt_fold_pending();
	this_cpu_ptr(&rcu_data)->exp_deferred_qs = false;
	rcu_report_exp_rdp(&rcu_sched_exp, can_wake);
}

/* From the context switch and the QS tick (tree.c), irqs off. */
void rcu_sched_exp_qs(bool can_wake)
{
	if (rcu_exp_pending_here(&rcu_sched_exp))
		rcu_sched_exp_report_qs(can_wake);
}

/* The handler's hardirq level is its own, not the interrupted code's. */
static bool rcu_sched_exp_cpu_in_reader(void)
{
	return preempt_count() - HARDIRQ_OFFSET != 0;
}

/* Report at the reader's end: preempt_enable() -> rcu_preempt_deferred_qs(). */
static void rcu_sched_exp_defer_qs(void)
{
	lockdep_assert_preemption_disabled();	/* three stores, one CPU */
	this_cpu_ptr(&rcu_data)->exp_deferred_qs = true;
	this_cpu_write(rcu_need_deferred_qs, true);
	set_preempt_need_resched();
}

static const struct rcu_exp_ops rcu_sched_exp_ops = {
	.cpu_in_reader = rcu_sched_exp_cpu_in_reader,
	.defer_qs = rcu_sched_exp_defer_qs,
	.report_qs = rcu_sched_exp_report_qs,
};

/*
 * True if the code that is running (the caller of the hook that asks) is
 * in an RCU-sched reader: preemption, bh or irqs disabled
 * (rcu/rcupdate.h).  preempt_enable() and local_bh_enable() reach the
 * deferred QS with a zero count, but may do so with irqs disabled: the
 * reader then goes on, and the QS must wait for the tick or the context
 * switch that finds it over.
 */
static bool rcu_exp_in_reader(unsigned long flags)
{
	if (preempt_count() != 0)
		return true;
	return irqs_disabled_flags(flags) && !rcu_inject(RCU_INJECT_EXP_IRQOFF);
}

/* From preempt_enable()/local_bh_enable() once the count is zero and the
 * flag is set; also safe from anywhere else (it checks for itself). */
void rcu_preempt_deferred_qs(void)
{
	unsigned long flags;

	local_irq_save(flags);
	if (this_cpu_read(rcu_need_deferred_qs) && !rcu_exp_in_reader(flags)) {
		if (rcu_exp_pending_here(&rcu_sched_exp))
			rcu_sched_exp_report_qs(true);
		else {
			this_cpu_write(rcu_need_deferred_qs, false);
			preempt_fold_pending();
		}
	}
	local_irq_restore(flags);
}

void synchronize_sched_expedited(void)
{
	if (rcu_misuse_check("synchronize_sched_expedited") || rcu_blocking_is_gp())
		return;
	synchronize_exp(&rcu_sched_exp);
}
