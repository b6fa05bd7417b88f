/*
 * rcu/stall.c - the RCU CPU stall detector (Linux's tree_stall.h).
 *
 * Every CPU's tick checks whether the running grace period is older than
 * rcu.stall_timeout; one CPU wins a cmpxchg on rcu_state.jiffies_stall and
 * reports: which CPUs have not passed a quiescent state, and their
 * backtraces, asked for by NMI (trigger_cpu_backtrace).  The check runs in
 * every CPU's tick, not in the GP kthread, because the kthread may be
 * queued behind the very CPU that stalls.  Reports repeat every
 * 3 * timeout while the stall lasts.  Expedited grace periods report
 * their stalls from their own wait (rcu/expedited.c), ending as these do.
 * A report also says when the GP kthread has not run a step of its own
 * for a while (Linux's rcu_check_gp_kthread_starvation()): every CPU may
 * have reported, and the grace period still not end, because the kthread
 * that must scan and end it does not get a CPU; without that line such a
 * report names nobody.  The kthread is woken, in case a wake-up was lost.
 * Tests read rcu_stall_reports and rcu_stall_last_mask, which a report
 * sets once it is wholly printed.
 */
#include "rcu/tree.h"
#include "kernel/printk.h"
#include "kernel/cmdline.h"

unsigned int rcu_cpu_stall_timeout = 10;
core_param(rcu.stall_timeout, rcu_cpu_stall_timeout, uint,
	   "seconds a grace period may last before the CPUs holding it up are reported");
unsigned int rcu_cpu_stall_timeout_ms;
core_param(rcu.stall_timeout_ms, rcu_cpu_stall_timeout_ms, uint,
	   "the same in milliseconds, overriding rcu.stall_timeout when set (tests)");
static bool rcu_cpu_stall_suppress;
core_param(rcu.stall_suppress, rcu_cpu_stall_suppress, bool, "no stall reports");

atomic_t rcu_stall_reports = ATOMIC_INIT(0);
unsigned long rcu_stall_last_mask;

unsigned long rcu_jiffies_till_stall_check(void)
{
	unsigned int ms = READ_ONCE(rcu_cpu_stall_timeout_ms);

	if (!ms)
		ms = READ_ONCE(rcu_cpu_stall_timeout) * 1000;
	if (ms < 100)
		ms = 100;
	return msecs_to_jiffies(ms);
}

/*
 * The backtraces of the CPUs a report named (by NMI; the reporter's own
 * directly), and only then the report is counted: whoever sees
 * rcu_stall_reports move finds the whole report in the log.
 */
void rcu_stall_report_end(const char *name, unsigned long mask)
{
	int cpu, self = raw_smp_processor_id();

	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		if (!(mask & (1UL << cpu)))
			continue;
		if (cpu == self) {
			printk(KERN_ERR "rcu: INFO: %s self-detected stall on CPU %d\n", name, cpu);
			dump_stack();
		} else if (!trigger_cpu_backtrace(cpu)) {
			printk(KERN_ERR "rcu: cannot NMI CPU %d for its backtrace\n", cpu);
		}
	}
	trace_rcu_stall_warning(name, "StallDetected", rcu_state.gp_seq);
	trace_dump_later("stall");
	WRITE_ONCE(rcu_stall_last_mask, mask);
	atomic_inc(&rcu_stall_reports);
}

/*
 * Root lock held, from rcu_gp_init(), before the new gp_seq is stored: the
 * release of gp_seq orders this before it, and rcu_check_cpu_stall()'s
 * acquire of gp_seq, so a CPU that sees the new grace period sees its
 * deadline, never the last one's.
 */
void rcu_stall_gp_start(void)
{
	WRITE_ONCE(rcu_state.jiffies_stall, jiffies + rcu_jiffies_till_stall_check());
#ifdef CONFIG_SANITIZE
	/* The GP being started (gp_seq's counter, in progress). */
	WRITE_ONCE(rcu_state.jiffies_stall_gp, (rcu_state.gp_seq & ~RCU_SEQ_STATE_MASK) | 1);
#endif
}

#ifdef CONFIG_SANITIZE
/*
 * Test build, from the tick's check: the deadline read after gp_seq's
 * acquire must be that grace period's or a newer one's.  A stale one is
 * silent while it lies in the future (grace periods come back to back
 * under stress) and a false stall report once it is past; this says so
 * at the first CPU that sees the two out of order, whatever the deadline.
 */
