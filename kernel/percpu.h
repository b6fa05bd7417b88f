/* kernel/percpu.h: per-CPU variables, in the manner of Linux.
 *
 * DEFINE_PER_CPU puts a variable in the .data..percpu section.  That section
 * is a pristine template: no CPU ever runs on it.  Each CPU (the boot CPU
 * included) gets a copy made before anything writes to it, and
 * __per_cpu_offset[cpu] is the distance from the template to that copy.
 * The this_cpu_* operations (asm/percpu.h) reach the running CPU's copy in
 * one instruction. */
#pragma once

#include "kernel/types.h"
#include "asm/percpu.h"

#define NR_CPUS 64

#define DEFINE_PER_CPU(type, name) \
	__section(".data..percpu") __typeof__(type) name
#define DECLARE_PER_CPU(type, name) \
	extern __section(".data..percpu") __typeof__(type) name

extern unsigned long __per_cpu_offset[NR_CPUS];

/* Integer arithmetic: a copy may lie below the template, and pointer
 * arithmetic that wraps is undefined (UBSan would rightly say so). */
#define per_cpu_ptr(ptr, cpu) \
	((__typeof__(ptr))((unsigned long)(ptr) + __per_cpu_offset[cpu]))
#define per_cpu(var, cpu) (*per_cpu_ptr(&(var), (cpu)))
#define this_cpu_ptr(ptr) \
	((__typeof__(ptr))((unsigned long)(ptr) + this_cpu_read(this_cpu_off)))

DECLARE_PER_CPU(unsigned long, this_cpu_off);
DECLARE_PER_CPU(int, cpu_number);
/* Linux's layout: bits 0-7 preemption nesting, 8-15 softirq, 16-19 hardirq,
 * 20-23 NMI.  Defined here because printk and the trap entry need it before
 * the scheduler is up; kernel/preempt.h gives the API. */
DECLARE_PER_CPU(int, __preempt_count);

#define raw_smp_processor_id() this_cpu_read(cpu_number)

/* Size of one CPU's area; callers allocate that many bytes for a new CPU. */
size_t percpu_area_size(void);
/* Make area (percpu_area_size() bytes) CPU cpu's copy of the template. */
void percpu_setup_cpu(int cpu, void *area);
/* Point this CPU's GS base at cpu's area (run on that CPU). */
void percpu_load(int cpu);
/* The boot CPU's copy lives in .bss (the linker reserves it). */
void percpu_init_boot_cpu(void);
