/*
 * rcu/torture_threads.c - rcutorture's stressors that are threads,
 * interrupts and pauses around the readers of rcu/torture.c (Linux's
 * option names):
 *
 *  - irqreader: a timer on every CPU reads in its handler (irq context:
 *    a bare body for RCU-sched, rcu_read_lock() or srcu_read_lock() for
 *    the others) every tick or two, and for RCU-sched flavours sends an
 *    NMI to the next CPU whose handler reads too (smp_call_nmi()).  Both
 *    dawdle now and then (briefly: hardirq context) and check the
 *    pipeline count and the cookies as the thread readers do.
 *    rcu.inject=irq_eqs (an irq or NMI from idle that RCU does not
 *    watch) is the bug they catch and thread readers cannot.
 *  - stall_cpu=S (stall_cpu_holdoff, stall_cpu_irqsoff): after the
 *    holdoff one CPU (the last; never CPU 0, whose tick keeps jiffies)
 *    stays in a reader with preemption (or irqs) off for S seconds and
 *    at least until a stall warning has named it, at most S seconds plus
 *    three stall timeouts (rcu.stall_timeout) and 10 s (irqs off: two
 *    and 1 s).  Then grace periods must resume, within as long:
 *    RCU-sched's (a polled cookie taken at the start) and the flavour's
 *    (two more).  With the rcu flavour a reader the stall thread preempted
 *    on that CPU holds the running GP, so the warning names that task and
 *    the next GP, which would name the CPU, cannot start: use sched or
 *    srcu to see the CPU named.
 *  - read_exit_burst=N (read_exit_delay=S): every S seconds N kthreads
 *    each read at least 100 times, with their sections preempted or
 *    asleep as the flavour allows, and on until two grace periods of the
 *    flavour have ended since their first read began, then exit.  The
 *    parent drives those grace periods itself while its children read
 *    (one callback of the flavour always in flight), so that they must
 *    end whether or not the writer runs then (a burst may fall in the
 *    settle after the run).  The children read at the readers' priority:
 *    above it, busy children starve a reader they preempted in its
 *    section, and no SRCU grace period ends until they exit.  Each child
 *    records its reads and the grace-period counts at its first read and
 *    its last; the parent checks every child read, saw two grace periods
 *    end meanwhile and exited, waiting for each at most READ_EXIT_WAIT_S
 *    seconds: a hung child is named, not waited for for ever.
 *    torture.read_exit_fault (test build) shows the check failing: 1,
 *    the first child of each burst does not read; 2, it hangs until the
 *    run stops; 3, the children read above the readers' priority (the
 *    starvation above, put back).
 *  - stutter=S: the test runs S seconds, then writers, readers and the
 *    other stressors pause for S seconds, again and again.
 *  - shuffle_interval=S: every S seconds the readers move: tasks never
 *    migrate here, so each reader ends and starts again on the next CPU,
 *    and one CPU in turn keeps none (it goes idle).
 *  - cpu_kthreads: a kthread bound to each online CPU, in the shape of
 *    Linux's per-CPU kthreads (smpboot's): it reads for a stretch of
 *    0.5-4 ms (one section of the flavour, no cond_resched(): under
 *    preempt=none it keeps its CPU), then hands off: it asks another CPU,
 *    by a cross-CPU call, to wake it, and sleeps.  So its CPU runs it most
 *    of the time, and each of its sleeps is met, an interrupt's latency
 *    later, by a wake-up from another CPU.  When the CPU goes down, its
 *    last switch is then often away from this kthread, asleep, with that
 *    wake-up landing as the switch ends (it moves the kthread off the
 *    dying CPU).  Moved off its CPU the kthread exits at once, as a
 *    per-CPU kthread has nothing to do elsewhere; the parent joins it
 *    within a tick or so (put_task_struct() and kthread_join() report a
 *    task struct freed meanwhile) and starts another once the CPU is back.
 *    With cpu_kthread_cbs=N (at most 8) it also call_rcu()s one of its
 *    CPU's own objects after each stretch, up to N in flight per CPU, as
 *    such a kthread frees what it used: so a CPU going down has callbacks
 *    queued that must move, and n_barrier_cbs's barrier check counts them
 *    too (cpu_kthread_cbs_snap()/_missed(): every one queued before the
 *    barrier began has run when it returns).  With no other CPU online
 *    it queues none: the stream and the grace periods it needs, all above
 *    the readers' priority, starved every other thread of the last CPU
 *    (docs/stress.md, "Fifth round").  Off by default.
 *    What it breaks is reported by the checks it runs into (a task
 *    struct's use count, the readers' own checks); its report says how
 *    many kthreads were moved and exited.
 *
 * A run does not end before each stressor set has done its part once
 * (a stall and its recovery, a burst, a pause, a shuffle): counts, not
 * time, say when; the wait is bounded and says so if cut.
 */
#include "rcu/torture_internal.h"
#include "kernel/timer.h"
#include "kernel/cpu.h"
#include "kernel/string.h"

