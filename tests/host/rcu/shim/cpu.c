/*
 * tests/host/rcu/shim/cpu.c - shim CPUs for the host build of rcu/: per-CPU
 * areas, a scheduler of pthread tasks, interrupts delivered through
 * per-CPU mailboxes, the tick and timers.  Implements what rcu/ uses of
 * kernel/sched.h, kernel/smp.h, kernel/preempt.h (preempt_schedule) and
 * the irq/NMI entry of kernel/preempt.c, so the rcu/ sources, kernel/wait.c,
 * kernel/spinlock.c and kernel/cpu.c (CPU hotplug) build unchanged against
 * the real headers.
 *
 * Ownership: cpu->curr (who runs on the CPU), the run queue, the mailbox
 * list and each task's ->woken and ->on_rq are under cpu->lock.  Handing
 * the CPU over is a store of cpu->curr under that lock plus a broadcast;
 * the incoming thread waits for cpu->curr == itself.  So the mutex orders
 * everything one task did on a CPU before everything the next one does,
 * just as a context switch does.  Pending interrupts are an atomic bit
 * mask, with the CPU's sched_need_resched flag set too, so that
 * preempt_enable() leaves its fast path and takes them.
 *
 * Wakers never touch task->state (the task's own field, Linux's "marked"
 * races); a wake-up sets ->woken instead, and schedule() treats a task
 * that was woken since it last ran as runnable.  A stale ->woken can only
 * make one sleep return early, which every wait loop already tolerates.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sched.h>
#include <setjmp.h>
#include <unistd.h>

#include "shim.h"
#include "kernel/timer.h"
#include "kernel/percpu.h"
#include "kernel/preempt.h"
#include "kernel/smp.h"
#include "kernel/cpu.h"
#include "kernel/sched.h"
#include "kernel/wait.h"
#include "kernel/time.h"
#include "kernel/printk.h"
#include "kernel/slab.h"
#include "kernel/cmdline.h"
#include "kernel/tick_sched.h"
#include "rcu/rcupdate.h"
#include "rcu/tree.h"
#include "rcu/torture.h"

#define IRQ_TICK	0x1UL
#define IRQ_CALL	0x2UL
#define IRQ_NMI		0x4UL
#define IRQ_BACKTRACE	0x8UL
#define SLICE_TICKS	4
/* Statistics are read by the driver while CPUs run: relaxed atomics. */
#define STAT_INC(x)	__atomic_fetch_add(&(x), 1, __ATOMIC_RELAXED)
#define STAT_READ(x)	__atomic_load_n(&(x), __ATOMIC_RELAXED)
/* Bounded waits: a shim CPU that never answers is reported, not waited on. */
#define CALL_WAIT_NS	(20ull * 1000000000ull)

struct shim_task {
	struct task t;			/* the kernel's task: current, fn, exited, ... */
	pthread_t th;
	struct shim_cpu *cpu;
	bool started;			/* pthread made (first wake-up) */
	bool woken;			/* cpu->lock */
	bool moving;			/* cpu->lock: moved while runnable, not queued yet */
	bool idle;
	bool dead;			/* cpu->lock: exited, never queued again */
	/* schedule_timeout(), under timer_lock */
	bool timer_armed;
	u64 timer_expires;
	struct list_head timer_node;
	struct shim_task *all_next;
};

struct shim_call {
	struct list_head node;
	smp_call_func_t fn;
	void *info;
	int done;			/* atomic: the target ran fn */
	bool heap;			/* free after running (no waiter) */
};

struct shim_cpu {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int id;
	struct shim_task *curr;
	struct shim_task *idle;
	struct list_head rq;
	struct list_head calls;
	unsigned long pending;		/* IRQ_* bits, atomic */
	bool resched;			/* atomic: switch at the next chance */
	int slice;			/* owner only */
	bool dying;			/* lock: cpu_down() began; tasks leave */
	bool dead;			/* atomic: played dead, until cpu_up() */
	bool revive;			/* lock: cpu_up() asks the dead CPU back */
	jmp_buf boot;			/* its idle task restarts here when revived */
	unsigned long ticks, idle_ticks, nmis, nmis_in_idle, ncalls, switches, preemptions;
	void *area;
};

/* ---- kernel/ symbols the rcu/ files and the kernel headers refer to ---- */

unsigned long __per_cpu_offset[NR_CPUS];
DEFINE_PER_CPU(unsigned long, this_cpu_off);
DEFINE_PER_CPU(int, cpu_number);
DEFINE_PER_CPU(int, __preempt_count);
DEFINE_PER_CPU(bool, sched_need_resched);
DEFINE_PER_CPU(struct task *, current_task);
extern char __per_cpu_start[], __per_cpu_end[];

int nr_cpu_ids;
struct cpumask cpu_online_mask;
bool preempt_full = true;
bool sched_running;
unsigned int sched_slice_ms = SLICE_TICKS;
atomic_t sched_atomic_bugs = ATOMIC_INIT(0);
atomic_t sched_sleep_bugs = ATOMIC_INIT(0);

__thread unsigned long shim_pcpu_off;
__thread unsigned long shim_irqs_off;
static __thread struct shim_cpu *shim_self;
static __thread int shim_irq_depth;	/* hardirq handlers running on this thread */

static struct shim_cpu shim_cpus[NR_CPUS];
static struct shim_opts opts;

/* Every shim CPU is possible (kernel/smp.h): rcu_init() sizes its tree by
 * --cpus, as the kernel's by the MADT. */
int num_possible_cpus(void)
{
	return opts.ncpus;
}

char *shim_cmdline_copy;
static pthread_mutex_t timer_lock = PTHREAD_MUTEX_INITIALIZER;
static LIST_HEAD(timer_list);
static pthread_t tick_thread;
static int tick_stop;			/* atomic */
static pthread_mutex_t all_lock = PTHREAD_MUTEX_INITIALIZER;
static struct shim_task *all_tasks;
static atomic_long_t shim_err = ATOMIC_LONG_INIT(0);
static atomic_t rr_cpu = ATOMIC_INIT(0);

