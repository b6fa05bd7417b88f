/*
 * rcu/tree.h - RCU-sched's internal data: the per-CPU rcu_data, the
 * rcu_node tree and the global rcu_state, shared by tree.c, expedited.c,
 * stall.c and torture.c; the expedited flavours' state and hooks.  Not for use outside rcu/.
 *
 * The tree: each leaf rcu_node covers up to rcu_fanout_leaf CPUs (16 by
 * default, RCU_FANOUT_LEAF), each interior node up to rcu_fanout children.
 * A CPU reports its quiescent state (QS) by clearing its bit in its leaf's
 * ->qsmask under the leaf's lock; the CPU that clears a node's last bit
 * carries the report to the parent, and the one that clears the root's
 * last bit ends the grace period's wait.  So a report takes O(depth)
 * locks, and no lock is shared by more than fanout CPUs.
 *
 * Grace-period numbers (gp_seq) are Linux's (rcu/rcu.h): the low two bits
 * are the state (0 idle, 1 in progress), the rest counts grace periods.  Nodes
 * learn a new gp_seq root first, so a CPU that sees a GP at its leaf finds
 * every ancestor already waiting for it.
 */
#pragma once

#include "rcu/rcu.h"
#include "rcu/rcupdate.h"
#include "rcu/segcblist.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/sched.h"
#include "kernel/wait.h"
#include "kernel/time.h"
#include "kernel/trace.h"

#define RCU_FANOUT_LEAF		16
#define RCU_FANOUT		16
#define RCU_MAX_NODES		(NR_CPUS * 2)	/* any geometry with fanout >= 2 */
#define RCU_MAX_LEVELS		7

/* ---- per-CPU state ---- */

struct rcu_node;

struct rcu_data {
	int cpu;
	struct rcu_node *mynode;	/* this CPU's leaf */
	unsigned long grpmask;		/* this CPU's bit in mynode->qsmask */
#ifdef CONFIG_SANITIZE
	/* Between rcu_cpu_starting() and rcu_report_dead() (leaf lock): what
	 * the leaf's qsmaskinitnext bit is checked against (test build). */
	bool rcu_cpu_up;
	/* rcu_report_dead() has reported this CPU's last QS and its bit has
	 * not yet left qsmaskinitnext (leaf lock): no rcu_gp_init() first
	 * pass may copy the bit meanwhile (ofl_lock keeps them apart). */
	bool rcu_cpu_leaving;
#endif

	/* Quiescent-state tracking; written by this CPU only. */
	unsigned long gp_seq;		/* last GP this CPU noticed (leaf's) */
	bool cpu_no_qs;			/* no QS yet since noticing gp_seq */
	bool core_needs_qs;		/* the leaf is waiting for this CPU */

	/* Idle/NMI nesting, Linux's dynticks: even = idle (extended QS). */
	atomic_t dynticks;
	long dynticks_nmi_nesting;	/* irq/NMI depth; odd bit: left EQS */
	int dynticks_snap;		/* the GP kthread's copy, first fqs pass */

	/* Callbacks, under ->lock (taken with irqs off). */
	spinlock_t lock;
	struct rcu_segcblist cblist;
	unsigned long gp_seq_needed;	/* newest GP the callbacks wait for */
	unsigned long gp_seq_first;	/* oldest one, valid if cbs_waiting */
	bool cbs_waiting;		/* some callback waits for a GP */
	long blimit;			/* callbacks per batch */
	long n_cbs_invoked;
	long n_cbs_queued;
	wait_queue_head_t cb_wq;	/* the rcuc kthread sleeps here */
	struct task *cb_kthread;
	struct rcu_head barrier_head;
	/* rcu_state.barrier_sequence when rcu_barrier_sched() last dealt
	 * with this CPU's list (barrier_lock). */
	unsigned long barrier_seq_snap;

	/* Expedited: a request arrived inside a reader. */
	bool exp_deferred_qs;

	/* Stall detection. */
	unsigned long ticks_this_gp;
};

DECLARE_PER_CPU(struct rcu_data, rcu_data);

/* ---- the tree ---- */

struct rcu_node {
	spinlock_t lock;
	unsigned long gp_seq;		/* rcu_state.gp_seq as this node knows it */
	unsigned long qsmask;		/* children/CPUs the current GP awaits */
	unsigned long qsmaskinit;	/* qsmask at the start of each GP */
	unsigned long qsmaskinitnext;	/* leaves: CPUs online, for the next GP */
	unsigned long grpmask;		/* this node's bit in parent->qsmask */
	int grplo, grphi;		/* CPUs (leaves) or nodes covered */
	int level;
	struct rcu_node *parent;

