/*
 * kernel/sched.h - kernel threads and the scheduler.
 *
 * Every CPU has a run queue with three priority levels (PRIO_LOW, NORMAL,
 * HIGH; higher runs first, FIFO with round-robin slices within a level)
 * and an idle task that halts.  A task stays on the CPU it was created
 * for (or bound to): wake-ups never migrate a task, so a task's stack is
 * only ever used by one CPU at a time without further synchronisation.
 * The one exception is CPU hotplug (kernel/cpu.c): a CPU going down
 * hands its queued tasks to other CPUs once none runs there, and a task
 * that last ran there moves when it is next woken, after its switch away
 * has finished (->on_cpu clear); only parked kthreads stay.
 *
 * Preemption (preempt=full, the default): a task running with
 * preempt_count 0 is switched out at interrupt exit when its slice is over
 * or a more urgent task is ready, and preempt_enable() switches when that
 * was asked while preemption was off.  preempt=none: only schedule(),
 * cond_resched() and sleeping switch, the CONFIG_PREEMPT=n analogue.
 *
 * Hooks into RCU: rcu_note_context_switch() on every pass through the
 * scheduler (irqs off), rcu_idle_enter()/rcu_idle_exit() around the idle
 * halt, and rcu_sched_clock_irq(qs) from sched_tick() on every CPU's tick,
 * qs saying the tick interrupted a task other than idle that ran with
 * preempt_count 0.  struct sched_cpu_stats counts each for the tests.
 */
#pragma once

#include "kernel/types.h"
#include "kernel/list.h"
#include "kernel/atomic.h"
#include "kernel/percpu.h"
#include "kernel/preempt.h"
#include "kernel/wait.h"
#include "kernel/lockdep.h"

#define TASK_RUNNING		0x0
#define TASK_INTERRUPTIBLE	0x1
#define TASK_UNINTERRUPTIBLE	0x2
#define TASK_DEAD		0x40
#define TASK_WAKING		0x100	/* being moved off a CPU going down by its waker */
#define TASK_PARKED		0x200	/* kthread_parkme(): only kthread_unpark() wakes it */
#define TASK_NORMAL		(TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE)

#define PRIO_LOW	0
#define PRIO_NORMAL	1
#define PRIO_HIGH	2
#define NR_PRIO		3

#define PF_IDLE		0x1	/* a CPU's idle task */
#define PF_KTHREAD	0x2	/* made by kthread_create (has its own stack) */

#define TASK_COMM_LEN	16
#define THREAD_SIZE	(16 * 1024)
#define STACK_END_MAGIC	0x57ac6e9d57ac6e9dul

#define MAX_SCHEDULE_TIMEOUT	((long)(~0ul >> 1))

struct task {
	unsigned long sp;	/* saved stack pointer: switch.asm uses offset 0 */
	void *stack;		/* THREAD_SIZE bytes, NULL for a CPU's boot stack */
	char name[TASK_COMM_LEN];
	volatile long state;
	int cpu;		/* the CPU whose run queue holds it */
	int bound_cpu;		/* -1: chosen at creation */
	int prio;
	unsigned int flags;
	int on_rq;		/* runnable: queued or running (rq lock) */
	int on_cpu;		/* its stack is in use on its CPU */
	int preempt_count;	/* saved across a switch (preempt_count is per CPU) */
	int slice;		/* ticks left of its time slice */
	struct list_head run_list;
	atomic_t usage;		/* one for running, one for the creator's handle */

	int (*fn)(void *);
	void *arg;
	int exit_code;
	bool should_stop;
	struct completion exited;
	/* kthread_park(): a per-CPU kthread waits out its CPU's absence. */
	bool should_park;
	bool parked;
	struct completion parked_done;

	int registry_slot;	/* in task_registry[] (kernel/sched.c), -1: none */
	u64 nr_switches;	/* times switched in */
	u64 nr_preempted;	/* times switched out involuntarily */

	/* Preemptible RCU's per-task state (rcu/preempt.c). */
	int rcu_read_lock_nesting;
	unsigned int rcu_read_unlock_special;	/* RCU_SPECIAL_* bits */
	struct list_head rcu_node_entry;	/* on a leaf's blkd_tasks */
	void *rcu_blocked_node;			/* that leaf, or NULL */
	int rcu_boost_saved_prio;		/* prio before a boost */
	/* SRCU's check of the article's Quick Quiz 3 (rcu/srcu.c,
	 * docs/article.md): the srcu_structs this task reads. */
	void *srcu_held[4];
	int srcu_held_depth;
	bool srcu_held_overflow;	/* more sections than slots since depth 0 */
#ifdef CONFIG_LOCKDEP
	struct lockdep_held lockdep;	/* locks this task holds (kernel/lockdep.c) */
#endif
};

DECLARE_PER_CPU(struct task *, current_task);

/* Per CPU, written by that CPU with irqs off, read anywhere (READ_ONCE). */
struct sched_cpu_stats {
	u64 resched_ipis;	/* reschedule IPIs received */
	u64 idle_halts;		/* halts of the idle loop */
	u64 idle_halt_cycles;	/* TSC cycles from halt to wake-up */
	u64 tick_qs;		/* ticks that hit a task with preempt_count 0 */
	u64 tick_atomic;	/* ... a task with preemption (or bh) off */
	u64 tick_idle;		/* ... the idle task */
	u64 rcu_cs_hooks;	/* rcu_note_context_switch() calls */
	u64 rcu_idle_enters;	/* rcu_idle_enter() calls */
	u64 rcu_idle_exits;	/* rcu_idle_exit() calls */
};
DECLARE_PER_CPU(struct sched_cpu_stats, sched_cpu_stats);
#define sched_stat(cpu, field)	READ_ONCE(per_cpu(sched_cpu_stats, (cpu)).field)