void shim_count_error(void)
{
	atomic_long_inc(&shim_err);
}

long shim_errors(void)
{
	return atomic_long_read(&shim_err);
}

static struct shim_task *to_shim(struct task *t)
{
	return container_of(t, struct shim_task, t);
}

static void post(struct shim_cpu *c, unsigned long bits)
{
	__atomic_fetch_or(&c->pending, bits, __ATOMIC_SEQ_CST);
	__atomic_store_n(&per_cpu(sched_need_resched, c->id), true, __ATOMIC_SEQ_CST);
	/* The idle task may be halted on the condition variable. */
	pthread_mutex_lock(&c->lock);
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
}

static bool task_is_idle(struct shim_task *st)
{
	return st->idle;
}

/* ---- interrupts ---- */

static void run_calls(struct shim_cpu *c)
{
	for (;;) {
		struct shim_call *call = NULL;

		pthread_mutex_lock(&c->lock);
		if (!list_empty(&c->calls)) {
			call = list_first_entry(&c->calls, struct shim_call, node);
			list_del(&call->node);
		}
		pthread_mutex_unlock(&c->lock);
		if (!call)
			return;
		STAT_INC(c->ncalls);
		call->fn(call->info);
		if (call->heap)
			free(call);
		else
			__atomic_store_n(&call->done, 1, __ATOMIC_RELEASE);
	}
}

static void do_nmi(struct shim_cpu *c, unsigned long bits)
{
	void (*hook)(void);

	preempt_count_add(NMI_OFFSET + HARDIRQ_OFFSET);
	rcu_nmi_enter();
	STAT_INC(c->nmis);
	if (!rcu_is_watching())
		printk(KERN_ERR "shim: NMI on CPU %d not watched by RCU after rcu_nmi_enter()\n",
		       c->id), shim_count_error();
	if (c->curr == c->idle)
		STAT_INC(c->nmis_in_idle);
	hook = READ_ONCE(rcu_torture_nmi_hook);
	if (hook && (bits & IRQ_NMI))
		hook();
	if (bits & IRQ_BACKTRACE) {
		printk(KERN_ERR "NMI backtrace for cpu %d (task %s)\n", c->id, c->curr->t.name);
		dump_stack();
	}
	rcu_nmi_exit();
	preempt_count_sub(NMI_OFFSET + HARDIRQ_OFFSET);
}

static void shim_schedule(bool preempt);

static void shim_sched_tick(struct shim_cpu *c)
{
	bool others;

	if (task_is_idle(c->curr))
		return;
	if (--c->slice > 0)
		return;
	pthread_mutex_lock(&c->lock);
	others = !list_empty(&c->rq);
	pthread_mutex_unlock(&c->lock);
	if (others)
		__atomic_store_n(&c->resched, true, __ATOMIC_RELAXED);
	else
		c->slice = SLICE_TICKS;
}

/*
 * Take what is pending on this CPU: NMIs always, the tick and cross-CPU
 * calls when irqs are on and no hardirq handler runs here.  An NMI that
 * arrives while a hardirq handler runs is taken inside it (nested entry).
 * Returns with the interrupt state it was entered with.
 */
static void do_interrupts(struct shim_cpu *c, bool from_idle, bool tick_ok)
{
	unsigned long p, saved = shim_irqs_off, take = IRQ_CALL | (tick_ok ? IRQ_TICK : 0);

	p = __atomic_fetch_and(&c->pending, ~(IRQ_NMI | IRQ_BACKTRACE), __ATOMIC_SEQ_CST);
	if (p & (IRQ_NMI | IRQ_BACKTRACE))
		do_nmi(c, p);
	if (saved || shim_irq_depth)
		return;
	p = __atomic_fetch_and(&c->pending, ~take, __ATOMIC_SEQ_CST) & take;
	if (!p)
		return;
	shim_irqs_off = 1;
	shim_irq_depth++;
	/* kernel/preempt.c's irq_enter(): RCU first on entry, last on exit. */
	rcu_irq_enter();
	preempt_count_add(HARDIRQ_OFFSET);
	if (p & IRQ_CALL)
		run_calls(c);
	if (p & IRQ_TICK) {
		if (from_idle)
			STAT_INC(c->idle_ticks);
		STAT_INC(c->ticks);
		shim_sched_tick(c);
		rcu_sched_clock_irq(0);
	}
	/* An NMI posted meanwhile lands inside this handler. */
	p = __atomic_fetch_and(&c->pending, ~(IRQ_NMI | IRQ_BACKTRACE), __ATOMIC_SEQ_CST);
	if (p & (IRQ_NMI | IRQ_BACKTRACE))
		do_nmi(c, p);
	preempt_count_sub(HARDIRQ_OFFSET);
	rcu_irq_exit();
	shim_irq_depth--;
	shim_irqs_off = saved;
	/* x86_trap()'s exit: preempt code that had irqs on and count 0. */
	if (!from_idle && preempt_count() == 0 &&
	    __atomic_load_n(&c->resched, __ATOMIC_RELAXED))
		shim_schedule(true);
}

/*
 * Where local_irq_enable()/restore() turn interrupts back on.  Hardware
 * takes an interrupt at any instruction, so most ticks land where the
 * code runs most; here they can only land at points, and most points are
 * the irq-restore at the end of a spinlock section, with the lock's
 * preempt_disable() still counted.  A tick there would almost never see
 * a quiescent state on a CPU that spends its time outside readers (a
 * call_rcu_sched() flood), so the tick waits for the preempt_enable()
 * just after (sched_need_resched stays set) or the next point: a late
 * tick, which a timer may always be.  Cross-CPU calls and NMIs are taken
 * at once, readers or not; udelay() and cond_resched() take ticks inside
 * readers too.
 */