	/*
	 * Leaves: tasks preempted inside rcu_read_lock() on this leaf's CPUs
	 * (rcu/preempt.c).  Those from ->gp_tasks to the tail hold up the
	 * running GP, those from ->exp_tasks to the tail the running
	 * expedited one (NULL: none); the rest block nothing yet.
	 */
	struct list_head blkd_tasks;
	struct list_head *gp_tasks;
	struct list_head *exp_tasks;

	/*
	 * Statistics, under ->lock: acquisitions of ->lock on the QS-report
	 * path (a CPU's own report, the fqs scan, a report carried up from
	 * a child).  What the tree bounds: an interior node is taken at most
	 * once per child per GP, a leaf about once per CPU.  Read racily.
	 */
	unsigned long n_qs_lock;
	u64 qs_wait_cycles;		/* time spent waiting for it there */
} ____cacheline_aligned;

#define RCU_GP_FLAG_INIT	0x1	/* a new GP is wanted */
#define RCU_GP_FLAG_FQS		0x2	/* scan for idle CPUs now */

/* A sleeping mutex built from a wait queue (rcu/ cannot block on a spinlock). */
struct rcu_mutex {
	atomic_t locked;
	wait_queue_head_t wq;
};

struct rcu_state {
	struct rcu_node node[RCU_MAX_NODES];
	int num_nodes;
	int num_levels;
	int level_first[RCU_MAX_LEVELS];	/* index of each level's first node */
	int level_count[RCU_MAX_LEVELS];
	int ncpus;				/* CPUs the geometry covers */

	unsigned long gp_seq;		/* the GP counter; root lock to change */
	unsigned long gp_seq_needed;	/* newest GP requested; root lock */
	int gp_flags;			/* RCU_GP_FLAG_*; root lock */
	struct task *gp_kthread;
	wait_queue_head_t gp_wq;
	unsigned long gp_start;		/* jiffies */
	/* jiffies, each time the GP kthread runs a step (stall.c: starved?) */
	unsigned long gp_activity;
	unsigned long gp_max_jiffies;	/* longest GP so far */
	unsigned long n_force_qs;	/* fqs scans done */
	unsigned long n_cbs_migrated;	/* from CPUs that went offline */
	atomic_t n_online_cpus;		/* rcu_cpu_starting() to rcu_report_dead() */
	/*
	 * CPU hotplug against rcu_gp_init() (Linux's ofl_lock), taken with
	 * irqs off before any rcu_node lock: rcu_report_dead() holds it from
	 * its QS report until its bit has left qsmaskinitnext, and
	 * rcu_cpu_starting() while it sets the bit, so rcu_gp_init()'s copy
	 * of a leaf's qsmaskinitnext comes wholly before or after either.
	 */
	arch_spinlock_t ofl_lock;
	/*
	 * The QS reports that emptied the root (root lock): how many, and the
	 * node locks each took from where it entered (a leaf) to the root,
	 * summed and the last one's.  The tree makes this its depth.
	 */
	unsigned long n_root_reports;
	unsigned long sum_report_depth;
	int last_report_depth;
	u64 last_report_cycles;		/* when the last such report came */
	u64 sum_report_to_end_ns;	/* from it to rcu_gp_cleanup(), summed */
	unsigned long jiffies_stall;	/* next stall report due (cmpxchg) */
#ifdef CONFIG_SANITIZE
	/* Test build: the GP whose start set jiffies_stall (stall.c's check). */
	unsigned long jiffies_stall_gp;
#endif
	bool scheduler_active;		/* rcu_late_init() done */

	/*
	 * rcu_barrier_sched().  barrier_sequence (an rcu_seq) is in progress
	 * while a barrier queues its callbacks and waits; barrier_lock, taken
	 * with irqs off before any rcu_data lock, makes each CPU's visit by
	 * the barrier and the migration of its callbacks off it (which may
	 * entrain the barrier's callback first) happen one wholly before
	 * the other (Linux's barrier_lock).
	 */
	struct rcu_mutex barrier_mutex;
	spinlock_t barrier_lock;
	unsigned long barrier_sequence;
	atomic_t barrier_cpu_count;
	struct completion barrier_completion;
};

extern struct rcu_state rcu_state;
extern unsigned int rcu_fanout_leaf;
extern unsigned int rcu_fanout;

/* ---- expedited grace periods (rcu/expedited.c) ---- */

