/*
 * rcu/tree.c - RCU-sched's grace-period machine: quiescent states, the
 * rcu_node tree, the grace-period kthread, callbacks and the idle/NMI
 * (dynticks) counter.  See rcu/tree.h for the data and rcu/rcupdate.h for
 * the contract with callers.
 *
 * Memory-ordering contract of this file (every barrier below serves it):
 *  (1) A CPU's QS report (clearing its bit in a leaf, under the leaf's
 *      lock) follows, in that CPU's program order, the end of every reader
 *      it ran before; the lock release orders those reads before the
 *      clear.  Reports climb the tree lock by lock, so the GP kthread,
 *      which takes every node's lock in rcu_gp_cleanup(), is ordered after
 *      every report, and its release store of the new gp_seq is ordered
 *      after them too.  Whoever sees that gp_seq with acquire (callback
 *      invocation, synchronize_sched(), the polled API) is therefore
 *      ordered after every pre-existing reader.
 *  (2) An idle CPU does not report: the GP kthread reads its dynticks
 *      counter with a full-barrier RMW.  The counter's increments on idle
 *      entry/exit and irq/NMI entry/exit from idle are full barriers, so an
 *      even value read means every reader before that idle entry is over,
 *      and any reader after the next increment starts after the read, hence
 *      after the GP started, hence sees the updater's new pointers.
 *  (3) A QS counts for GP g only if the CPU saw g start first (it noticed
 *      the leaf's gp_seq under the leaf's lock, after the GP kthread set
 *      the leaf's qsmask under the same lock); reports are checked against
 *      the leaf's gp_seq, so a stale QS is never credited to a newer GP.
 */
#include "rcu/tree.h"
#include "rcu/srcu.h"
#include "rcu/inject.h"
#include "rcu/debug_head.h"
#include "kernel/printk.h"
#include "kernel/cmdline.h"
#include "kernel/jitter.h"
#include "kernel/slab.h"
#include "kernel/cpu.h"
#include "kernel/test_gate.h"
#include "kernel/lockdep.h"
#include "kernel/preempt_mask.h"

/* Non-idle baseline of dynticks_nmi_nesting (large, even), as Linux. */
#define DYNTICK_IRQ_NONIDLE	((long)(((unsigned long)-1 >> 2) + 1))
/* rdp->blimit during a callback flood: no limit. */
#define LONG_MAX_BLIMIT		((long)(~0UL >> 1))

DEFINE_PER_CPU(struct rcu_data, rcu_data);
DEFINE_PER_CPU(bool, rcu_data_ready);	/* rcu_init_percpu() ran */

struct rcu_state rcu_state;

unsigned int rcu_fanout_leaf = RCU_FANOUT_LEAF;
core_param(rcu.fanout_leaf, rcu_fanout_leaf, uint, "CPUs per leaf rcu_node (2..64)");
unsigned int rcu_fanout = RCU_FANOUT;
core_param(rcu.fanout, rcu_fanout, uint, "children per interior rcu_node (2..64)");
static unsigned int rcu_geometry_cpus;
core_param(rcu.geometry_cpus, rcu_geometry_cpus, uint,
	   "CPUs the rcu_node tree is built for (0: the possible CPUs, num_possible_cpus())");
static unsigned int jiffies_till_first_fqs = 3;
core_param(rcu.jiffies_till_first_fqs, jiffies_till_first_fqs, uint,
	   "ticks from the scan for idle CPUs at a grace period's start to the next");
static unsigned int jiffies_till_next_fqs = 3;
core_param(rcu.jiffies_till_next_fqs, jiffies_till_next_fqs, uint,
	   "ticks between later scans");
static unsigned int jiffies_till_sched_qs = 6;
core_param(rcu.jiffies_till_sched_qs, jiffies_till_sched_qs, uint,
	   "ticks into a grace period before CPUs still holding it are made to reschedule");
static int blimit = 64;
core_param(rcu.blimit, blimit, int, "callbacks invoked per batch");
static int qhimark = 10000;
core_param(rcu.qhimark, qhimark, int, "queued callbacks above which batches are unlimited");
static int qlowmark = 100;
core_param(rcu.qlowmark, qlowmark, int, "queued callbacks below which the batch limit returns");

atomic_t rcu_misuse_reports = ATOMIC_INIT(0);
atomic_t rcu_deref_warnings = ATOMIC_INIT(0);

static int rcu_cpu_kthread(void *arg);

/* ---------------- small helpers ---------------- */

void rcu_mutex_init(struct rcu_mutex *m)
{
	atomic_set(&m->locked, 0);
	init_waitqueue_head(&m->wq);
}

/* The cmpxchg is a full barrier: the previous holder's section is ordered
 * before ours (it released with a full-barrier xchg). */
void rcu_mutex_lock(struct rcu_mutex *m)
{
	wait_event(m->wq, atomic_cmpxchg(&m->locked, 0, 1) == 0);
}

void rcu_mutex_unlock(struct rcu_mutex *m)
{
	atomic_xchg(&m->locked, 0);
	wake_up(&m->wq);
}

/*
 * The article's Quick Quiz 3 (docs/article.md): a synchronize call inside
 * its own reader can never return.  Say so, with a backtrace, and return instead of hanging.
 */
bool rcu_misuse_check(const char *what)
{
	int pc = preempt_count();
	bool irqs = irqs_disabled();

	if (likely(pc == 0 && !irqs && !rcu_preempt_depth()))
		return false;
	atomic_inc(&rcu_misuse_reports);
	lockdep_print_context();	/* test build: which locks make it a reader */
	/* Preemptible readers hold up the same grace periods (rcu/preempt.c). */
	if (pc == 0 && !irqs) {
		WARN(1, "rcu: %s() called inside an rcu_read_lock() read-side critical "
		     "section (nesting %d): it would wait for itself forever; returning "
		     "without waiting\n", what, rcu_preempt_depth());
		return true;
	}
	WARN(1, "rcu: %s() called inside an RCU-sched read-side critical section "
	     "(preempt_count=%#x, irqs %s): it would wait for itself forever; "
	     "returning without waiting\n", what, pc, irqs ? "off" : "on");
	return true;
}

void rcu_dereference_sched_warn(const char *file, int line)
{
	static int warned;

	atomic_inc(&rcu_deref_warnings);
	if (xchg(&warned, 1))
		return;
	printk(KERN_ERR "WARNING: rcu_dereference_sched() outside an RCU-sched "
	       "read-side critical section at %s:%d (preempt_count=0, irqs on)\n",
	       file, line);
	dump_stack();
}

/*
 * With one CPU that RCU watches, a caller that may block is itself proof
 * that no reader runs anywhere: blocking is a grace period.  Before the
 * GP kthread exists there is no other way to wait.  "Watches" is from
 * rcu_cpu_starting() to rcu_report_dead(), not cpu_online_mask: a CPU
 * going down leaves the mask long before its last reader ends.  The
 * barrier orders the caller's updates before the count's load, which
 * acquires: a CPU counted out had finished its readers (its decrement is
 * a full barrier after them), and one counted in later reads the updates
 * (rcu_cpu_starting() orders its increment before its first reader).
 */
bool rcu_blocking_is_gp(void)
{
	smp_mb();
	/* ... unless a reader preempted on this CPU is still in its section. */
	if (atomic_read_acquire(&rcu_state.n_online_cpus) <= 1)
		return !rcu_preempt_has_blocked_tasks();
	if (unlikely(!READ_ONCE(rcu_state.scheduler_active))) {
		WARN_ONCE(1, "rcu: grace period wait before rcu_late_init() with %d CPUs\n",
			  num_online_cpus());
		return true;
	}
	return false;
}

unsigned long rcu_batches_completed_sched(void)
{
	/* Counted from boot: gp_seq starts near the wrap (rcu_init). */
	return rcu_seq_completed(&rcu_state.gp_seq);
}

/* ---------------- dynticks: idle is an extended quiescent state ---------------- */

int rcu_dynticks_snap(struct rcu_data *rdp)
{
	/* A full-barrier read (contract (2)): pairs with the increments. */
	return atomic_add_return(0, &rdp->dynticks);
}

bool rcu_dynticks_in_eqs(int snap)
{
	return !(snap & 1);
}

bool rcu_is_watching(void)
{
	bool ret;

	preempt_disable();
	ret = !rcu_dynticks_in_eqs(atomic_read(&this_cpu_ptr(&rcu_data)->dynticks));
	preempt_enable_no_resched();
	return ret;
}

/*
 * Idle entry: the increment makes the counter even.  It is a full barrier
 * (a locked RMW on x86, seq_cst on the host), so this CPU's reads in
 * readers before idle are ordered before a GP kthread's read of the even
 * value (contract (2)).  nesting is cleared first so an NMI landing
 * between the two lines sees "not idle, nested" and leaves the counter
 * alone.
 */
static void rcu_eqs_enter(struct rcu_data *rdp)
{
	WRITE_ONCE(rdp->dynticks_nmi_nesting, 0);
	jitter_site(JITTER_EQS);	/* test build: an NMI here, half done */
	WARN_ON_ONCE(rcu_dynticks_in_eqs(atomic_inc_return(&rdp->dynticks)) == false);
}

/*
 * Idle exit: odd again; the full barrier orders it before later readers.
 * The counter goes first: an NMI landing before the nesting store sees
 * the CPU watched and steps by 2, which it undoes.
 */
static void rcu_eqs_exit(struct rcu_data *rdp)
{
	WARN_ON_ONCE(rcu_dynticks_in_eqs(atomic_inc_return(&rdp->dynticks)));
	jitter_site(JITTER_EQS);	/* test build: an NMI here, half done */
	WRITE_ONCE(rdp->dynticks_nmi_nesting, DYNTICK_IRQ_NONIDLE);
}

static void rcu_report_qs_here(struct rcu_data *rdp);

/*
 * Irqs off: the grace period this CPU's leaf runs still waits for it.
 * Read locklessly; rcu_report_qs_here() rechecks under the leaf lock.
 */
static bool rcu_gp_waits_here(struct rcu_data *rdp)
{
	struct rcu_node *rnp = rdp->mynode;

	return (READ_ONCE(rnp->qsmask) & rdp->grpmask) &&
	       rcu_seq_state(READ_ONCE(rnp->gp_seq));
}

/*
 * The check after the increment is the idle shortcut's other half (the
 * first is rcu_gp_fqs_loop()'s scan at a grace period's start).  A
 * grace period whose scan read this counter before the increment (odd:
 * this CPU was still busy, or in an irq from idle) would otherwise
 * notice this CPU only at its next timed scan, and its tick may be
 * stopped meanwhile.  The increment is a full barrier before the read of
 * qsmask here, as the scan's counter read is one after rcu_gp_init() set
 * the bit: so the scan saw the counter even, or this sees the bit (or
 * both).  The idle task is in no reader, so this is a QS seen after the
 * grace period started (contract (3)); it is reported outside the EQS,
 * as from any other task context, and that report may end the grace
 * period and let the next one begin and scan this CPU while it is out:
 * hence the loop (each turn is a grace period that has started).
 * tests/model checks both halves (the assert at the halt: no CPU halts
 * awaited by a grace period whose scan read its counter at task level).
 */
