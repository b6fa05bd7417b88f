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
 * path and is kept to a decrement and two per-CPU loads in the common case.
 */
#pragma once

#include "kernel/types.h"
#include "kernel/percpu.h"
#include "asm/irqflags.h"

#define PREEMPT_BITS	8
#define SOFTIRQ_BITS	8
#define HARDIRQ_BITS	4
#define NMI_BITS	4

#define PREEMPT_OFFSET	0x1
#define SOFTIRQ_OFFSET	0x100
#define HARDIRQ_OFFSET	0x10000
#define NMI_OFFSET	0x100000

#define PREEMPT_MASK	0x000000ff
#define SOFTIRQ_MASK	0x0000ff00
#define HARDIRQ_MASK	0x000f0000
#define NMI_MASK	0x00f00000

#define SOFTIRQ_DISABLE_OFFSET	(2 * SOFTIRQ_OFFSET)

static inline int preempt_count(void)
{
	return this_cpu_read(__preempt_count);
}

#define hardirq_count()	(preempt_count() & HARDIRQ_MASK)
#define softirq_count()	(preempt_count() & SOFTIRQ_MASK)
#define irq_count()	(preempt_count() & (HARDIRQ_MASK | SOFTIRQ_MASK | NMI_MASK))

#define in_nmi()	(preempt_count() & NMI_MASK)
#define in_irq()	(hardirq_count())
#define in_hardirq()	(hardirq_count())
#define in_softirq()	(softirq_count())
#define in_interrupt()	(irq_count())
#define in_atomic()	(preempt_count() != 0)
#define preemptible()	(preempt_count() == 0 && !irqs_disabled())

/*
 * Set by the scheduler when this CPU should switch (slice over, a more
 * urgent task woken); set by RCU when a deferred quiescent state waits
 * for the end of a preempt-disabled region.  Either makes
 * preempt_enable() leave the fast path when the count reaches zero.
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
 * A thread preempted between the decrement and the loads runs the check
 * on its new CPU: harmless, it only asks that CPU to look at its flags.
 */
#define preempt_enable() do {						\
	barrier();							\
	preempt_count_sub(1);						\
	if (unlikely(preempt_count() == 0 && preempt_work_pending()))	\
		preempt_schedule();					\
} while (0)

/* There are no softirqs: bh-disable only marks the region, like Linux's. */
#define local_bh_disable() do { preempt_count_add(SOFTIRQ_DISABLE_OFFSET); barrier(); } while (0)
#define local_bh_enable() do {						\
	barrier();							\
	preempt_count_sub(SOFTIRQ_DISABLE_OFFSET);			\
	if (unlikely(preempt_count() == 0 && preempt_work_pending()))	\
		preempt_schedule();					\
} while (0)

/* The kernel's own preemption mode, chosen with preempt=none|full. */
extern bool preempt_full;
