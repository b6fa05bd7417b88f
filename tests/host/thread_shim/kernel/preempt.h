/*
 * tests/host/thread_shim/kernel/preempt.h - host stand-in for
 * kernel/preempt.h: each thread plays one CPU, with a thread-local
 * preempt_count carrying Linux's fields (the tests check it is balanced;
 * the timer test's shim tick adds HARDIRQ_OFFSET around
 * run_local_timers(), so in_irq() is true in handlers) and a thread-local
 * irq flag that only keeps the flags well-formed: interrupts do not exist.
 */
#pragma once

#include "kernel/types.h"
#include "kernel/preempt_mask.h"

extern __thread int shim_preempt_count;

static inline int preempt_count(void) { return shim_preempt_count; }
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