void rcu_idle_enter(void)
{
	struct rcu_data *rdp = this_cpu_ptr(&rcu_data);

	if (!this_cpu_read(rcu_data_ready))
		return;
	rcu_eqs_enter(rdp);
	while (unlikely(rcu_gp_waits_here(rdp))) {
		rcu_eqs_exit(rdp);
		rcu_report_qs_here(rdp);
		rcu_eqs_enter(rdp);
	}
}

/*
 * Queued callbacks keep this CPU's tick (Linux's rcu_needs_cpu() without
 * callback offloading).  rcu_gp_cleanup() already wakes the rcuc of a
 * CPU whose callbacks a grace period made ready, so they would not be
 * stranded; the tick stays so that their progress (noticing the grace
 * period, the stall check, the tick's own wake of rcuc) is the same as
 * on a busy CPU and does not rest on that one wake.  An idle CPU seldom
 * has callbacks queued for long, so it costs idle CPUs next to nothing.
 */
bool rcu_needs_cpu(void)
{
	lockdep_assert_preemption_disabled();	/* this CPU's callbacks */
	return READ_ONCE(this_cpu_ptr(&rcu_data)->cblist.len) != 0;
}

void rcu_idle_exit(void)
{
	if (!this_cpu_read(rcu_data_ready))
		return;
	rcu_eqs_exit(this_cpu_ptr(&rcu_data));
}

/*
 * An irq or NMI: if it interrupted idle, make the CPU visible (counter
 * odd) before the handler reads anything, and record with an odd step (1)
 * that this level must put the CPU back into idle on exit; otherwise step
 * by 2.  nesting is re-read after the increment, so an NMI that lands
 * between the increment and the store nests correctly (it steps by 2 and
 * undoes it).
 */
void rcu_nmi_enter(void)
{
	struct rcu_data *rdp = this_cpu_ptr(&rcu_data);
	long incby = 2;

	/*
	 * Test build: every state an irq or NMI can land in is the CPU
	 * watched (counter odd, any nesting: the windows of rcu_eqs_enter(),
	 * rcu_eqs_exit() and rcu_nmi_exit() are odd with nesting 0) or idle
	 * with nothing nested (even, 0).  Even with a nesting count is one of
	 * those steps done in the wrong order, which this level would then
	 * count as nested and leave odd (or even) behind it.  An NMI between
	 * the two reads leaves both as it found them.  The eqs jitter site
	 * sends an NMI into each window (kernel/jitter.c).
	 */
#ifdef CONFIG_SANITIZE
	{
		int snap = atomic_read(&rdp->dynticks);
		long nesting = READ_ONCE(rdp->dynticks_nmi_nesting);

		WARN_ONCE(rcu_dynticks_in_eqs(snap) && nesting && !rcu_inject(RCU_INJECT_IRQ_EQS),
			  "rcu: an irq or NMI found CPU %d idle (dynticks %d even) with "
			  "nesting %ld: an EQS step half done in the wrong order",
			  smp_processor_id(), snap, nesting);
	}
#endif

	/* rcu.inject=irq_eqs (test build): stays idle, counted by 2, undone by 2. */
	if (rcu_dynticks_in_eqs(atomic_read(&rdp->dynticks)) &&
	    !rcu_inject(RCU_INJECT_IRQ_EQS)) {
		atomic_inc_return(&rdp->dynticks);	/* full barrier, then read */
		incby = 1;
	}
	WRITE_ONCE(rdp->dynticks_nmi_nesting, READ_ONCE(rdp->dynticks_nmi_nesting) + incby);
	barrier();
}

void rcu_nmi_exit(void)
{
	struct rcu_data *rdp = this_cpu_ptr(&rcu_data);
	long nesting = READ_ONCE(rdp->dynticks_nmi_nesting);

	barrier();
	if (nesting != 1) {
		WRITE_ONCE(rdp->dynticks_nmi_nesting, nesting - 2);
		return;
	}
	/* Outermost level that left idle: back to idle; the handler's reads
	 * are ordered before the counter goes even. */
	WRITE_ONCE(rdp->dynticks_nmi_nesting, 0);
	jitter_site(JITTER_EQS);	/* test build: an NMI here, half done */
	atomic_inc_return(&rdp->dynticks);
}

void rcu_irq_enter(void) { rcu_nmi_enter(); }
void rcu_irq_exit(void) { rcu_nmi_exit(); }

/* ---------------- quiescent-state reports ---------------- */

/* This CPU passed a QS (it is outside every reader right now). */
static void rcu_qs(struct rcu_data *rdp)
{
	if (READ_ONCE(rdp->cpu_no_qs))
		WRITE_ONCE(rdp->cpu_no_qs, false);
}

/*
 * The GP kthread need not wake itself from its own task context: it is
 * running, and looks at its condition before it sleeps.  From an irq on
 * its CPU it must be woken all the same (as in Linux): the irq may have
 * come between its wait_event's last look at the condition and its
 * schedule(), and a report there (its CPU's tick) that is not followed
 * by a wake-up leaves it asleep until its timeout, jiffies_till_first_fqs
 * or a second for a new grace period's start.
 */
void rcu_gp_kthread_wake(void)
{
	struct task *t = READ_ONCE(rcu_state.gp_kthread);

	if (!t || (current == t && !in_interrupt()))
		return;
	wake_up(&rcu_state.gp_wq);
}

/*
 * Clear mask in rnp (locked, irqs saved in flags) for GP gps and carry the
 * report up while a node's last bit goes.  One node lock at a time; the
 * release of each orders the reports below it before the parent's clear.
 */
void rcu_report_qs_rnp(unsigned long mask, struct rcu_node *rnp,
		       unsigned long gps, unsigned long flags)
{
	int depth = 1;		/* node locks this report took (statistics) */

	for (;;) {
		lockdep_assert_held(&rnp->lock);
		if (!(rnp->qsmask & mask) || rnp->gp_seq != gps) {
			spin_unlock_irqrestore(&rnp->lock, flags);
			return;		/* already reported, or a stale GP */
		}
		WRITE_ONCE(rnp->qsmask, rnp->qsmask & ~mask);
		RCU_ASSERT(!(rnp->qsmask & ~rnp->qsmaskinit));
		trace_rcu_quiescent_state_report("rcu_sched", gps, mask, rnp->qsmask, rnp->grplo, rnp->level);
		/* A leaf with preempted readers reports when the last leaves. */
		if (rnp->qsmask || rcu_preempt_blocked_readers_cgp(rnp) || !rnp->parent) {
			bool done = !rnp->qsmask && !rcu_preempt_blocked_readers_cgp(rnp);

			if (!rnp->parent && !rnp->qsmask)
				rcu_stats_root_report(depth);
			spin_unlock_irqrestore(&rnp->lock, flags);
			if (done)
				rcu_gp_kthread_wake();
			return;
		}
		mask = rnp->grpmask;
		spin_unlock_irqrestore(&rnp->lock, flags);
		rnp = rnp->parent;
		rcu_node_lock_qs(rnp, flags);
		depth++;
	}
}

/* Report this CPU's QS if it is for the GP its leaf is waiting on. */
static void rcu_report_qs_rdp(struct rcu_data *rdp)
{
	struct rcu_node *rnp = rdp->mynode;
	unsigned long flags;

	rcu_node_lock_qs(rnp, flags);
	if (rdp->cpu_no_qs || rdp->gp_seq != rnp->gp_seq) {
		/* A QS from before this CPU saw the GP: not for this GP. */
		spin_unlock_irqrestore(&rnp->lock, flags);
		return;
	}
	rdp->core_needs_qs = false;
	rcu_report_qs_rnp(rdp->grpmask, rnp, rnp->gp_seq, flags);
}

/* rnp locked.  Notice a GP start or end at this CPU's leaf (contract (3)). */
static void __note_gp_changes(struct rcu_node *rnp, struct rcu_data *rdp)
{
	if (rdp->gp_seq == rnp->gp_seq)
		return;
	rdp->gp_seq = rnp->gp_seq;
	if (rcu_seq_state(rnp->gp_seq)) {
		bool need = !!(rnp->qsmask & rdp->grpmask);

		WRITE_ONCE(rdp->cpu_no_qs, need);
		rdp->core_needs_qs = need;
		WRITE_ONCE(rdp->ticks_this_gp, 0);
	} else {
		rdp->core_needs_qs = false;
	}
}

static void note_gp_changes(struct rcu_data *rdp)
{
	struct rcu_node *rnp = rdp->mynode;
	unsigned long flags;

	if (rdp->gp_seq == READ_ONCE(rnp->gp_seq))
		return;		/* cheap check first; rechecked under the lock */
	spin_lock_irqsave(&rnp->lock, flags);
	__note_gp_changes(rnp, rdp);
	spin_unlock_irqrestore(&rnp->lock, flags);
}

/*
 * This CPU, irqs off, is at a quiescent state in task context: the task
 * on it is inside no reader of either flavour.  Note the grace period
 * its leaf runs and report for it, as a tick would
 * (rcu_sched_clock_irq()).  For the idle loop on its way into the
 * extended QS (rcu_idle_enter()), which must not wait for a tick that
 * its tickless CPU may never take.
 */
static void rcu_report_qs_here(struct rcu_data *rdp)
{
	note_gp_changes(rdp);
	rcu_qs(rdp);
	if (rdp->core_needs_qs && !READ_ONCE(rdp->cpu_no_qs))
		rcu_report_qs_rdp(rdp);
}

/*
 * From schedule(), irqs off, perhaps under the run-queue lock: only mark
 * the QS here (no locks, no wakeups); the next tick reports it.
 */
void rcu_note_context_switch(bool preempt)
{
	struct rcu_data *rdp = this_cpu_ptr(&rcu_data);

	if (!this_cpu_read(rcu_data_ready))
		return;
	rcu_preempt_note_context_switch(preempt);	/* first: queue a reader */
	rcu_qs(rdp);
	rcu_sched_exp_qs(false);
}

#ifdef CONFIG_SANITIZE
/* Test build: rcu_barrier_window_arm() (rcu/tree.h). */
static struct {
	int cpu;		/* armed for this CPU; -1: none */
	int target;		/* where cpu's callbacks moved; -1: nowhere yet */
	struct test_gate gate;	/* a barrier sleeps there in front of cpu */
} rcu_barrier_window = { .cpu = -1, .target = -1 };

void rcu_barrier_window_arm(int cpu)
{
	test_gate_arm(&rcu_barrier_window.gate);
	WRITE_ONCE(rcu_barrier_window.target, -1);
	smp_store_release(&rcu_barrier_window.cpu, cpu);
}

