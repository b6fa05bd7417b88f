/*
 * kernel/jitter.h - random delays at synchronization points, so that
 * stress lines up the few-instruction windows where two slow paths
 * cross (test build only; Linux's rcutree.gp_*_delay and KCSAN's
 * delays, done everywhere at once).
 *
 * `jitter=N` (µs, 0 = off, the default) with `jitter.seed=S`: each site
 * class below gets, from the seed, a probability of firing; each time it
 * fires the CPU spins 0..N µs on the TSC (0..jitter.slow µs at the slow
 * paths' sites, default 16 N: Linux's gp_*_delay are milliseconds).  The seed is printed at boot
 * ("jitter: max N us seed S"), so a failing run can be replayed (as far
 * as timing replays: the choices, not the interleaving, are fixed).
 *
 * A site is one inline call, jitter_site(JITTER_...), placed after the
 * operation that publishes (so the other side acts on it while this CPU
 * is slow).  It is empty in the benchmark build: CONFIG_JITTER is the
 * test build's (Makefile), and every site compiles to nothing without it.
 * It does nothing in NMI context, before jitter_init() (early boot, before
 * the TSC is calibrated), and the delay loop itself calls no site.
 */
#pragma once

#include "kernel/types.h"

enum jitter_site {
	/* Hot: taken millions of times; probabilities 2^-6..2^-12 or off. */
	JITTER_LOCK_RELEASE,	/* arch_spin_unlock(), rwlock unlocks */
	JITTER_RELEASE,		/* smp_store_release(), rcu_assign_pointer() */
	JITTER_RMW,		/* xchg(), cmpxchg(), atomic_t's ordered RMWs */
	JITTER_PREEMPT_ENABLE,	/* preempt_enable(), local_bh_enable() */
	JITTER_IRQ_ENABLE,	/* local_irq_enable(), local_irq_restore() */
	JITTER_WAKE,		/* wake_up_process() */
	/* Slow paths: probabilities 1..1/8, every seed slows some of them. */
	JITTER_HOTPLUG,		/* each step of cpu_down()/cpu_up() */
	JITTER_BARRIER_WALK,	/* each CPU of rcu_barrier_sched()'s walk */
	JITTER_GP_INIT,		/* each node of rcu_gp_init()'s two passes */
	JITTER_GP_PHASE,	/* the GP kthread between init, FQS, cleanup */
	JITTER_SRCU,		/* SRCU's scans and flip */
	JITTER_NR_SITES
};
#define JITTER_FIRST_SLOW	JITTER_HOTPLUG

#ifdef CONFIG_JITTER
/* Bit s set: site s may fire (0 until jitter_init(), and with jitter=0). */
extern unsigned int jitter_site_mask;
void __jitter_site(unsigned int site);
void jitter_init(void);		/* kmain(), once the TSC is calibrated */
u64 jitter_delays(void);	/* delays so far, every CPU */

static inline __attribute__((always_inline)) void jitter_site(unsigned int site)
{
	if (unlikely(__atomic_load_n(&jitter_site_mask, __ATOMIC_RELAXED) & (1u << site)))
		__jitter_site(site);
}
#else
static inline void jitter_site(unsigned int site) { (void)site; }
static inline void jitter_init(void) {}
static inline u64 jitter_delays(void) { return 0; }
#endif
