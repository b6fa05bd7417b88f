/* arch/x86_64/ipi.c: inter-processor interrupts through the LAPIC: the
 * function-call vector (kernel/smp.c's call queues), the reschedule
 * vector, and NMIs to one CPU or to all others. */
#include "arch/x86_64/lapic.h"
#include "arch/x86_64/ipi.h"
#include "asm/irq.h"
#include "asm/smp.h"
#include "kernel/smp.h"

static void call_function_interrupt(struct pt_regs *regs)
{
	(void)regs;
	smp_call_function_interrupt();
}

static void reschedule_interrupt(struct pt_regs *regs)
{
	(void)regs;
	scheduler_ipi();
}

void ipi_init(void)
{
	irq_register(CALL_FUNCTION_VECTOR, call_function_interrupt);
	irq_register(RESCHEDULE_VECTOR, reschedule_interrupt);
}

void arch_send_call_function_ipi(int cpu)
{
	lapic_send_ipi(cpu_apic_id[cpu], APIC_DM_FIXED | CALL_FUNCTION_VECTOR);
}

void arch_send_reschedule(int cpu)
{
	lapic_send_ipi(cpu_apic_id[cpu], APIC_DM_FIXED | RESCHEDULE_VECTOR);
}

bool arch_send_nmi(int cpu)
{
	if (!cpu_online(cpu))
		return false;
	return lapic_send_ipi(cpu_apic_id[cpu], APIC_DM_NMI);
}

/* One directed NMI per online CPU, not the all-but-self shorthand: that
 * would also hit CPUs we never started (smp=, one that failed), which sit
 * in wait-for-SIPI; QEMU then runs them into a triple fault that resets
 * the machine. */
void arch_send_nmi_allbutself(void)
{
	int cpu, me = smp_processor_id();

	for_each_online_cpu(cpu)
		if (cpu != me)
			arch_send_nmi(cpu);
}
