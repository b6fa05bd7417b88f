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
	/*
	 * Added later, after the others so that a seed keeps the odds it
	 * gave the sites above (replays of docs/stress.md's tables).
	 */
	JITTER_SWITCH,		/* finish_task_switch(), prev's ->on_cpu just
				 * cleared: a wake-up elsewhere may run prev now
				 * (the slow paths' delay; on a CPU going down
				 * the site is JITTER_SWITCH_DYING) */
	JITTER_IRQ_ENTRY,	/* irq_enter(), the handler not yet run */
	JITTER_SRCU_READ,	/* between the stores of srcu_read_lock()'s and
				 * srcu_read_unlock()'s per-task record, where
				 * an interrupt's SRCU reader may land */
	JITTER_IPI,		/* a cross-CPU call queued, its IPI sent: the
				 * handler may run before the sender's next
				 * store (a slow path: odds and delay) */
	JITTER_SWITCH_DYING,	/* finish_task_switch() on a CPU going down,
				 * prev's ->on_cpu just cleared: a wake-up
				 * elsewhere moves prev and may run it to its
				 * exit meanwhile (a slow path: its odds, and
				 * 16 jitter.slow: that takes milliseconds).
				 * With prev asleep, the window is held until
				 * that run has ended (jitter_site_until());
				 * and, at the same odds, before the store:
				 * until a wake-up from another CPU has come
				 * (its waker then waits for the store) */
	JITTER_EQS,		/* between the two steps (counter, nesting) of
				 * rcu_eqs_enter()/exit() and of the outermost
				 * rcu_nmi_exit() from idle, irqs off: only an
				 * NMI lands there, and sees them half done.  At
				 * the slow paths' odds the CPU sends itself one
				 * and waits for it (jitter.c); the delay only
				 * when it cannot */
	JITTER_CB_INVOKE,	/* rcu_do_batch(), between two callbacks of one
				 * pass: what the first did (a completion, a
				 * barrier's count) is seen by its waiter before
				 * the ones behind it have run.  Once a pass at
				 * most (jitter_pass_begin()): a flood's pass
				 * holds thousands (the slow paths' odds, and
				 * JITTER_CB_INVOKE_SCALE jitter.slow: a wake-up
				 * on another CPU takes milliseconds) */
	JITTER_PLAY_DEAD,	/* any hot site above (unlock .. wake) on a CPU
				 * in its last steps (cpuhp_play_dead(), irqs
				 * off): what it publishes there (its last QS,
				 * its bit leaving the masks) is acted on by
				 * other CPUs' slow paths while it is slow to
				 * do the next step, as when the host preempts
				 * a dying vCPU.  A few dozen per offline: the
				 * slow paths' odds, and switch_dying's delay.
				 * At a lock release it holds instead, until an
				 * rcu_gp_init() walk ends on another CPU (a
				 * walk under way as it begins counts) or one
				 * is blocked by this operation, at most
				 * JITTER_DEAD_HOLD_SCALE x JITTER_UNTIL_SCALE
				 * jitter.slow (1.3 s at jitter=40: a grace
				 * period's end and the next one's start take
				 * hundreds of ms here): walk sites wait for
				 * hotplug's steps, and this is the reverse,
				 * the dying CPU's next step waiting for a walk.
				 * So do its own hotplug steps (at play_dead's
				 * odds, as its hot sites): a grace period
				 * begun meanwhile waits for it, so it owes a
				 * QS as it reports (its idle ticks have
				 * nearly always paid the last one).  No hold
				 * begins where none can line a crossing up
				 * (jitter_walk_may_cross()).
				 * gp_init sites do not wait for a hotplug
				 * step while a dying CPU holds one */
	JITTER_CB_HOLD,		/* rcuc woken, before it extracts, and with
				 * a batch extracted, before it runs it: while
				 * an rcu_barrier_sched() walk is under way,
				 * held (asleep) until that walk has ended, as
				 * play_dead holds until a gp_init walk's end,
				 * and bounded the same.  Callbacks that
				 * reach a list the walk has passed (moved
				 * there from a dead CPU) are then still
				 * queued when the barrier decides what it
				 * waits for, and a dying CPU's rcuc, asked
				 * to park meanwhile, parks without running
				 * its own (they move); an extracted batch
				 * is still counted in ->len when the walk
				 * looks.  The slow paths'
				 * odds: a walk is under way for microseconds
				 * unless it waits for hotplug */
	JITTER_NR_SITES
};
/* The hot sites, which become JITTER_PLAY_DEAD on a CPU playing dead. */
#define JITTER_HOT_SITES	((1u << JITTER_LOCK_RELEASE) | (1u << JITTER_RELEASE) |	\
				 (1u << JITTER_RMW) | (1u << JITTER_PREEMPT_ENABLE) |	\
				 (1u << JITTER_IRQ_ENABLE) | (1u << JITTER_WAKE))