/*
 * What a flavour of expedited grace period tells the common machine.
 * The first three are called on the CPU concerned with irqs off; the
 * optional rest (NULL: the flavour has none) deal with tasks preempted
 * inside a reader, which the grace period must wait for too.
 */
struct rcu_exp_ops {
	/* In the cross-CPU call: is the interrupted code inside a reader? */
	bool (*cpu_in_reader)(void);
	/* It was: make that reader's end report the QS. */
	void (*defer_qs)(void);
	/* This CPU is in no reader that predates the grace period: report it
	 * (rcu_report_exp_rdp()); can_wake false under the run-queue lock. */
	void (*report_qs)(bool can_wake);
	/* The CPU mask is set: the tasks blocked in readers now hold it up. */
	void (*gp_init_blocked)(void);
	/* Some of those tasks are still in their readers. */
	bool (*has_blocked)(void);
	/* A stall report: " P<name>" for each of those tasks, appended to
	 * buf (rcu_exp_stall_append()); returns the new length. */
	size_t (*print_blocked)(char *buf, size_t size, size_t len);
	/* Each tick of the wait (priority boosting). */
	void (*wait_tick)(void);
};

/* One flavour's expedited grace periods, one at a time. */
struct rcu_exp_state {
	const char *name;			/* "rcu_sched": in stall reports */
	const struct rcu_exp_ops *ops;
	unsigned long expedited_sequence;	/* rcu_seq (rcu/rcu.h) */
	atomic_long_t expmask;			/* CPUs the running GP awaits */
	unsigned long gp_start;			/* jiffies, when it started */
	struct rcu_mutex exp_mutex;
	wait_queue_head_t expedited_wq;		/* its caller waits here */
};

extern struct rcu_exp_state rcu_sched_exp;
#ifdef CONFIG_PREEMPT_RCU
extern struct rcu_exp_state rcu_preempt_exp;
extern const struct rcu_exp_ops rcu_preempt_exp_ops;	/* rcu/preempt.c */
#endif

/*
 * The QS-path statistics (rcu_node ->n_qs_lock and ->qs_wait_cycles,
 * rcu_state's root-emptying reports) cost two TSC reads per node lock and
 * a root-lock round trip per grace period.  They are kept only with
 * CONFIG_RCU_STATS: the test build and the host builds, whose gpbench
 * reads them.  Without it these helpers compile to nothing (the fields
 * stay, at zero), so the benchmark build pays nothing for them.
 */
#ifdef CONFIG_RCU_STATS
/* Take rnp->lock (irqs saved in flags) on the QS-report path, counted. */
#define rcu_node_lock_qs(rnp, flags) do {				\
		u64 __t0 = get_cycles();				\
									\
		spin_lock_irqsave(&(rnp)->lock, flags);			\
		WRITE_ONCE((rnp)->n_qs_lock, (rnp)->n_qs_lock + 1);	\
		WRITE_ONCE((rnp)->qs_wait_cycles,			\
			   (rnp)->qs_wait_cycles + get_cycles() - __t0);	\
	} while (0)

/* rnp->lock was taken on the QS-report path without rcu_node_lock_qs(). */
static inline void rcu_stats_qs_lock(struct rcu_node *rnp)
{
	WRITE_ONCE(rnp->n_qs_lock, rnp->n_qs_lock + 1);
}

/* A report emptied the root (root lock held), after depth node locks. */
static inline void rcu_stats_root_report(int depth)
{
	WRITE_ONCE(rcu_state.n_root_reports, rcu_state.n_root_reports + 1);
	WRITE_ONCE(rcu_state.sum_report_depth, rcu_state.sum_report_depth + depth);
	WRITE_ONCE(rcu_state.last_report_depth, depth);
	rcu_state.last_report_cycles = get_cycles();
}

/* rcu_gp_cleanup() began: the time since the root-emptying report. */
static inline void rcu_stats_gp_cleanup(void)
{
	struct rcu_node *root = &rcu_state.node[0];
	unsigned long flags;

	spin_lock_irqsave(&root->lock, flags);
	WRITE_ONCE(rcu_state.sum_report_to_end_ns, rcu_state.sum_report_to_end_ns +
		   cycles_to_ns(get_cycles() - rcu_state.last_report_cycles));
	spin_unlock_irqrestore(&root->lock, flags);
}
#else
#define rcu_node_lock_qs(rnp, flags) spin_lock_irqsave(&(rnp)->lock, flags)
static inline void rcu_stats_qs_lock(struct rcu_node *rnp) { (void)rnp; }
static inline void rcu_stats_root_report(int depth) { (void)depth; }
static inline void rcu_stats_gp_cleanup(void) {}
#endif

