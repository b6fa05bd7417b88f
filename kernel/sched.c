/*
 * kernel/sched.c - per-CPU run queues, the context switch, kthreads, idle.
 *
 * Shape (see kernel/sched.h for the contract):
 *  - struct rq per CPU: a FIFO list per priority, the running task, the
 *    idle task, all under an arch spinlock taken with irqs off (wake-ups
 *    come from irq handlers and other CPUs).
 *  - __schedule() is the only place a CPU changes task: it reports the
 *    pass to RCU, puts prev back (or lets it sleep), picks the most urgent
 *    queued task (or idle), swaps the per-CPU preempt_count and `current`,
 *    and calls the arch switch.
 *  - Tasks never migrate after creation, so a wake-up only ever adds a
 *    task to the queue of the CPU that last ran it: that CPU cannot pick
 *    it before its own switch away from it has finished, and no other CPU
 *    ever touches its stack.  Cross-CPU wake-ups send the reschedule IPI.
 *    CPU hotplug is the exception (see "CPU hotplug" below): a dying run
 *    queue runs only its idle task, which moves the queued tasks away
 *    when nothing else runs there, and a waker of a task that last ran
 *    on it waits for ->on_cpu to clear before queueing it elsewhere.
 */
#include "kernel/sched.h"
#include "kernel/printk.h"
#include "kernel/slab.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "kernel/vmstack.h"
#include "kernel/time.h"
#include "kernel/trace.h"
#include "kernel/cmdline.h"
#include "rcu/rcupdate.h"
#include "asm/cpu.h"
#include "asm/smp.h"
#include "kernel/cpu.h"
#include "kernel/tick_sched.h"

struct rq {
	arch_spinlock_t lock;
	struct list_head queue[NR_PRIO];
	int nr_running;		/* queued, not counting curr */
	struct task *curr;
	struct task *idle;
	u64 nr_switches;
	bool dying;		/* cpu_down(): run only idle, move the rest away */
} ____cacheline_aligned;

static struct rq runqueues[NR_CPUS];

/* Boot CPU's kmain context, a task from the first instruction on. */
static struct task init_task = {
	.name = "kmain",
	.state = TASK_RUNNING,
	.cpu = 0,
	.bound_cpu = 0,
	.prio = PRIO_NORMAL,
	.on_rq = 1,
	.on_cpu = 1,
	.usage = ATOMIC_INIT(2),
	.registry_slot = -1,
};

DEFINE_PER_CPU(struct task *, current_task) = &init_task;
DEFINE_PER_CPU(bool, sched_need_resched);
DEFINE_PER_CPU(struct sched_cpu_stats, sched_cpu_stats);

/* Irqs are off wherever these count, so a plain add on this CPU's copy
 * is atomic enough; other CPUs only read them. */
#define stat_inc(field)	WRITE_ONCE(this_cpu_ptr(&sched_cpu_stats)->field, \
				   this_cpu_ptr(&sched_cpu_stats)->field + 1)
#define stat_add(field, v) WRITE_ONCE(this_cpu_ptr(&sched_cpu_stats)->field, \
				      this_cpu_ptr(&sched_cpu_stats)->field + (v))

atomic_t sched_atomic_bugs = ATOMIC_INIT(0);
atomic_t sched_sleep_bugs = ATOMIC_INIT(0);
bool sched_running;

bool preempt_full = true;
static char *preempt_mode;
core_param(preempt, preempt_mode, charp, "preemption model: full (default) or none");

unsigned int sched_slice_ms = 10;
core_param(sched.slice_ms, sched_slice_ms, uint, "round-robin time slice (ms)");

static int slice_ticks(void)
{
	int t = (int)msecs_to_jiffies(sched_slice_ms);
	return t > 0 ? t : 1;
}

static struct rq *cpu_rq(int cpu) { return &runqueues[cpu]; }
static struct rq *this_cpu_rq(void) { return cpu_rq(smp_processor_id()); }

struct task *cpu_curr(int cpu) { return READ_ONCE(cpu_rq(cpu)->curr); }
int sched_nr_running(int cpu) { return READ_ONCE(cpu_rq(cpu)->nr_running); }
u64 sched_nr_switches(int cpu) { return READ_ONCE(cpu_rq(cpu)->nr_switches); }

bool need_resched(void)
{
	return this_cpu_read(sched_need_resched);
}

/* ---- run queue --------------------------------------------------------- */

/*
 * Invariants of the run queues, checked in the test build only (Linux's
 * SCHED_WARN_ON()): a task is queued on at most one queue, once; a dead
 * task is never queued nor switched to; a queued task's ->cpu is its
 * queue's, and the task a CPU switches to is its own and runs on no
 * other CPU (->on_cpu clear); rq->curr is the task running on the rq's
 * CPU (checked at every tick and after every switch); the idle loop
 * starts each round with preempt_count 0, a kthread's function starts
 * with preemption and irqs on and returns with preempt_count 0.
 */
#ifdef CONFIG_SANITIZE
#define SCHED_WARN_ON(cond)	WARN_ON_ONCE(cond)
#define SCHED_WARN(cond, ...)	WARN_ONCE(cond, __VA_ARGS__)
#else
#define SCHED_WARN_ON(cond)	do { } while (0)
#define SCHED_WARN(cond, ...)	do { } while (0)
#endif

static void enqueue(struct rq *rq, struct task *t, bool head)
{
	SCHED_WARN_ON(!list_empty(&t->run_list));
	SCHED_WARN_ON(t->state == TASK_DEAD);
	SCHED_WARN_ON(cpu_rq(t->cpu) != rq);
	if (head)
		list_add(&t->run_list, &rq->queue[t->prio]);
	else
		list_add_tail(&t->run_list, &rq->queue[t->prio]);
	rq->nr_running++;
}

static struct task *pick_next(struct rq *rq)
{
	if (unlikely(rq->dying))
		return rq->idle;	/* which moves the queued ones away */
	for (int p = NR_PRIO - 1; p >= 0; p--) {
		if (!list_empty(&rq->queue[p])) {
			struct task *t = list_first_entry(&rq->queue[p], struct task, run_list);
			list_del_init(&t->run_list);
			rq->nr_running--;
			return t;
		}
	}
	return rq->idle;
}