bool rcu_barrier_window_waiting(void)
{
	return test_gate_waiting(&rcu_barrier_window.gate);
}

void rcu_barrier_window_release(void)
{
	test_gate_release(&rcu_barrier_window.gate);
}

void rcu_barrier_window_close(void)
{
	int cpu = xchg(&rcu_barrier_window.cpu, -1), target = xchg(&rcu_barrier_window.target, -1);

	/* Their rcuc kthreads would look again within a second anyway. */
	if (cpu >= 0 && per_cpu_ptr(&rcu_data, cpu)->cb_kthread)
		wake_up(&per_cpu_ptr(&rcu_data, cpu)->cb_wq);
	if (target >= 0 && per_cpu_ptr(&rcu_data, target)->cb_kthread)
		wake_up(&per_cpu_ptr(&rcu_data, target)->cb_wq);
}

/* cpu's rcuc kthread is to leave its callbacks queued. */
static bool rcu_barrier_window_holds_cbs(int cpu)
{
	return READ_ONCE(rcu_barrier_window.cpu) == cpu ||
	       READ_ONCE(rcu_barrier_window.target) == cpu;
}

/* rcu_migrate_callbacks() moved dead's callbacks to this CPU. */
static void rcu_barrier_window_moved(int dead)
{
	if (READ_ONCE(rcu_barrier_window.cpu) == dead)
		WRITE_ONCE(rcu_barrier_window.target, smp_processor_id());
}

/* rcu_barrier_sched(), about to deal with cpu: sleep there if armed. */
static void rcu_barrier_window_wait(int cpu)
{
	if (smp_load_acquire(&rcu_barrier_window.cpu) != cpu ||
	    test_gate_released(&rcu_barrier_window.gate))
		return;
	test_gate_wait(&rcu_barrier_window.gate, 30000);
	/* Passed once, even on the bound: the loop's end closes the test. */
	test_gate_release(&rcu_barrier_window.gate);
}

/* rcu_barrier_sched() has dealt with every CPU: if it is about to wait
 * for callbacks, those held must run; if not, the test closes. */
static void rcu_barrier_window_loop_done(bool will_wait)
{
	if (will_wait && test_gate_released(&rcu_barrier_window.gate))
		rcu_barrier_window_close();
}
#else
static inline bool rcu_barrier_window_holds_cbs(int cpu) { (void)cpu; return false; }
static inline void rcu_barrier_window_moved(int dead) { (void)dead; }
static inline void rcu_barrier_window_wait(int cpu) { (void)cpu; }
static inline void rcu_barrier_window_loop_done(bool will_wait) { (void)will_wait; }
#endif

/*
 * A hint, read without rdp->lock (the rcuc kthread rechecks under it):
 * some callback may run now.  It must turn on when the *oldest* waiting
 * segment's GP ends, not the newest: during a flood the newest GP is
 * always in the future, and callbacks long since ready would pile up
 * until the flood stopped.  It must also turn off once rcu_do_batch()
 * has run what was ready, or the rcuc kthread would spin.
 */
static bool rcu_cbs_ready_lockless(struct rcu_data *rdp)
{
	if (!READ_ONCE(rdp->cblist.len) || rcu_barrier_window_holds_cbs(rdp->cpu))
		return false;
	if (READ_ONCE(rdp->cblist.tails[RCU_DONE_TAIL]) != &rdp->cblist.head)
		return true;
	return READ_ONCE(rdp->cbs_waiting) &&
	       rcu_seq_done(&rcu_state.gp_seq, READ_ONCE(rdp->gp_seq_first));
}

/*
 * The scheduling-clock tick, irqs off, in irq context.  The interrupted
 * code was outside every reader iff its preempt_count (ours minus the
 * hardirq level the entry code added) is zero, or it was user mode.
 */
void rcu_sched_clock_irq(int user)
{
	struct rcu_data *rdp = this_cpu_ptr(&rcu_data);
	bool qs = user || preempt_count() - HARDIRQ_OFFSET == 0;

	lockdep_assert_irqs_disabled();

	if (!this_cpu_read(rcu_data_ready))
		return;
	WRITE_ONCE(rdp->ticks_this_gp, rdp->ticks_this_gp + 1);
	note_gp_changes(rdp);
	if (qs) {
		/* A preemptible reader is no RCU-sched reader, but still a reader. */
		if (!rcu_preempt_tick_in_reader())
			rcu_qs(rdp);
		rcu_sched_exp_qs(true);
	}
	if (rdp->core_needs_qs && !READ_ONCE(rdp->cpu_no_qs))
		rcu_report_qs_rdp(rdp);
	if (rcu_cbs_ready_lockless(rdp) && rdp->cb_kthread)
		wake_up(&rdp->cb_wq);
	rcu_check_cpu_stall(rdp);
}

/* ---------------- starting grace periods ---------------- */

/* Make sure the GP that ends at seq will run (Linux's rcu_start_this_gp). */
static void rcu_start_this_gp(unsigned long seq)
{
	struct rcu_node *root = rcu_get_root();
	unsigned long flags;
	bool wake = false;

	if (ULONG_CMP_GE(READ_ONCE(rcu_state.gp_seq_needed), seq))
		return;
	spin_lock_irqsave(&root->lock, flags);
	if (ULONG_CMP_LT(rcu_state.gp_seq_needed, seq)) {
		WRITE_ONCE(rcu_state.gp_seq_needed, seq);
		/* A running GP's cleanup sees gp_seq_needed and starts the next. */
		if (!rcu_seq_state(rcu_state.gp_seq)) {
			WRITE_ONCE(rcu_state.gp_flags, rcu_state.gp_flags | RCU_GP_FLAG_INIT);
			wake = true;
		}
	}
	spin_unlock_irqrestore(&root->lock, flags);
	if (wake)
		rcu_gp_kthread_wake();
}

/* Ask the GP kthread to scan for idle CPUs now (a callback flood). */
static void rcu_force_quiescent_state(void)
{
	struct rcu_node *root = rcu_get_root();
	unsigned long flags;

	spin_lock_irqsave(&root->lock, flags);
	WRITE_ONCE(rcu_state.gp_flags, rcu_state.gp_flags | RCU_GP_FLAG_FQS);
	spin_unlock_irqrestore(&root->lock, flags);
	rcu_gp_kthread_wake();
}

/* rdp->lock held: tag new callbacks with their GP and request it. */
static __fastpath void rcu_accelerate_cbs(struct rcu_data *rdp)
{
	unsigned long seq;

	lockdep_assert_held(&rdp->lock);

	rcu_segcblist_accelerate(&rdp->cblist, rcu_seq_snap(&rcu_state.gp_seq));
	if (rcu_segcblist_nextgp(&rdp->cblist, &seq)) {
		WRITE_ONCE(rdp->gp_seq_needed, seq);
		rcu_start_this_gp(seq);
	}
	if (rcu_segcblist_firstgp(&rdp->cblist, &seq)) {
		WRITE_ONCE(rdp->gp_seq_first, seq);
		WRITE_ONCE(rdp->cbs_waiting, true);
	} else {
		WRITE_ONCE(rdp->cbs_waiting, false);
	}
}

#ifdef CONFIG_SANITIZE
/*
 * Test build, rdp->lock held, at each release after rdp's list changed:
 * what rcu_accelerate_cbs() caches agrees with the list.  The oldest tag
 * is the GP the lockless hint waits for (gp_seq_first, cbs_waiting):
 * stale, it leaves ready callbacks to the rcuc kthread's 1 s timeout
 * (neither rcu_gp_cleanup() nor the tick wakes it).  The newest is
 * requested (rcu_state.gp_seq_needed only grows): else no grace period
 * may come for it.  Untagged callbacks (NEXT, when both tag slots are
 * taken) need a tagged one ahead, whose grace period's end runs
 * rcu_do_batch(), which tags them.  A path that changes a list and skips
 * the accelerate fails here, on its first change, not when some test
 * happens to wait for that list.
 */
static void rcu_cbs_check(struct rcu_data *rdp)
{
	unsigned long first = 0, last = 0, req = READ_ONCE(rcu_state.gp_seq_needed);
	bool tagged = rcu_segcblist_firstgp(&rdp->cblist, &first);

	lockdep_assert_held(&rdp->lock);
	if (tagged)
		rcu_segcblist_nextgp(&rdp->cblist, &last);
	WARN_ONCE(tagged != rdp->cbs_waiting ||
		  (tagged && (first != rdp->gp_seq_first || last != rdp->gp_seq_needed ||
			      ULONG_CMP_LT(req, last))) ||
		  (!tagged && rcu_segcblist_pend_cbs(&rdp->cblist)),
		  "rcu: CPU %d's callbacks and what it cached of them disagree: "
		  "tagged %d waiting %d, first GP %lx cached %lx, newest %lx cached %lx "
		  "requested %lx, untagged %d", rdp->cpu, tagged, rdp->cbs_waiting,
		  first, rdp->gp_seq_first, last, rdp->gp_seq_needed, req,
		  rcu_segcblist_pend_cbs(&rdp->cblist) && !tagged);
}
#else
static inline void rcu_cbs_check(struct rcu_data *rdp) { (void)rdp; }
#endif

/* ---------------- CPU hotplug against rcu_gp_init() ---------------- */

/* rcu_state.ofl_lock, irqs off (rcu.inject=ofl_lock: never taken). */
static void rcu_ofl_lock(void)
{
	if (!rcu_inject(RCU_INJECT_OFL_LOCK))
		arch_spin_lock(&rcu_state.ofl_lock);
}

/* True once held, or when it is not to be taken at all. */
static bool rcu_ofl_trylock(void)
{
	return rcu_inject(RCU_INJECT_OFL_LOCK) || arch_spin_trylock(&rcu_state.ofl_lock);
}

static void rcu_ofl_unlock(void)
{
	if (!rcu_inject(RCU_INJECT_OFL_LOCK))
		arch_spin_unlock(&rcu_state.ofl_lock);
}

/*
 * rcu_gp_init(), ofl_lock found held (by a CPU going down or coming up).
 * Test build: for as long as it waits, it says so to the dying CPU's
 * jitter holds (jitter_walk_blocked()), not once: a hold begun after a
 * single telling would wait for this walk, which waits for its lock, to
 * its bound (6.5 s at jitter=200, past spinlock.timeout_ms).  It tries
 * the lock between tellings, half of spinlock.timeout_ms at most, then
 * waits in rcu_ofl_lock(), whose watchdog names a holder that never
 * lets go.
 */
static void rcu_ofl_lock_blocked(void)
{
#ifdef CONFIG_JITTER
	u64 end = ktime_get_ns() + (u64)spinlock_timeout_ms * 500000ull;

	do {
		jitter_walk_blocked(JITTER_WALK_GP_INIT);
		if (rcu_ofl_trylock())
			return;
		cpu_relax();
	} while (ktime_get_ns() < end);
#endif
	rcu_ofl_lock();
}