static void rcu_stall_deadline_check(unsigned long gps)
{
	unsigned long sgp = READ_ONCE(rcu_state.jiffies_stall_gp);

	WARN_ONCE(ULONG_CMP_LT(sgp, gps),
		  "rcu: CPU %d saw grace period %ld begun with the stall deadline of grace "
		  "period %ld: the deadline must be stored before the new gp_seq\n",
		  raw_smp_processor_id(), (long)rcu_seq_ctr(gps), (long)rcu_seq_ctr(sgp));
}
#else
static inline void rcu_stall_deadline_check(unsigned long gps) { (void)gps; }
#endif

#ifdef CONFIG_SANITIZE
/* Test build: rcu_stall_window_arm() (rcu/tree.h). */
enum { SW_IDLE, SW_ARMED, SW_OPEN };
static struct {
	int stage;		/* SW_* */
	unsigned long gps;	/* the GP being started, once SW_OPEN */
	int result;		/* the first check of it: -1 none yet, 0, 1 */
} rcu_stall_window = { .stage = SW_IDLE, .result = -1 };

void rcu_stall_window_arm(void)
{
	WRITE_ONCE(rcu_stall_window.result, -1);
	smp_store_release(&rcu_stall_window.stage, SW_ARMED);
}

int rcu_stall_window_result(void)
{
	return smp_load_acquire(&rcu_stall_window.result);
}

/* rcu_gp_init(), root lock held, no GP running, next_gps about to start. */
void rcu_stall_window_expire(unsigned long next_gps)
{
	if (READ_ONCE(rcu_stall_window.stage) != SW_ARMED)
		return;
	WRITE_ONCE(rcu_state.jiffies_stall, jiffies - 1);
	WRITE_ONCE(rcu_stall_window.gps, next_gps);
	smp_store_release(&rcu_stall_window.stage, SW_OPEN);
}

/* rcu_gp_init(), irqs off, gps just started, the root lock dropped. */
void rcu_stall_window_hold(unsigned long gps)
{
	u64 end = ktime_get_ns() + 20000ull * 1000000ull;

	if (READ_ONCE(rcu_stall_window.stage) != SW_OPEN)
		return;
	while (smp_load_acquire(&rcu_stall_window.result) < 0 && ktime_get_ns() < end)
		cpu_relax();
	if (READ_ONCE(rcu_stall_window.result) < 0)
		pr_err("rcu: stall window: no CPU checked grace period %ld for a stall "
		       "within 20 s of its start\n", (long)rcu_seq_ctr(gps));
	WRITE_ONCE(rcu_stall_window.stage, SW_IDLE);
}

/* Any CPU's tick: its check of gps came to report (or not). */
static void rcu_stall_window_checked(unsigned long gps, bool report)
{
	if (smp_load_acquire(&rcu_stall_window.stage) == SW_OPEN &&
	    gps == READ_ONCE(rcu_stall_window.gps))
		cmpxchg(&rcu_stall_window.result, -1, (int)report);
}
#else
static inline void rcu_stall_window_checked(unsigned long gps, bool report)
{
	(void)gps;
	(void)report;
}
#endif

#ifdef CONFIG_SANITIZE
/* Test build: rcu_gp_hold_arm() (rcu/tree.h), one state per point. */
static struct {
	bool armed, held, release;
} rcu_gp_hold[RCU_GP_HOLD_NR];

void rcu_gp_hold_arm(enum rcu_gp_hold_point p)
{
	WRITE_ONCE(rcu_gp_hold[p].release, false);
	smp_store_release(&rcu_gp_hold[p].armed, true);
}

bool rcu_gp_hold_held(enum rcu_gp_hold_point p)
{
	return smp_load_acquire(&rcu_gp_hold[p].held);
}

void rcu_gp_hold_release(enum rcu_gp_hold_point p)
{
	smp_store_release(&rcu_gp_hold[p].release, true);
	rcu_gp_kthread_wake();
}

/* The GP kthread, at p (no lock held): off the CPU until released. */
void rcu_gp_hold_point(enum rcu_gp_hold_point p)
{
	unsigned long end = jiffies + 30 * HZ;

	if (!smp_load_acquire(&rcu_gp_hold[p].armed))
		return;
	WRITE_ONCE(rcu_gp_hold[p].armed, false);
	smp_store_release(&rcu_gp_hold[p].held, true);
	while (!smp_load_acquire(&rcu_gp_hold[p].release) && time_before(jiffies, end))
		schedule_timeout_uninterruptible(HZ / 100 + 1);
	WRITE_ONCE(rcu_gp_hold[p].held, false);
}
#endif

/* How long the GP kthread may go without a step of its own, in a stall. */
static unsigned long rcu_gp_kthread_starved_jiffies(void)
{
	return MIN(2UL * HZ, rcu_jiffies_till_stall_check() / 2);
}