static int highest_queued_prio(struct rq *rq)
{
	for (int p = NR_PRIO - 1; p >= 0; p--)
		if (!list_empty(&rq->queue[p]))
			return p;
	return -1;
}

/*
 * Mark cpu to pass through its scheduler soon.  Returns the CPU to send
 * the reschedule IPI to (scheduler_ipi() folds the mark there), or -1
 * for this one.  Under a run-queue lock the caller sends it only after
 * the unlock (resched_ipi()): the woken CPU goes straight for that lock,
 * and would otherwise spin on it while the waker still holds it.  Under
 * TCG that spin also takes QEMU's global lock at each PAUSE, which the
 * waker's own APIC accesses need: a wake-up of an idle CPU then took a
 * millisecond or more (issue 30's 2 ms grace periods).  The caller of
 * resched_cpu() may be preemptible (the GP kthread's nudges): a task
 * only moves off a CPU going down, so a stale "this CPU" is one that
 * stops anyway, and the worst is an IPI to ourselves or a spurious fold
 * here.
 */
static int set_need_resched_cpu(int cpu)
{
	__atomic_store_n(&per_cpu(sched_need_resched, cpu), true, __ATOMIC_RELEASE);
	if (cpu != raw_smp_processor_id())
		return cpu;
	set_preempt_need_resched();
	return -1;
}

/* Nesting of resched_ipi_defer_begin() on this CPU, and the CPUs whose
 * IPIs wait for the outermost end (NR_CPUS is 64). */
static DEFINE_PER_CPU(int, resched_defer_depth);
static DEFINE_PER_CPU(u64, resched_deferred);

static void resched_ipi(int cpu)
{
	if (cpu < 0)
		return;
	if (this_cpu_read(resched_defer_depth)) {
		this_cpu_write(resched_deferred, this_cpu_read(resched_deferred) | 1ull << cpu);
		return;
	}
	smp_send_reschedule(cpu);
}

void resched_ipi_defer_begin(void)
{
	lockdep_assert_irqs_disabled();
	this_cpu_inc(resched_defer_depth);
}

void resched_ipi_defer_end(void)
{
	u64 cpus;

	lockdep_assert_irqs_disabled();
	this_cpu_dec(resched_defer_depth);
	if (this_cpu_read(resched_defer_depth))
		return;
	cpus = this_cpu_read(resched_deferred);
	this_cpu_write(resched_deferred, 0);
	for (int cpu = 0; cpus; cpu++, cpus >>= 1)
		if (cpus & 1)
			smp_send_reschedule(cpu);
}

/* Ask cpu to pass through its scheduler soon (no run-queue lock held). */
void resched_cpu(int cpu)
{
	resched_ipi(set_need_resched_cpu(cpu));
}

/* Called with rq locked, after t was queued on it: the CPU to IPI once
 * rq is unlocked (resched_ipi()), or -1. */
static int check_preempt(struct rq *rq, int cpu, struct task *t)
{
	struct task *curr = rq->curr;

	lockdep_assert_held(&rq->lock);
	if (!curr || is_idle_task(curr) || t->prio > curr->prio)
		return set_need_resched_cpu(cpu);
	return -1;
}

/* ---- the switch -------------------------------------------------------- */

static void __schedule_bug(struct task *prev)
{
	printk(KERN_ERR "BUG: scheduling while atomic: %s/%d, preempt_count=0x%08x\n",
	       prev->name, smp_processor_id(), preempt_count());
	dump_stack();
	atomic_inc(&sched_atomic_bugs);
}

#ifdef CONFIG_SANITIZE
void (*sched_inject_hook)(enum sched_inject_point where, struct task *t, int cpu);
#define sched_inject(where, t, cpu) do {				\
	void (*__hook)(enum sched_inject_point, struct task *, int) =	\
		__atomic_load_n(&sched_inject_hook, __ATOMIC_ACQUIRE);	\
	if (__hook)							\
		__hook((where), (t), (cpu));				\
} while (0)
#else
#define sched_inject(where, t, cpu) do { } while (0)
#endif

#ifdef CONFIG_JITTER
/*
 * Test build, jitter_site_until()'s done() for a dying CPU's switch away
 * from a sleeping task t (a reference held): a wake-up on another CPU has
 * moved t (move_woken_task()), run it and seen it stop again, asleep or
 * dead.  Until then this CPU's switch is held open.
 */
static bool switch_prev_ran_elsewhere(void *arg)
{
	struct task *t = arg;
	long state = READ_ONCE(t->state);

	return READ_ONCE(t->cpu) != raw_smp_processor_id() && !READ_ONCE(t->on_cpu) &&
	       state != TASK_RUNNING && state != TASK_WAKING;
}

/* Per dying CPU: the task whose waker waits there for its ->on_cpu to
 * clear (stored on each turn of move_woken_task()'s wait), and when its
 * hold before that store began. */
static struct task *switch_waited_for[NR_CPUS];
static u64 switch_hold_t0[NR_CPUS];
/* That hold's own bound while prev is still this CPU's: a wake-up asked
 * for just before the switch (a cross-CPU call's) comes within it; none
 * other is worth waiting for with irqs off (jitter_site_until()'s bound
 * is 205 ms at jitter=200).  A prev moved without waiting (a bug) is
 * held to jitter's bound, so that it runs elsewhere inside the hold. */
#define SWITCH_WOKEN_HOLD_NS	(20 * 1000000ull)

/*
 * Test build, done() for the same switch before prev's ->on_cpu is
 * cleared: a wake-up on another CPU has come.  Either its waker waits for
 * this switch to end (it says so in switch_waited_for[]), or it woke t in
 * place (a kthread to park), or it moved t without waiting: then held
 * until t runs there (next->on_cpu still set: __schedule()'s check) or
 * has stopped again.  A move stores ->cpu before ->state (TASK_WAKING,
 * then TASK_RUNNING): TASK_RUNNING read before ->cpu is in place only
 * if ->cpu is still this CPU's, and a stop is read after ->cpu.
 */