#ifdef CONFIG_SANITIZE
/* Test build: rcu_ofl_window_arm() (rcu/tree.h). */
static struct {
	int cpu;			/* armed for this CPU; -1: none */
	unsigned long gp_blocked;	/* last GP whose init found ofl_lock held */
	unsigned long gp_inited;	/* last GP whose init finished */
} rcu_ofl_window = { .cpu = -1 };
atomic_t rcu_ofl_windows_held = ATOMIC_INIT(0);

void rcu_ofl_window_arm(int cpu)
{
	unsigned long gps = READ_ONCE(rcu_state.gp_seq);

	WRITE_ONCE(rcu_ofl_window.gp_blocked, gps);
	WRITE_ONCE(rcu_ofl_window.gp_inited, gps);
	smp_store_release(&rcu_ofl_window.cpu, cpu);
}

static void rcu_ofl_window_gp_blocked(unsigned long gps)
{
	WRITE_ONCE(rcu_ofl_window.gp_blocked, gps);
}

static void rcu_ofl_window_gp_inited(unsigned long gps)
{
	WRITE_ONCE(rcu_ofl_window.gp_inited, gps);
}

/* Spin, irqs off, until cond or 20 s; true if cond. */
#define rcu_ofl_window_spin(cond) ({					\
	u64 __end = ktime_get_ns() + 20000ull * 1000000ull;		\
									\
	while (!(cond) && ktime_get_ns() < __end)			\
		cpu_relax();						\
	(cond);								\
})

/*
 * The dying CPU, irqs off, before its locks: if armed for it, disarm and
 * make sure a grace period waits for it, so that rcu_report_dead() has a
 * QS to report.  Its dynticks counter is odd and stays so: nobody else
 * can report for it.
 */
static bool rcu_ofl_window_open(struct rcu_data *rdp)
{
	struct rcu_node *rnp = rdp->mynode;
	int cpu = rdp->cpu;

	if (smp_load_acquire(&rcu_ofl_window.cpu) != cpu ||
	    cmpxchg(&rcu_ofl_window.cpu, cpu, -1) != cpu)
		return false;
	rcu_start_this_gp(rcu_seq_snap(&rcu_state.gp_seq));
	if (!rcu_ofl_window_spin(rcu_seq_state(READ_ONCE(rnp->gp_seq)) &&
				 (READ_ONCE(rnp->qsmask) & rdp->grpmask))) {
		pr_err("rcu: ofl window: no grace period waited for CPU %d within 20 s\n", rdp->cpu);
		return false;
	}
	return true;
}

/*
 * The dying CPU, ofl_lock held, its QS for GP gps reported and its bit
 * still in qsmaskinitnext: ask for the next GP and wait until its
 * rcu_gp_init() has finished (so it copied the bit: the bug) or found
 * ofl_lock held (so it cannot have).
 */
static void rcu_ofl_window_hold(struct rcu_data *rdp, unsigned long gps)
{
	rcu_start_this_gp(rcu_seq_snap(&rcu_state.gp_seq));
	if (rcu_ofl_window_spin(ULONG_CMP_LT(gps, READ_ONCE(rcu_ofl_window.gp_blocked)) ||
				ULONG_CMP_LT(gps, READ_ONCE(rcu_ofl_window.gp_inited))))
		atomic_inc(&rcu_ofl_windows_held);
	else
		pr_err("rcu: ofl window: no grace period after %ld began its init within 20 s "
		       "(CPU %d)\n", (long)rcu_seq_ctr(gps), rdp->cpu);
}

bool rcu_gp_waits_only_on(struct rcu_node *rnp, unsigned long *gpsp)
{
	struct rcu_node *root = rcu_get_root();
	unsigned long gps = smp_load_acquire(&root->gp_seq);

	if (!rcu_seq_state(gps))
		return false;
	for (; rnp->parent; rnp = rnp->parent)
		if (READ_ONCE(rnp->parent->qsmask) != rnp->grpmask)
			return false;
	smp_rmb();	/* the masks read were this grace period's */
	if (READ_ONCE(root->gp_seq) != gps)
		return false;
	*gpsp = gps;
	return true;
}
#else
static inline void rcu_ofl_window_gp_blocked(unsigned long gps) { (void)gps; }
static inline void rcu_ofl_window_gp_inited(unsigned long gps) { (void)gps; }
static inline bool rcu_ofl_window_open(struct rcu_data *rdp) { (void)rdp; return false; }
static inline void rcu_ofl_window_hold(struct rcu_data *rdp, unsigned long gps)
{
	(void)rdp;
	(void)gps;
}
#endif

/* ---------------- the grace-period kthread ---------------- */

/* Returns false if no GP was wanted after all. */
#ifdef CONFIG_SANITIZE
/*
 * Test build, leaf lock held: qsmaskinitnext holds only CPUs that RCU
 * saw start and not yet die (each rdp's own record, kept beside the bit).
 * A stray bit would hold every grace period for a CPU that never reports:
 * reported once, and dropped so the grace period can end.
 */
static void rcu_check_leaf_cpus(struct rcu_node *rnp, unsigned long gps)
{
	unsigned long stray = 0;

	for (int cpu = rnp->grplo; cpu <= rnp->grphi; cpu++) {
		struct rcu_data *rdp = per_cpu_ptr(&rcu_data, cpu);

		if ((rnp->qsmaskinitnext & rdp->grpmask) && !rdp->rcu_cpu_up)
			stray |= rdp->grpmask;
		/*
		 * The crossing itself, whether or not it strands this grace
		 * period (the second pass reports for the CPU if its bit has
		 * gone by then): the first time, not only when it hangs one.
		 */
		WARN_ONCE((rnp->qsmaskinitnext & rdp->grpmask) && rdp->rcu_cpu_leaving,
			  "rcu: grace period %ld copies CPU %d into leaf %d-%d, which has "
			  "reported its last QS and is leaving (qsmaskinitnext %#lx): "
			  "rcu_gp_init() inside rcu_report_dead()\n", (long)rcu_seq_ctr(gps),
			  cpu, rnp->grplo, rnp->grphi, rnp->qsmaskinitnext);
	}
	if (WARN_ONCE(stray, "rcu: leaf %d-%d: qsmaskinitnext %#lx holds CPUs that are "
		      "offline for RCU (mask %#lx); dropped\n", rnp->grplo, rnp->grphi,
		      rnp->qsmaskinitnext, stray))
		WRITE_ONCE(rnp->qsmaskinitnext, rnp->qsmaskinitnext & ~stray);
}

bool rcu_inject_offline_qsmask(int cpu)
{
	struct rcu_data *rdp = per_cpu_ptr(&rcu_data, cpu);
	struct rcu_node *rnp = rdp->mynode;
	unsigned long flags;
	bool done = false;

	if (!rnp)
		return false;
	spin_lock_irqsave(&rnp->lock, flags);
	if (!rdp->rcu_cpu_up) {
		WRITE_ONCE(rnp->qsmaskinitnext, rnp->qsmaskinitnext | rdp->grpmask);
		done = true;
	}
	spin_unlock_irqrestore(&rnp->lock, flags);
	return done;
}

/*
 * Test build, leaf lock held, from the fqs scan: a CPU the grace period
 * waits for is online for RCU (its bit in qsmaskinitnext).  A departing
 * CPU reports its QS before its bit goes (rcu_report_dead()), and
 * rcu_gp_init()'s second pass reports for one gone since the first pass
 * copied it, each under this lock.  A CPU outside would hold the grace
 * period for ever (nothing reports a dead CPU: its counter stays odd),
 * which shows only as a stall many seconds later, if the run lasts.
 * Linux's rcu_implicit_dynticks_qs() complains the same way and breaks
 * the grace period loose: true, and the scan reports it.
 */
static bool rcu_qs_cpu_offline(struct rcu_node *rnp, struct rcu_data *rdp)
{
	if (rnp->qsmaskinitnext & rdp->grpmask)
		return false;
	WARN_ONCE(1, "rcu: grace period %ld waits for CPU %d, which is offline for RCU "
		  "(leaf %d-%d qsmask %#lx qsmaskinitnext %#lx): nothing would report it\n",
		  (long)rcu_seq_ctr(rnp->gp_seq), rdp->cpu, rnp->grplo, rnp->grphi,
		  rnp->qsmask, rnp->qsmaskinitnext);
	return true;
}
#else
static inline void rcu_check_leaf_cpus(struct rcu_node *rnp, unsigned long gps)
{
	(void)rnp;
	(void)gps;
}
static inline bool rcu_qs_cpu_offline(struct rcu_node *rnp, struct rcu_data *rdp)
{
	(void)rnp;
	(void)rdp;
	return false;
}
#endif

