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
#include "kernel/printk.h"
#include "rcu/rcupdate.h"
#include "asm/irq.h"

#ifdef CONFIG_DEBUG_PREEMPT
/*
 * Test build: the count at each hardirq level's entry (an NMI nests as
 * one more level), so that irq_exit() sees a handler that leaves
 * preemption (or bh) disabled: the interrupted code would resume inside
 * an RCU-sched reader that never ends.  Reported once per CPU and
 * repaired, as Linux's call_timer_fn() does for a timer's leak.
 */
static DEFINE_PER_CPU(int[HARDIRQ_MASK / HARDIRQ_OFFSET + 1], irq_entry_count);
static DEFINE_PER_CPU(bool, irq_leak_said);

static void irq_entry_record(void)
{
	int pc = preempt_count();

	this_cpu_write(irq_entry_count[hardirq_count() / HARDIRQ_OFFSET], pc);
}

static void irq_exit_check(void)
{
	int pc = preempt_count();
	int was = this_cpu_read(irq_entry_count[hardirq_count() / HARDIRQ_OFFSET]);

	if (likely(pc == was))
		return;
	if (!this_cpu_read(irq_leak_said)) {
		this_cpu_write(irq_leak_said, true);
		WARN(1, "irq exit: preempt leak: %08x -> %08x", was, pc);
	}
	preempt_count_set(was);
}
#else
static inline void irq_entry_record(void) { }
static inline void irq_exit_check(void) { }
#endif

void irq_enter(void)
{
	rcu_irq_enter();
	tick_irq_enter();	/* an interrupt ends tickless idle */
	preempt_count_add(HARDIRQ_OFFSET);
	irq_entry_record();
	jitter_site(JITTER_IRQ_ENTRY);	/* test build: a slow entry, the interrupted code waits */
}

void irq_exit(void)
{
	lockdep_check_context_end("an interrupt handler returned");
	irq_exit_check();
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
