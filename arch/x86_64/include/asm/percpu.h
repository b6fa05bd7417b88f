/* asm/percpu.h: per-CPU variable access through %gs.
 *
 * Each CPU's GS base holds (its per-CPU area - __per_cpu_start), so
 * "%gs:var" addresses that CPU's copy of var.  Each op is one instruction,
 * so a thread preempted and migrated mid-op still touches exactly one
 * CPU's copy: that is what makes this_cpu_inc(__preempt_count) safe. */
#pragma once

#include "kernel/types.h"
#include "asm/cpu.h"

/* The register operand fixes the operand size, so one form serves 1, 2, 4
 * and 8-byte variables. */
#define this_cpu_read(var) ({                                           \
	__typeof__(var) __v;                                            \
	__asm__ __volatile__("mov %%gs:%1, %0" : "=r"(__v) : "m"(var)); \
	__v; })

#define __pcpu_op2(op, var, val)                                        \
	__asm__ __volatile__(op " %1, %%gs:%0" : "+m"(var) : "r"((__typeof__(var))(val)))

#define this_cpu_write(var, val) __pcpu_op2("mov", var, val)
#define this_cpu_add(var, val) __pcpu_op2("add", var, val)
#define this_cpu_sub(var, val) __pcpu_op2("sub", var, val)
#define this_cpu_inc(var) this_cpu_add(var, 1)
#define this_cpu_dec(var) this_cpu_sub(var, 1)

static inline void arch_set_percpu_base(unsigned long base)
{
	wrmsr(MSR_GS_BASE, base);
}