static bool switch_prev_woken(void *arg)
{
	struct task *t = arg;
	int cpu = raw_smp_processor_id(), c;
	long before, after;

	if (READ_ONCE(switch_waited_for[cpu]) == t)
		return true;
	before = READ_ONCE(t->state);
	c = READ_ONCE(t->cpu);
	after = READ_ONCE(t->state);
	if (c != cpu)	/* moved without waiting: only jitter's own bound */
		return READ_ONCE(cpu_rq(c)->curr) == t ||
		       (after != TASK_RUNNING && after != TASK_WAKING);
	return before == TASK_RUNNING ||
	       ktime_get_ns() - switch_hold_t0[cpu] > SWITCH_WOKEN_HOLD_NS;
}

static inline void wait_switch_out(struct task *t, int cpu)
{
	WRITE_ONCE(switch_waited_for[cpu], t);
	cpu_relax();
}
#else
static inline void wait_switch_out(struct task *t, int cpu)
{
	(void)t;
	(void)cpu;
	cpu_relax();
}
#endif

/*
 * Once ->on_cpu is clear prev may run on another CPU (a wake-up that
 * moves it off a CPU going down waits for nothing else), exit there and
 * be freed: nothing of prev is touched after the store.  Its state is
 * read before it (Linux's prev_state): a task dead by then can no longer
 * be woken, so its running reference is ours to drop; one that was not
 * may die elsewhere, and that CPU drops it.
 */
static void finish_task_switch(struct task *prev)
{
	long prev_state = READ_ONCE(prev->state);
#ifdef CONFIG_JITTER
	bool held = false;

	if (unlikely(READ_ONCE(this_cpu_rq()->dying))) {
		/* Test build: on a CPU going down, a wake-up elsewhere that
		 * moves prev must find it still here and wait
		 * (move_woken_task()).  With prev asleep the window is held
		 * until one has come (a reference keeps prev readable
		 * meanwhile, and below; dropped at the end). */
		held = READ_ONCE(prev->state) & TASK_NORMAL;
		if (held) {
			get_task_struct(prev);
			WRITE_ONCE(switch_waited_for[smp_processor_id()], NULL);
			switch_hold_t0[smp_processor_id()] = ktime_get_ns();
			jitter_site_until(JITTER_SWITCH_DYING, switch_prev_woken, prev);
		} else {
			jitter_site(JITTER_SWITCH_DYING);
		}
		/* And one that comes after the store below may run prev
		 * elsewhere, even to its exit, while this CPU is still in
		 * the switch: the window is held until it has. */
	}
#endif
	smp_store_release(&prev->on_cpu, 0);
	/* Test build: a wake-up elsewhere may now run prev, even to its exit
	 * (on a CPU going down the wake-up moves prev away at once,
	 * move_woken_task(): the slow paths' odds, and long). */
#ifdef CONFIG_JITTER
	if (held)
		jitter_site_until(JITTER_SWITCH_DYING, switch_prev_ran_elsewhere, prev);
	else
#endif
		jitter_site(unlikely(READ_ONCE(this_cpu_rq()->dying)) ? JITTER_SWITCH_DYING :
			    JITTER_SWITCH);
	sched_inject(SCHED_INJECT_FINISH, prev, smp_processor_id());
	if (unlikely(prev_state == TASK_DEAD)) {
		/* Test build: a task dead when it switched out died here (a
		 * dead task is never woken, so never moved): a CPU that
		 * reads a later state than its own switch saw drops a
		 * reference another CPU owns. */
		SCHED_WARN(READ_ONCE(prev->cpu) != smp_processor_id(),
			   "sched: CPU %d drops the running reference of %.16s, which "
			   "last ran on CPU %d", smp_processor_id(), prev->name,
			   READ_ONCE(prev->cpu));
		put_task_struct(prev);	/* the running reference; off its stack now */
	}
#ifdef CONFIG_JITTER
	if (held)
		put_task_struct(prev);
#endif
}

/* A new thread's first code, from ret_from_kthread: the tail of the
 * __schedule() that switched to it. */
void schedule_tail(struct task *prev)
{
	finish_task_switch(prev);
	preempt_count_sub(1);
	local_irq_enable();
}

static void check_stack(struct task *t)
{
	if (t->stack && *(unsigned long *)t->stack != STACK_END_MAGIC)
		panic("stack overflow in task %s (stack %p)", t->name, t->stack);
}

/*
 * preempt: prev is being switched out involuntarily, so it stays runnable
 * whatever its state says (it may have been about to sleep).
 */
static void __schedule(bool preempt)
{
	unsigned long flags;
	int cpu;
	struct rq *rq;
	struct task *prev, *next;

	local_irq_save(flags);
	preempt_count_add(1);
	cpu = smp_processor_id();
	rq = cpu_rq(cpu);
	prev = rq->curr;
	check_stack(prev);

	stat_inc(rcu_cs_hooks);
	rcu_note_context_switch(preempt);

	arch_spin_lock(&rq->lock);
	this_cpu_write(sched_need_resched, false);
	preempt_fold_pending();
	if (!preempt && prev->state != TASK_RUNNING) {
		prev->on_rq = 0;	/* sleeps: only a wake-up re-queues it */
	} else if (!is_idle_task(prev)) {
		bool head = preempt && prev->slice > 0;	/* a more urgent task cut in */

		if (!head)
			prev->slice = slice_ticks();
		enqueue(rq, prev, head);
	}
	next = pick_next(rq);
	SCHED_WARN_ON(next->state == TASK_DEAD);	/* even if it is prev */
	if (next != prev) {
		SCHED_WARN_ON(READ_ONCE(next->cpu) != cpu);
		SCHED_WARN_ON(READ_ONCE(next->on_cpu));	/* running elsewhere */
		rq->curr = next;
		rq->nr_switches++;
		next->nr_switches++;
		if (preempt)
			prev->nr_preempted++;
		next->on_cpu = 1;
		arch_spin_unlock(&rq->lock);
		trace_sched_switch(prev->name, prev, prev->state, next->name, next);

		prev->preempt_count = preempt_count();
		preempt_count_set(next->preempt_count);
		this_cpu_write(current_task, next);
		prev = __switch_to_asm(prev, next);
		/* Now running as next (a task that switched out earlier here,
		 * or, moved by CPU hotplug, elsewhere: cpu and rq are stale). */
		finish_task_switch(prev);
		SCHED_WARN_ON(this_cpu_rq()->curr != current);
		SCHED_WARN_ON(READ_ONCE(current->cpu) != raw_smp_processor_id());
	} else {
		arch_spin_unlock(&rq->lock);
	}
	preempt_count_sub(1);
	local_irq_restore(flags);
}