void shim_irq_point(void)
{
	struct shim_cpu *c = shim_self;

	if (!c || !__atomic_load_n(&c->pending, __ATOMIC_RELAXED) || task_is_idle(c->curr))
		return;
	do_interrupts(c, false, preempt_count() == 0);
}

/* An interrupt point that takes everything pending (busy-waits). */
void shim_irq_point_all(void)
{
	struct shim_cpu *c = shim_self;

	if (!c || !__atomic_load_n(&c->pending, __ATOMIC_RELAXED) || task_is_idle(c->curr))
		return;
	do_interrupts(c, false, true);
}

void shim_cpu_relax(void)
{
	shim_irq_point_all();
	sched_yield();
}

/* ---- the scheduler ---- */

/* ->prio is written by set_task_prio() without this CPU's lock. */
static int task_prio(struct task *t)
{
	return __atomic_load_n(&t->prio, __ATOMIC_RELAXED);
}

static struct shim_task *pick_next(struct shim_cpu *c)
{
	struct task *t, *best = NULL;

	list_for_each_entry(t, &c->rq, run_list)
		if (!best || task_prio(t) > task_prio(best))
			best = t;
	if (!best)
		return c->idle;
	list_del_init(&best->run_list);
	return to_shim(best);
}

/* c->lock held: give the CPU to next (already off the run queue). */
static void switch_to_locked(struct shim_cpu *c, struct shim_task *prev, struct shim_task *next)
{
	prev->t.preempt_count = this_cpu_read(__preempt_count);
	c->curr = next;
	STAT_INC(c->switches);
	this_cpu_write(__preempt_count, next->t.preempt_count);
	this_cpu_write(current_task, &next->t);
	pthread_cond_broadcast(&c->cond);
}

/*
 * c->lock held: wait until c runs me.  A task moved off a CPU that goes
 * down (me->cpu changed under the old CPU's lock) follows it, and
 * returns with the new CPU's lock held, running there.
 */
static struct shim_cpu *wait_for_cpu_locked(struct shim_cpu *c, struct shim_task *me)
{
	while (c->curr != me) {
		if (__atomic_load_n(&me->cpu, __ATOMIC_ACQUIRE) != c) {
			struct shim_cpu *n = __atomic_load_n(&me->cpu, __ATOMIC_ACQUIRE);

			pthread_mutex_unlock(&c->lock);
			c = n;
			pthread_mutex_lock(&c->lock);
			continue;
		}
		pthread_cond_wait(&c->cond, &c->lock);
	}
	return c;
}

static void enter_cpu(struct shim_cpu *c);

/* An online CPU to move a task to (never a dying or dead one). */
static struct shim_cpu *select_task_cpu(void)
{
	for (;;) {
		int n = nr_cpu_ids, cpu = (atomic_inc_return(&rr_cpu) & 0x7fffffff) % n;

		if (cpu_online(cpu))
			return &shim_cpus[cpu];
	}
}

/*
 * c->lock held: st (not running, not queued anywhere) now belongs to n.
 * A runnable one (moving) is queued there by enqueue_moved(), once c's
 * lock is dropped; a sleeping one by its waker.  ->moving is written
 * before the release of ->cpu, so whoever finds st on n sees it.
 */
static void move_task_locked(struct shim_task *st, struct shim_cpu *n, bool moving)
{
	st->moving = moving;
	st->t.cpu = n->id;
	__atomic_store_n(&st->cpu, n, __ATOMIC_RELEASE);
}

/* c->lock held: st at the tail of c's run queue.  One already queued, or
 * running on c and not the caller, would corrupt the queue (pick_next()
 * then walks a cycle for ever, holding the lock the tick needs): a BUG. */
static void rq_add_locked(struct shim_cpu *c, struct shim_task *st)
{
	if (!list_empty(&st->t.run_list) || (c->curr == st && &st->t != current)) {
		shim_count_error();
		printk(KERN_ERR "BUG: shim: %s queued on CPU %d while %s\n", st->t.name, c->id,
		       list_empty(&st->t.run_list) ? "running there" : "already queued");
		return;
	}
	list_add_tail(&st->t.run_list, &c->rq);
}

/*
 * Queue st, moved while runnable (->moving), on n and wake n; called
 * without any CPU's lock, so anything may have happened since the move:
 * n may have gone down (st then moves again: a task queued on a dead
 * CPU would wait for its cpu_up()), and st may no longer be moving.
 * Only ->moving says it is still for us to queue: ->on_rq and an empty
 * ->run_list also describe a task that was queued and picked since.
 */
static void enqueue_moved(struct shim_task *st, struct shim_cpu *n)
{
	if (opts.move_delay_us)
		usleep(opts.move_delay_us);	/* --move-delay-us: the window, widened */
	for (;;) {
		struct shim_cpu *m;

		pthread_mutex_lock(&n->lock);
		if (st->cpu != n || !st->moving) {
			pthread_mutex_unlock(&n->lock);
			return;
		}
		if (!n->dying && !__atomic_load_n(&n->dead, __ATOMIC_SEQ_CST)) {
			st->moving = false;
			rq_add_locked(n, st);
			pthread_cond_broadcast(&n->cond);
			pthread_mutex_unlock(&n->lock);
			return;
		}
		m = select_task_cpu();
		move_task_locked(st, m, true);
		pthread_cond_broadcast(&n->cond);	/* st's thread, if it waits on n, follows */
		pthread_mutex_unlock(&n->lock);
		n = m;
	}
}

