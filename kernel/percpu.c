/* kernel/percpu.c: making per-CPU copies of the .data..percpu template. */
#include "kernel/percpu.h"
#include "kernel/string.h"
#include "asm/preempt.h"

extern char __per_cpu_start[], __per_cpu_end[];
extern char __percpu_boot_area[]; /* linker.ld: SIZEOF(.data..percpu) in .bss */

DEFINE_PER_CPU(unsigned long, this_cpu_off);
DEFINE_PER_CPU(int, cpu_number);
/* Nothing disabled, nothing pending (asm/preempt.h's folded bit). */
DEFINE_PER_CPU(int, __preempt_count) = PREEMPT_ENABLED;

unsigned long __per_cpu_offset[NR_CPUS];

size_t percpu_area_size(void)
{
	return (size_t)(__per_cpu_end - __per_cpu_start);
}

void percpu_setup_cpu(int cpu, void *area)
{
	unsigned long off = (unsigned long)area - (unsigned long)__per_cpu_start;

	memcpy(area, __per_cpu_start, percpu_area_size());
	__per_cpu_offset[cpu] = off;
	per_cpu(this_cpu_off, cpu) = off;
	per_cpu(cpu_number, cpu) = cpu;
}

void percpu_load(int cpu)
{
	arch_set_percpu_base(__per_cpu_offset[cpu]);
}

void percpu_init_boot_cpu(void)
{
	percpu_setup_cpu(0, __percpu_boot_area);
	percpu_load(0);
}
