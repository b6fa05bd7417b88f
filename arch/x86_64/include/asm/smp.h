/* asm/smp.h: what generic SMP code (kernel/smp.c) asks of the arch: IPIs
 * to a logical CPU, and the APIC id behind each. */
#pragma once

#include "kernel/types.h"
#include "kernel/percpu.h"

extern u32 cpu_apic_id[NR_CPUS];

/* What the boot tried: CPUs it meant to run (boot CPU included, after
 * smp= and NR_CPUS) and how many of those failed to come online. */
extern int smp_cpus_wanted, smp_cpus_failed;

void arch_send_call_function_ipi(int cpu);
void arch_send_reschedule(int cpu);
/* An NMI to cpu; false if it could not be sent. */
bool arch_send_nmi(int cpu);
void arch_send_nmi_allbutself(void);

/* Boot (arch/x86_64/smpboot.c): first, before rcu_init(), the boot CPU
 * identified and the ACPI tables read, which fixes num_possible_cpus();
 * then 8259 off, LAPIC, I/O APIC, TSC, this CPU's timer, IPI vectors.
 * Then smp_boot_cpus() starts the APs, checks TSC sync and prints the CPU
 * table. */
void x86_platform_early_init(void);
void x86_platform_init(void);
void smp_boot_cpus(void);
