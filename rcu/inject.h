/*
 * rcu/inject.h - test-build-only switches that put known RCU bugs back,
 * so that a test or a torture stressor can be shown to catch each one
 * (rcu.inject=barrier,exp_irqoff,srcu_accel on the command line).
 *
 *   barrier     rcu_do_batch() stops counting callbacks in ->len when it
 *               takes them off the list, before invoking them:
 *               rcu_barrier_sched() can then return while they run.
 *   exp_irqoff  a deferred expedited quiescent state is reported at the
 *               closing preempt_enable()/local_bh_enable() even with irqs
 *               disabled, i.e. inside an irqs-off reader.
 *   srcu_accel  the SRCU callback kthread does not re-accelerate after
 *               its advance and extract: a callback queued at the wrong
 *               moment waits for a grace period nobody requests.
 *   report_dead rcu_report_dead() does nothing.
 *   barrier_online rcu_barrier_sched() skips offline CPUs.
 *   ofl_lock    rcu_state.ofl_lock is never taken: a CPU going offline
 *               can report its QS and leave qsmaskinitnext on either
 *               side of the next grace period's rcu_gp_init().
 *   stall_order rcu_gp_init() stores the new stall deadline after the
 *               new gp_seq: a CPU may see the grace period with the last
 *               one's deadline, long past, and report a stall at its start.
 *   irq_eqs     rcu_nmi_enter() leaves an idle CPU in its extended QS: an
 *               irq or NMI handler that lands in the idle loop is a
 *               reader no grace period waits for.
 *   barrier_migrate rcu_migrate_callbacks() does not tell a barrier in
 *               progress: callbacks moved from a CPU it has yet to deal
 *               with to one it has dealt with are not waited for.
 *   poll_early  a full polled cookie (either half) is accepted one
 *               grace period early (rcu/poll.c).
 *
 * Only CONFIG_SANITIZE builds (build/test) have them; in the benchmark
 * build rcu_inject() is the constant false and the code is gone.
 */
#pragma once

#include "kernel/types.h"

#define RCU_INJECT_BARRIER	0x1
#define RCU_INJECT_EXP_IRQOFF	0x2
#define RCU_INJECT_SRCU_ACCEL	0x4
#define RCU_INJECT_REPORT_DEAD	0x8	/* rcu_report_dead() does nothing */
#define RCU_INJECT_BARRIER_ONLINE 0x10	/* rcu_barrier_sched() skips offline CPUs */
#define RCU_INJECT_OFL_LOCK	0x20	/* rcu_state.ofl_lock is never taken */
#define RCU_INJECT_STALL_ORDER	0x40	/* the stall deadline after the new gp_seq */
#define RCU_INJECT_IRQ_EQS	0x80	/* an irq/NMI from idle stays in the EQS */
#define RCU_INJECT_BARRIER_MIGRATE 0x100 /* the barrier blind to moved callbacks */
#define RCU_INJECT_POLL_EARLY	0x200	/* full cookies accepted one GP early */

#ifdef CONFIG_SANITIZE
/* The bugs asked for (RCU_INJECT_*), from rcu.inject= at rcu_init(). */
extern unsigned int rcu_inject_mask;
void rcu_inject_init(void);
static inline bool rcu_inject(unsigned int bug)
{
	return unlikely(READ_ONCE(rcu_inject_mask) & bug);
}
#else
static inline void rcu_inject_init(void) {}
static inline bool rcu_inject(unsigned int bug) { (void)bug; return false; }
#endif
