/*
 * tests/host/rcu/shim/asm/preempt.h - the host's preempt-count primitives
 * for the real kernel/preempt.h.  The shim sets a CPU's pending-work flags
 * from other threads (tests/host/rcu/shim/cpu.c), which the kernel's
 * folded bit (arch/x86_64/include/asm/preempt.h) cannot follow, so here
 * nothing is folded: the bit is always 0 and the enable reads the flags
 * after the decrement, as the kernel did before it folded them.
 */
#pragma once

#include "kernel/percpu.h"

#define PREEMPT_NEED_RESCHED	0
#define PREEMPT_ENABLED		0

#define preempt_count() ((int)this_cpu_read(__preempt_count))
#define preempt_count_set(pc) this_cpu_write(__preempt_count, (pc))
#define set_preempt_need_resched() do { } while (0)
#define clear_preempt_need_resched() do { } while (0)
#define test_preempt_need_resched() preempt_work_pending()

/* kernel/preempt.h's preempt_work_pending(), at the point of use. */
#define __preempt_count_sub_and_test(v) ({				\
	this_cpu_sub(__preempt_count, (v));				\
	preempt_count() == 0 && preempt_work_pending(); })
#define __preempt_count_dec_and_test() __preempt_count_sub_and_test(1)
