/*
 * rcu/poll.c - full polled grace-period cookies (Linux 6.2's struct
 * rcu_gp_oldstate) and the polled expedited grace periods; the contract
 * is rcu/rcupdate.h's.
 *
 * A full cookie is two snapshots: rcu_state.gp_seq and the flavour's
 * expedited_sequence (RCU-sched's rcu_sched_exp, or preemptible RCU's
 * rcu_preempt_exp, whose grace periods wait for rcu_read_lock() readers
 * only: which is what a cookie of get_state_synchronize_rcu_full()
 * promises).  Each half is tested as a plain cookie is (rcu_cookie_done(),
 * rcu/rcu.h): either sequence reaching its snapshot means a grace period
 * of that kind started and ended after the snapshot's full barrier, so
 * either one ending is enough.
 *
 * start_poll_synchronize_*_expedited() may be called where sleeping is
 * not allowed, so the expedited grace period it asks for runs in the
 * rcu_exp_poll kthread: one request bit per flavour, set by the caller
 * and taken by the kthread before it runs the grace period, so every
 * request's snapshot precedes the grace period's start.
 */
#include "rcu/tree.h"
#include "rcu/inject.h"
#include "kernel/printk.h"

/*
 * The one test of a polled cookie against a sequence, plain and full
 * halves alike.  The acquire load pairs with rcu_seq_end()'s release;
 * the caller's smp_mb() after a true result orders its frees.
 */
bool rcu_poll_seq_done(unsigned long *sp, unsigned long s)
{
	return rcu_cookie_done(smp_load_acquire(sp), s);
}

/* A half of a full cookie; the test build's rcu.inject=poll_early
 * accepts it one grace period early (the plain cookies stay exact, so
 * that torture's readers, which check theirs, still tell the truth). */
static bool full_half_done(unsigned long *sp, unsigned long s)
{
	if (rcu_inject(RCU_INJECT_POLL_EARLY) && !rcu_seq_state(s))
		s -= 1UL << RCU_SEQ_CTR_SHIFT;
	return rcu_poll_seq_done(sp, s);
}

static void get_state_full(struct rcu_exp_state *es, struct rcu_gp_oldstate *rgosp)
{
	/* Each snap's full barrier orders the caller's removal before it. */
	rgosp->rgos_norm = rcu_seq_snap(&rcu_state.gp_seq);
	rgosp->rgos_exp = rcu_seq_snap(&es->expedited_sequence);
}

static bool poll_state_full(struct rcu_exp_state *es, struct rcu_gp_oldstate *rgosp)
{
	if (full_half_done(&rcu_state.gp_seq, READ_ONCE(rgosp->rgos_norm)) ||
	    full_half_done(&es->expedited_sequence, READ_ONCE(rgosp->rgos_exp))) {
		smp_mb();	/* the caller's frees follow the grace period */
		return true;
	}
	return false;
}

/* ---- the expedited requests ---- */

#define RCU_EXP_POLL_SCHED	0x1
#define RCU_EXP_POLL_PREEMPT	0x2

static atomic_t rcu_exp_poll_pending = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(rcu_exp_poll_wq);
static struct task *rcu_exp_poll_task;
/* Expedited grace periods the kthread has run (tests read it). */
atomic_long_t rcu_exp_poll_gps = ATOMIC_LONG_INIT(0);

static void rcu_exp_poll_request(unsigned int bit)
{
	atomic_or(bit, &rcu_exp_poll_pending);
	/* Before rcu_late_init() the normal grace period asked for by the
	 * caller completes the cookie (and there is a single CPU anyway). */
	if (READ_ONCE(rcu_exp_poll_task))
		wake_up(&rcu_exp_poll_wq);
}