static bool rcu_gp_init(void)
{
	struct rcu_node *root = rcu_get_root(), *rnp;
	unsigned long flags, gps;
	int i;

	spin_lock_irqsave(&root->lock, flags);
	if (!(rcu_state.gp_flags & RCU_GP_FLAG_INIT)) {
		spin_unlock_irqrestore(&root->lock, flags);
		return false;
	}
	WRITE_ONCE(rcu_state.gp_flags, 0);
	if (WARN_ON_ONCE(rcu_seq_state(rcu_state.gp_seq))) {
		spin_unlock_irqrestore(&root->lock, flags);
		return false;
	}
	rcu_stall_window_expire(rcu_state.gp_seq + 1);	/* test build only */
	/*
	 * The start time and the stall deadline (read locklessly: stall.c,
	 * preempt.c's boosting) before the GP number, whose release orders
	 * them first: a CPU that sees the new GP must not see the last
	 * one's deadline, which may be long past, and report a stall at once.
	 */
	WRITE_ONCE(rcu_state.gp_start, jiffies);
	if (!rcu_inject(RCU_INJECT_STALL_ORDER))
		rcu_stall_gp_start();
	/* Start: readers that began before this store may hold old data. */
	rcu_seq_start(&rcu_state.gp_seq);
	gps = rcu_state.gp_seq;
	trace_rcu_grace_period("rcu_sched", gps, "start");
	spin_unlock(&root->lock);
	/*
	 * Test build: Linux's gp_preinit_delay ("races with CPU hotplug"),
	 * as soon as the new GP is out and irqs still off: every other CPU
	 * may act on it now, so whatever the start still does after the
	 * release is seen late.
	 */
	jitter_site(JITTER_GP_PHASE);
	/* Test build: irqs still off, but unlocked: another CPU's tick may
	 * need the root in note_gp_changes(), a leaf in a one-node tree. */
	rcu_stall_window_hold(gps);
	if (rcu_inject(RCU_INJECT_STALL_ORDER))
		rcu_stall_gp_start();
	local_irq_restore(flags);
	smp_mb();	/* order the start before any CPU's view of qsmask below */
	jitter_walk_begin(JITTER_WALK_GP_INIT);	/* test build: holds wait for its end */

	/*
	 * First pass, leaves up: each leaf takes the CPUs online now, each
	 * interior node the children with a CPU, or with preempted readers
	 * that may predate this GP (a leaf whose CPUs have all left still
	 * holds the GP for them).  A leaf is copied under ofl_lock, which
	 * CPU hotplug holds from a departing CPU's QS report until its bit
	 * has left qsmaskinitnext (rcu_report_dead()) and while an arriving
	 * one's is set: so this GP sees each CPU either online, or gone with
	 * nothing left to report.  Only this kthread reads or writes
	 * qsmaskinit, so the interior ones are rebuilt without their locks.
	 */
	for (i = 0; i < rcu_state.level_first[rcu_state.num_levels - 1]; i++)
		rcu_state.node[i].qsmaskinit = 0;
	for (i = rcu_state.num_nodes - 1; i >= 0; i--) {
		bool leaf;

		rnp = &rcu_state.node[i];
		leaf = rnp->level == rcu_state.num_levels - 1;
		jitter_site(JITTER_GP_INIT);	/* test build: Linux's gp_init_delay */
		local_irq_save(flags);
		if (leaf && !rcu_ofl_trylock()) {
			rcu_ofl_window_gp_blocked(gps);
			rcu_ofl_lock_blocked();
		}
		spin_lock(&rnp->lock);
		if (leaf) {
			rcu_check_leaf_cpus(rnp, gps);	/* test build only */
			rnp->qsmaskinit = rnp->qsmaskinitnext;
		}
		if (rnp->parent && (rnp->qsmaskinit || (leaf && !list_empty(&rnp->blkd_tasks))))
			rnp->parent->qsmaskinit |= rnp->grpmask;
		spin_unlock(&rnp->lock);
		if (leaf)
			rcu_ofl_unlock();
		local_irq_restore(flags);
	}
	rcu_gp_hold_point(RCU_GP_HOLD_INIT);	/* test build only */

	/*
	 * Second pass, root first, so a CPU seeing the GP at its leaf finds
	 * its ancestors waiting.  A CPU that went offline since the first
	 * pass has already run rcu_report_dead(), which found no bit of
	 * this GP to clear: report for it here, or nothing ever would.  A
	 * leaf held only by preempted readers that have all left since
	 * reports itself.
	 */
	rcu_for_each_node_breadth_first(rnp) {
		unsigned long gone;
		bool in_gp;

		jitter_site(JITTER_GP_INIT);
		spin_lock_irqsave(&rnp->lock, flags);
		/* Nothing of the last grace period is still pending. */
		RCU_ASSERT(!rnp->qsmask);
		RCU_ASSERT(!rcu_preempt_blocked_readers_cgp(rnp));
		WRITE_ONCE(rnp->qsmask, rnp->qsmaskinit);
		WRITE_ONCE(rnp->gp_seq, gps);
		if (rnp->level != rcu_state.num_levels - 1) {
			spin_unlock_irqrestore(&rnp->lock, flags);
			continue;
		}
		/*
		 * Only a leaf the first pass counted is in this GP.  One that
		 * was left out (no CPU, no reader then) may have gained both
		 * since: a CPU come online and a reader switched out there,
		 * after the GP began.  Its readers must not hold this GP up:
		 * nobody reports such a leaf up the tree, so ->gp_tasks
		 * would outlive the GP, trip the next one's check above, and
		 * its last reader's unlock would report for a GP that never
		 * waited for it (Linux: rcu_preempt_check_blocked_tasks()
		 * only with ->qsmaskinit or ->wait_blkd_tasks).
		 */
		in_gp = !rnp->parent || (rnp->parent->qsmaskinit & rnp->grpmask);
		if (in_gp)
			rcu_preempt_gp_init_node(rnp);
		gone = rnp->qsmask & ~rnp->qsmaskinitnext;
		if (gone) {
			rcu_report_qs_rnp(gone, rnp, gps, flags);
		} else if (!rnp->qsmask && !rcu_preempt_blocked_readers_cgp(rnp) &&
			   rnp->parent && in_gp) {
			struct rcu_node *parent = rnp->parent;

			spin_unlock(&rnp->lock);	/* irqs stay off */
			spin_lock(&parent->lock);
			rcu_report_qs_rnp(rnp->grpmask, parent, gps, flags);
		} else {
			spin_unlock_irqrestore(&rnp->lock, flags);
		}
	}
	jitter_walk_end(JITTER_WALK_GP_INIT);
	rcu_ofl_window_gp_inited(gps);
	trace_rcu_grace_period("rcu_sched", gps, "init");
	return true;
}

/*
 * One scan of the leaves for CPUs that are idle (first pass) or have been
 * idle since the first pass (later passes): report for them.
 *
 * A busy CPU reports at a tick that finds it outside every reader; one
 * that spends most of its time with preemption or irqs off (a call_rcu
 * flood: the tick that arrives while irqs are off is taken inside the
 * preempt-disabled tail) rarely offers one.  Once the GP is
 * rcu.jiffies_till_sched_qs old, such CPUs are asked to reschedule, as
 * Linux does: the context switch at their next preemption point is a QS.
 * Readers are untouched by it; a CPU really stuck in one stays stuck
 * (and the stall detector names it).
 */
static void force_qs_rnp(bool first)
{
	bool nudge = !first && time_after_eq(jiffies, rcu_state.gp_start + jiffies_till_sched_qs);
	unsigned long resched = 0;
	struct rcu_node *rnp;
	unsigned long flags, mask;
	int cpu;

	rcu_for_each_leaf_node(rnp) {
		rcu_node_lock_qs(rnp, flags);
		mask = 0;
		for_each_leaf_node_cpu(rnp, cpu) {
			struct rcu_data *rdp = per_cpu_ptr(&rcu_data, cpu);
			int snap;

			if (!(rnp->qsmask & rdp->grpmask))
				continue;
			if (rcu_qs_cpu_offline(rnp, rdp)) {	/* test build only */
				mask |= rdp->grpmask;
				continue;
			}
			snap = rcu_dynticks_snap(rdp);
			if (rcu_dynticks_in_eqs(snap) ||
			    (!first && snap != rdp->dynticks_snap))
				mask |= rdp->grpmask;
			else if (nudge)
				resched |= 1UL << cpu;
			if (first)
				rdp->dynticks_snap = snap;
		}
		if (mask)
			rcu_report_qs_rnp(mask, rnp, rnp->gp_seq, flags);
		else
			spin_unlock_irqrestore(&rnp->lock, flags);
	}
	rcu_state.n_force_qs++;
	/* Skips this CPU (it is running us).  Preemptible: a stale number
	 * is a CPU we left because it went down, which needs no nudge. */
	for (cpu = 0; resched; cpu++, resched >>= 1)
		if ((resched & 1) && cpu != raw_smp_processor_id())
			resched_cpu(cpu);
}

/* Every CPU reported and no preempted reader holds the GP (root locked or not). */
static bool rcu_gp_qs_done(struct rcu_node *root)
{
	unsigned long flags;
	bool done;

	if (READ_ONCE(root->qsmask))
		return false;
	spin_lock_irqsave(&root->lock, flags);
	done = !root->qsmask && !rcu_preempt_blocked_readers_cgp(root);
	spin_unlock_irqrestore(&root->lock, flags);
	return done;
}

/*
 * The wait for every CPU's QS.  The first scan comes at once, not
 * jiffies_till_first_fqs into the grace period as in Linux: a CPU idle
 * (in its EQS) at the start has nothing to wait for, and with tickless
 * idle no tick of its own would report it, so every grace period with an
 * idle CPU lasted until a timed scan (3 ticks).  A CPU that enters idle
 * after the scan, this kthread's own as it waits below, reports itself
 * (rcu_idle_enter()); so with the other CPUs idle a grace period ends
 * as soon as the caller's CPU and this one have gone idle.  The kthread
 * does not report its own CPU here: with every grace period that short,
 * it would run them back to back on its CPU under a call_rcu() flood
 * and starve the flooding task there (20805 grace periods in one
 * call_rcu_flood run where there had been 24, at a sixth of the rate).
 * The timed scans (the first jiffies_till_first_fqs after this one) are
 * for the CPUs that were busy: their ticks report them, or the scans
 * find them idle since or make them reschedule (force_qs_rnp()).
 */
static void rcu_gp_fqs_loop(void)
{
	struct rcu_node *root = rcu_get_root();
	int scans = 0;

	for (;;) {
		unsigned long j = scans == 1 ? jiffies_till_first_fqs : jiffies_till_next_fqs;

		if (scans)
			wait_event_timeout(rcu_state.gp_wq, rcu_gp_qs_done(root) ||
					   (READ_ONCE(rcu_state.gp_flags) & RCU_GP_FLAG_FQS),
					   j ? j : 1);
		rcu_gp_hold_point(RCU_GP_HOLD_FQS);	/* test build only */
		WRITE_ONCE(rcu_state.gp_activity, jiffies);
		if (rcu_gp_qs_done(root))
			break;
		trace_rcu_grace_period_fqs("rcu_sched", rcu_state.gp_seq, scans + 1);
		force_qs_rnp(scans++ == 0);
		rcu_preempt_boost_check();
		if (READ_ONCE(rcu_state.gp_flags) & RCU_GP_FLAG_FQS) {
			unsigned long flags;

			spin_lock_irqsave(&root->lock, flags);
			WRITE_ONCE(rcu_state.gp_flags, rcu_state.gp_flags & ~RCU_GP_FLAG_FQS);
			spin_unlock_irqrestore(&root->lock, flags);
		}
		cond_resched();
	}
}

static void rcu_gp_cleanup(void)
{
	struct rcu_node *root = rcu_get_root(), *rnp;
	unsigned long flags, new_gp_seq = rcu_seq_endval(rcu_state.gp_seq);
	unsigned long dur;
	int cpu;

	rcu_stats_gp_cleanup();
	WRITE_ONCE(rcu_state.gp_activity, jiffies);
	trace_rcu_grace_period("rcu_sched", rcu_state.gp_seq, "cleanup");

	/*
	 * Taking every node's lock orders this kthread after every QS report
	 * (contract (1)); the leaves learn the end before rcu_state does, so
	 * a CPU never sees the GP over globally while its leaf says running.
	 */
	rcu_for_each_node_breadth_first(rnp) {
		jitter_site(JITTER_GP_PHASE);	/* test build: gp_cleanup_delay */
		spin_lock_irqsave(&rnp->lock, flags);
		WARN_ON_ONCE(rnp->qsmask);
		WRITE_ONCE(rnp->gp_seq, new_gp_seq);
		spin_unlock_irqrestore(&rnp->lock, flags);
		cond_resched();
	}
	dur = jiffies - rcu_state.gp_start;
	if (dur > rcu_state.gp_max_jiffies)
		rcu_state.gp_max_jiffies = dur;

	spin_lock_irqsave(&root->lock, flags);
	/* The release pairs with rcu_seq_done()'s acquire (contract (1)). */
	trace_rcu_grace_period("rcu_sched", rcu_state.gp_seq, "end");
	rcu_seq_end(&rcu_state.gp_seq);
	if (ULONG_CMP_LT(rcu_state.gp_seq, rcu_state.gp_seq_needed))
		WRITE_ONCE(rcu_state.gp_flags, rcu_state.gp_flags | RCU_GP_FLAG_INIT);
	spin_unlock_irqrestore(&root->lock, flags);

	/* Callbacks this GP made ready: do not wait for the owners' ticks. */
	for_each_online_cpu(cpu) {
		struct rcu_data *rdp = per_cpu_ptr(&rcu_data, cpu);

		if (rdp->cb_kthread && rcu_cbs_ready_lockless(rdp))
			wake_up(&rdp->cb_wq);
	}
}