static bool irqreader;
core_param(torture.irqreader, irqreader, bool, "readers in timer and NMI handlers");
static unsigned int stall_cpu;
core_param(torture.stall_cpu, stall_cpu, uint, "seconds one CPU stays in a reader (0: none)");
static unsigned int stall_cpu_holdoff = 10;
core_param(torture.stall_cpu_holdoff, stall_cpu_holdoff, uint, "seconds before the CPU stall");
static bool stall_cpu_irqsoff;
core_param(torture.stall_cpu_irqsoff, stall_cpu_irqsoff, bool, "stall with irqs off");
static unsigned int read_exit_burst;
core_param(torture.read_exit_burst, read_exit_burst, uint,
	   "kthreads per read-then-exit burst (0: none)");
static unsigned int read_exit_delay = 13;
core_param(torture.read_exit_delay, read_exit_delay, uint, "seconds between read_exit bursts");
static unsigned int stutter;
core_param(torture.stutter, stutter, uint, "seconds of test, then as many paused (0: none)");
static unsigned int shuffle_interval;
core_param(torture.shuffle_interval, shuffle_interval, uint,
	   "seconds between reader shuffles (0: none)");
static bool cpu_kthreads;
core_param(torture.cpu_kthreads, cpu_kthreads, bool,
	   "a reading kthread per CPU, woken by another CPU's interrupt after each read");

/*
 * A warning is due one stall timeout into the stall: wait three, and
 * 10 s.  Both count jiffies, so a loaded host stretches them alike.  With
 * irqs off, two and a second: the hard-lockup detector (watchdog_thresh,
 * 10 s by default) must not take a late warning for a dead CPU.
 */
static unsigned long stall_bound(void)
{
	if (stall_cpu_irqsoff)
		return 2 * rcu_jiffies_till_stall_check() + HZ;
	return 3 * rcu_jiffies_till_stall_check() + 10UL * HZ;
}
#define READ_EXIT_READS		100
#define READ_EXIT_READ_S	60	/* a child reads at most this long */
#define READ_EXIT_WAIT_S	(READ_EXIT_READ_S + 30)	/* the parent's wait */
#define MAX_READ_EXIT_BURST	64

/* ---- irqreader ---- */

static struct timer_list irq_timers[NR_CPUS];
static bool irq_timers_armed[NR_CPUS];
static bool irqreader_stop;		/* READ_ONCE/WRITE_ONCE */
static atomic_long_t n_irq_reads, n_nmi_reads, n_nmi_sent;
/* Per CPU, one for each context: an NMI may land inside the timer's read. */
static struct torture_random irq_rand[NR_CPUS], nmi_rand[NR_CPUS];

static void rcu_torture_nmi_reader(void)
{
	int cpu = smp_processor_id();

	rcu_torture_one_read_body(&nmi_rand[cpu], cpu);
	atomic_long_inc(&n_nmi_reads);
}

static void rcu_torture_timer(struct timer_list *t)
{
	int cpu = smp_processor_id(), idx, next;

	if (cur_ops->flavor == TF_RCU) {
		rcu_read_lock();
		rcu_torture_one_read_body(&irq_rand[cpu], cpu);
		rcu_read_unlock();
	} else if (cur_ops->flavor == TF_SRCU) {
		/* Inside one of a struct no thread reads (rcu/torture.c). */
		int idx_irq = srcu_read_lock(&rcu_torture_srcu_irq);

		idx = srcu_read_lock(&rcu_torture_srcu);
		rcu_torture_one_read_body(&irq_rand[cpu], cpu);
		srcu_read_unlock(&rcu_torture_srcu, idx);
		srcu_read_unlock(&rcu_torture_srcu_irq, idx_irq);
	} else {
		rcu_torture_one_read_body(&irq_rand[cpu], cpu);	/* irq context is a reader */
	}
	atomic_long_inc(&n_irq_reads);
	if (cur_ops->flavor == TF_SCHED && num_online_cpus() > 1) {
		next = cpu;
		do
			next = (next + 1) % NR_CPUS;
		while (!cpu_online(next));
		if (smp_call_nmi(next, rcu_torture_nmi_reader))
			atomic_long_inc(&n_nmi_sent);
	}
	if (READ_ONCE(irqreader_stop) || torture_must_stop())
		return;
	t->expires = jiffies + 1 + (jiffies & 1);
	add_timer_on(t, cpu);
}

static void irqreader_start(void)
{
	int cpu;

	WRITE_ONCE(irqreader_stop, false);
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		torture_random_init(&irq_rand[cpu], 2 * cpu + 1);
		torture_random_init(&nmi_rand[cpu], 2 * cpu + 2);
	}
	for_each_online_cpu(cpu) {
		timer_setup(&irq_timers[cpu], rcu_torture_timer, 0);
		irq_timers[cpu].expires = jiffies + 1;
		add_timer_on(&irq_timers[cpu], cpu);
		irq_timers_armed[cpu] = true;
	}
}