/* JITTER_SWITCH_DYING's and JITTER_PLAY_DEAD's delay, in units of
 * jitter.slow: other CPUs' wake-ups and slow paths must fit inside. */
#define JITTER_SWITCH_DYING_SCALE	16
/* JITTER_CB_INVOKE's delay, in units of jitter.slow. */
#define JITTER_CB_INVOKE_SCALE		4
/* The slow paths' sites: odds 1..1/8 and jitter.slow's delays.  A
 * cross-CPU call is one (a few hundred a second at most). */
#define JITTER_SLOW_SITES	((1u << JITTER_HOTPLUG) | (1u << JITTER_BARRIER_WALK) |	\
				 (1u << JITTER_GP_INIT) | (1u << JITTER_GP_PHASE) |	\
				 (1u << JITTER_SRCU) | (1u << JITTER_IPI) |		\
				 (1u << JITTER_SWITCH_DYING) | (1u << JITTER_CB_INVOKE) |	\
				 (1u << JITTER_PLAY_DEAD) | (1u << JITTER_CB_HOLD))
/* The slow paths' odds, and an NMI sent into the window rather than a
 * delay (jitter='s, when none can be sent): only an NMI lands there, and
 * another CPU's (a few hundred a second) almost never does. */
#define JITTER_OFTEN_SITES	(1u << JITTER_EQS)
/*
 * Walks over the CPUs: when one fires while another task is inside
 * cpu_down()/cpu_up(), the set of CPUs is made to change in the middle of
 * the walk, the class of every hotplug race found so far (Linux's
 * gp_init_delay is commented "Races with CPU hotplug"); a plain delay
 * would have to be as long as a whole cpu_down().  Such a site waits for
 * the operation's next step (its next JITTER_HOTPLUG site), so the walk
 * and the operation interleave step by step: rcu_barrier_sched()'s at
 * most 160 jitter.slow (nothing of cpu_down() waits for a barrier),
 * rcu_gp_init()'s at most jitter.slow (cpu_down() waits for grace
 * periods).  A barrier walk sleeps across a whole operation only at the
 * dying CPU (jitter_walk_cpu(), below): a sleep wherever the site fired
 * would most often be before the walk's first CPU, and hold every barrier
 * off for the whole operation.
 */
#define JITTER_WALK_SITES	((1u << JITTER_BARRIER_WALK) | (1u << JITTER_GP_INIT))
/* Hot odds, but jitter.slow's delays: a crossing that needs a whole
 * slow path (a wake-up, a task's exit) to fit inside it. */
#define JITTER_LONG_SITES	(JITTER_SLOW_SITES | (1u << JITTER_SWITCH))
/*
 * A window held until the other side has acted (jitter_site_until()): a
 * random delay lines a crossing up only when it happens to be longer than
 * the other side's whole path (a wake-up's IPI, a run to a task's exit:
 * milliseconds under TCG, and as varied).  Such a site, when it fires at
 * its odds, spins until done(arg) says the crossing has resolved, at most
 * JITTER_UNTIL_SCALE jitter.slow (41 ms at jitter=40): the eqs site's NMI
 * wait, made general.
 */
#define JITTER_UNTIL_SCALE	64
/*
 * Holds until a walk over the CPUs has ended (JITTER_CB_HOLD's; and
 * JITTER_PLAY_DEAD's, bounded by JITTER_DEAD_HOLD_SCALE below), in
 * JITTER_UNTIL_SCALEs.  The walks
 * are marked by jitter_walk_begin()/end() around them, whether or not
 * their own sites fire (a walk under way as a hold begins counts).
 * While one holds, the walk's sites start no wait for a hotplug step
 * (JITTER_WALK_SITES), so that it ends.
 */
#define JITTER_WALK_HOLD_SCALE	4
/* A barrier walk's sleep across a CPU's death, and the rcuc holds while
 * one is under way, at most, in jitter.slow: 10 s at jitter=40, a whole
 * cpu_down() under TCG. */
#define JITTER_ACROSS_SCALE	16000
/*
 * A dying CPU's holds for an rcu_gp_init() walk (JITTER_PLAY_DEAD), in
 * JITTER_UNTIL_SCALEs: longer, since the walk comes only after the grace
 * period under way has ended (hundreds of ms in a jittered TREE04, where
 * JITTER_WALK_HOLD_SCALE's 164 ms let most holds run out first).  Such a
 * hold also ends when a walk is blocked by this operation
 * (jitter_walk_blocked()), and does not begin where no walk can end
 * first, or none sees the CPU any more (jitter_walk_may_cross()).
 */