/*
 * Each online CPU's rcuc kthread, made once: from rcu_late_init() and from
 * the GP kthread (for CPUs that came online later), which the mutex keeps
 * from both making one for the same CPU.  It also orders the making of
 * one against cpu_down() parking it (rcu_cpu_offline_hook()).
 */
static struct rcu_mutex rcu_spawn_mutex = {
	.wq = __WAIT_QUEUE_HEAD_INITIALIZER(rcu_spawn_mutex.wq),
};

static void rcu_spawn_cb_kthreads(void)
{
	int cpu;

	rcu_mutex_lock(&rcu_spawn_mutex);
	for_each_online_cpu(cpu) {
		struct rcu_data *rdp = per_cpu_ptr(&rcu_data, cpu);
		struct task *t;
		char name[16];

		if (READ_ONCE(rdp->cb_kthread))
			continue;
		snprintf(name, sizeof(name), "rcuc/%d", cpu);
		t = kthread_create(rcu_cpu_kthread, rdp, name);
		if (!t) {
			pr_err("rcu: cannot create %s\n", name);
			continue;
		}
		kthread_bind(t, cpu);
		set_task_prio(t, PRIO_HIGH);
		WRITE_ONCE(rdp->cb_kthread, t);
		wake_up_process(t);
	}
	rcu_mutex_unlock(&rcu_spawn_mutex);
}

static int rcu_gp_kthread(void *unused)
{
	(void)unused;
	while (!kthread_should_stop()) {
		rcu_spawn_cb_kthreads();
		wait_event_timeout(rcu_state.gp_wq,
				   (READ_ONCE(rcu_state.gp_flags) & RCU_GP_FLAG_INIT) ||
				   kthread_should_stop(), HZ);
		WRITE_ONCE(rcu_state.gp_activity, jiffies);
		if (!rcu_gp_init())
			continue;
		jitter_site(JITTER_GP_PHASE);	/* test build: kernel/jitter.h */
		rcu_gp_fqs_loop();
		jitter_site(JITTER_GP_PHASE);
		rcu_gp_cleanup();
	}
	return 0;
}

/* ---------------- callbacks ---------------- */

__fastpath void call_rcu_sched(struct rcu_head *head, rcu_callback_t func)
{
	struct rcu_data *rdp;
	unsigned long flags;
	long n;
	bool flood = false;

	if (!debug_rcu_head_queue(head, func, "call_rcu_sched"))
		return;		/* reported; queueing it would corrupt the list */
	head->func = func;
	head->next = NULL;
	preempt_disable();
	rdp = this_cpu_ptr(&rcu_data);
	spin_lock_irqsave(&rdp->lock, flags);
	rcu_segcblist_enqueue(&rdp->cblist, head);
	rdp->n_cbs_queued++;
	rcu_accelerate_cbs(rdp);
	n = rcu_segcblist_n_cbs(&rdp->cblist);
	trace_rcu_callback("rcu_sched", head, func, n);
	/* A flood: drain without a batch limit and hurry the GP along. */
	if (n > qhimark && rdp->blimit != LONG_MAX_BLIMIT) {
		rdp->blimit = LONG_MAX_BLIMIT;
		flood = true;
	}
	rcu_cbs_check(rdp);
	spin_unlock_irqrestore(&rdp->lock, flags);
	preempt_enable();
	if (flood)
		rcu_force_quiescent_state();
}

/* Invoke this CPU's ready callbacks, blimit at a time (rcuc/N kthread). */
static void rcu_do_batch(struct rcu_data *rdp)
{
	for (;;) {
		struct rcu_cblist done;
		struct rcu_head *rhp, *next;
		unsigned long flags;
		struct jitter_pass jp;	/* test build: one delay between two */
		long n, lim;

		if (rcu_barrier_window_holds_cbs(rdp->cpu))	/* test build only */
			return;
		rcu_cblist_init(&done);
		spin_lock_irqsave(&rdp->lock, flags);
		/* Acquire of gp_seq: these callbacks follow their GP's reports. */
		rcu_segcblist_advance(&rdp->cblist,
				      smp_load_acquire(&rcu_state.gp_seq));
		rcu_accelerate_cbs(rdp);
		lim = rdp->blimit;
		n = rcu_segcblist_extract_done_cbs(&rdp->cblist, &done, lim);
		if (rcu_inject(RCU_INJECT_BARRIER))
			rcu_segcblist_add_len(&rdp->cblist, -n);
		rcu_cbs_check(rdp);
		spin_unlock_irqrestore(&rdp->lock, flags);
		if (!n)
			return;
		/* Test build: extracted, not yet run, held while a barrier walks. */
		jitter_site_sleep(JITTER_CB_HOLD);
		trace_rcu_batch_start("rcu_sched", n, lim);
		/* Run as Linux's softirq would: no preemption inside a callback. */
		local_bh_disable();
		jitter_pass_begin(&jp, JITTER_CB_INVOKE, n);
		for (rhp = done.head; rhp; rhp = next) {
			next = rhp->next;
			debug_rcu_head_unqueue(rhp);
			trace_rcu_invoke_callback("rcu_sched", rhp, rhp->func);
			rhp->func(rhp);
			/* Test build: its waiter goes on before the rest. */
			jitter_pass_step(&jp, JITTER_CB_INVOKE);
		}
		local_bh_enable();
		trace_rcu_batch_end("rcu_sched", n);
		/*
		 * Only now are they no longer waiting: rcu_barrier_sched() must
		 * find them in ->len until here, or it would skip this CPU and
		 * return while they run (or before they start).
		 */
		spin_lock_irqsave(&rdp->lock, flags);
		if (!rcu_inject(RCU_INJECT_BARRIER))
			rcu_segcblist_add_len(&rdp->cblist, -n);
		if (rdp->blimit == LONG_MAX_BLIMIT && rcu_segcblist_n_cbs(&rdp->cblist) < qlowmark)
			rdp->blimit = blimit;
		spin_unlock_irqrestore(&rdp->lock, flags);
		WRITE_ONCE(rdp->n_cbs_invoked, rdp->n_cbs_invoked + n);
		if (n < lim)
			return;
		cond_resched();
	}
}

static int rcu_cpu_kthread(void *arg)
{
	struct rcu_data *rdp = arg;

	while (!kthread_should_stop()) {
		/* cpu_down(): park between batches, nothing extracted */
		if (kthread_should_park()) {
			kthread_parkme();
			continue;
		}
		wait_event_timeout(rdp->cb_wq, rcu_cbs_ready_lockless(rdp) ||
				   kthread_should_stop() || kthread_should_park(), HZ);
		/* Test build: held while a barrier walks (kernel/jitter.h). */
		jitter_site_sleep(JITTER_CB_HOLD);
		if (!kthread_should_park())
			rcu_do_batch(rdp);
	}
	return 0;
}

/* ---------------- waiting for grace periods ---------------- */

struct rcu_synchronize {
	struct rcu_head head;
	struct completion completion;
};

static void wakeme_after_rcu(struct rcu_head *head)
{
	struct rcu_synchronize *rs = container_of(head, struct rcu_synchronize, head);

	complete(&rs->completion);
}

void synchronize_sched(void)
{
	struct rcu_synchronize rs;

	if (rcu_misuse_check("synchronize_sched"))
		return;
	if (rcu_blocking_is_gp())
		return;
	init_completion(&rs.completion);
	call_rcu_sched(&rs.head, wakeme_after_rcu);
	wait_for_completion(&rs.completion);
}

unsigned long get_state_synchronize_sched(void)
{
	return rcu_seq_snap(&rcu_state.gp_seq);
}

unsigned long start_poll_synchronize_sched(void)
{
	unsigned long s = get_state_synchronize_sched();

	rcu_start_this_gp(s);
	return s;
}

bool poll_state_synchronize_sched(unsigned long oldstate)
{
	if (rcu_poll_seq_done(&rcu_state.gp_seq, oldstate)) {
		smp_mb();	/* the caller's frees follow the GP (contract (1)) */
		return true;
	}
	return false;
}

void cond_synchronize_sched(unsigned long oldstate)
{
	if (!poll_state_synchronize_sched(oldstate))
		synchronize_sched();
}

static void rcu_barrier_callback(struct rcu_head *head)
{
	(void)head;
	if (atomic_dec_and_test(&rcu_state.barrier_cpu_count))
		complete(&rcu_state.barrier_completion);
}

/*
 * barrier_lock held (irqs off): if the barrier in progress has not dealt
 * with rdp's CPU yet, queue its callback at the tail of rdp's list (if
 * the list is not empty: an empty one has nothing to wait for, neither
 * queued nor being invoked, since ->len counts callbacks until they have
 * run) and note that it has.  Called for each CPU by the barrier, and by
 * rcu_migrate_callbacks() for the dead CPU before its callbacks move, so
 * that a barrier which has already passed the CPU they move to still
 * finds them: its callback moves with them, behind them.
 */
static void rcu_barrier_entrain(struct rcu_data *rdp)
{
	unsigned long gseq = READ_ONCE(rcu_state.barrier_sequence);
	unsigned long lseq = READ_ONCE(rdp->barrier_seq_snap);

	if (rcu_seq_state(lseq) || !rcu_seq_state(gseq) ||
	    rcu_seq_ctr(gseq) != rcu_seq_ctr(lseq))
		return;		/* no barrier, or this one has been here */
	spin_lock(&rdp->lock);
	if (rcu_segcblist_n_cbs(&rdp->cblist)) {
		atomic_inc(&rcu_state.barrier_cpu_count);
		rdp->barrier_head.func = rcu_barrier_callback;
		rcu_segcblist_enqueue(&rdp->cblist, &rdp->barrier_head);
		rcu_accelerate_cbs(rdp);	/* its GP: the newest of the list */
		rcu_cbs_check(rdp);
	}
	spin_unlock(&rdp->lock);
	smp_store_release(&rdp->barrier_seq_snap, gseq);
}