static void irqreader_stop_all(void)
{
	int cpu;

	WRITE_ONCE(irqreader_stop, true);
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		if (!irq_timers_armed[cpu])
			continue;
		/* A handler already past its check may re-arm once more. */
		while (del_timer_sync(&irq_timers[cpu]) || timer_pending(&irq_timers[cpu]))
			;
		irq_timers_armed[cpu] = false;
	}
}

/* ---- stall_cpu ---- */

static struct task *stall_task;
static int stall_cpu_id = -1;
static bool stall_named, stall_done, stall_resumed, stall_skipped;
static unsigned long stall_ms, stall_gps_after;
static int stall_reports;

static bool stall_report_names(int cpu, int reports0)
{
	return atomic_read(&rcu_stall_reports) != reports0 &&
	       (READ_ONCE(rcu_stall_last_mask) & (1UL << cpu));
}

static int rcu_torture_stall(void *arg)
{
	unsigned long until, start, cookie, gp_end, bound, flags = 0;
	int cpu = smp_processor_id(), reports0, idx = 0;
	bool named = false;

	(void)arg;
	until = jiffies + (unsigned long)stall_cpu_holdoff * HZ;
	while (time_before(jiffies, until) && !torture_must_stop())
		schedule_timeout_uninterruptible(1 + HZ / 50);
	if (torture_must_stop()) {
		stall_skipped = true;
		WRITE_ONCE(stall_done, true);
		return 0;
	}
	reports0 = atomic_read(&rcu_stall_reports);
	/* Said as the KTAP cases say theirs (ktap_expect_alarm()), so that a
	 * reader of the console tells this stall from a real one. */
	printk(KERN_INFO "# expected: an RCU stall warning for CPU %d, with NMI backtraces, "
	       "from torture.stall_cpu\n", cpu);
	printk(KERN_INFO "rcu-torture: rcu_torture_stall begin: CPU %d in a reader with %s "
	       "off for %u s\n", cpu, stall_cpu_irqsoff ? "irqs" : "preemption", stall_cpu);
	if (cur_ops->flavor == TF_RCU)
		rcu_read_lock();
	else if (cur_ops->flavor == TF_SRCU)
		idx = srcu_read_lock(&rcu_torture_srcu);
	if (stall_cpu_irqsoff)
		local_irq_save(flags);
	else
		preempt_disable();
	/* A grace period that needs this CPU, whatever the flavour asks. */
	cookie = start_poll_synchronize_sched();
	bound = (unsigned long)stall_cpu * HZ + stall_bound();
	start = jiffies;
	for (;;) {
		unsigned long held = jiffies - start;

		named = named || stall_report_names(cpu, reports0);
		if (held >= (unsigned long)stall_cpu * HZ && named)
			break;
		if (held >= bound)
			break;
		cpu_relax();
	}
	stall_ms = jiffies_to_msecs(jiffies - start);
	if (stall_cpu_irqsoff)
		local_irq_restore(flags);
	else
		preempt_enable();
	if (cur_ops->flavor == TF_RCU)
		rcu_read_unlock();
	else if (cur_ops->flavor == TF_SRCU)
		srcu_read_unlock(&rcu_torture_srcu, idx);
	stall_reports = atomic_read(&rcu_stall_reports) - reports0;
	stall_named = named;
	printk(KERN_INFO "rcu-torture: rcu_torture_stall end: CPU %d held %lu ms, stall "
	       "warnings %d, this CPU named: %s\n", cpu, stall_ms, stall_reports,
	       named ? "yes" : "no");
	/* Grace periods resume: RCU-sched's, and two more of the flavour's. */
	gp_end = torture_completed();
	until = jiffies + stall_bound();
	while (time_before(jiffies, until) &&
	       !(poll_state_synchronize_sched(cookie) && torture_completed() - gp_end >= 2))
		schedule_timeout_uninterruptible(1);
	stall_gps_after = torture_completed() - gp_end;
	stall_resumed = poll_state_synchronize_sched(cookie) && stall_gps_after >= 2;
	WRITE_ONCE(stall_done, true);
	return 0;
}

/* ---- read_exit ---- */

static struct task *read_exit_task;
static atomic_long_t n_read_exits, n_read_exit_reads, n_read_exit_started, n_read_exit_bad;
static unsigned long n_read_exit_bursts;

#ifdef CONFIG_SANITIZE
static unsigned int read_exit_fault;
core_param(torture.read_exit_fault, read_exit_fault, uint,
	   "test build: the first read_exit child of each burst reads nothing (1) or hangs "
	   "until the run stops (2); the children read above the readers (3)");
#else
#define read_exit_fault 0u
#endif

