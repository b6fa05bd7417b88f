/*
 * kernel/preempt.c - interrupt and NMI entry/exit accounting.
 *
 * x86_trap() (arch/x86_64/idt.c) brackets every device/IPI handler with
 * irq_enter()/irq_exit() and every NMI with nmi_enter()/nmi_exit().  They
 * mark preempt_count, so in_irq()/in_nmi() are true inside and the
 * handler is an RCU-sched reader, and tell RCU that the CPU is not idle
 * for the duration (an irq or NMI may land in the idle loop's halt).
 * The order mirrors Linux: RCU is told first on entry and last on exit.
 */
#include "kernel/preempt.h"
#include "kernel/tick_sched.h"
#include "kernel/lockdep.h"
#include "rcu/rcupdate.h"
#include "asm/irq.h"

void irq_enter(void)
{
	rcu_irq_enter();
	tick_irq_enter();	/* an interrupt ends tickless idle */
	preempt_count_add(HARDIRQ_OFFSET);
	jitter_site(JITTER_IRQ_ENTRY);	/* test build: a slow entry, the interrupted code waits */
}

void irq_exit(void)
{
	lockdep_check_context_end("an interrupt handler returned");
	preempt_count_sub(HARDIRQ_OFFSET);
	rcu_irq_exit();
}

void nmi_enter(void)
{
	preempt_count_add(NMI_OFFSET + HARDIRQ_OFFSET);
	rcu_nmi_enter();
}

void nmi_exit(void)
{
	rcu_nmi_exit();
	preempt_count_sub(NMI_OFFSET + HARDIRQ_OFFSET);
}