static void shim_schedule(bool preempt)
{
	struct shim_cpu *c = shim_self;
	struct shim_task *prev = to_shim(current), *next;
	struct shim_cpu *moved = NULL, *nc;
	unsigned long flags = shim_irqs_off;

	shim_irqs_off = 1;
	preempt_count_add(1);
	rcu_note_context_switch(preempt);
	preempt_count_sub(1);
	pthread_mutex_lock(&c->lock);
	__atomic_store_n(&c->resched, false, __ATOMIC_RELAXED);
	/* kernel/sched.c: every thread but a parking per-CPU one leaves a dying CPU. */
	if (c->dying && !prev->idle && !(prev->t.should_park && prev->t.bound_cpu == c->id))
		moved = select_task_cpu();
	if (!preempt && READ_ONCE(prev->t.state) != TASK_RUNNING && !prev->woken) {
		prev->t.on_rq = 0;
	} else if (!prev->idle && !moved) {
		rq_add_locked(c, prev);
	}
	prev->woken = false;
	next = pick_next(c);
	if (next != prev) {
		if (preempt)
			STAT_INC(c->preemptions);
		c->slice = SLICE_TICKS;
		switch_to_locked(c, prev, next);
		if (moved) {
			/* Only now, its preempt_count saved: the release of
			 * ->cpu is what a waker that finds prev on moved
			 * (without c's lock) orders itself after. */
			move_task_locked(prev, moved, prev->t.on_rq);
			pthread_mutex_unlock(&c->lock);
			enqueue_moved(prev, moved);
			pthread_mutex_lock(&moved->lock);
			c = moved;
		}
		nc = wait_for_cpu_locked(c, prev);
		if (nc != shim_self)
			enter_cpu(nc);
		c = nc;
	}
	pthread_mutex_unlock(&c->lock);
	/* Woken (or never asleep): running.  A preempted task keeps its state. */
	if (!preempt)
		WRITE_ONCE(prev->t.state, TASK_RUNNING);
	shim_irqs_off = flags;
}

void schedule(void)
{
	if (preempt_count() != 0 || irqs_disabled()) {
		atomic_inc(&sched_atomic_bugs);
		shim_count_error();
		printk(KERN_ERR "BUG: scheduling while atomic: %s/%d/0x%08x irqs %s\n",
		       current->name, smp_processor_id(), preempt_count(),
		       irqs_disabled() ? "off" : "on");
		dump_stack();
		if (in_interrupt())
			return;
	}
	shim_schedule(false);
}

bool need_resched(void)
{
	return shim_self && __atomic_load_n(&shim_self->resched, __ATOMIC_RELAXED);
}

void cond_resched(void)
{
	shim_irq_point_all();
	if (need_resched() && preempt_count() == 0 && !irqs_disabled() &&
	    !task_is_idle(to_shim(current)))
		shim_schedule(false);
}

void yield(void)
{
	__set_current_state(TASK_RUNNING);
	shim_schedule(false);
}

/* preempt_enable() reached 0 with sched_need_resched or a deferred QS set. */
void preempt_schedule(void)
{
	struct shim_cpu *c = shim_self;

	if (!c)
		return;
	this_cpu_write(sched_need_resched, false);
	if (this_cpu_read(rcu_need_deferred_qs))
		rcu_preempt_deferred_qs();
	if (__atomic_load_n(&c->pending, __ATOMIC_SEQ_CST)) {
		if (task_is_idle(c->curr))
			return;
		do_interrupts(c, false, true);
		/* Still pending (irqs off): look again at the next enable. */
		if (__atomic_load_n(&c->pending, __ATOMIC_RELAXED))
			this_cpu_write(sched_need_resched, true);
	}
	if (preempt_count() == 0 && !irqs_disabled() && need_resched() &&
	    !task_is_idle(c->curr))
		shim_schedule(true);
}

int wake_up_state(struct task *t, unsigned int state)
{
	struct shim_task *st = to_shim(t);
	struct shim_cpu *c;
	int ret = 0;

	(void)state;
	if (!st->started)
		return wake_up_process(t);
	for (;;) {
		c = __atomic_load_n(&st->cpu, __ATOMIC_ACQUIRE);
		pthread_mutex_lock(&c->lock);
		if (st->cpu == c)
			break;
		pthread_mutex_unlock(&c->lock);
	}
	st->woken = true;
	if (!t->on_rq && !st->dead && (c->dying || __atomic_load_n(&c->dead, __ATOMIC_RELAXED)) &&
	    !(t->should_park && t->bound_cpu == c->id) && !st->idle) {
		/* A sleeper on a CPU that went down wakes elsewhere. */
		struct shim_cpu *n = select_task_cpu();

		t->on_rq = 1;
		move_task_locked(st, n, true);
		pthread_cond_broadcast(&c->cond);
		pthread_mutex_unlock(&c->lock);
		enqueue_moved(st, n);
		return 1;
	}
	if (!t->on_rq && !st->dead) {
		t->on_rq = 1;
		rq_add_locked(c, st);
		ret = 1;
		if (c->curr == c->idle)
			pthread_cond_broadcast(&c->cond);
		else if (task_prio(t) > task_prio(&c->curr->t)) {
			__atomic_store_n(&c->resched, true, __ATOMIC_RELAXED);
			__atomic_store_n(&per_cpu(sched_need_resched, c->id), true, __ATOMIC_RELAXED);
		}
	}
	pthread_mutex_unlock(&c->lock);
	return ret;
}

static void *task_thread(void *arg);

int wake_up_process(struct task *t)
{
	struct shim_task *st = to_shim(t);

	pthread_mutex_lock(&all_lock);
	if (!st->started) {
		st->started = true;
		st->cpu = &shim_cpus[t->cpu];
		if (pthread_create(&st->th, NULL, task_thread, st)) {
			pthread_mutex_unlock(&all_lock);
			panic("shim: cannot create a thread for %s", t->name);
		}
		pthread_detach(st->th);
	}
	pthread_mutex_unlock(&all_lock);
	return wake_up_state(t, TASK_NORMAL);
}

/* The scheduler reads ->prio under a CPU's lock that a booster (the
 * grace-period kthread) does not hold: both sides are atomic. */
void set_task_prio(struct task *t, int prio)
{
	__atomic_store_n(&t->prio, prio, __ATOMIC_RELAXED);
}


void get_task_struct(struct task *t) { atomic_inc(&t->usage); }
void put_task_struct(struct task *t) { atomic_dec(&t->usage); }