/*
 * Queue one callback at the tail of every CPU's list that has any (remote
 * lists are reached through their locks) and wait for all: each list runs
 * in order, so every callback queued before this call has run when it
 * returns.  Offline CPUs too: a departed CPU's callbacks wait there until
 * rcu_migrate_callbacks() moves them, the barrier's with them.  Callbacks
 * that move while the barrier is under way, from a CPU it has not dealt
 * with yet to one it has, are found by rcu_barrier_entrain() from the
 * migration (barrier_sequence says a barrier is running, the dead CPU's
 * snapshot that it has not been there).
 */
void rcu_barrier_sched(void)
{
	unsigned long flags, gseq;
	int cpu;

	if (rcu_misuse_check("rcu_barrier_sched"))
		return;
	rcu_mutex_lock(&rcu_state.barrier_mutex);
	spin_lock_irqsave(&rcu_state.barrier_lock, flags);
	rcu_seq_start(&rcu_state.barrier_sequence);
	init_completion(&rcu_state.barrier_completion);
	atomic_set(&rcu_state.barrier_cpu_count, 1);
	spin_unlock_irqrestore(&rcu_state.barrier_lock, flags);
	jitter_walk_begin(JITTER_WALK_BARRIER);	/* test build: holds wait for its end */
	for (cpu = 0; cpu < rcu_state.ncpus; cpu++) {
		struct rcu_data *rdp = per_cpu_ptr(&rcu_data, cpu);

		if (!per_cpu(rcu_data_ready, cpu) ||
		    (rcu_inject(RCU_INJECT_BARRIER_ONLINE) && !cpu_online(cpu)))
			continue;
		/* Test build: at a CPU going down, sleep across its death. */
		jitter_walk_cpu(JITTER_WALK_BARRIER, cpu, READ_ONCE(rdp->cblist.len) != 0);
		jitter_site_sleep(JITTER_BARRIER_WALK);	/* test build: a slow walk */
		rcu_barrier_window_wait(cpu);	/* test build only */
		spin_lock_irqsave(&rcu_state.barrier_lock, flags);
		rcu_barrier_entrain(rdp);
		spin_unlock_irqrestore(&rcu_state.barrier_lock, flags);
	}
	jitter_walk_end(JITTER_WALK_BARRIER);
	rcu_barrier_window_loop_done(atomic_read(&rcu_state.barrier_cpu_count) > 1);
	if (atomic_dec_and_test(&rcu_state.barrier_cpu_count))
		complete(&rcu_state.barrier_completion);
	wait_for_completion(&rcu_state.barrier_completion);
	/* Every CPU's snapshot is now the idle value of the next barrier. */
	spin_lock_irqsave(&rcu_state.barrier_lock, flags);
	rcu_seq_end(&rcu_state.barrier_sequence);
	gseq = rcu_state.barrier_sequence;
	for (cpu = 0; cpu < rcu_state.ncpus; cpu++)
		WRITE_ONCE(per_cpu_ptr(&rcu_data, cpu)->barrier_seq_snap, gseq);
	spin_unlock_irqrestore(&rcu_state.barrier_lock, flags);
	rcu_mutex_unlock(&rcu_state.barrier_mutex);
}

/* ---------------- initialisation ---------------- */

static unsigned int clamp_fanout(unsigned int f)
{
	return f < 2 ? 2 : f > 64 ? 64 : f;
}

/* The rcu_node lock classes, one per tree level (kernel/lockdep.h). */
static struct lock_class_key rcu_node_class[RCU_MAX_LEVELS] __attribute__((unused));
static const char *const rcu_node_class_name[] __attribute__((unused)) = {
	"rcu_node_0", "rcu_node_1", "rcu_node_2", "rcu_node_3",
	"rcu_node_4", "rcu_node_5", "rcu_node_6",
};

/* Build the tree breadth-first: root at node[0], leaves last. */
static void rcu_init_geometry(int ncpus)
{
	int counts[RCU_MAX_LEVELS], nlev = 0, l, i, n;
	unsigned int fl = clamp_fanout(rcu_fanout_leaf), f = clamp_fanout(rcu_fanout);

	rcu_fanout_leaf = fl;
	rcu_fanout = f;
	/* Level sizes from the leaves up. */
	n = (ncpus + fl - 1) / fl;
	counts[nlev++] = n;
	while (n > 1 && nlev < RCU_MAX_LEVELS) {
		n = (n + f - 1) / f;
		counts[nlev++] = n;
	}
	BUG_ON(n != 1);
	rcu_state.num_levels = nlev;
	rcu_state.ncpus = ncpus;
	n = 0;
	for (l = 0; l < nlev; l++) {		/* l = 0 is the root */
		rcu_state.level_first[l] = n;
		rcu_state.level_count[l] = counts[nlev - 1 - l];
		n += rcu_state.level_count[l];
	}
	BUG_ON(n > RCU_MAX_NODES);
	rcu_state.num_nodes = n;
	for (l = 0; l < nlev; l++) {
		bool leaf = l == nlev - 1;
		unsigned int span = leaf ? fl : f;
		int below = leaf ? ncpus : rcu_state.level_count[l + 1];

		for (i = 0; i < rcu_state.level_count[l]; i++) {
			struct rcu_node *rnp = &rcu_state.node[rcu_state.level_first[l] + i];

			spin_lock_init(&rnp->lock);
			/* Lockdep: one class per level, so a parent's lock
			 * taken under its child's is an order, not recursion. */
			lockdep_set_class_and_name(&rnp->lock, &rcu_node_class[l],
						   rcu_node_class_name[l]);
			rcu_preempt_init_node(rnp);
			rnp->level = l;
			rnp->grplo = i * span;
			rnp->grphi = MIN((int)((i + 1) * span), below) - 1;
			rnp->gp_seq = rcu_state.gp_seq;
			rnp->qsmask = rnp->qsmaskinit = rnp->qsmaskinitnext = 0;
			if (l == 0) {
				rnp->parent = NULL;
				rnp->grpmask = 0;
			} else {
				rnp->parent = &rcu_state.node[rcu_state.level_first[l - 1] + i / f];
				rnp->grpmask = 1UL << (i % f);
			}
		}
	}
}

void rcu_init_percpu(int cpu)
{
	struct rcu_data *rdp = per_cpu_ptr(&rcu_data, cpu);
	int leaf;

	if (per_cpu(rcu_data_ready, cpu))
		return;
	if (cpu >= rcu_state.ncpus) {
		pr_err("rcu: CPU %d is beyond the %d CPUs of the rcu_node tree; "
		       "RCU will not wait for it\n", cpu, rcu_state.ncpus);
		return;
	}
	leaf = cpu / rcu_fanout_leaf;
	rdp->cpu = cpu;
	rdp->mynode = &rcu_state.node[rcu_state.level_first[rcu_state.num_levels - 1] + leaf];
	rdp->grpmask = 1UL << (cpu - rdp->mynode->grplo);
	rdp->gp_seq = rdp->mynode->gp_seq;
	rdp->cpu_no_qs = false;
	rdp->core_needs_qs = false;
	atomic_set(&rdp->dynticks, 1);		/* odd: not idle */
	rdp->dynticks_nmi_nesting = DYNTICK_IRQ_NONIDLE;
	spin_lock_init(&rdp->lock);
	rcu_segcblist_init(&rdp->cblist);
	rdp->gp_seq_needed = rcu_state.gp_seq;
	rdp->blimit = blimit;
	init_waitqueue_head(&rdp->cb_wq);
	rdp->cb_kthread = NULL;
	smp_wmb();
	per_cpu(rcu_data_ready, cpu) = true;
}

/*
 * The CPU itself, irqs off, before it can run any reader: at boot, and
 * again each time cpu_up() brings it back.  Under the leaf lock it joins
 * qsmaskinitnext, so every grace period whose first pass (rcu_gp_init())
 * comes later waits for it; one whose first pass came earlier started
 * before this CPU's first reader (the lock orders the two), so it need not.
 * It notes the leaf's grace period as __note_gp_changes() would, in case
 * that one waits for it after all (it left and came back between the two
 * passes of rcu_gp_init()).  tests/model's `hp` configuration checks this
 * handoff, and that a reader before the bit is set breaks it.
 */
void rcu_cpu_starting(int cpu)
{
	struct rcu_data *rdp = per_cpu_ptr(&rcu_data, cpu);
	struct rcu_node *rnp = rdp->mynode;
	unsigned long flags;
	bool need;

	if (!per_cpu(rcu_data_ready, cpu))
		return;
	local_irq_save(flags);
	rcu_ofl_lock();
	spin_lock(&rnp->lock);
	WRITE_ONCE(rnp->qsmaskinitnext, rnp->qsmaskinitnext | rdp->grpmask);
#ifdef CONFIG_SANITIZE
	rdp->rcu_cpu_up = true;
#endif
	rdp->gp_seq = rnp->gp_seq;
	need = rcu_seq_state(rnp->gp_seq) && (rnp->qsmask & rdp->grpmask);
	WRITE_ONCE(rdp->cpu_no_qs, need);
	rdp->core_needs_qs = need;
	WRITE_ONCE(rdp->ticks_this_gp, 0);
	spin_unlock(&rnp->lock);
	rcu_ofl_unlock();
	local_irq_restore(flags);
	atomic_inc_return(&rcu_state.n_online_cpus);	/* rcu_blocking_is_gp(); full barrier */
	smp_mb();	/* the bit and the count before this CPU's first reader */
}

/*
 * The outgoing CPU, irqs off, from its idle task once every other thread
 * has left it: it runs no reader from here on.  Under the leaf lock,
 * first the QS for a grace period that waits for it (nothing else ever
 * would: its counter stays odd, so the fqs scan cannot credit it), then
 * the bit leaves qsmaskinitnext.  A grace period whose first pass saw the
 * bit but whose second pass comes after this reports for it there.
 * The report drops the leaf lock (it climbs the tree) before the bit
 * goes: it may end the grace period, and the next one's first pass must
 * not copy the bit in between, or that one waits for this CPU for ever.
 * ofl_lock, held across both, keeps that pass out.
 */
