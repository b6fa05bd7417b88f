/*
 * kernel/preempt_mask.h - the fields of preempt_count (Linux's layout:
 * bits 0-7 preemption nesting, 8-15 softirq, 16-19 hardirq, 20-23 NMI)
 * and the context tests built on them.  preempt_count() itself comes
 * from whoever includes this: kernel/preempt.h, or a host test's
 * stand-in for it.
 */
#pragma once

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

#define hardirq_count()	(preempt_count() & HARDIRQ_MASK)
#define softirq_count()	(preempt_count() & SOFTIRQ_MASK)
#define irq_count()	(preempt_count() & (HARDIRQ_MASK | SOFTIRQ_MASK | NMI_MASK))

#define in_nmi()	(preempt_count() & NMI_MASK)
#define in_irq()	(hardirq_count())
#define in_hardirq()	(hardirq_count())
#define in_softirq()	(softirq_count())
#define in_interrupt()	(irq_count())
#define in_atomic()	(preempt_count() != 0)
