/*
 * tests/host/timer_shim/kernel/preempt.h - host stand-in for
 * kernel/preempt.h: each thread plays one CPU, with a thread-local
 * preempt_count carrying Linux's fields (a shim tick adds HARDIRQ_OFFSET
 * around run_local_timers(), so in_irq() is true in handlers) and a
 * thread-local irq flag that only keeps the flags well-formed.
 */
#pragma once

#include "kernel/types.h"

extern __thread int shim_preempt_count;

#define PREEMPT_OFFSET	0x1
#define SOFTIRQ_OFFSET	0x100
#define HARDIRQ_OFFSET	0x10000
#define NMI_OFFSET	0x100000
#define PREEMPT_MASK	0x000000ff
#define SOFTIRQ_MASK	0x0000ff00
#define HARDIRQ_MASK	0x000f0000
#define NMI_MASK	0x00f00000
#define SOFTIRQ_DISABLE_OFFSET	(2 * SOFTIRQ_OFFSET)

static inline int preempt_count(void) { return shim_preempt_count; }
#define in_irq()	(preempt_count() & HARDIRQ_MASK)
#define in_nmi()	(preempt_count() & NMI_MASK)
#define in_atomic()	(preempt_count() != 0)
#define preempt_count_add(v)	(shim_preempt_count += (v))
#define preempt_count_sub(v)	(shim_preempt_count -= (v))
#define preempt_disable()	do { shim_preempt_count++; barrier(); } while (0)
#define preempt_enable()	do { barrier(); shim_preempt_count--; } while (0)
#define preempt_enable_no_resched() preempt_enable()
#define local_bh_disable()	do { shim_preempt_count += SOFTIRQ_DISABLE_OFFSET; } while (0)
#define local_bh_enable()	do { shim_preempt_count -= SOFTIRQ_DISABLE_OFFSET; } while (0)

extern __thread int shim_irqs_off;
#define local_irq_disable()	(shim_irqs_off = 1)
#define local_irq_enable()	(shim_irqs_off = 0)
#define local_irq_save(f)	((f) = (unsigned long)shim_irqs_off, shim_irqs_off = 1)
#define local_irq_restore(f)	(shim_irqs_off = (int)(f))
#define irqs_disabled()		(shim_irqs_off != 0)