static struct shim_task *new_task(int (*fn)(void *), void *arg, int cpu, const char *name)
{
	struct shim_task *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	snprintf(st->t.name, sizeof(st->t.name), "%s", name);
	st->t.fn = fn;
	st->t.arg = arg;
	st->t.cpu = cpu;
	st->t.bound_cpu = -1;
	st->t.prio = PRIO_NORMAL;
	st->t.flags = PF_KTHREAD;
	st->t.state = TASK_UNINTERRUPTIBLE;
	INIT_LIST_HEAD(&st->t.run_list);
	INIT_LIST_HEAD(&st->t.rcu_node_entry);
	INIT_LIST_HEAD(&st->timer_node);
	atomic_set(&st->t.usage, 2);
	init_completion(&st->t.exited);
	init_completion(&st->t.parked_done);
	pthread_mutex_lock(&all_lock);
	st->all_next = all_tasks;
	all_tasks = st;
	pthread_mutex_unlock(&all_lock);
	return st;
}

struct task *kthread_create_on_cpu(int (*fn)(void *), void *arg, int cpu, const char *name)
{
	struct shim_task *st;

	if (cpu < 0 || !cpu_online(cpu))
		return NULL;
	st = new_task(fn, arg, cpu, name);
	if (!st)
		return NULL;
	st->t.bound_cpu = cpu;
	return &st->t;
}

struct task *kthread_create(int (*fn)(void *), void *arg, const char *name)
{
	struct shim_task *st = new_task(fn, arg, select_task_cpu()->id, name);

	return st ? &st->t : NULL;
}

void kthread_bind(struct task *t, int cpu)
{
	if (to_shim(t)->started || !cpu_online(cpu)) {
		printk(KERN_ERR "shim: kthread_bind(%s, %d) after its first wake-up or to an offline CPU\n",
		       t->name, cpu);
		shim_count_error();
		return;
	}
	t->cpu = cpu;
	t->bound_cpu = cpu;
}

/*
 * CPU hotplug: kernel/cpu.c itself (cpu_down(), cpu_up(), their lock and
 * hooks) runs here; these are the scheduler's and the arch's parts it
 * calls, as kernel/sched.c and arch/x86_64 do them.  A dead shim CPU's
 * idle thread waits on its condition variable, takes no tick and runs
 * nothing until cpu_up() revives it.
 */
bool cpu_present(int cpu)
{
	return cpu >= 0 && cpu < nr_cpu_ids;
}

void set_special_state(long state)
{
	WRITE_ONCE(current->state, state);
}

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
	if (!wait_for_completion_timeout(&t->parked_done, msecs_to_jiffies(10000))) {
		printk(KERN_ERR "kthread_park(%s): not parked after 10 s\n", t->name);
		return -ETIMEDOUT;
	}
	return 0;
}

void kthread_unpark(struct task *t)
{
	WRITE_ONCE(t->should_park, false);
	smp_store_release(&t->parked, false);	/* after should_park: kthread_parkme() */
	wake_up_state(t, TASK_PARKED);
}

/* kernel/tick_sched.c's jiffies duty, which kernel/cpu.c hands over: the
 * shim's tick thread advances jiffies, so no CPU ever holds it here. */
int tick_do_timer_cpu = TICK_DO_TIMER_NONE;

void tick_handover_do_timer(void)
{
}

void sched_cpu_dying_begin(int cpu)
{
	struct shim_cpu *c = &shim_cpus[cpu];

	pthread_mutex_lock(&c->lock);
	c->dying = true;
	__atomic_store_n(&c->resched, true, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&c->lock);
	post(c, 0);
}

/* The dying CPU's idle, irqs off: the queued threads go elsewhere. */
void sched_cpu_dying(void)
{
	struct shim_cpu *c = shim_self;
	struct task *t, *n;
	LIST_HEAD(gone);

	pthread_mutex_lock(&c->lock);
	list_for_each_entry_safe(t, n, &c->rq, run_list) {
		if (t->should_park && t->bound_cpu == c->id)
			continue;
		list_del_init(&t->run_list);
		move_task_locked(to_shim(t), select_task_cpu(), true);
		list_add_tail(&t->run_list, &gone);
	}
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
	list_for_each_entry_safe(t, n, &gone, run_list) {
		list_del_init(&t->run_list);
		enqueue_moved(to_shim(t), to_shim(t)->cpu);
	}
	cpuhp_play_dead();
}

#ifdef CONFIG_SANITIZE
/* kernel/sched.c's check after cpu_down(), on the shim's run queues: the
 * dead CPU keeps only the kthreads bound there that are to park. */
void sched_cpu_dead_check(int cpu)
{
	struct shim_cpu *c = &shim_cpus[cpu];
	struct task *t;

	pthread_mutex_lock(&c->lock);
	WARN_ON_ONCE(!c->dying);
	list_for_each_entry(t, &c->rq, run_list)
		WARN_ON_ONCE(!t->should_park || t->bound_cpu != cpu);
	pthread_mutex_unlock(&c->lock);
}
#endif

void smp_call_function_drain(void)
{
	run_calls(shim_self);
}

void arch_cpu_stop_timer(void)
{
	__atomic_store_n(&shim_self->dead, true, __ATOMIC_SEQ_CST);
}

void timers_migrate_cpu(int cpu)
{
	(void)cpu;	/* the shim's timer list is global */
}

/* The hlt loop: until cpu_up() asks, then the AP's way back in. */
__noreturn void arch_cpu_play_dead(void)
{
	struct shim_cpu *c = shim_self;

	pthread_mutex_lock(&c->lock);
	while (!c->revive)
		pthread_cond_wait(&c->cond, &c->lock);
	c->revive = false;
	c->dying = false;	/* back, as kernel/sched.c's cpu_idle_loop() says */
	if (!list_empty(&c->rq)) {
		/* Queued while it was dead: it waited for this cpu_up(). */
		shim_count_error();
		printk(KERN_ERR "BUG: shim: %s was queued on CPU %d while it was offline\n",
		       list_first_entry(&c->rq, struct task, run_list)->name, c->id);
	}
	pthread_mutex_unlock(&c->lock);
	longjmp(c->boot, 1);
}

