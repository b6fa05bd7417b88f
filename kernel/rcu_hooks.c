/*
 * kernel/rcu_hooks.c - weak no-op stand-ins for the hooks the scheduler
 * and interrupt entry call into rcu/ (prototypes in rcu/rcupdate.h).  The
 * RCU implementation's strong definitions replace them at link time; these
 * only let the kernel link and run while an RCU file is missing.
 */
#include "kernel/percpu.h"
#include "rcu/rcupdate.h"

__weak DEFINE_PER_CPU(bool, rcu_need_deferred_qs);

__weak void rcu_note_context_switch(bool preempt) { (void)preempt; }
__weak void rcu_idle_enter(void) {}
__weak void rcu_idle_exit(void) {}
__weak void rcu_irq_enter(void) {}
__weak void rcu_irq_exit(void) {}
__weak void rcu_nmi_enter(void) {}
__weak void rcu_nmi_exit(void) {}
__weak void rcu_preempt_deferred_qs(void) {}
__weak void rcu_sched_clock_irq(int user) { (void)user; }