/* One child's record: written by the child, read by the parent once done. */
static struct read_exit_kid {
	struct task *t;
	int cpu;
	unsigned int fault;	/* read_exit_fault, for this child */
	long reads;
	unsigned long gp_first, gp_last;	/* torture_completed_any() */
	bool stopped;		/* the run ended while it read */
	bool done;		/* about to return (smp_store_release) */
} read_exit_kids[MAX_READ_EXIT_BURST];

static int rcu_torture_read_exit_child(void *arg)
{
	struct read_exit_kid *k = arg;
	struct torture_random r;
	unsigned long end = jiffies + READ_EXIT_READ_S * HZ;

	torture_random_init(&r, (unsigned long)(k - read_exit_kids) + 1000 +
			    n_read_exit_bursts * MAX_READ_EXIT_BURST);
	while (k->fault == 2 && !torture_must_stop())
		schedule_timeout_uninterruptible(1 + HZ / 50);
	k->gp_first = torture_completed_any();
	while (k->fault != 1) {
		rcu_torture_one_read(&r);
		k->reads++;
		atomic_long_inc(&n_read_exit_reads);
		if (k->reads >= READ_EXIT_READS &&
		    torture_completed_any() - k->gp_first >= 2)
			break;
		if (torture_must_stop()) {
			k->stopped = true;
			break;
		}
		if (time_after(jiffies, end))
			break;
		if (!(k->reads & 0xf))
			cond_resched();
		stutter_wait();
	}
	k->gp_last = torture_completed_any();
	atomic_long_inc(&n_read_exits);
	smp_store_release(&k->done, true);
	return 0;		/* exits while grace periods run */
}

/* After a burst: what each child did; false if one has not finished. */
static bool read_exit_check(unsigned int n)
{
	bool all_done = true;

	for (unsigned int i = 0; i < n; i++) {
		struct read_exit_kid *k = &read_exit_kids[i];

		if (!smp_load_acquire(&k->done)) {
			torture_error("read_exit: child %u of burst %lu (CPU %d) has not finished "
				      "%u s after the burst began (%ld reads): hung\n", i,
				      n_read_exit_bursts, k->cpu, READ_EXIT_WAIT_S, READ_ONCE(k->reads));
			atomic_long_inc(&n_read_exit_bad);
			all_done = false;
		} else if (k->stopped) {
			continue;
		} else if (k->reads < READ_EXIT_READS) {
			torture_error("read_exit: child %u of burst %lu (CPU %d) read %ld times, "
				      "not %d\n", i, n_read_exit_bursts, k->cpu, k->reads,
				      READ_EXIT_READS);
			atomic_long_inc(&n_read_exit_bad);
		} else if (k->gp_last - k->gp_first < 2) {
			torture_error("read_exit: child %u of burst %lu (CPU %d): %lu grace periods "
				      "ended in its %ld reads (%d s), not 2\n", i, n_read_exit_bursts,
				      k->cpu, k->gp_last - k->gp_first, k->reads, READ_EXIT_READ_S);
			atomic_long_inc(&n_read_exit_bad);
		}
	}
	return all_done;
}

/*
 * The parent's grace periods: one callback of the flavour in flight while
 * the children read, queued again once it has run.  Never blocks, so the
 * parent's wait stays bounded even when grace periods do not end.
 */
static struct read_exit_gp {
	struct rcu_head head;
	bool queued;		/* until the callback has run (smp_store_release) */
	unsigned long n;	/* callbacks that ran */
} read_exit_gp;

static void read_exit_gp_cb(struct rcu_head *head)
{
	struct read_exit_gp *g = container_of(head, struct read_exit_gp, head);

	WRITE_ONCE(g->n, g->n + 1);
	smp_store_release(&g->queued, false);
}

static void read_exit_gp_drive(void)
{
	if (smp_load_acquire(&read_exit_gp.queued))
		return;
	WRITE_ONCE(read_exit_gp.queued, true);
	torture_call(&read_exit_gp.head, read_exit_gp_cb);
}

/* The (n mod online count)-th online CPU; cpus_read_lock() held. */
static int nth_online_cpu(unsigned long n)
{
	int cpu, k = (int)(n % (unsigned long)num_online_cpus());

	for_each_online_cpu(cpu)
		if (k-- == 0)
			return cpu;
	return 0;
}