#define CPU_UP_WAIT_NS	(10ull * 1000000000ull)

int arch_cpu_up(int cpu)
{
	struct shim_cpu *c = &shim_cpus[cpu];
	u64 start = shim_now_ns();

	pthread_mutex_lock(&c->lock);
	c->revive = true;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
	while (!cpu_online(cpu)) {
		if (shim_now_ns() - start > CPU_UP_WAIT_NS) {
			printk(KERN_ERR "smpboot: CPU %d did not come back in 10 s\n", cpu);
			return -ETIMEDOUT;
		}
		msleep(1);
	}
	return 0;
}

bool kthread_should_stop(void)
{
	return __atomic_load_n(&current->should_stop, __ATOMIC_ACQUIRE);
}

int kthread_join(struct task *t)
{
	wait_for_completion(&t->exited);
	return t->exit_code;
}

int kthread_stop(struct task *t)
{
	__atomic_store_n(&t->should_stop, true, __ATOMIC_RELEASE);
	wake_up_process(t);
	return kthread_join(t);
}

static __noreturn void task_exit(int code)
{
	struct shim_cpu *c = shim_self;
	struct shim_task *me = to_shim(current), *next;

	me->t.exit_code = code;
	complete_all(&me->t.exited);
	shim_irqs_off = 1;
	rcu_note_context_switch(false);
	pthread_mutex_lock(&c->lock);
	me->t.state = TASK_DEAD;
	me->t.on_rq = 0;
	me->dead = true;
	next = pick_next(c);
	switch_to_locked(c, me, next);
	pthread_mutex_unlock(&c->lock);
	pthread_exit(NULL);
}

__noreturn void kthread_exit(int code)
{
	task_exit(code);
}

static void enter_cpu(struct shim_cpu *c)
{
	shim_self = c;
	shim_pcpu_off = __per_cpu_offset[c->id];
}

static void *task_thread(void *arg)
{
	struct shim_task *st = arg;
	struct shim_cpu *c = st->cpu;

	enter_cpu(c);
	shim_irqs_off = 1;
	pthread_mutex_lock(&c->lock);
	c = wait_for_cpu_locked(c, st);
	enter_cpu(c);
	pthread_mutex_unlock(&c->lock);
	WRITE_ONCE(st->t.state, TASK_RUNNING);
	shim_irqs_off = 0;
	task_exit(st->t.fn(st->t.arg));
}

/*
 * kernel/sched.c's idle loop: an extended quiescent state while halted;
 * interrupts that arrive are taken from idle (rcu_irq_enter() makes the
 * CPU visible to RCU for their duration).
 */
static int idle_fn(void *arg)
{
	struct shim_cpu *c = arg;

	if (setjmp(c->boot)) {
		/* Revived by cpu_up(): as an AP boots, RCU first, then online. */
		shim_irqs_off = 1;
		__atomic_store_n(&c->dead, false, __ATOMIC_SEQ_CST);
		rcu_cpu_starting(c->id);
		smp_mb();
		cpumask_set_cpu(c->id, &cpu_online_mask);
	}
	for (;;) {
		bool work, dying;

		shim_irqs_off = 1;
		pthread_mutex_lock(&c->lock);
		dying = c->dying && list_empty(&c->rq);
		pthread_mutex_unlock(&c->lock);
		if (dying)
			sched_cpu_dying();	/* does not return */
		rcu_idle_enter();
		for (;;) {
			pthread_mutex_lock(&c->lock);
			while (list_empty(&c->rq) && !c->dying &&
			       !__atomic_load_n(&c->pending, __ATOMIC_SEQ_CST))
				pthread_cond_wait(&c->cond, &c->lock);
			work = !list_empty(&c->rq) || c->dying;
			pthread_mutex_unlock(&c->lock);
			if (work)
				break;
			/* `sti; hlt` woke for an interrupt. */
			shim_irqs_off = 0;
			do_interrupts(c, true, true);
			shim_irqs_off = 1;
		}
		rcu_idle_exit();
		shim_schedule(false);
	}
	return 0;
}

/* ---- timers and the tick ---- */

long schedule_timeout(long timeout)
{
	struct shim_task *me = to_shim(current);
	u64 expires;
	long left;

	if (timeout == MAX_SCHEDULE_TIMEOUT) {
		schedule();
		return timeout;
	}
	if (timeout < 0)
		timeout = 0;
	expires = jiffies + (u64)timeout;
	pthread_mutex_lock(&timer_lock);
	me->timer_expires = expires;
	me->timer_armed = true;
	list_add_tail(&me->timer_node, &timer_list);
	pthread_mutex_unlock(&timer_lock);
	schedule();
	pthread_mutex_lock(&timer_lock);
	if (me->timer_armed) {
		list_del_init(&me->timer_node);
		me->timer_armed = false;
	}
	pthread_mutex_unlock(&timer_lock);
	left = (long)(expires - jiffies);
	return left > 0 ? left : 0;
}

long schedule_timeout_uninterruptible(long timeout)
{
	set_current_state(TASK_UNINTERRUPTIBLE);
	return schedule_timeout(timeout);
}

void msleep(unsigned int ms)
{
	u64 end = jiffies + msecs_to_jiffies(ms);

	while (time_before(jiffies, end))
		schedule_timeout_uninterruptible((long)(end - jiffies));
}

void __might_sleep(const char *file, int line)
{
	if (preempt_count() == 0 && !irqs_disabled())
		return;
	atomic_inc(&sched_sleep_bugs);
	shim_count_error();
	printk(KERN_ERR "BUG: sleeping function called from invalid context at %s:%d "
	       "(preempt_count=%#x, irqs %s)\n", file, line, preempt_count(),
	       irqs_disabled() ? "off" : "on");
	dump_stack();
}