void schedule(void)
{
	struct task *prev = current;

	if (unlikely(!sched_running))
		return;
	if (unlikely(preempt_count() != 0) && !is_idle_task(prev)) {
		__schedule_bug(prev);
		/* From an interrupt there is no task context to switch out. */
		if (in_interrupt()) {
			__set_current_state(TASK_RUNNING);
			return;
		}
	}
	__schedule(false);
}

void yield(void)
{
	__set_current_state(TASK_RUNNING);
	schedule();
}

/*
 * A voluntary preemption point.  Its context switch is a quiescent state,
 * so it must not switch inside a reader: with preemption, bh or irqs
 * disabled (irqs count too, rcu/rcupdate.h).
 */
void cond_resched(void)
{
	if (need_resched() && preempt_count() == 0 && !irqs_disabled() &&
	    !is_idle_task(current))
		schedule();
}

/*
 * From preempt_enable() when the count reached 0 with work pending (the
 * folded bit clear).  The bit may be clear with nothing pending (a task
 * migrated after asking for its old CPU, or the work done meanwhile):
 * it is folded again, or every preempt_enable() would come here.
 */
void preempt_schedule(void)
{
	if (this_cpu_read(rcu_need_deferred_qs))
		rcu_preempt_deferred_qs();
	if (!preempt_full || !sched_running || !need_resched() || irqs_disabled() ||
	    preempt_count() != 0 || is_idle_task(current)) {
		if (!preempt_work_pending())
			preempt_fold_pending();
		return;
	}
	do {
		__schedule(true);
	} while (need_resched());
}

/*
 * From the end of an interrupt that hit preemptible code (irqs off).  The
 * idle task is left alone: it may be inside rcu_idle_enter(), and its own
 * loop switches as soon as the halt returns.
 */
void preempt_schedule_irq(void)
{
	if (!preempt_full || !sched_running || is_idle_task(current))
		return;
	do {
		__schedule(true);
	} while (need_resched());
}

/* ---- wake-ups ---------------------------------------------------------- */

/* Lock the run queue that holds t; t->cpu changes under that lock (before
 * t first runs, and when CPU hotplug moves it), hence the re-check. */
static struct rq *task_rq_lock(struct task *t, int *cpu)
{
	for (;;) {
		int c = READ_ONCE(t->cpu);
		struct rq *rq = cpu_rq(c);

		arch_spin_lock(&rq->lock);
		if (READ_ONCE(t->cpu) == c) {
			*cpu = c;
			return rq;
		}
		arch_spin_unlock(&rq->lock);
	}
}

#ifdef CONFIG_SANITIZE
struct task *sched_inject_wake_stall;

/*
 * Test build: wake_up_state() of the chosen task, between its load and its
 * store of ->state, waits (up to 200 ms) for the task to store a state
 * other than the one read and TASK_RUNNING (the task leaving its wait
 * stores TASK_RUNNING first): the window a waker's vCPU stalled by the
 * host (or an NMI) opens.
 */
static void inject_wake_stall(struct task *t)
{
	long seen = READ_ONCE(t->state);
	u64 end = ktime_get_ns() + 200 * 1000000ull;

	if (t != READ_ONCE(sched_inject_wake_stall))
		return;
	WRITE_ONCE(sched_inject_wake_stall, NULL);
	while ((READ_ONCE(t->state) == seen || READ_ONCE(t->state) == TASK_RUNNING) &&
	       ktime_get_ns() < end)
		cpu_relax();
}
#else
static inline void inject_wake_stall(struct task *t) { (void)t; }
#endif

/*
 * ->state is read and written under t's run-queue lock.  A task may set
 * its own sleeping states without it (a wake-up that overwrites one is
 * only a spurious wake-up, which every wait loop tolerates), but a state
 * that must never become TASK_RUNNING again goes through
 * set_special_state().
 */
static int select_task_cpu(void);

/* Irqs off, rq of from locked: t, queued on it, goes to CPU to. */
static void move_queued_task(struct rq *from, struct task *t, int to)
{
	struct rq *rq = cpu_rq(to);
	int ipi;

	lockdep_assert_irqs_disabled();
	lockdep_assert_held(&from->lock);
	list_del_init(&t->run_list);
	from->nr_running--;
	/* Two run-queue locks: only the dying CPU nests them, its own first
	 * (cpu_down() is serialised), so lockdep is told: subclass 1. */
	arch_spin_lock_nested(&rq->lock, 1);
	WRITE_ONCE(t->cpu, to);
	enqueue(rq, t, false);
	ipi = check_preempt(rq, to, t);
	arch_spin_unlock(&rq->lock);
	resched_ipi(ipi);
}

static void broke_affinity(struct task *t, int cpu)
{
	if (t->bound_cpu == cpu) {
		printk(KERN_INFO "sched: %s no longer bound to CPU %d, which went offline\n",
		       t->name, cpu);
		t->bound_cpu = -1;
	}
}

/*
 * Irqs off, no lock held: t, TASK_WAKING, last ran on cpu, which is going
 * down.  Its switch away from there must be over (on_cpu clear) before
 * another CPU may run it on its stack.
 */
static void move_woken_task(struct task *t, int cpu)
{
	int to = select_task_cpu(), ipi;
	struct rq *rq = cpu_rq(to);

	lockdep_assert_irqs_disabled();
	while (__atomic_load_n(&t->on_cpu, __ATOMIC_ACQUIRE))
		wait_switch_out(t, cpu);
	broke_affinity(t, cpu);
	arch_spin_lock(&rq->lock);
	WRITE_ONCE(t->cpu, to);
	WRITE_ONCE(t->state, TASK_RUNNING);
	t->on_rq = 1;
	enqueue(rq, t, false);
	ipi = check_preempt(rq, to, t);
	arch_spin_unlock(&rq->lock);
	resched_ipi(ipi);
}