static inline struct rcu_node *rcu_get_root(void)
{
	return &rcu_state.node[0];
}

#define rcu_for_each_node_breadth_first(rnp) \
	for ((rnp) = &rcu_state.node[0]; (rnp) < &rcu_state.node[rcu_state.num_nodes]; (rnp)++)
#define rcu_for_each_leaf_node(rnp)					\
	for ((rnp) = &rcu_state.node[rcu_state.level_first[rcu_state.num_levels - 1]]; \
	     (rnp) < &rcu_state.node[rcu_state.num_nodes]; (rnp)++)
#define for_each_leaf_node_cpu(rnp, cpu) \
	for ((cpu) = (rnp)->grplo; (cpu) <= (rnp)->grphi; (cpu)++)

/* tree.c */
void rcu_mutex_init(struct rcu_mutex *m);
void rcu_mutex_lock(struct rcu_mutex *m);
void rcu_mutex_unlock(struct rcu_mutex *m);
bool rcu_misuse_check(const char *what);
bool rcu_blocking_is_gp(void);
void rcu_report_qs_rnp(unsigned long mask, struct rcu_node *rnp,
		       unsigned long gps, unsigned long flags);
void rcu_gp_kthread_wake(void);
bool rcu_dynticks_in_eqs(int snap);
int rcu_dynticks_snap(struct rcu_data *rdp);

#ifdef CONFIG_SANITIZE
/*
 * Test build: hold the next rcu_report_dead() of cpu open in its window.
 * First (before its locks) it makes sure a grace period waits for cpu;
 * then, once it has reported cpu's QS for that one and before cpu leaves
 * qsmaskinitnext, it asks for the next grace period and spins (irqs off,
 * 20 s at most) until that one's rcu_gp_init() has either finished or
 * found ofl_lock held.  Each window held until one of the two happened
 * counts in rcu_ofl_windows_held.
 */
void rcu_ofl_window_arm(int cpu);
extern atomic_t rcu_ofl_windows_held;

/*
 * Test build: hold rcu_barrier_sched() open in front of cpu.  Once armed,
 * cpu's rcuc kthread invokes nothing (its callbacks stay queued there),
 * nor, once they have moved, does the rcuc of the CPU they moved to
 * (rcu_migrate_callbacks()).  The next barrier, having dealt with every
 * CPU below cpu, sleeps before it deals with cpu until
 * rcu_barrier_window_release() (30 s at most);
 * rcu_barrier_window_waiting() is true meanwhile.  Once it has dealt
 * with every CPU, a barrier that is to wait for callbacks closes the
 * window (the held callbacks run); one that returns at once leaves it
 * open until rcu_barrier_window_close(), so that what it failed to wait
 * for is surely still queued when it returns.
 */
void rcu_barrier_window_arm(int cpu);
bool rcu_barrier_window_waiting(void);
void rcu_barrier_window_release(void);
void rcu_barrier_window_close(void);

/*
 * Test build: a grace period is running (*gpsp: its gp_seq) and every
 * node from the root down to rnp's parent waits for nothing but the
 * child on the way to rnp (read without locks: a test's wait condition).
 */
bool rcu_gp_waits_only_on(struct rcu_node *rnp, unsigned long *gpsp);
#endif

/* poll.c: a polled cookie s against the sequence *sp (both halves of a
 * full cookie, and the plain cookie); the rcu_exp_poll kthread. */
bool rcu_poll_seq_done(unsigned long *sp, unsigned long s);
void rcu_poll_init_late(void);
extern atomic_long_t rcu_exp_poll_gps;

/* expedited.c */
void rcu_exp_init(void);
/* Runs one expedited grace period of es's flavour (or finds one that
 * covers the caller).  May sleep. */