static u64 xorshift(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void *tick_fn(void *unused)
{
	struct timespec next;
	u64 rnd = 0x2545f4914f6cdd1dull;
	unsigned long n = 0;

	(void)unused;
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!__atomic_load_n(&tick_stop, __ATOMIC_ACQUIRE)) {
		struct shim_task *st, *tmp;
		int cpu;

		next.tv_nsec += (long)opts.tick_us * 1000;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		n++;
		__atomic_fetch_add(&shim_jiffies, 1, __ATOMIC_RELAXED);
		for (cpu = 0; cpu < opts.ncpus; cpu++) {
			struct shim_cpu *c = &shim_cpus[cpu];
			bool idle;

			if (__atomic_load_n(&c->dead, __ATOMIC_SEQ_CST))
				continue;	/* its LAPIC timer is off */

			pthread_mutex_lock(&c->lock);
			idle = c->curr == c->idle;
			pthread_mutex_unlock(&c->lock);
			if (!idle || (opts.idle_tick_every && !(n % opts.idle_tick_every)))
				post(c, IRQ_TICK);
		}
		if (opts.nmi_every && !(n % opts.nmi_every))
			post(&shim_cpus[xorshift(&rnd) % (u64)opts.ncpus], IRQ_NMI);
		pthread_mutex_lock(&timer_lock);
		list_for_each_entry_safe(st, tmp, &timer_list, timer_node) {
			if (time_after((long)st->timer_expires, (long)jiffies))
				continue;
			list_del_init(&st->timer_node);
			st->timer_armed = false;
			wake_up_process(&st->t);
		}
		pthread_mutex_unlock(&timer_lock);
	}
	return NULL;
}

/* ---- cross-CPU calls and NMIs (kernel/smp.h) ---- */

int smp_call_function_single(int cpu, smp_call_func_t fn, void *info, int wait)
{
	struct shim_cpu *c;
	struct shim_call local, *call = &local;
	u64 start;

	if (in_nmi()) {
		WARN_ONCE(1, "smp_call_function_single() from NMI context\n");
		return -EINVAL;
	}
	if (!cpu_online(cpu))
		return -EINVAL;
	if (shim_self && cpu == shim_self->id) {
		unsigned long flags;

		local_irq_save(flags);
		fn(info);
		local_irq_restore(flags);
		return 0;
	}
	c = &shim_cpus[cpu];
	if (!wait) {
		call = malloc(sizeof(*call));
		if (!call)
			return -ENOMEM;
	}
	call->fn = fn;
	call->info = info;
	call->done = 0;
	call->heap = !wait;
	pthread_mutex_lock(&c->lock);
	list_add_tail(&call->node, &c->calls);
	pthread_mutex_unlock(&c->lock);
	post(c, IRQ_CALL);
	if (!wait)
		return 0;
	start = shim_now_ns();
	while (!__atomic_load_n(&call->done, __ATOMIC_ACQUIRE)) {
		if (shim_self)
			run_calls(shim_self);	/* calls sent to us meanwhile */
		sched_yield();
		/* The call is on our stack and still queued: no way back. */
		if (shim_now_ns() - start > CALL_WAIT_NS)
			panic("smp: CPU %d did not run a cross-CPU call in %llu s", cpu,
			      CALL_WAIT_NS / 1000000000ull);
	}
	return 0;
}

int smp_call_function_many(const struct cpumask *mask, smp_call_func_t fn, void *info, int wait)
{
	int cpu, ret = 0, me = shim_self ? shim_self->id : -1;

	for_each_cpu(cpu, mask)
		if (cpu != me && cpu_online(cpu)) {
			int r = smp_call_function_single(cpu, fn, info, wait);

			if (r)
				ret = r;
		}
	return ret;
}

int smp_call_function(smp_call_func_t fn, void *info, int wait)
{
	return smp_call_function_many(&cpu_online_mask, fn, info, wait);
}

int on_each_cpu(smp_call_func_t fn, void *info, int wait)
{
	int ret = smp_call_function(fn, info, wait);

	smp_call_function_single(smp_processor_id(), fn, info, wait);
	return ret;
}

void scheduler_ipi(void) {}

void smp_send_reschedule(int cpu)
{
	if (!cpu_online(cpu))
		return;
	__atomic_store_n(&shim_cpus[cpu].resched, true, __ATOMIC_RELAXED);
	post(&shim_cpus[cpu], 0);
}

/* kernel/sched.h: make cpu pass through its scheduler soon. */
void resched_cpu(int cpu)
{
	smp_send_reschedule(cpu);
}

/* kernel/sched.h: the shim's wake-ups send no IPI to defer. */
void resched_ipi_defer_begin(void) { }
void resched_ipi_defer_end(void) { }

bool trigger_cpu_backtrace(int cpu)
{
	if (!cpu_online(cpu))
		return false;
	post(&shim_cpus[cpu], IRQ_BACKTRACE);
	return true;
}

void trigger_all_cpu_backtrace(void)
{
	int cpu;

	for_each_online_cpu(cpu)
		trigger_cpu_backtrace(cpu);
}

/* A shim CPU is a thread: running, as far as the lockup reports ask. */
bool cpu_answers_nmi(int cpu)
{
	(void)cpu;
	return true;
}

/* The shim's NMIs call rcu_torture_nmi_hook at random instead. */
bool smp_call_nmi(int cpu, smp_nmi_func_t fn)
{
	(void)cpu;
	(void)fn;
	return false;
}

/* kernel/timer.h: the shim has no irq-context timers (schedule_timeout()
 * has its own); torture.irqreader's timers never fire here. */
void timer_setup(struct timer_list *t, void (*fn)(struct timer_list *), unsigned flags)
{
	(void)flags;
	INIT_LIST_HEAD(&t->entry);
	t->function = fn;
	t->cpu = -1;
}

void add_timer_on(struct timer_list *t, int cpu)
{
	(void)t;
	(void)cpu;
}

bool del_timer_sync(struct timer_list *t)
{
	(void)t;
	return false;
}

bool timer_pending(const struct timer_list *t)
{
	(void)t;
	return false;
}