static int rcu_exp_poll_kthread(void *unused)
{
	(void)unused;
	while (!kthread_should_stop()) {
		unsigned int p;

		wait_event(rcu_exp_poll_wq, atomic_read(&rcu_exp_poll_pending) ||
			   kthread_should_stop());
		p = atomic_xchg(&rcu_exp_poll_pending, 0);
		/* Taken before the grace period's own snapshot: it covers
		 * every request whose bit this xchg took. */
		if (p & RCU_EXP_POLL_SCHED) {
			synchronize_exp(&rcu_sched_exp);
			atomic_long_inc(&rcu_exp_poll_gps);
		}
#ifdef CONFIG_PREEMPT_RCU
		if (p & RCU_EXP_POLL_PREEMPT) {
			synchronize_exp(&rcu_preempt_exp);
			atomic_long_inc(&rcu_exp_poll_gps);
		}
#endif
	}
	return 0;
}

void rcu_poll_init_late(void)
{
	struct task *t = kthread_create(rcu_exp_poll_kthread, NULL, "rcu_exp_poll");

	BUG_ON(!t);
	set_task_prio(t, PRIO_HIGH);
	/*
	 * Wake-ups do not move a task off its CPU, so a kthread placed on a
	 * CPU that then runs a long RCU-sched reader would serve no
	 * expedited poll until that reader ends, although the expedited GP
	 * need not wait for it.  CPU 0 is never taken offline.
	 */
	kthread_bind(t, 0);
	WRITE_ONCE(rcu_exp_poll_task, t);
	wake_up_process(t);
	if (atomic_read(&rcu_exp_poll_pending))
		wake_up(&rcu_exp_poll_wq);
}

/* ---- RCU-sched ---- */

void get_state_synchronize_sched_full(struct rcu_gp_oldstate *rgosp)
{
	get_state_full(&rcu_sched_exp, rgosp);
}

void start_poll_synchronize_sched_full(struct rcu_gp_oldstate *rgosp)
{
	get_state_full(&rcu_sched_exp, rgosp);
	(void)start_poll_synchronize_sched();	/* asks for a later GP, if any */
}

bool poll_state_synchronize_sched_full(struct rcu_gp_oldstate *rgosp)
{
	return poll_state_full(&rcu_sched_exp, rgosp);
}

void cond_synchronize_sched_full(struct rcu_gp_oldstate *rgosp)
{
	if (!poll_state_full(&rcu_sched_exp, rgosp))
		synchronize_sched();
}

unsigned long start_poll_synchronize_sched_expedited(void)
{
	unsigned long s = start_poll_synchronize_sched();

	rcu_exp_poll_request(RCU_EXP_POLL_SCHED);
	return s;
}

void start_poll_synchronize_sched_expedited_full(struct rcu_gp_oldstate *rgosp)
{
	start_poll_synchronize_sched_full(rgosp);
	rcu_exp_poll_request(RCU_EXP_POLL_SCHED);
}

/* ---- preemptible RCU ---- */
#ifdef CONFIG_PREEMPT_RCU

void get_state_synchronize_rcu_full(struct rcu_gp_oldstate *rgosp)
{
	get_state_full(&rcu_preempt_exp, rgosp);
}

void start_poll_synchronize_rcu_full(struct rcu_gp_oldstate *rgosp)
{
	get_state_full(&rcu_preempt_exp, rgosp);
	(void)start_poll_synchronize_rcu();
}

bool poll_state_synchronize_rcu_full(struct rcu_gp_oldstate *rgosp)
{
	return poll_state_full(&rcu_preempt_exp, rgosp);
}

void cond_synchronize_rcu_full(struct rcu_gp_oldstate *rgosp)
{
	if (!poll_state_full(&rcu_preempt_exp, rgosp))
		synchronize_rcu();
}

unsigned long start_poll_synchronize_rcu_expedited(void)
{
	unsigned long s = start_poll_synchronize_rcu();

	rcu_exp_poll_request(RCU_EXP_POLL_PREEMPT);
	return s;
}

void start_poll_synchronize_rcu_expedited_full(struct rcu_gp_oldstate *rgosp)
{
	start_poll_synchronize_rcu_full(rgosp);
	rcu_exp_poll_request(RCU_EXP_POLL_PREEMPT);
}

#endif /* CONFIG_PREEMPT_RCU */
