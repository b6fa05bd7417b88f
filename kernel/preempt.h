/*
 * kernel/preempt.h - preempt_count and interrupt-state queries.
 *
 * preempt_count is a per-CPU int (kernel/percpu.c) with Linux's fields:
 * bits 0-7 preemption nesting, 8-15 softirq (bh-disable counts twice the
 * offset, as in Linux), 16-19 hardirq, 20-23 NMI.  It is per CPU, not per
 * task: the scheduler saves it into the outgoing task and loads the
 * incoming task's value on every switch (kernel/sched.c), as x86 Linux does.
 *
 * RCU-sched builds on this: every region with a non-zero count is a
 * read-side critical section.  preempt_enable() is therefore on RCU's read
 * path.  As on Linux x86, "nothing pending on this CPU" is an inverted bit
 * of the same word (asm/preempt.h, PREEMPT_NEED_RESCHED), so that
 * preempt_enable() is one decrement and one branch, taken only when the
 * count reaches zero with work pending.  preempt_count() leaves the bit
 * out.
 */
#pragma once

#include "kernel/types.h"
#include "kernel/percpu.h"
#include "kernel/preempt_mask.h"
#include "kernel/jitter.h"
#include "asm/irqflags.h"
#include "asm/preempt.h"

#define preemptible()	(preempt_count() == 0 && !irqs_disabled())

/*
 * Set by the scheduler when this CPU should switch (slice over, a more
 * urgent task woken); set by RCU when a deferred quiescent state waits
 * for the end of a preempt-disabled region.  Either makes
 * preempt_enable() leave the fast path when the count reaches zero,
 * through the folded bit: whoever sets a flag for its own CPU then calls
 * set_preempt_need_resched(); a flag set for another CPU comes with an
 * IPI whose handler folds it (scheduler_ipi()); whoever clears one calls
 * preempt_fold_pending().
 */
DECLARE_PER_CPU(bool, sched_need_resched);
DECLARE_PER_CPU(bool, rcu_need_deferred_qs);

void preempt_schedule(void);	/* kernel/sched.c */

#define preempt_count_add(v)	this_cpu_add(__preempt_count, (v))
#define preempt_count_sub(v)	this_cpu_sub(__preempt_count, (v))

#define preempt_disable() do { preempt_count_add(1); barrier(); } while (0)

#define preempt_enable_no_resched() do { barrier(); preempt_count_sub(1); } while (0)

static inline bool preempt_work_pending(void)
{
	return this_cpu_read(sched_need_resched) | this_cpu_read(rcu_need_deferred_qs);
}

/*
 * The folded bit from the flags, after one was cleared.  Irqs off across
 * the read and the write: an interrupt that sets a flag in between would
 * otherwise have its set_preempt_need_resched() undone.
 */
static inline void preempt_fold_pending(void)
{
	unsigned long flags;

	local_irq_save(flags);
	if (preempt_work_pending())
		set_preempt_need_resched();
	else
		clear_preempt_need_resched();
	local_irq_restore(flags);
}

/*
 * A thread preempted and migrated right after the decrement takes the
 * slow path only if its new CPU has work pending: preempt_schedule()
 * looks at that CPU's flags, as it should.
 */
#define preempt_enable() do {						\
	barrier();							\
	if (unlikely(__preempt_count_dec_and_test()))			\
		preempt_schedule();					\
	jitter_site(JITTER_PREEMPT_ENABLE);				\
} while (0)

/* There are no softirqs: bh-disable only marks the region, like Linux's. */
#define local_bh_disable() do { preempt_count_add(SOFTIRQ_DISABLE_OFFSET); barrier(); } while (0)
#define local_bh_enable() do {						\
	barrier();							\
	if (unlikely(__preempt_count_sub_and_test(SOFTIRQ_DISABLE_OFFSET))) \
		preempt_schedule();					\
	jitter_site(JITTER_PREEMPT_ENABLE);				\
} while (0)

/* The kernel's own preemption mode, chosen with preempt=none|full. */
extern bool preempt_full;
