/* asm/preempt.h: x86's __preempt_count with "nothing pending" folded in,
 * as Linux x86 does (arch/x86/include/asm/preempt.h).
 *
 * Bit 31 of the per-CPU __preempt_count, PREEMPT_NEED_RESCHED, is set
 * while this CPU has no work for preempt_enable(): no reschedule asked
 * for and no deferred RCU quiescent state.  It is inverted so that the
 * whole word is zero exactly when the count is zero and work is pending:
 * preempt_enable() is then one `decl %gs:__preempt_count` and one
 * conditional branch on ZF.  kernel/preempt.h keeps the bit in step with
 * the two per-CPU flags, which stay the truth; only the CPU itself writes
 * its bit (one instruction each, so an interrupt cannot split it).
 */
#pragma once

#include "kernel/percpu.h"

#define PREEMPT_NEED_RESCHED	0x80000000
/* The count of a CPU with nothing pending and nothing disabled. */
#define PREEMPT_ENABLED		PREEMPT_NEED_RESCHED

static inline int preempt_count(void)
{
	return this_cpu_read(__preempt_count) & ~PREEMPT_NEED_RESCHED;
}

/* The count of the task switched in (irqs off: the read and the write
 * are two instructions); the CPU's pending bit stays. */
static inline void preempt_count_set(int pc)
{
	int old = this_cpu_read(__preempt_count);

	this_cpu_write(__preempt_count, (old & PREEMPT_NEED_RESCHED) | (pc & ~PREEMPT_NEED_RESCHED));
}

/* Work is pending: clear the inverted bit. */
static inline void set_preempt_need_resched(void)
{
	__asm__ __volatile__("andl %1, %%gs:%0" : "+m"(__preempt_count)
			     : "ri"(~PREEMPT_NEED_RESCHED) : "cc");
}

/* Nothing pending: set it. */
static inline void clear_preempt_need_resched(void)
{
	__asm__ __volatile__("orl %1, %%gs:%0" : "+m"(__preempt_count)
			     : "ri"(PREEMPT_NEED_RESCHED) : "cc");
}

static inline bool test_preempt_need_resched(void)
{
	return !(this_cpu_read(__preempt_count) & PREEMPT_NEED_RESCHED);
}

/* Subtracts v; true when the word became zero: the count is zero and
 * work is pending. */
static inline bool __preempt_count_sub_and_test(int v)
{
	bool zero;

	__asm__ __volatile__("subl %2, %%gs:%0" : "+m"(__preempt_count), "=@ccz"(zero)
			     : "er"(v));
	return zero;
}

static inline bool __preempt_count_dec_and_test(void)
{
	bool zero;

	__asm__ __volatile__("decl %%gs:%0" : "+m"(__preempt_count), "=@ccz"(zero));
	return zero;
}