#define JITTER_DEAD_HOLD_SCALE	32
enum jitter_walk {
	JITTER_WALK_GP_INIT,	/* rcu_gp_init()'s two passes */
	JITTER_WALK_BARRIER,	/* rcu_barrier_sched()'s walk over the CPUs */
	JITTER_NR_WALKS
};
/*
 * A barrier walk across a CPU's death (jitter_walk_cpu()): the first
 * rcu_barrier_sched() walk that comes to the CPU cpu_down() is taking
 * down, once cpu_down()'s synchronize_sched() has returned and while
 * that CPU still has callbacks, sleeps there until the operation's end
 * (at most JITTER_ACROSS_SCALE jitter.slow), once per operation and
 * once per walk (two would pass the barrier stressor's stuck bound).  The
 * walk has then passed the CPUs before it with the old CPU set, and
 * meets the dead one after its callbacks have moved (to the CPU running
 * cpu_down(), often one the walk has passed).  While such a walk is
 * under way, every rcuc kthread holds at JITTER_CB_HOLD without a draw,
 * until the walk's end or its own park (the same bound): the dying
 * CPU's callbacks stay there until they move, and the moved ones until
 * the walk has decided what it waits for.  Not before the
 * synchronize_sched(): its callback may be on the dying CPU (the task
 * running cpu_down() may be there), and nothing of cpu_down() after it
 * waits for a callback.  The crossing then comes at most offlines that
 * meet a barrier, not only when a random delay and the barrier
 * stressor's phases happen to line up.
 */

#ifdef CONFIG_JITTER
/* Bit s set: site s may fire (0 until jitter_init(), and with jitter=0). */
extern unsigned int jitter_site_mask;
void __jitter_site(unsigned int site);
void jitter_init(void);		/* kmain(), once the TSC is calibrated */
u64 jitter_delays(void);	/* delays so far, every CPU */
/* cpu_down()/cpu_up() under way (cpu_hotplug_begin()/done()). */
void jitter_hotplug_begin(void);
void jitter_hotplug_end(void);
void jitter_hotplug_down(int cpu);	/* the operation under way takes cpu down */
void __jitter_walk_cpu(unsigned int walk, int cpu);
u64 jitter_crossings(void);	/* walk sites that waited for one */
u64 jitter_walks_held_to_end(void);	/* of them, until its end (asleep) */
void __jitter_site_sleep(unsigned int site);
u64 jitter_nmis(void);		/* NMIs the eqs site sent itself */
void __jitter_site_until(unsigned int site, bool (*done)(void *arg), void *arg);
u64 jitter_holds(void);		/* jitter_site_until()s and walk holds fired */
u64 jitter_holds_done(void);	/* of them, ended by done() or the walk's end */
/* This CPU begins its last steps (cpuhp_play_dead()); cpu comes back up. */
void jitter_play_dead(void);
void jitter_cpu_up(int cpu);
void __jitter_walk_begin(unsigned int walk);
void __jitter_walk_end(unsigned int walk);
void __jitter_walk_blocked(unsigned int walk);
/*
 * Set by the code that runs a kind of walk (rcu_init(), for gp_init's),
 * called on a dying CPU that is about to hold for such a walk:
 * JITTER_CROSS_NONE if the hold cannot line a crossing up, because no
 * walk of that kind can end before this CPU goes on (the grace period
 * under way still waits for it, or this CPU holds a lock the walker may
 * need first), or because no walk sees this CPU any more (it has left):
 * the hold does not begin, it could only run to its bound.
 * JITTER_CROSS_NEXT if a walk under way has already dealt with this CPU
 * as it is now: only the end of one begun later ends the hold.
 * JITTER_CROSS_ANY otherwise (and if NULL).
 */
enum jitter_cross {
	JITTER_CROSS_NONE,
	JITTER_CROSS_ANY,
	JITTER_CROSS_NEXT,
};
extern enum jitter_cross (*jitter_walk_may_cross)(unsigned int walk);

/* A walk of the kind (enum jitter_walk) begins, ends: holds wait for it. */
static inline __attribute__((always_inline)) void jitter_walk_begin(unsigned int walk)
{
	if (unlikely(__atomic_load_n(&jitter_site_mask, __ATOMIC_RELAXED)))
		__jitter_walk_begin(walk);
}