/* Part of a stall report: the GP kthread has not run for long. */
static void rcu_check_gp_kthread_starvation(void)
{
	struct task *t = READ_ONCE(rcu_state.gp_kthread);
	unsigned long j = jiffies - READ_ONCE(rcu_state.gp_activity);
	int cpu;

	if (!t || j <= rcu_gp_kthread_starved_jiffies())
		return;
	cpu = READ_ONCE(t->cpu);
	printk(KERN_ERR "rcu: rcu_sched kthread starved for %lu jiffies! g%ld f%#x %s "
	       "->state=%#lx ->cpu=%d%s\n", j, (long)rcu_seq_ctr(READ_ONCE(rcu_state.gp_seq)),
	       READ_ONCE(rcu_state.gp_flags), t->name, (long)READ_ONCE(t->state), cpu,
	       READ_ONCE(t->on_cpu) ? " (running)" : "");
	printk(KERN_ERR "rcu: \tUnless rcu_sched kthread gets sufficient CPU time, no grace "
	       "period ends and callbacks pile up: OOM is now expected behavior.\n");
	/* Running: its CPU's backtrace shows where (by NMI, or our own). */
	if (READ_ONCE(t->on_cpu)) {
		printk(KERN_ERR "rcu: RCU grace-period kthread stack dump:\n");
		if (cpu == raw_smp_processor_id())
			dump_stack();
		else if (!trigger_cpu_backtrace(cpu))
			printk(KERN_ERR "rcu: cannot NMI CPU %d for its backtrace\n", cpu);
	}
	wake_up_process(t);	/* a lost wake-up is one way to starve */
}

static void rcu_stall_print(int cpu, unsigned long gps)
{
	struct rcu_data *rdp = per_cpu_ptr(&rcu_data, cpu);

	printk(KERN_ERR "rcu: \t%d-...: (%lu ticks this GP) idle=%s g=%ld\n", cpu,
	       READ_ONCE(rdp->ticks_this_gp),
	       rcu_dynticks_in_eqs(atomic_read(&rdp->dynticks)) ? "yes" : "no",
	       (long)rcu_seq_ctr(gps));
}

static void rcu_stall_report(struct rcu_data *me, unsigned long gps, unsigned long age)
{
	struct rcu_node *rnp;
	unsigned long mask_all = 0, flags;
	int cpu, self = me->cpu;

	printk(KERN_ERR "rcu: INFO: rcu_sched detected stalls on CPUs/tasks:\n");
	rcu_for_each_leaf_node(rnp) {
		unsigned long qsmask;

		spin_lock_irqsave(&rnp->lock, flags);
		qsmask = rnp->qsmask;
		spin_unlock_irqrestore(&rnp->lock, flags);
		for_each_leaf_node_cpu(rnp, cpu)
			if (qsmask & per_cpu_ptr(&rcu_data, cpu)->grpmask) {
				mask_all |= 1UL << cpu;
				rcu_stall_print(cpu, gps);
			}
	}
	rcu_preempt_stall_print_blocked();	/* preempted readers (rcu/preempt.c) */
	printk(KERN_ERR "rcu: \t(detected by %d, t=%lu jiffies, g=%ld, q=%ld)\n",
	       self, age, (long)rcu_seq_ctr(gps), (long)rcu_segcblist_n_cbs(&me->cblist));
	rcu_check_gp_kthread_starvation();
	rcu_stall_report_end("rcu_sched", mask_all);
}

/* From every CPU's tick, irqs off. */
void rcu_check_cpu_stall(struct rcu_data *rdp)
{
	unsigned long gps, js, j;
	bool report;

	if (READ_ONCE(rcu_cpu_stall_suppress))
		return;
	/* Acquire: the deadline read next is this GP's (rcu_stall_gp_start()). */
	gps = smp_load_acquire(&rcu_state.gp_seq);
	if (!rcu_seq_state(gps))
		return;
	j = jiffies;
	js = READ_ONCE(rcu_state.jiffies_stall);
	rcu_stall_deadline_check(gps);	/* test build only */
	/* One reporter per interval; the GP may also have ended meanwhile. */
	report = time_after_eq(j, js) &&
		 cmpxchg(&rcu_state.jiffies_stall, js, j + 3 * rcu_jiffies_till_stall_check()) == js &&
		 smp_load_acquire(&rcu_state.gp_seq) == gps;
	rcu_stall_window_checked(gps, report);
	if (report)
		rcu_stall_report(rdp, gps, j - READ_ONCE(rcu_state.gp_start));
}