int wake_up_state(struct task *t, unsigned int state)
{
	unsigned long flags;
	struct rq *rq;
	int cpu, ret = 0, ipi = -1;

	/* The waker's condition store is ordered before the state load. */
	smp_mb();
	local_irq_save(flags);
	rq = task_rq_lock(t, &cpu);
	if (t->state & state) {
		inject_wake_stall(t);
		if (unlikely(rq->dying) && !t->on_rq && !t->should_park) {
			/* Its CPU is going down: waking it moves it (TASK_WAKING
			 * turns other wakers away meanwhile). */
			WRITE_ONCE(t->state, TASK_WAKING);
			arch_spin_unlock(&rq->lock);
			move_woken_task(t, cpu);
			local_irq_restore(flags);
			return 1;
		}
		WRITE_ONCE(t->state, TASK_RUNNING);
		if (!t->on_rq) {
			t->on_rq = 1;
			enqueue(rq, t, false);
			ipi = check_preempt(rq, cpu, t);
		}
		trace_sched_wakeup(t->name, t, cpu);
		ret = 1;
	}
	arch_spin_unlock(&rq->lock);
	resched_ipi(ipi);
	local_irq_restore(flags);
	return ret;
}

int wake_up_process(struct task *t)
{
	jitter_site(JITTER_WAKE);
	return wake_up_state(t, TASK_NORMAL);
}

void set_task_prio(struct task *t, int prio)
{
	unsigned long flags;
	struct rq *rq;
	int cpu, ipi = -1;

	if (prio < PRIO_LOW || prio > PRIO_HIGH)
		return;
	local_irq_save(flags);
	rq = task_rq_lock(t, &cpu);
	if (t->on_rq && rq->curr != t) {
		list_del(&t->run_list);
		t->prio = prio;
		list_add_tail(&t->run_list, &rq->queue[prio]);
		ipi = check_preempt(rq, cpu, t);
	} else {
		int old = t->prio;

		t->prio = prio;
		/* The running task lowered itself below a queued one. */
		if (rq->curr == t && prio < old && highest_queued_prio(rq) > prio)
			ipi = set_need_resched_cpu(cpu);
	}
	arch_spin_unlock(&rq->lock);
	resched_ipi(ipi);
	local_irq_restore(flags);
}

/* ---- the tick ---------------------------------------------------------- */

void run_local_timers(void);	/* kernel/timer.c */

/*
 * Every CPU's tick, irq context.  RCU's tick hook learns whether the
 * tick interrupted a task (not the idle loop, whose quiescence RCU tracks
 * through rcu_idle_enter()) running with preempt_count 0: ours minus the
 * hardirq level of this very interrupt.  That is the argument Linux calls
 * `user`: the interrupted code cannot be inside any RCU-sched reader.
 */
void sched_tick(void)
{
	struct rq *rq;
	struct task *curr;
	bool idle = is_idle_task(current);
	bool qs = !idle && preempt_count() - HARDIRQ_OFFSET == 0;

	if (idle)
		stat_inc(tick_idle);
	else if (qs)
		stat_inc(tick_qs);
	else
		stat_inc(tick_atomic);
	rcu_sched_clock_irq(qs);
	if (!sched_running)
		return;
	run_local_timers();
	rq = cpu_rq(smp_processor_id());
	arch_spin_lock(&rq->lock);
	curr = rq->curr;
	/* NULL only on an AP still booting as kmain, before its idle task. */
	SCHED_WARN_ON(curr && curr != current);
	SCHED_WARN_ON(curr && READ_ONCE(curr->cpu) != smp_processor_id());
	if (curr && !is_idle_task(curr)) {
		int top = highest_queued_prio(rq);

		if ((--curr->slice <= 0 && top >= curr->prio) || top > curr->prio) {
			this_cpu_write(sched_need_resched, true);
			set_preempt_need_resched();
		}
	} else if (rq->nr_running) {
		this_cpu_write(sched_need_resched, true);
		set_preempt_need_resched();
	}
	arch_spin_unlock(&rq->lock);
}

/* The sender already set sched_need_resched: fold it into this CPU's
 * preempt count; interrupt exit (or the idle loop, woken from its halt)
 * acts on it.  Counted for the tests. */
void scheduler_ipi(void)
{
	stat_inc(resched_ipis);
	if (this_cpu_read(sched_need_resched))
		set_preempt_need_resched();
}

/* ---- kthreads ---------------------------------------------------------- */

/*
 * Test build: a reference taken or dropped on a task struct already freed
 * (its usage reads as kfree()'s POISON_FREE, or was 0) is a use after
 * free, such as a running reference dropped twice: said at once, where
 * the damage is done, not when the memory is reused.
 */
static void task_usage_check(struct task *t, const char *what)
{
#ifdef CONFIG_SANITIZE
	int u = atomic_read(&t->usage);

	WARN(u <= 0 || u == (int)(POISON_FREE_WORD & 0xffffffffu),
	     "sched: %s of a freed task struct (usage %#x, name %.16s)", what, u, t->name);
#else
	(void)t;
	(void)what;
#endif
}

/*
 * Every task made by kthread_create_on_cpu(), for debuggers: no run
 * queue holds a sleeping task, and tools/gdb/rcukern.py's rk-ps lists
 * those too (with where each sleeps).  A slot is claimed by a cmpxchg
 * and given back as the task is freed, so any context may do either,
 * lock-free; a task made while every slot is taken is only counted.
 */
#define TASK_REGISTRY_SIZE 1024
struct task *task_registry[TASK_REGISTRY_SIZE];
unsigned long task_registry_overflow;