static inline __attribute__((always_inline)) void jitter_walk_end(unsigned int walk)
{
	if (unlikely(__atomic_load_n(&jitter_site_mask, __ATOMIC_RELAXED)))
		__jitter_walk_end(walk);
}

/* A walk over the CPUs comes to cpu (with callbacks queued there, or
 * not): across a CPU's death, above. */
static inline __attribute__((always_inline)) void jitter_walk_cpu(unsigned int walk, int cpu,
								   bool has_cbs)
{
	if (unlikely(__atomic_load_n(&jitter_site_mask, __ATOMIC_RELAXED)) && has_cbs)
		__jitter_walk_cpu(walk, cpu);
}

/*
 * A walk of the kind waits for the hotplug operation under way (a lock
 * its dying CPU holds across what the walk must not see half done): a
 * hold there for that walk's end would only run to its bound, so it ends.
 */
static inline __attribute__((always_inline)) void jitter_walk_blocked(unsigned int walk)
{
	if (unlikely(__atomic_load_n(&jitter_site_mask, __ATOMIC_RELAXED)))
		__jitter_walk_blocked(walk);
}

static inline __attribute__((always_inline)) void jitter_site(unsigned int site)
{
	if (unlikely(__atomic_load_n(&jitter_site_mask, __ATOMIC_RELAXED) & (1u << site)))
		__jitter_site(site);
}

/*
 * A loop of n steps whose cost must stay one delay per pass (a batch of
 * callbacks: a flood's holds thousands): jitter_pass_begin() draws, with
 * the site's odds, one point between two steps, uniformly (the first
 * step's successor as often as the last's), and jitter_pass_step() after
 * each step delays there.
 */
struct jitter_pass { long left; };
long __jitter_pass_pick(unsigned int site, long n);	/* -1: no delay */
void __jitter_delay(unsigned int site);

static inline __attribute__((always_inline)) void jitter_pass_begin(struct jitter_pass *p,
								      unsigned int site, long n)
{
	p->left = -1;
	if (unlikely(__atomic_load_n(&jitter_site_mask, __ATOMIC_RELAXED) & (1u << site)) &&
	    n > 1)
		p->left = __jitter_pass_pick(site, n);
}

static inline __attribute__((always_inline)) void jitter_pass_step(struct jitter_pass *p,
								     unsigned int site)
{
	if (unlikely(p->left >= 0) && p->left-- == 0)
		__jitter_delay(site);
}

/*
 * jitter_site() whose delay ends early once done(arg) is true, and is
 * otherwise JITTER_UNTIL_SCALE jitter.slow (above).  done()
 * is called with irqs as the caller has them, again and again: it must
 * only read.
 */
static inline __attribute__((always_inline)) void jitter_site_until(unsigned int site,
								      bool (*done)(void *arg),
								      void *arg)
{
	if (unlikely(__atomic_load_n(&jitter_site_mask, __ATOMIC_RELAXED) & (1u << site)))
		__jitter_site_until(site, done, arg);
}

/* jitter_site() where the caller may sleep (a walk: JITTER_WALK_SITES). */
static inline __attribute__((always_inline)) void jitter_site_sleep(unsigned int site)
{
	if (unlikely(__atomic_load_n(&jitter_site_mask, __ATOMIC_RELAXED) & (1u << site)))
		__jitter_site_sleep(site);
}
#else
/* A macro: a site's argument is not even evaluated in the benchmark build. */
#define jitter_site(site) do { } while (0)
struct jitter_pass { };
#define jitter_pass_begin(p, site, n) ((void)(p))
#define jitter_pass_step(p, site) ((void)(p))
#define jitter_site_sleep(site) do { } while (0)
#define jitter_site_until(site, done, arg) do { } while (0)
#define jitter_walk_begin(walk) do { } while (0)
#define jitter_walk_end(walk) do { } while (0)
#define jitter_walk_cpu(walk, cpu, has_cbs) do { } while (0)
#define jitter_walk_blocked(walk) do { } while (0)
static inline void jitter_init(void) {}
static inline u64 jitter_delays(void) { return 0; }
static inline void jitter_hotplug_begin(void) {}
static inline void jitter_hotplug_end(void) {}
static inline void jitter_hotplug_down(int cpu) { (void)cpu; }
static inline u64 jitter_crossings(void) { return 0; }
static inline u64 jitter_walks_held_to_end(void) { return 0; }
static inline u64 jitter_nmis(void) { return 0; }
static inline u64 jitter_holds(void) { return 0; }
static inline u64 jitter_holds_done(void) { return 0; }
static inline void jitter_play_dead(void) {}
static inline void jitter_cpu_up(int cpu) { (void)cpu; }
#endif