static int rcu_torture_read_exit(void *arg)
{
	unsigned int n = MIN(read_exit_burst, MAX_READ_EXIT_BURST), i, j;
	bool hung = false;

	(void)arg;
	while (!torture_must_stop()) {
		unsigned long until = jiffies + (unsigned long)read_exit_delay * HZ;

		while (time_before(jiffies, until) && !torture_must_stop())
			schedule_timeout_uninterruptible(1 + HZ / 50);
		if (torture_must_stop())
			break;
		stutter_wait();
		for (i = 0; i < n; i++) {
			struct read_exit_kid *k = &read_exit_kids[i];

			*k = (struct read_exit_kid){ .fault = i ? 0 : read_exit_fault };
			if (k->fault == 2 && n_read_exit_bursts)
				k->fault = 0;	/* one hung child is enough */
			k->t = kthread_create(rcu_torture_read_exit_child, k,
					      "rcu_torture_read_exit_child");
			if (!k->t)
				break;
			if (read_exit_fault != 3)
				torture_reader_prio(k->t);
			/*
			 * Spread over the CPUs online now; under onoff a
			 * CPU may go down right after (the child is then
			 * moved, unbound), but never before the bind.
			 */
			cpus_read_lock();
			k->cpu = nth_online_cpu(n_read_exit_bursts + i);
			kthread_bind(k->t, k->cpu);
			wake_up_process(k->t);
			cpus_read_unlock();
			atomic_long_inc(&n_read_exit_started);
		}
		/* Bounded: a child that never finishes is named, not joined. */
		for (j = 0; j < READ_EXIT_WAIT_S * 50; j++) {
			unsigned int d = 0;

			for (unsigned int c = 0; c < i; c++)
				d += smp_load_acquire(&read_exit_kids[c].done);
			if (d == i)
				break;
			if (!torture_must_stop())
				read_exit_gp_drive();
			schedule_timeout_uninterruptible(1 + HZ / 50);
		}
		hung = !read_exit_check(i);
		for (unsigned int c = 0; c < i; c++)
			if (smp_load_acquire(&read_exit_kids[c].done))
				kthread_join(read_exit_kids[c].t);
		WRITE_ONCE(n_read_exit_bursts, n_read_exit_bursts + 1);
		if (hung)
			break;	/* the hung child's record stays where it is */
	}
	/* Stopping: a hung child that finishes now is joined; else left. */
	if (hung) {
		while (!torture_must_stop())
			schedule_timeout_uninterruptible(1 + HZ / 50);
		for (i = 0; i < n; i++) {
			struct read_exit_kid *k = &read_exit_kids[i];

			if (!k->t || smp_load_acquire(&k->done))
				continue;
			for (j = 0; j < 5 * 50 && !smp_load_acquire(&k->done); j++)
				schedule_timeout_uninterruptible(1 + HZ / 50);
			if (smp_load_acquire(&k->done))
				kthread_join(k->t);
		}
	}
	return 0;
}

/* ---- stutter ---- */

static struct task *stutter_task;
static bool stutter_paused;		/* READ_ONCE/WRITE_ONCE */
static unsigned long n_stutter_pauses;

void stutter_wait(void)
{
	while (READ_ONCE(stutter_paused) && !torture_must_stop())
		schedule_timeout_uninterruptible(1 + HZ / 100);
}

static void torture_sleep_s(unsigned int s)
{
	unsigned long until = jiffies + (unsigned long)s * HZ;

	while (time_before(jiffies, until) && !torture_must_stop())
		schedule_timeout_uninterruptible(1 + HZ / 50);
}

static int rcu_torture_stutter(void *arg)
{
	(void)arg;
	while (!torture_must_stop()) {
		torture_sleep_s(stutter);
		if (torture_must_stop())
			break;
		WRITE_ONCE(stutter_paused, true);
		torture_sleep_s(stutter);
		WRITE_ONCE(stutter_paused, false);
		WRITE_ONCE(n_stutter_pauses, n_stutter_pauses + 1);
	}
	WRITE_ONCE(stutter_paused, false);
	return 0;
}

/* ---- shuffle ---- */

static struct task *shuffle_task;
static unsigned long n_shuffles;

static int rcu_torture_shuffle(void *arg)
{
	unsigned int rotate = 0;
	int idle = -1, cpu;

	(void)arg;
	while (!torture_must_stop()) {
		torture_sleep_s(shuffle_interval);
		if (torture_must_stop())
			break;
		/* The next online CPU in turn keeps no reader. */
		if (num_online_cpus() > 1) {
			cpu = idle;
			do
				cpu = (cpu + 1) % NR_CPUS;
			while (!cpu_online(cpu));
			idle = cpu;
		}
		rcu_torture_readers_shuffle(++rotate, idle);
		WRITE_ONCE(n_shuffles, n_shuffles + 1);
	}
	return 0;
}

/* ---- cpu_kthreads ---- */

static struct task *cpu_kthreads_task;
static atomic_long_t n_cpu_kthread_starts, n_cpu_kthread_moved, n_cpu_kthread_handoffs;
static unsigned long n_cpu_kthread_passes;

/* One per CPU.  t: the parent's handle, until it has joined the child. */
static struct cpu_kthread {
	struct task *t;
	int cpu;
	bool handoff;		/* asleep, a wake-up asked for (xchg by the waker) */
	bool in_flight;		/* the cross-CPU call not run yet (smp_store_release) */
	bool done;		/* about to return (smp_store_release) */
} cpu_kthread_kids[NR_CPUS];

/*
 * Each CPU's stream of callbacks.  seq: the stream's count when it was
 * queued; pending: queued, not yet invoked (smp_store_release by the
 * callback).  queued[cpu]: callbacks of cpu's stream queued so far,
 * published once torture_call() has returned; one child at a time
 * writes it, on cpu.
 */