/* ---- boot and shutdown ---- */

static struct shim_task boot_task;

static void setup_cpu(int cpu)
{
	struct shim_cpu *c = &shim_cpus[cpu];
	size_t size = (size_t)(__per_cpu_end - __per_cpu_start);
	char *area = aligned_alloc(64, ALIGN_UP(size, 64) + 64);

	if (!area)
		panic("shim: no memory for CPU %d's per-CPU area", cpu);
	memcpy(area, __per_cpu_start, size);
	c->area = area;
	c->id = cpu;
	__per_cpu_offset[cpu] = (unsigned long)area - (unsigned long)__per_cpu_start;
	per_cpu(this_cpu_off, cpu) = __per_cpu_offset[cpu];
	per_cpu(cpu_number, cpu) = cpu;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->cond, NULL);
	INIT_LIST_HEAD(&c->rq);
	INIT_LIST_HEAD(&c->calls);
	c->slice = SLICE_TICKS;
}

static void start_idle(int cpu)
{
	struct shim_cpu *c = &shim_cpus[cpu];
	char name[16];
	struct shim_task *st;

	snprintf(name, sizeof(name), "swapper/%d", cpu & 63);
	st = new_task(idle_fn, c, cpu, name);
	if (!st)
		panic("shim: no idle task for CPU %d", cpu);
	st->idle = true;
	st->t.flags = PF_IDLE;
	st->t.prio = -1;
	st->t.on_rq = 1;
	st->started = true;
	st->cpu = c;
	c->idle = st;
	pthread_mutex_lock(&c->lock);
	if (!c->curr) {
		c->curr = st;
		per_cpu(current_task, cpu) = &st->t;
	}
	pthread_mutex_unlock(&c->lock);
	if (pthread_create(&st->th, NULL, task_thread, st))
		panic("shim: cannot create CPU %d's idle thread", cpu);
	pthread_detach(st->th);
}

bool shim_parse_opt(struct shim_opts *opts, int argc, char **argv, int *i)
{
	if (*i + 1 >= argc)
		return false;
	if (!strcmp(argv[*i], "--cmdline"))
		opts->cmdline = argv[++*i];
	else if (!strcmp(argv[*i], "--cpus"))
		opts->ncpus = atoi(argv[++*i]);
	else if (!strcmp(argv[*i], "--move-delay-us"))
		opts->move_delay_us = (unsigned int)atoi(argv[++*i]);
	else
		return false;
	return true;
}

void shim_boot(const struct shim_opts *o)
{
	int cpu;

	opts = *o;
	if (opts.ncpus < 1 || opts.ncpus > NR_CPUS) {
		fprintf(stderr, "shim: %d CPUs asked for; 1..%d supported\n", opts.ncpus, NR_CPUS);
		exit(2);
	}
	if (!opts.tick_us)
		opts.tick_us = 1000;
	if (opts.cmdline) {
		/* charp options point into it: kept for the whole run. */
		char *line = strdup(opts.cmdline);

		shim_cmdline_copy = line;	/* reachable, for LeakSanitizer */

		if (!line || cmdline_parse(line, __start___param, __stop___param)) {
			fprintf(stderr, "shim: bad kernel command line '%s'\n", opts.cmdline);
			exit(2);
		}
	}
	for (cpu = 0; cpu < opts.ncpus; cpu++)
		setup_cpu(cpu);
	nr_cpu_ids = opts.ncpus;

	/* The calling thread is CPU 0's first task (kmain's init task). */
	snprintf(boot_task.t.name, sizeof(boot_task.t.name), "init");
	boot_task.t.prio = PRIO_NORMAL;
	boot_task.t.state = TASK_RUNNING;
	boot_task.t.on_rq = 1;
	boot_task.t.bound_cpu = 0;
	boot_task.started = true;
	boot_task.cpu = &shim_cpus[0];
	INIT_LIST_HEAD(&boot_task.t.run_list);
	INIT_LIST_HEAD(&boot_task.timer_node);
	init_completion(&boot_task.t.exited);
	shim_cpus[0].curr = &boot_task;
	per_cpu(current_task, 0) = &boot_task.t;
	enter_cpu(&shim_cpus[0]);
	cpumask_set_cpu(0, &cpu_online_mask);

	rcu_init();
	for (cpu = 1; cpu < opts.ncpus; cpu++) {
		cpumask_set_cpu(cpu, &cpu_online_mask);
		rcu_init_percpu(cpu);
		rcu_cpu_starting(cpu);
	}
	for (cpu = 0; cpu < opts.ncpus; cpu++)
		start_idle(cpu);
	sched_running = true;
	if (pthread_create(&tick_thread, NULL, tick_fn, NULL))
		panic("shim: cannot create the tick thread");
	rcu_late_init();
}

long shim_shutdown(void)
{
	int cpu;

	if (rcu_state.gp_kthread)
		kthread_stop(rcu_state.gp_kthread);
	for (cpu = 0; cpu < opts.ncpus; cpu++) {
		struct task *t = per_cpu(rcu_data, cpu).cb_kthread;

		if (t)
			kthread_stop(t);
	}
	__atomic_store_n(&tick_stop, 1, __ATOMIC_RELEASE);
	pthread_join(tick_thread, NULL);
	return shim_errors();
}

void shim_get_stats(struct shim_stats *st)
{
	int cpu;

	*st = (struct shim_stats){ 0 };
	for (cpu = 0; cpu < opts.ncpus; cpu++) {
		struct shim_cpu *c = &shim_cpus[cpu];

		st->ticks += STAT_READ(c->ticks);
		st->idle_ticks += STAT_READ(c->idle_ticks);
		st->nmis += STAT_READ(c->nmis);
		st->nmis_in_idle += STAT_READ(c->nmis_in_idle);
		st->calls += STAT_READ(c->ncalls);
		st->switches += STAT_READ(c->switches);
		st->preemptions += STAT_READ(c->preemptions);
	}
}
