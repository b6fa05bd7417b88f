/*
 * rcu/expedited.c - synchronize_sched_expedited(): a grace period forced
 * by cross-CPU calls instead of waiting for ticks (Linux's tree_exp.h,
 * flattened: with at most 64 CPUs one mask word holds the whole wait).
 *
 * Ordering contract:
 *  - The caller's updates are ordered before the idle checks and the
 *    calls by the full barrier in rcu_seq_snap() and the seq_cst store of
 *    exp_mask; a CPU found idle (dynticks even, read with a full-barrier
 *    RMW) has finished every earlier reader and will see the updates in
 *    any later one (as in tree.c's contract (2)).
 *  - A CPU clears its bit with a full-barrier RMW after its readers end
 *    (in the call's handler when it interrupted no reader, else at the
 *    reader's closing preempt_enable()/local_bh_enable() through
 *    rcu_preempt_deferred_qs() if irqs are on there, or at its next
 *    context switch or QS tick).  Every one of these checks that no
 *    preemption, bh or irq disabling is still in force: each is a reader.
 *    The waiter reads the mask with acquire, so its return is ordered
 *    after all those readers.
 */
#include "rcu/tree.h"
#include "kernel/cpu.h"
#include "rcu/inject.h"
#include "kernel/printk.h"

DEFINE_PER_CPU(bool, rcu_need_deferred_qs);

void rcu_exp_init(void)
{
	rcu_state.expedited_sequence = rcu_state.gp_seq;
	atomic_long_set(&rcu_state.exp_mask, 0);
	rcu_mutex_init(&rcu_state.exp_mutex);
	init_waitqueue_head(&rcu_state.exp_wq);
}

unsigned long rcu_exp_batches_completed_sched(void)
{
	return rcu_seq_completed(&rcu_state.expedited_sequence);
}

bool rcu_exp_pending_here(void)
{
	return atomic_long_read(&rcu_state.exp_mask) & (1UL << smp_processor_id());
}

/*
 * This CPU is outside every reader: clear its bit.  can_wake is false in
 * the scheduler's context switch (a wakeup there could take the run-queue
 * lock we are under); the waiter polls each tick, so that only delays it.
 */
void rcu_exp_report_local(bool can_wake)
{
	unsigned long bit = 1UL << smp_processor_id();
	long old;

	this_cpu_write(rcu_need_deferred_qs, false);
	preempt_fold_pending();
	this_cpu_ptr(&rcu_data)->exp_deferred_qs = false;
	old = atomic_long_fetch_andnot(bit, &rcu_state.exp_mask);
	if (can_wake && old == (long)bit)
		wake_up(&rcu_state.exp_wq);
}

/* The cross-CPU call, in irq context on the target, irqs off. */
static void rcu_exp_handler(void *unused)
{
	(void)unused;
	if (!rcu_exp_pending_here())
		return;
	if (preempt_count() - HARDIRQ_OFFSET == 0) {
		rcu_exp_report_local(true);	/* interrupted no reader */
		return;
	}
	/* Inside a reader: report when it ends (preempt_enable -> deferred_qs). */
	this_cpu_ptr(&rcu_data)->exp_deferred_qs = true;
	this_cpu_write(rcu_need_deferred_qs, true);
	set_preempt_need_resched();
}

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
		if (rcu_exp_pending_here())
			rcu_exp_report_local(true);
		else {
			this_cpu_write(rcu_need_deferred_qs, false);
			preempt_fold_pending();
		}
	}
	local_irq_restore(flags);
}

static void __synchronize_sched_expedited(void)
{
	unsigned long s, mask = 0, start;
	int cpu, me;

	s = rcu_seq_snap(&rcu_state.expedited_sequence);
	rcu_mutex_lock(&rcu_state.exp_mutex);
	if (rcu_seq_done(&rcu_state.expedited_sequence, s)) {
		/* Someone else's expedited GP, started after our snapshot, did it. */
		rcu_mutex_unlock(&rcu_state.exp_mutex);
		return;
	}
	rcu_seq_start(&rcu_state.expedited_sequence);
	smp_mb();

	/*
	 * Our own CPU runs us preemptibly, so no reader is on it now; idle
	 * CPUs are in an extended QS.  Wait for the rest.
	 */
	preempt_disable();
	me = smp_processor_id();
	for_each_online_cpu(cpu) {
		if (cpu == me || cpu >= rcu_state.ncpus)
			continue;
		if (rcu_dynticks_in_eqs(rcu_dynticks_snap(per_cpu_ptr(&rcu_data, cpu))))
			continue;
		mask |= 1UL << cpu;
	}
	atomic_long_set(&rcu_state.exp_mask, (long)mask);
	smp_mb();	/* the mask is visible before any handler runs */
	for_each_online_cpu(cpu)
		if (mask & (1UL << cpu))
			smp_call_function_single(cpu, rcu_exp_handler, NULL, 0);
	preempt_enable();

	start = jiffies;
	for (;;) {
		unsigned long left;

		wait_event_timeout(rcu_state.exp_wq,
				   !atomic_long_read_acquire(&rcu_state.exp_mask), 1);
		left = atomic_long_read_acquire(&rcu_state.exp_mask);
		if (!left)
			break;
		if (jiffies - start >= rcu_jiffies_till_stall_check()) {
			rcu_exp_stall_report(left, jiffies - start);
			start = jiffies;
		}
	}
	smp_mb();
	rcu_seq_end(&rcu_state.expedited_sequence);
	rcu_mutex_unlock(&rcu_state.exp_mutex);
}

/* CPU hotplug is held off for the duration: the CPUs found online above
 * stay online until each has reported (kernel/cpu.h). */
void synchronize_sched_expedited(void)
{
	if (rcu_misuse_check("synchronize_sched_expedited") || rcu_blocking_is_gp())
		return;
	cpus_read_lock();
	__synchronize_sched_expedited();
	cpus_read_unlock();
}