#define CPU_KTHREAD_CBS	8
static unsigned int cpu_kthread_cbs_max;
core_param(torture.cpu_kthread_cbs, cpu_kthread_cbs_max, uint,
	   "cpu_kthreads: callbacks in flight per CPU (0: none, the default; at most 8)");
static struct cpu_kthread_cb {
	struct rcu_head rh;
	unsigned long seq;
	bool pending;
} cpu_kthread_cbs[NR_CPUS][CPU_KTHREAD_CBS];
static unsigned long cpu_kthread_cbs_queued[NR_CPUS], cpu_kthread_cbs_snapped[NR_CPUS];
static atomic_long_t n_cpu_kthread_cbs;

static void cpu_kthread_cbf(struct rcu_head *rh)
{
	struct cpu_kthread_cb *cb = container_of(rh, struct cpu_kthread_cb, rh);

	smp_store_release(&cb->pending, false);
}

/* On cpu, by its child: queue a free object of cpu's stream, if any. */
static void cpu_kthread_queue_cb(int cpu)
{
	unsigned long seq = cpu_kthread_cbs_queued[cpu];

	for (int i = 0; i < (int)MIN(cpu_kthread_cbs_max, CPU_KTHREAD_CBS); i++) {
		struct cpu_kthread_cb *cb = &cpu_kthread_cbs[cpu][i];

		if (smp_load_acquire(&cb->pending))
			continue;
		cb->seq = seq;
		WRITE_ONCE(cb->pending, true);
		torture_call(&cb->rh, cpu_kthread_cbf);
		smp_store_release(&cpu_kthread_cbs_queued[cpu], seq + 1);
		atomic_long_inc(&n_cpu_kthread_cbs);
		return;
	}
}

/* n_barrier_cbs's barrier, before it begins: what each stream has queued. */
void cpu_kthread_cbs_snap(void)
{
	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		cpu_kthread_cbs_snapped[cpu] = smp_load_acquire(&cpu_kthread_cbs_queued[cpu]);
}

/*
 * Once the barrier has returned: the callbacks queued before the snapshot
 * that have not run.  pending is read before seq: an object invoked and
 * queued again meanwhile shows a seq at or past the snapshot, never an
 * old one, so only a real miss counts.
 */
long cpu_kthread_cbs_missed(void)
{
	long missed = 0;

	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		for (int i = 0; i < CPU_KTHREAD_CBS; i++) {
			struct cpu_kthread_cb *cb = &cpu_kthread_cbs[cpu][i];

			if (smp_load_acquire(&cb->pending) &&
			    READ_ONCE(cb->seq) < cpu_kthread_cbs_snapped[cpu])
				missed++;
		}
	return missed;
}

/* On another CPU, in its interrupt: wake the child that asked. */
static void cpu_kthread_wake(void *arg)
{
	struct cpu_kthread *k = arg;

	if (xchg(&k->handoff, false))
		wake_up_process(k->t);
	smp_store_release(&k->in_flight, false);	/* k->t is not touched after */
}

/* An online CPU other than cpu, or -1. */
static int cpu_kthread_waker(int cpu)
{
	for (int i = 1; i < NR_CPUS; i++) {
		int w = (cpu + i) % NR_CPUS;

		if (cpu_online(w))
			return w;
	}
	return -1;
}