void rcu_report_dead(int cpu)
{
	struct rcu_data *rdp = per_cpu_ptr(&rcu_data, cpu);
	struct rcu_node *rnp = rdp->mynode;
	unsigned long flags, gps;
	bool window;

	if (!per_cpu(rcu_data_ready, cpu) || rcu_inject(RCU_INJECT_REPORT_DEAD))
		return;
	window = rcu_ofl_window_open(rdp);	/* test build only */
	rcu_ofl_lock();
	rcu_node_lock_qs(rnp, flags);
	if ((rnp->qsmask & rdp->grpmask) && rcu_seq_state(rnp->gp_seq)) {
		gps = rnp->gp_seq;
		rdp->core_needs_qs = false;
#ifdef CONFIG_SANITIZE
		rdp->rcu_cpu_leaving = true;
#endif
		rcu_report_qs_rnp(rdp->grpmask, rnp, gps, flags);
		if (window)
			rcu_ofl_window_hold(rdp, gps);
		spin_lock_irqsave(&rnp->lock, flags);
	}
	WRITE_ONCE(rnp->qsmaskinitnext, rnp->qsmaskinitnext & ~rdp->grpmask);
#ifdef CONFIG_SANITIZE
	rdp->rcu_cpu_up = false;
	rdp->rcu_cpu_leaving = false;
#endif
	spin_unlock_irqrestore(&rnp->lock, flags);
	rcu_ofl_unlock();
	atomic_dec_return(&rcu_state.n_online_cpus);	/* full barrier: after the last reader */
}

/*
 * Once cpu is dead (its rcuc kthread parked, so nothing of its list is
 * being invoked): its callbacks join this CPU's, each keeping its place
 * and its grace period (rcu_segcblist_merge()).  rcu_barrier_sched()'s
 * callback, if it was queued there, moves with them in order.  A barrier
 * under way that has not come to cpu yet would find its list empty when
 * it does, and may already have passed this CPU (or queued its callback
 * here, which the merge can put ahead of the moved ones when their grace
 * periods are equal): rcu_barrier_entrain() queues the barrier's callback
 * behind cpu's first, all under barrier_lock, so that the barrier either
 * dealt with cpu before or does so now.
 */
void rcu_migrate_callbacks(int cpu)
{
	struct rcu_data *rdp = per_cpu_ptr(&rcu_data, cpu), *my;
	unsigned long flags, seq;
	long n;

	if (!per_cpu(rcu_data_ready, cpu))
		return;
	spin_lock_irqsave(&rcu_state.barrier_lock, flags);
	my = this_cpu_ptr(&rcu_data);
	if (WARN_ON_ONCE(my == rdp)) {
		spin_unlock_irqrestore(&rcu_state.barrier_lock, flags);
		return;
	}
	if (!rcu_inject(RCU_INJECT_BARRIER_MIGRATE))
		rcu_barrier_entrain(rdp);	/* a barrier yet to come here */
	spin_lock(&my->lock);
	/* Two rcu_data locks: only the hotplug controller nests them. */
	spin_lock_nested(&rdp->lock, 1);
	n = rcu_segcblist_n_cbs(&rdp->cblist);
	if (n) {
		seq = smp_load_acquire(&rcu_state.gp_seq);
		rcu_segcblist_advance(&my->cblist, seq);
		rcu_segcblist_advance(&rdp->cblist, seq);
		rcu_segcblist_merge(&my->cblist, &rdp->cblist);
		rcu_accelerate_cbs(rdp);	/* now empty: nothing waiting */
		rcu_accelerate_cbs(my);
		WRITE_ONCE(rcu_state.n_cbs_migrated, rcu_state.n_cbs_migrated + n);
		rcu_barrier_window_moved(cpu);	/* test build only */
	}
	RCU_ASSERT(!rcu_segcblist_n_cbs(&rdp->cblist));	/* a dead CPU owns none */
	rcu_cbs_check(rdp);
	rcu_cbs_check(my);
	spin_unlock(&rdp->lock);
	spin_unlock(&my->lock);
	spin_unlock_irqrestore(&rcu_state.barrier_lock, flags);
	if (n && my->cb_kthread)
		wake_up(&my->cb_wq);
}

#ifdef CONFIG_SANITIZE
/*
 * After cpu_down() (cpu dead, its callbacks moved): cpu is out of its
 * leaf's qsmaskinitnext, so no later grace period waits for it; it owns
 * no callback; the readers preempted there, now on its leaf's list (they
 * stay there, as in Linux: a task is not moved between leaves), are
 * still accounted: each is blocked on that leaf, gp_tasks and exp_tasks
 * point into the list, and while gp_tasks is set the leaf has not
 * reported up, so the grace period still waits for them.
 */
void rcu_cpu_dead_check(int cpu)
{
	struct rcu_data *rdp = per_cpu_ptr(&rcu_data, cpu);
	struct rcu_node *rnp = rdp->mynode;
	unsigned long flags;

	if (!per_cpu(rcu_data_ready, cpu))
		return;
	spin_lock_irqsave(&rnp->lock, flags);
	RCU_ASSERT(!(rnp->qsmaskinitnext & rdp->grpmask));
	RCU_ASSERT(!rcu_segcblist_n_cbs(&rdp->cblist));
	RCU_ASSERT(rcu_preempt_blkd_tasks_ok(rnp));
	RCU_ASSERT(!rnp->gp_tasks || !rnp->parent ||
			     (READ_ONCE(rnp->parent->qsmask) & rnp->grpmask));
	spin_unlock_irqrestore(&rnp->lock, flags);
}
#endif

/* cpu_down()'s and cpu_up()'s hook: the rcuc kthread parks and comes back. */
static int rcu_cpu_offline_hook(int cpu)
{
	struct task *t;
	int ret;

	rcu_mutex_lock(&rcu_spawn_mutex);	/* one being made is made first */
	t = READ_ONCE(per_cpu_ptr(&rcu_data, cpu)->cb_kthread);
	ret = t ? kthread_park(t) : 0;
	rcu_mutex_unlock(&rcu_spawn_mutex);
	return ret;
}

static int rcu_cpu_online_hook(int cpu)
{
	struct task *t = READ_ONCE(per_cpu_ptr(&rcu_data, cpu)->cb_kthread);

	if (t)
		kthread_unpark(t);
	else
		rcu_gp_kthread_wake();	/* it spawns the CPU's first rcuc */
	return 0;
}

#ifdef CONFIG_JITTER
/*
 * jitter_walk_may_cross() (kernel/jitter.h), on a dying CPU, irqs off.
 * None if this CPU has left its leaf's qsmaskinitnext (no rcu_gp_init()
 * walk sees it any more), or if the grace period under way still waits
 * for its QS, or for the report of it that this CPU has begun and not
 * yet taken up the tree (no walk can come before it goes on).  Only the
 * next walk if this grace period's second pass has passed its leaf (a
 * walk still under way has dealt with the CPU).  Lockless: a hint.
 * None too while this CPU holds a lock other than ofl_lock (whose
 * waiter, rcu_gp_init(), ends the hold: jitter_walk_blocked()): the GP
 * kthread may need it before it can walk.  rcu_state.gp_wq's is one:
 * rcu_report_dead() wakes the kthread when its report ends the grace
 * period, and a hold at the run queue's unlock inside wake_up() kept
 * gp_wq.lock to the bound (6.5 s at jitter=200, past spinlock.timeout_ms).
 */
static enum jitter_cross rcu_gp_init_may_cross(unsigned int walk)
{
	struct rcu_data *rdp = this_cpu_ptr(&rcu_data);
	struct rcu_node *rnp = rdp->mynode;
	unsigned long mask = rdp->grpmask;
	unsigned long gps = READ_ONCE(rcu_state.gp_seq);

	if (walk != JITTER_WALK_GP_INIT || !rnp)
		return JITTER_CROSS_ANY;
#ifdef CONFIG_LOCKDEP
	if (lockdep_depth_spinning() > (int)lock_is_held(&rcu_state.ofl_lock.dep_map))
		return JITTER_CROSS_NONE;
#endif
	if (!(READ_ONCE(rnp->qsmaskinitnext) & mask))
		return JITTER_CROSS_NONE;
	if (!rcu_seq_state(gps))
		return JITTER_CROSS_ANY;
	if (READ_ONCE(rnp->gp_seq) != gps)
		return JITTER_CROSS_ANY;	/* the walk under way has yet to come */
	for (; rnp; mask = rnp->grpmask, rnp = rnp->parent) {
		unsigned long qs = READ_ONCE(rnp->qsmask);

		if (qs & mask)
			return JITTER_CROSS_NONE;
		if (qs || rcu_preempt_blocked_readers_cgp(rnp))
			break;	/* others hold it there */
	}
	return JITTER_CROSS_NEXT;
}
#endif

void rcu_init(void)
{
	rcu_inject_init();
#ifdef CONFIG_JITTER
	WRITE_ONCE(jitter_walk_may_cross, rcu_gp_init_may_cross);
#endif
	/* Start near the wrap, as Linux does, so wrap bugs show at once. */
	rcu_state.gp_seq = RCU_SEQ_INITIAL_VAL;
	rcu_state.gp_seq_needed = rcu_state.gp_seq;
#ifdef CONFIG_SANITIZE
	/* No deadline yet: as if of the grace period before the first. */
	rcu_state.jiffies_stall_gp = rcu_state.gp_seq - RCU_SEQ_STATE_MASK;
#endif
	/* Sized by the CPUs there may ever be, as Linux's by nr_cpu_ids, not
	 * by NR_CPUS: rcu_gp_init() walks every node twice per grace period,
	 * and at -smp 4 that is one node rather than 5 (rcu.fanout_leaf=2
	 * and rcu.fanout=2: 3 rather than 63). */
	rcu_init_geometry(rcu_geometry_cpus ? (int)MIN(rcu_geometry_cpus, NR_CPUS) : num_possible_cpus());
	init_waitqueue_head(&rcu_state.gp_wq);
	rcu_mutex_init(&rcu_state.barrier_mutex);
	spin_lock_init(&rcu_state.barrier_lock);
	init_completion(&rcu_state.barrier_completion);
	rcu_exp_init();
	rcu_init_percpu(0);
	rcu_cpu_starting(0);
}

void rcu_late_init(void)
{
	struct task *t = kthread_create(rcu_gp_kthread, NULL, "rcu_sched");

	BUG_ON(!t);
	set_task_prio(t, PRIO_HIGH);
	WRITE_ONCE(rcu_state.gp_kthread, t);
	wake_up_process(t);
	rcu_spawn_cb_kthreads();
	cpuhp_setup_state("rcu", rcu_cpu_online_hook, rcu_cpu_offline_hook);
	srcu_init_late();	/* call_srcu()'s kthread (rcu/srcu.c) */
	rcu_poll_init_late();	/* rcu_exp_poll (rcu/poll.c) */
	smp_mb();
	WRITE_ONCE(rcu_state.scheduler_active, true);
	/* The tree is built for every CPU there may be, not the ones up. */
	pr_info("rcu: RCU-sched: %d level%s, %d node%s for %d possible CPUs, fanout leaf %u / %u, "
		"%d CPU%s online, GP kthread on CPU %d\n", rcu_state.num_levels, rcu_state.num_levels == 1 ? "" : "s",
		rcu_state.num_nodes, rcu_state.num_nodes == 1 ? "" : "s", rcu_state.ncpus,
		rcu_fanout_leaf, rcu_fanout, num_online_cpus(), num_online_cpus() == 1 ? "" : "s",
		READ_ONCE(t->cpu));
}