static inline struct task *get_current(void)
{
	return this_cpu_read(current_task);
}
#define current get_current()

/*
 * A sleeping state (TASK_INTERRUPTIBLE, TASK_UNINTERRUPTIBLE) or
 * TASK_RUNNING: a concurrent wake-up may overwrite it with TASK_RUNNING,
 * which only makes the next schedule() return at once.
 */
#define set_current_state(s)						\
	do { WRITE_ONCE(current->state, (s)); smp_mb(); } while (0)
#define __set_current_state(s)	WRITE_ONCE(current->state, (s))
/* A state no wake-up may overwrite (TASK_DEAD): stored under the
 * run-queue lock wake_up_state() holds between its load and its store. */
void set_special_state(long state);

/* Threads.  Created asleep: wake_up_process() (or kthread_run) starts it. */
struct task *kthread_create(int (*fn)(void *), void *arg, const char *name);
struct task *kthread_create_on_cpu(int (*fn)(void *), void *arg, int cpu,
				   const char *name);
/* Before the first wake-up only: the thread will only ever run on cpu. */
void kthread_bind(struct task *t, int cpu);
#define kthread_run(fn, arg, name) ({					\
	struct task *__t = kthread_create((fn), (arg), (name));		\
	if (__t)							\
		wake_up_process(__t);					\
	__t; })
/* Ask it to stop (kthread_should_stop()), wait, return its exit code. */
int kthread_stop(struct task *t);
/* Wait for it to return and give back its exit code. */
int kthread_join(struct task *t);
bool kthread_should_stop(void);
/*
 * CPU hotplug's per-CPU kthreads (Linux's API): kthread_park() asks t to
 * park and waits until it has (named every 10 s meanwhile); t polls
 * kthread_should_park() at points where it holds nothing and calls
 * kthread_parkme(), which sleeps until kthread_unpark().  A parked
 * thread stays bound to its CPU; any other thread on a CPU going down is
 * moved to another CPU.
 */
int kthread_park(struct task *t);
void kthread_unpark(struct task *t);
bool kthread_should_park(void);
void kthread_parkme(void);
__noreturn void kthread_exit(int code);
void get_task_struct(struct task *t);
void put_task_struct(struct task *t);

int wake_up_process(struct task *t);
int wake_up_state(struct task *t, unsigned int state);
void set_task_prio(struct task *t, int prio);

void schedule(void);
void yield(void);
/* In preempt=none the only place a long loop gives the CPU away. */
void cond_resched(void);
long schedule_timeout(long timeout);
long schedule_timeout_uninterruptible(long timeout);
void msleep(unsigned int ms);

/* Linux's might_sleep(): reports a sleeping call in atomic context. */
void __might_sleep(const char *file, int line);
#define might_sleep() __might_sleep(__FILE__, __LINE__)

/* Called by the rest of the kernel. */
void sched_init(void);		/* boot CPU, once kmalloc works */
void sched_tick(void);		/* every CPU's tick, irq context */
void scheduler_ipi(void);	/* the reschedule IPI */
/* A CPU coming up, on itself, before it is published online. */
void sched_cpu_starting(int cpu);
__noreturn void cpu_idle_loop(void);	/* each CPU's boot context becomes its idle */
bool need_resched(void);
void preempt_schedule_irq(void);
void resched_cpu(int cpu);
/*
 * Irqs off, nesting: the reschedule IPIs of the wake-ups between the two
 * are sent at the outermost end, not at once.  For a waker that wakes
 * under a lock its wakee takes as it wakes (a wait queue's, in
 * finish_wait()): see resched_ipi() in kernel/sched.c for why.
 */
void resched_ipi_defer_begin(void);
void resched_ipi_defer_end(void);

#ifdef CONFIG_SANITIZE
/* Test build: the next wake_up_state() of this task stalls between its
 * load and its store of ->state until the task stores a state other than
 * the one read and TASK_RUNNING (200 ms at most). */
extern struct task *sched_inject_wake_stall;

/* Test build: a hook the tests set to hold a CPU inside the switch or
 * CPU hotplug (NULL: none), called at these points. */
enum sched_inject_point {
	SCHED_INJECT_DYING_BEGIN,	/* cpu_down(): cpu's run queue is about to be
					 * marked dying (t NULL, the controller) */
	SCHED_INJECT_DYING,		/* ... it is, cpu not yet kicked (t NULL) */
	SCHED_INJECT_FINISH,		/* finish_task_switch() on cpu, irqs off: t,
					 * the task switched out, just had ->on_cpu
					 * cleared */
};
extern void (*sched_inject_hook)(enum sched_inject_point where, struct task *t, int cpu);
#endif

/* Introspection for tests and reports. */
extern atomic_t sched_atomic_bugs;	/* "scheduling while atomic" reports */
extern atomic_t sched_sleep_bugs;	/* "sleeping function called from invalid context" */
extern bool sched_running;		/* the scheduler can switch tasks */
extern unsigned int sched_slice_ms;
int sched_nr_running(int cpu);		/* queued tasks, not counting the running one */
u64 sched_nr_switches(int cpu);
struct task *cpu_curr(int cpu);
static inline bool is_idle_task(const struct task *t) { return t->flags & PF_IDLE; }

/* The arch's context switch (arch/x86_64/switch.asm). */
struct task *__switch_to_asm(struct task *prev, struct task *next);
void ret_from_kthread(void);