void synchronize_exp(struct rcu_exp_state *es);
unsigned long rcu_exp_completed(struct rcu_exp_state *es);
/* Irqs off: es's running grace period still waits for this CPU. */
bool rcu_exp_pending_here(struct rcu_exp_state *es);
/* Irqs off: this CPU passed es's QS; the last one wakes the waiter. */
void rcu_report_exp_rdp(struct rcu_exp_state *es, bool can_wake);
size_t rcu_exp_stall_append(char *buf, size_t size, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Context switch and QS tick, irqs off: no RCU-sched reader is running. */
void rcu_sched_exp_qs(bool can_wake);

/* preempt.c: preemptible RCU's hooks into the grace-period machine
 * (stubs returning false/doing nothing without CONFIG_PREEMPT_RCU). */
void rcu_preempt_init_node(struct rcu_node *rnp);
/* rnp locked: readers blocked on it hold up the running GP. */
bool rcu_preempt_blocked_readers_cgp(struct rcu_node *rnp);
/* rnp (a leaf in this GP) locked, GP init: its blocked readers hold it up. */
void rcu_preempt_gp_init_node(struct rcu_node *rnp);
#ifdef CONFIG_SANITIZE
/* rnp (a leaf) locked: its list holds only tasks blocked there, and
 * gp_tasks/exp_tasks point into it (test build). */
bool rcu_preempt_blkd_tasks_ok(struct rcu_node *rnp);
#endif
/* From rcu_note_context_switch(), irqs off: queue a preempted reader. */
void rcu_preempt_note_context_switch(bool preempt);
/* From the tick, irqs off: true if the interrupted task is in a reader. */
bool rcu_preempt_tick_in_reader(void);
/* From the GP kthread's wait loop: boost readers holding it up. */
void rcu_preempt_boost_check(void);
/* Any task preempted inside rcu_read_lock() anywhere (leaf locks taken). */
bool rcu_preempt_has_blocked_tasks(void);
/* stall.c: print the preempted readers holding up the running GP. */
void rcu_preempt_stall_print_blocked(void);

/* stall.c */
extern unsigned int rcu_cpu_stall_timeout;	/* seconds, rcu.stall_timeout */
extern unsigned int rcu_cpu_stall_timeout_ms;	/* tests: overrides when set */
extern atomic_t rcu_stall_reports;
extern unsigned long rcu_stall_last_mask;	/* CPUs named by the last report */
unsigned long rcu_jiffies_till_stall_check(void);
void rcu_stall_gp_start(void);
void rcu_check_cpu_stall(struct rcu_data *rdp);
/* Ends a stall report of flavour name naming the CPUs in mask. */
void rcu_stall_report_end(const char *name, unsigned long mask);
/*
 * Test build: the GP kthread, at point p, stops running (asleep, as if
 * starved of CPU time) once armed, until rcu_gp_hold_release(p), or 30 s;
 * rcu_gp_hold_held(p) is true meanwhile.  RCU_GP_HOLD_FQS: at the next
 * scan of its wait for quiescent states.  RCU_GP_HOLD_INIT: in the next
 * rcu_gp_init(), between its passes: each leaf has copied
 * qsmaskinitnext (and blkd_tasks decided whether it is in the GP), no
 * node has the new gp_seq or qsmask yet.
 */
enum rcu_gp_hold_point { RCU_GP_HOLD_FQS, RCU_GP_HOLD_INIT, RCU_GP_HOLD_NR };
#ifdef CONFIG_SANITIZE
/*
 * Test build: hold the start of the next grace period open.  Its
 * rcu_gp_init(), root lock held, first makes the last deadline one that
 * has passed (as it has whenever the last grace period began more than
 * a stall timeout ago), then, once the new gp_seq is out and the root
 * lock dropped, spins (20 s at most) until a CPU's tick has checked it
 * for a stall.  The result
 * of that check: -1 none yet, 0 no stall, 1 a stall was reported.
 */
void rcu_stall_window_arm(void);
int rcu_stall_window_result(void);
void rcu_gp_hold_arm(enum rcu_gp_hold_point p);
bool rcu_gp_hold_held(enum rcu_gp_hold_point p);
void rcu_gp_hold_release(enum rcu_gp_hold_point p);
void rcu_gp_hold_point(enum rcu_gp_hold_point p);
void rcu_stall_window_expire(unsigned long next_gps);
void rcu_stall_window_hold(unsigned long gps);
#else
static inline void rcu_gp_hold_point(enum rcu_gp_hold_point p) { (void)p; }
static inline void rcu_stall_window_expire(unsigned long next_gps) { (void)next_gps; }
static inline void rcu_stall_window_hold(unsigned long gps) { (void)gps; }
#endif

#ifdef CONFIG_SANITIZE
/*
 * Test build: set cpu's bit in its leaf's qsmaskinitnext although RCU saw
 * it go offline (a hotplug bug put back); the next grace period's first
 * pass must report it and drop the bit.  False if cpu is up for RCU.
 */
bool rcu_inject_offline_qsmask(int cpu);
#endif