static void task_register(struct task *t)
{
	for (int i = 0; i < TASK_REGISTRY_SIZE; i++) {
		struct task *none = NULL;

		if (!READ_ONCE(task_registry[i]) &&
		    __atomic_compare_exchange_n(&task_registry[i], &none, t, false,
						__ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
			t->registry_slot = i;
			return;
		}
	}
	t->registry_slot = -1;
	__atomic_add_fetch(&task_registry_overflow, 1, __ATOMIC_RELAXED);
}

static void task_unregister(struct task *t)
{
	if (t->registry_slot >= 0)
		__atomic_store_n(&task_registry[t->registry_slot], NULL, __ATOMIC_RELEASE);
}

void get_task_struct(struct task *t)
{
	task_usage_check(t, "get_task_struct()");
	atomic_inc(&t->usage);
}

void put_task_struct(struct task *t)
{
	task_usage_check(t, "put_task_struct()");
	if (atomic_dec_and_test(&t->usage)) {
		if (WARN_ON(t == &init_task || is_idle_task(t)))
			return;
		task_unregister(t);
		free_kernel_stack((char *)t->stack + THREAD_SIZE, THREAD_SIZE);
		kfree(t);
	}
}

__noreturn void kthread_main(void)
{
	struct task *t = current;
	int ret = -EINTR;

	lockdep_assert_preemption_enabled();	/* schedule_tail() balanced */
	if (!READ_ONCE(t->should_stop))
		ret = t->fn(t->arg);
	/* Linux's "exited with preempt_count": a leak fn made.  (Irqs off
	 * is allowed: kthread_exit() turns them off anyway, and a test
	 * keeps them off from a wait to its exit on purpose.) */
#ifdef CONFIG_DEBUG_PREEMPT
	WARN(preempt_count() != 0, "kthread %s returned with preempt_count %#x",
	     t->name, preempt_count());
#endif
	lockdep_check_context_end("a kthread's function returned");
	kthread_exit(ret);
}

/*
 * Linux's set_special_state(): the store is made under the run-queue lock
 * that wake_up_state() holds from its load of ->state to its store of
 * TASK_RUNNING, so a wake-up that read an earlier sleeping state cannot
 * overwrite this one after it.
 */
void set_special_state(long state)
{
	struct task *t = current;
	unsigned long flags;
	struct rq *rq;
	int cpu;

	local_irq_save(flags);
	rq = task_rq_lock(t, &cpu);
	WRITE_ONCE(t->state, state);
	arch_spin_unlock(&rq->lock);
	local_irq_restore(flags);
}

__noreturn void kthread_exit(int code)
{
	struct task *t = current;

	t->exit_code = code;
	complete_all(&t->exited);	/* the joiner holds its own reference */
	local_irq_disable();
	preempt_count_add(1);
	/* A kthread_stop() may still be inside its wake-up of the sleep
	 * this task just left: see set_special_state(). */
	set_special_state(TASK_DEAD);
	__schedule(false);
	panic("dead task %s was scheduled again", t->name);
}

/* Least loaded online CPU; ties rotate so a burst of threads spreads. */
static int select_task_cpu(void)
{
	static unsigned int rotor;
	int n = nr_cpu_ids > 0 ? nr_cpu_ids : 1;
	int start = (int)(__atomic_fetch_add(&rotor, 1, __ATOMIC_RELAXED) % n);
	int best = -1, best_load = 1 << 30;

	for (int i = 0; i < n; i++) {
		int cpu = (start + i) % n;
		struct rq *rq = cpu_rq(cpu);
		int load;

		if (!cpu_online(cpu) || !rq->idle)
			continue;
		load = READ_ONCE(rq->nr_running) + !is_idle_task(READ_ONCE(rq->curr));
		if (load < best_load) {
			best = cpu;
			best_load = load;
		}
	}
	return best >= 0 ? best : raw_smp_processor_id();	/* a hint */
}

struct task *kthread_create_on_cpu(int (*fn)(void *), void *arg, int cpu,
				   const char *name)
{
	struct task *t;
	unsigned long *top;

	/* CPU 0 before sched_init() has marked it online: the idle/0 task. */
	if (cpu >= NR_CPUS || (cpu > 0 && !cpu_online(cpu))) {
		printk(KERN_ERR "kthread_create_on_cpu(%s): CPU %d is not online\n",
		       name ? name : "kthread", cpu);
		return NULL;
	}
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return NULL;
	top = alloc_kernel_stack(THREAD_SIZE);	/* a guard page below */
	t->stack = top ? (char *)top - THREAD_SIZE : NULL;
	if (!t->stack) {
		kfree(t);
		return NULL;
	}
	*(unsigned long *)t->stack = STACK_END_MAGIC;
	strlcpy(t->name, name ? name : "kthread", TASK_COMM_LEN);
	t->fn = fn;
	t->arg = arg;
	t->state = TASK_UNINTERRUPTIBLE;	/* asleep until woken */
	t->prio = PRIO_NORMAL;
	t->flags = PF_KTHREAD;
	t->preempt_count = 1;	/* as inside __schedule; schedule_tail drops it */
	t->slice = slice_ticks();
	t->bound_cpu = cpu;
	t->cpu = cpu >= 0 ? cpu : select_task_cpu();
	INIT_LIST_HEAD(&t->run_list);
	INIT_LIST_HEAD(&t->rcu_node_entry);
	atomic_set(&t->usage, 2);
	init_completion(&t->exited);
	init_completion(&t->parked_done);

	/*
	 * The first switch-in pops six callee-saved registers (rbp = 0 ends
	 * backtraces) and returns to ret_from_kthread with rsp 16-aligned.
	 */
	top = (unsigned long *)(((unsigned long)t->stack + THREAD_SIZE - 16) & ~15ul);
	top[0] = 0;
	top[1] = 0;
	top[-1] = (unsigned long)ret_from_kthread;
	for (int i = 2; i <= 7; i++)
		top[-i] = 0;	/* rbp, rbx, r12, r13, r14, r15 */
	t->sp = (unsigned long)&top[-7];
	task_register(t);
	return t;
}

struct task *kthread_create(int (*fn)(void *), void *arg, const char *name)
{
	return kthread_create_on_cpu(fn, arg, -1, name);
}

void kthread_bind(struct task *t, int cpu)
{
	if (WARN(t->state != TASK_UNINTERRUPTIBLE || t->on_rq || t->nr_switches,
		 "kthread_bind(%s) after it started", t->name))
		return;
	if (WARN(cpu < 0 || !cpu_online(cpu), "kthread_bind(%s) to CPU %d, not online",
		 t->name, cpu))
		return;
	t->bound_cpu = cpu;
	WRITE_ONCE(t->cpu, cpu);
}

bool kthread_should_stop(void)
{
	return READ_ONCE(current->should_stop);
}

int kthread_join(struct task *t)
{
	int ret;

	task_usage_check(t, "kthread_join()");
	wait_for_completion(&t->exited);
	ret = t->exit_code;
	put_task_struct(t);
	return ret;
}

int kthread_stop(struct task *t)
{
	WRITE_ONCE(t->should_stop, true);
	wake_up_process(t);
	return kthread_join(t);
}

/* ---- sleeping ---------------------------------------------------------- */

/*
 * As Linux's __might_sleep(): no sleep with preemption or irqs off, inside
 * an rcu_read_lock() reader (preemptible RCU lets a reader be preempted,
 * never block; an SRCU reader may sleep), or holding a spinning lock
 * (lockdep's list: a lock whose preempt_disable() was undone by mistake
 * is still held).  The report lists the held locks (test build).
 */
void __might_sleep(const char *file, int line)
{
	int rcu_nest, spinning;

	if (!sched_running)
		return;
#ifdef CONFIG_LOCKDEP	/* the benchmark build keeps the in_atomic() check */
	rcu_nest = rcu_preempt_depth();
#else
	rcu_nest = 0;
#endif
	spinning = lockdep_depth_spinning();
	if (likely(!in_atomic() && !irqs_disabled() && !rcu_nest && !spinning))
		return;
	printk(KERN_ERR "BUG: sleeping function called from invalid context at %s:%d\n"
	       "in_atomic(): %d, irqs_disabled(): %d, preempt_count=0x%08x, name: %s/%d\n"
	       "RCU nest depth: %d, expected: 0; spinning locks held: %d, expected: 0\n",
	       file, line, in_atomic(), irqs_disabled(), preempt_count(),
	       current->name, raw_smp_processor_id(), rcu_nest, spinning);
	lockdep_print_context();
	dump_stack();
	atomic_inc(&sched_sleep_bugs);
}

/* ---- idle -------------------------------------------------------------- */

/*
 * The idle task halts with irqs enabled only inside `sti; hlt`, so a
 * wake-up IPI that lands between the check and the halt still ends it.
 * RCU sees the halt as an extended quiescent state.
 */
static __noreturn void idle_loop(void)
{
	for (;;) {
		/* Every round starts balanced: a leak (a handler's, the
		 * switch's) would make every later tick here look like a
		 * reader and the scheduler refuse to switch. */
		SCHED_WARN_ON(preempt_count() != 0);
		local_irq_disable();
		while (!need_resched()) {
			u64 t0;

			if (unlikely(READ_ONCE(this_cpu_rq()->dying))) {
				tick_nohz_idle_exit();
				sched_cpu_dying();	/* does not return */
			}

			tick_nohz_idle_stop_tick();
			stat_inc(rcu_idle_enters);
			rcu_idle_enter();
			/* Its QS report may have ended a grace period and
			 * woken the GP kthread here: no halt then. */
			if (likely(!need_resched())) {
				stat_inc(idle_halts);
				t0 = get_cycles();
				arch_cpu_idle();
				local_irq_disable();
				stat_add(idle_halt_cycles, get_cycles() - t0);
			}
			rcu_idle_exit();
			stat_inc(rcu_idle_exits);
		}
		tick_nohz_idle_exit();
		local_irq_enable();
		__schedule(false);
	}
}

static int idle_fn(void *unused)
{
	idle_loop();
}

static struct task *make_idle(int cpu)
{
	struct task *t = kzalloc(sizeof(*t), GFP_KERNEL);

	if (!t)
		panic("sched: no memory for CPU %d's idle task", cpu);
	snprintf(t->name, sizeof(t->name), "idle/%d", cpu);
	t->state = TASK_RUNNING;
	t->cpu = t->bound_cpu = cpu;
	t->prio = PRIO_LOW;
	t->flags = PF_IDLE;
	t->registry_slot = -1;
	INIT_LIST_HEAD(&t->run_list);
	INIT_LIST_HEAD(&t->rcu_node_entry);
	atomic_set(&t->usage, 1);
	init_completion(&t->exited);
	return t;
}

static void init_rq(int cpu)
{
	struct rq *rq = cpu_rq(cpu);

	arch_spin_lock_init(&rq->lock);	/* every CPU's: one lock class */
	for (int p = 0; p < NR_PRIO; p++)
		INIT_LIST_HEAD(&rq->queue[p]);
}

/* An AP's boot context becomes its idle task; the boot CPU's was made in
 * sched_init() and arrives here through idle_fn. */
/*
 * A CPU coming up, on itself, before smp_ap_main() publishes it online:
 * a run queue left dying by cpu_down() stops dying.  From the moment the
 * CPU is online a thread may be bound to it and woken (kthread_create_on_cpu(),
 * its own rcuc), and a wake-up on a dying queue sends the thread away and
 * unbinds it (move_woken_task()).  Here, not in cpu_up(): a CPU that
 * failed to come back must keep sending its threads away.
 */
void sched_cpu_starting(int cpu)
{
	struct rq *rq = cpu_rq(cpu);
	unsigned long flags;

	local_irq_save(flags);
	arch_spin_lock(&rq->lock);
	rq->dying = false;
	arch_spin_unlock(&rq->lock);
	local_irq_restore(flags);
}

__noreturn void cpu_idle_loop(void)
{
	int cpu = smp_processor_id();
	struct rq *rq = cpu_rq(cpu);

	if (!rq->idle) {
		struct task *idle = make_idle(cpu);
		unsigned long flags;

		idle->on_cpu = 1;
		local_irq_save(flags);
		arch_spin_lock(&rq->lock);
		rq->curr = idle;
		rq->idle = idle;
		arch_spin_unlock(&rq->lock);
		this_cpu_write(current_task, idle);
		preempt_count_set(0);
		local_irq_restore(flags);
	} else {
		/* Back from cpu_up(): the idle task died here running, on
		 * this same boot stack, and starts over (the run queue
		 * stopped dying in sched_cpu_starting()). */
		unsigned long flags;

		local_irq_save(flags);
		arch_spin_lock(&rq->lock);
		WARN_ON_ONCE(rq->curr != rq->idle);
		SCHED_WARN_ON(rq->dying);
		rq->curr = rq->idle;
		rq->idle->on_cpu = 1;
		arch_spin_unlock(&rq->lock);
		this_cpu_write(current_task, rq->idle);
		preempt_count_set(0);
		this_cpu_write(sched_need_resched, true);	/* threads may wait */
		set_preempt_need_resched();
		local_irq_restore(flags);
	}
	idle_loop();
}

void sched_init(void)
{
	struct task *idle;

	if (preempt_mode) {
		if (!strcmp(preempt_mode, "none"))
			preempt_full = false;
		else if (!strcmp(preempt_mode, "full"))
			preempt_full = true;
		else
			printk(KERN_ERR "sched: preempt=%s is neither none nor full; using full\n",
			       preempt_mode);
	}
	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		init_rq(cpu);

	init_task.slice = slice_ticks();
	INIT_LIST_HEAD(&init_task.run_list);
	INIT_LIST_HEAD(&init_task.rcu_node_entry);
	init_completion(&init_task.exited);
	cpu_rq(0)->curr = &init_task;
	this_cpu_write(current_task, &init_task);

	/* CPU 0's idle needs a stack of its own: kmain keeps the boot stack. */
	idle = kthread_create_on_cpu(idle_fn, NULL, 0, "idle/0");
	if (!idle)
		panic("sched: no memory for CPU 0's idle task");
	idle->flags = PF_IDLE | PF_KTHREAD;
	idle->state = TASK_RUNNING;
	idle->prio = PRIO_LOW;
	cpu_rq(0)->idle = idle;

	smp_mb();
	sched_running = true;
	printk(KERN_INFO "sched: preempt=%s, slice %u ms, %d priority levels\n",
	       preempt_full ? "full" : "none", sched_slice_ms, NR_PRIO);
}

/* ---- CPU hotplug (kernel/cpu.c) ---------------------------------------- */

/* From cpu_down(), cpu already out of the online mask: from now on its
 * run queue runs only its idle task, which moves the others away. */
void sched_cpu_dying_begin(int cpu)
{
	struct rq *rq = cpu_rq(cpu);
	unsigned long flags;

	sched_inject(SCHED_INJECT_DYING_BEGIN, NULL, cpu);
	local_irq_save(flags);
	arch_spin_lock(&rq->lock);
	rq->dying = true;
	arch_spin_unlock(&rq->lock);
	local_irq_restore(flags);
	sched_inject(SCHED_INJECT_DYING, NULL, cpu);
	__atomic_store_n(&per_cpu(sched_need_resched, cpu), true, __ATOMIC_RELEASE);
	arch_send_reschedule(cpu);	/* offline now: straight to the arch */
}

/*
 * The dying CPU's idle task, irqs off: every other thread here has
 * switched out (so none is on its stack any more).  Parked kthreads stay;
 * every other queued thread goes to another CPU.  A sleeping one goes
 * when it is woken (wake_up_state()).  Then the CPU plays dead.
 */
void sched_cpu_dying(void)
{
	int cpu = smp_processor_id();
	struct rq *rq = cpu_rq(cpu);

	lockdep_assert_irqs_disabled();
	arch_spin_lock(&rq->lock);
	for (int p = 0; p < NR_PRIO; p++) {
		struct task *t, *n;

		list_for_each_entry_safe(t, n, &rq->queue[p], run_list) {
			if (t->should_park && t->bound_cpu == cpu)
				continue;	/* runs once the CPU is back, then parks */
			broke_affinity(t, cpu);
			move_queued_task(rq, t, select_task_cpu());
		}
	}
	arch_spin_unlock(&rq->lock);
	cpuhp_play_dead();
}

#ifdef CONFIG_JITTER
/* Test build, jitter_site_until()'s done() for cpu_down()'s last step:
 * CPU (long)arg runs a thread, not its idle task. */
bool sched_cpu_runs_thread(void *arg)
{
	struct rq *rq = cpu_rq((int)(long)arg);

	return READ_ONCE(rq->curr) != rq->idle;
}
#endif

#ifdef CONFIG_SANITIZE
/*
 * After cpu_down(), cpu dead: its run queue still dies (only cpu, running
 * again, ends that), its current task is its idle task, and it holds no
 * queued thread but per-CPU kthreads bound there that are to park
 * (sched_cpu_dying() leaves those): every other thread moved away.
 */
void sched_cpu_dead_check(int cpu)
{
	struct rq *rq = cpu_rq(cpu);
	unsigned long flags;
	int n = 0;

	local_irq_save(flags);
	arch_spin_lock(&rq->lock);
	SCHED_WARN_ON(!rq->dying);
	SCHED_WARN_ON(rq->curr != rq->idle);
	for (int p = 0; p < NR_PRIO; p++) {
		struct task *t;

		list_for_each_entry(t, &rq->queue[p], run_list) {
			SCHED_WARN_ON(!t->should_park || t->bound_cpu != cpu);
			n++;
		}
	}
	SCHED_WARN_ON(n != rq->nr_running);
	arch_spin_unlock(&rq->lock);
	local_irq_restore(flags);
}
#endif

bool kthread_should_park(void)
{
	return READ_ONCE(current->should_park);
}

void kthread_parkme(void)
{
	struct task *t = current;

	for (;;) {
		bool parked;

		set_special_state(TASK_PARKED);
		/* ->parked first: if kthread_unpark() cleared it, its clear of
		 * ->should_park is seen too, so a kthread_park() that came
		 * before this runs again is answered, and no other. */
		parked = smp_load_acquire(&t->parked);
		if (!smp_load_acquire(&t->should_park))
			break;
		if (!parked) {
			WRITE_ONCE(t->parked, true);
			complete(&t->parked_done);
		}
		schedule();
	}
	__set_current_state(TASK_RUNNING);
}

int kthread_park(struct task *t)
{
	if (WARN_ON_ONCE(t == current))
		return -EINVAL;
	reinit_completion(&t->parked_done);
	smp_store_release(&t->should_park, true);	/* the reinit before t's complete() */
	wake_up_process(t);
	/* Linux waits for as long as it takes.  A wait given up on would
	 * leave t asked to park with cpu_down() backing out: it would park
	 * later on a CPU that stays online, and no kthread_park() of it
	 * would ever return again.  So a slow one is named, and waited for. */
	for (unsigned int s = 10; !wait_for_completion_timeout(&t->parked_done,
							      msecs_to_jiffies(10000)); s += 10)
		printk(KERN_WARNING "kthread_park(%s): not parked after %u s (a vCPU the host "
		       "does not run, or a kthread that does not poll kthread_should_park()); "
		       "still waiting\n", t->name, s);
	return 0;
}

/* parked is cleared here, not by t: a kthread_park() may come before t
 * has run again, and t must then say so once more.  It is cleared after
 * should_park (kthread_parkme() reads them the other way round). */
void kthread_unpark(struct task *t)
{
	WRITE_ONCE(t->should_park, false);
	smp_store_release(&t->parked, false);
	wake_up_state(t, TASK_PARKED);
}