static int rcu_torture_cpu_kthread(void *arg)
{
	struct cpu_kthread *k = arg;
	struct torture_random r;
	int idx, w;

	torture_random_init(&r, (u64)k->cpu + 2000);
	while (!kthread_should_stop() && !torture_must_stop()) {
		u64 end;

		if (raw_smp_processor_id() != k->cpu) {
			atomic_long_inc(&n_cpu_kthread_moved);
			break;		/* its CPU went down: nothing to do elsewhere */
		}
		end = ktime_get_ns() + 500000 + torture_random(&r) % 3500000;
		rcutorture_flavour_lock(&idx);
		do
			rcu_torture_one_read_body(NULL, k->cpu);
		while (ktime_get_ns() < end);
		rcutorture_flavour_unlock(idx);
		/* The hand-off: another CPU's interrupt wakes it. */
		w = cpu_kthread_waker(k->cpu);
		if (w < 0) {
			/* The only CPU online (CPU 0, which never goes down):
			 * its timer wakes it, and it queues no callback.  Its
			 * stream would keep the grace-period kthread, above
			 * the readers too, busy on this one CPU for good (in
			 * the test build each grace period's start spins in
			 * jitter delays): onoff, the writers and the stats
			 * would starve, and did (docs/stress.md, "Fifth
			 * round").  Nothing here can move anyway. */
			schedule_timeout_uninterruptible(1);
			continue;
		}
		cpu_kthread_queue_cb(k->cpu);
		set_current_state(TASK_INTERRUPTIBLE);
		WRITE_ONCE(k->in_flight, true);
		smp_store_release(&k->handoff, true);
		if (smp_call_function_single(w, cpu_kthread_wake, k, 0)) {
			WRITE_ONCE(k->handoff, false);	/* w went down meanwhile */
			WRITE_ONCE(k->in_flight, false);
		} else {
			atomic_long_inc(&n_cpu_kthread_handoffs);
		}
		if (READ_ONCE(k->handoff) && !kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
		WRITE_ONCE(k->handoff, false);		/* kthread_stop() woke it */
		/* The call may still be on its way: it uses k->t. */
		while (smp_load_acquire(&k->in_flight))
			cpu_relax();
	}
	smp_store_release(&k->done, true);
	return 0;
}

/* cpus_read_lock() held: a child for cpu (online), or none if out of memory. */
static void cpu_kthread_start(int cpu)
{
	struct cpu_kthread *k = &cpu_kthread_kids[cpu];

	*k = (struct cpu_kthread){ .cpu = cpu };
	k->t = kthread_create(rcu_torture_cpu_kthread, k, "rcu_torture_cpu_kthread");
	if (!k->t)
		return;
	/* Moved off a CPU going down, it must run (and exit) at once where
	 * it lands: above the readers where that starves none (RCU-sched's
	 * cannot be preempted anyway); it sleeps after each stretch. */
	if (cur_ops->flavor == TF_SCHED)
		set_task_prio(k->t, PRIO_HIGH);
	else
		torture_reader_prio(k->t);
	kthread_bind(k->t, cpu);
	wake_up_process(k->t);
	atomic_long_inc(&n_cpu_kthread_starts);
}

/* Join a child that has finished. */
static void cpu_kthread_reap(struct cpu_kthread *k)
{
	if (smp_load_acquire(&k->done)) {
		kthread_join(k->t);
		k->t = NULL;
	}
}

/* The parent, on CPU 0 (never taken down): reaps and restarts each tick. */
static int rcu_torture_cpu_kthreads(void *arg)
{
	int cpu;

	(void)arg;
	while (!torture_must_stop()) {
		cpus_read_lock();
		for (cpu = 0; cpu < NR_CPUS; cpu++) {
			struct cpu_kthread *k = &cpu_kthread_kids[cpu];

			if (k->t)
				cpu_kthread_reap(k);
			if (!k->t && cpu_online(cpu))
				cpu_kthread_start(cpu);
		}
		cpus_read_unlock();
		WRITE_ONCE(n_cpu_kthread_passes, n_cpu_kthread_passes + 1);
		schedule_timeout_uninterruptible(1);
	}
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		if (cpu_kthread_kids[cpu].t) {
			kthread_stop(cpu_kthread_kids[cpu].t);
			cpu_kthread_kids[cpu].t = NULL;
		}
	return 0;
}

/* ---- start, stop, report ---- */

int rcu_torture_threads_start(void)
{
	int cpu;

	atomic_long_set(&n_irq_reads, 0);
	atomic_long_set(&n_nmi_reads, 0);
	atomic_long_set(&n_nmi_sent, 0);
	atomic_long_set(&n_read_exits, 0);
	atomic_long_set(&n_read_exit_reads, 0);
	atomic_long_set(&n_read_exit_started, 0);
	atomic_long_set(&n_read_exit_bad, 0);
	memset(read_exit_kids, 0, sizeof(read_exit_kids));
	read_exit_gp.n = 0;	/* the last run's barriers ran its callback */
	n_read_exit_bursts = n_stutter_pauses = n_shuffles = 0;
	atomic_long_set(&n_cpu_kthread_starts, 0);
	atomic_long_set(&n_cpu_kthread_moved, 0);
	atomic_long_set(&n_cpu_kthread_handoffs, 0);
	atomic_long_set(&n_cpu_kthread_cbs, 0);
	n_cpu_kthread_passes = 0;
	stall_named = stall_done = stall_resumed = stall_skipped = false;
	stall_ms = stall_gps_after = 0;
	stall_reports = 0;
	stall_cpu_id = -1;
	WRITE_ONCE(stutter_paused, false);
	if (irqreader)
		irqreader_start();
	if (stall_cpu) {
		for_each_online_cpu(cpu)
			stall_cpu_id = cpu;	/* the last */
		if (stall_cpu_irqsoff && stall_cpu_id == 0) {
			pr_err("rcu-torture: stall_cpu_irqsoff needs a CPU besides CPU 0, "
			       "whose tick keeps time\n");
			torture_error("stall_cpu_irqsoff at one CPU\n");
			stall_cpu_id = -1;
		} else {
			stall_task = kthread_create(rcu_torture_stall, NULL, "rcu_torture_stall");
			if (stall_task) {
				kthread_bind(stall_task, stall_cpu_id);
				wake_up_process(stall_task);
			}
		}
	}
	if (read_exit_burst)
		read_exit_task = kthread_run(rcu_torture_read_exit, NULL, "rcu_torture_read_exit");
	if (stutter)
		stutter_task = kthread_run(rcu_torture_stutter, NULL, "rcu_torture_stutter");
	if (shuffle_interval)
		shuffle_task = kthread_run(rcu_torture_shuffle, NULL, "rcu_torture_shuffle");
	if (cpu_kthreads) {
		cpu_kthreads_task = kthread_create(rcu_torture_cpu_kthreads, NULL,
						   "rcu_torture_cpu_kthreads");
		if (cpu_kthreads_task) {
			kthread_bind(cpu_kthreads_task, 0);
			wake_up_process(cpu_kthreads_task);
		}
	}
	return 0;
}

/* True while a stressor has not yet done its part once. */
bool rcu_torture_threads_pending(void)
{
	if (stall_task && !READ_ONCE(stall_done))
		return true;
	if (read_exit_task && !READ_ONCE(n_read_exit_bursts))
		return true;
	if (stutter_task && !READ_ONCE(n_stutter_pauses))
		return true;
	if (shuffle_task && !READ_ONCE(n_shuffles))
		return true;
	return false;
}

void rcu_torture_threads_stop(void)
{
	if (cpu_kthreads_task)
		kthread_stop(cpu_kthreads_task);
	if (shuffle_task)
		kthread_stop(shuffle_task);
	if (stutter_task)
		kthread_stop(stutter_task);
	if (read_exit_task)
		kthread_stop(read_exit_task);
	if (stall_task)
		kthread_stop(stall_task);
	if (irqreader)
		irqreader_stop_all();
}

bool rcu_torture_threads_report(void)
{
	bool ok = true;

	if (irqreader) {
		printk(KERN_INFO "rcu-torture: irqreader: timer reads %ld NMIs sent %ld NMI "
		       "reads %ld\n", atomic_long_read(&n_irq_reads),
		       atomic_long_read(&n_nmi_sent), atomic_long_read(&n_nmi_reads));
		if (!atomic_long_read(&n_irq_reads)) {
			pr_err("rcu-torture: irqreader: no timer handler read\n");
			ok = false;
		}
	}
	if (stall_task) {
		printk(KERN_INFO "rcu-torture: stall_cpu: CPU %d %s off %lu ms, stall warnings "
		       "%d, named: %s, grace periods after: %lu, resumed: %s\n", stall_cpu_id,
		       stall_cpu_irqsoff ? "irqs" : "preemption", stall_ms, stall_reports,
		       stall_named ? "yes" : "no", stall_gps_after, stall_resumed ? "yes" : "no");
		if (stall_skipped) {
			pr_err("rcu-torture: stall_cpu: the run ended before the stall\n");
			ok = false;
		} else if (!stall_named) {
			torture_error("stall_cpu: no stall warning named CPU %d in %lu ms\n",
				      stall_cpu_id, stall_ms);
			ok = false;
		} else if (!stall_resumed) {
			torture_error("stall_cpu: grace periods did not resume within %u ms of "
				      "the stall\n", jiffies_to_msecs(stall_bound()));
			ok = false;
		}
		stall_task = NULL;
	}
	if (read_exit_task) {
		printk(KERN_INFO "rcu-torture: read_exit: bursts %lu kthreads started %ld finished "
		       "%ld reads %ld, grace periods it drove %lu, kthreads that failed the "
		       "check %ld\n", n_read_exit_bursts, atomic_long_read(&n_read_exit_started),
		       atomic_long_read(&n_read_exits), atomic_long_read(&n_read_exit_reads),
		       READ_ONCE(read_exit_gp.n), atomic_long_read(&n_read_exit_bad));
		if (atomic_long_read(&n_read_exit_bad) || !atomic_long_read(&n_read_exits)) {
			torture_error("read_exit: %ld of %ld kthreads failed the check\n",
				      atomic_long_read(&n_read_exit_bad),
				      atomic_long_read(&n_read_exit_started));
			ok = false;
		}
		read_exit_task = NULL;
	}
	if (stutter_task) {
		printk(KERN_INFO "rcu-torture: stutter: pauses %lu\n", n_stutter_pauses);
		stutter_task = NULL;
	}
	if (shuffle_task) {
		printk(KERN_INFO "rcu-torture: shuffle: shuffles %lu\n", n_shuffles);
		shuffle_task = NULL;
	}
	if (cpu_kthreads_task) {
		printk(KERN_INFO "rcu-torture: cpu_kthreads: started %ld, moved off a CPU going "
		       "down and exited %ld, hand-offs %ld, callbacks queued %ld\n",
		       atomic_long_read(&n_cpu_kthread_starts),
		       atomic_long_read(&n_cpu_kthread_moved),
		       atomic_long_read(&n_cpu_kthread_handoffs),
		       atomic_long_read(&n_cpu_kthread_cbs));
		cpu_kthreads_task = NULL;
	}
	return ok;
}
