/*
 * tests/host/locks_shim/kernel/preempt.h - host stand-in for kernel/preempt.h,
 * so the lock headers build in a pthread program (tests/host/test_locks.c).
 * Each thread plays one CPU: its preempt_count is thread-local and the
 * tests check it is balanced; interrupts do not exist, so the irq ops only
 * keep flags well-formed.
 */
#pragma once

#include "kernel/types.h"

extern __thread int shim_preempt_count;

#define PREEMPT_MASK	0x000000ff
#define SOFTIRQ_OFFSET	0x100
#define HARDIRQ_OFFSET	0x10000
#define NMI_OFFSET	0x100000
#define SOFTIRQ_DISABLE_OFFSET	(2 * SOFTIRQ_OFFSET)

static inline int preempt_count(void) { return shim_preempt_count; }
#define in_atomic()	(preempt_count() != 0)
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
