/*
 * tests/host/test_timer.c - host tests of kernel/timer.c's timer lists,
 * the kernel's own file built against tests/host/thread_shim and
 * timer_shim: each pthread plays one CPU (thread-local
 * smp_processor_id(), preempt_count and irq flag), a shim tick is run_local_timers() inside HARDIRQ_OFFSET, and
 * jiffies is the test's counter.  Built with ASan+UBSan and with TSan.
 *
 * The cases that need a window force it instead of waiting for luck: a
 * handler waits until the deleting CPU spins inside del_timer_sync()
 * (cpu_relax() is counted per CPU), or the test-build hook
 * timer_inject_hook holds the tick at TIMER_INJECT_START until the
 * deleter has returned (200 ms at most: with the base lock held there, a
 * correct del_timer_sync() cannot return, so the bound is the cost of
 * every passing run).  Every wait is bounded and says what it waited for.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ktest.h"
#include "kernel/timer.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/printk.h"
#include "tests/kernel/bounded_wait.h"

/* ---- the shim's globals and stubs --------------------------------------- */

unsigned long shim_jiffies = 1000;
bool sched_running;

static int relax_count[NR_CPUS];

void shim_relax(void)
{
	__atomic_fetch_add(&relax_count[shim_cpu], 1, __ATOMIC_RELAXED);
	sched_yield();
}

int printk(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vprintf(fmt, ap);
	va_end(ap);
	return n;
}

bool trigger_cpu_backtrace(int cpu) { (void)cpu; return false; }
bool cpu_answers_nmi(int cpu) { (void)cpu; return true; }
void trigger_all_cpu_backtrace(void) {}
void dump_stack(void) {}

/* A WARN in kernel/timer.c is a failed expectation of whichever case ran. */
static int warnings;
void warn_slowpath(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	printf("    WARNING at %s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	__atomic_fetch_add(&warnings, 1, __ATOMIC_RELAXED);
}

/* kernel/cpu.h's, declared here alone: the rest of that header is CPU hotplug's. */
void timers_migrate_cpu(int cpu);
void mdelay(unsigned long ms) { usleep((useconds_t)ms * 1000); }

/* timer.c's sleeping half is not under test here. */
static void not_here(const char *what)
{
	printf("    %s called: not part of the host timer test\n", what);
	abort();
}
struct task *shim_current(void) { not_here("current"); return NULL; }
void schedule(void) { not_here("schedule()"); }
int wake_up_process(struct task *t) { (void)t; not_here("wake_up_process()"); return 0; }
void __might_sleep(const char *file, int line) { (void)file; (void)line; }

/* ---- helpers ----------------------------------------------------------- */

#define LOAD(x)		__atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define STORE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELEASE)
#define INC(x)		__atomic_fetch_add(&(x), 1, __ATOMIC_RELAXED)

/* Yields until cond or ms pass; true if cond. */
#define WAIT_UNTIL(cond, ms) BOUNDED_WAIT(cond, ms, sched_yield())

/* One tick of this shim CPU: the timer part of sched_tick(). */
static void tick(void)
{
	shim_preempt_count += HARDIRQ_OFFSET;
	shim_irqs_off = 1;
	run_local_timers();
	shim_irqs_off = 0;
	shim_preempt_count -= HARDIRQ_OFFSET;
}

static void set_jiffies(unsigned long j) { __atomic_store_n(&shim_jiffies, j, __ATOMIC_RELAXED); }

/* One tick of shim CPU cpu, played by this thread, which stays the CPU it was. */
static void tick_on(int cpu)
{
	int me = shim_cpu;

	shim_cpu = cpu;
	tick();
	shim_cpu = me;
}

/* A case's start: this thread plays CPU cpu, jiffies is 1000, and t is
 * set up to run fn. */
static void timer_start(struct timer_list *t, void (*fn)(struct timer_list *), int cpu)
{
	shim_cpu = cpu;
	set_jiffies(1000);
	timer_setup(t, fn, 0);
}

/* timer_start(), and t added on this CPU, due at once. */
static void timer_start_due(struct timer_list *t, void (*fn)(struct timer_list *), int cpu)
{
	timer_start(t, fn, cpu);
	t->expires = 1000;
	add_timer(t);
}

struct on_cpu {
	pthread_t th;
	int cpu;
	void (*fn)(void *);
	void *arg;
};

static void *on_cpu_main(void *p)
{
	struct on_cpu *o = p;

	shim_cpu = o->cpu;
	o->fn(o->arg);
	return NULL;
}

/* Runs fn(arg) on a new thread playing CPU cpu. */
static void start_on(struct on_cpu *o, int cpu, void (*fn)(void *), void *arg)
{
	o->cpu = cpu;
	o->fn = fn;
	o->arg = arg;
	if (pthread_create(&o->th, NULL, on_cpu_main, o)) {
		perror("pthread_create");
		exit(2);
	}
}

static void join(struct on_cpu *o) { pthread_join(o->th, NULL); }

/* ---- single-CPU semantics ---------------------------------------------- */

static int fired;

static void count_fn(struct timer_list *t)
{
	(void)t;
	INC(fired);
}

static void timer_fires_once_when_due(void)
{
	struct timer_list t;

	fired = 0;
	timer_start(&t, count_fn, 0);
	EXPECT(!timer_pending(&t));
	t.expires = 1002;
	add_timer(&t);
	EXPECT(timer_pending(&t));
	tick();
	set_jiffies(1001);
	tick();
	EXPECT_EQ(fired, 0);
	set_jiffies(1002);
	tick();
	EXPECT_EQ(fired, 1);
	EXPECT(!timer_pending(&t));
	tick();
	EXPECT_EQ(fired, 1);
	/* Another CPU's timer fires in that CPU's tick only. */
	t.expires = 1002;
	add_timer_on(&t, 3);
	tick();
	EXPECT_EQ(fired, 1);
	tick_on(3);
	EXPECT_EQ(fired, 2);
}

static void timer_del_returns_whether_pending(void)
{
	struct timer_list t;

	fired = 0;
	timer_start(&t, count_fn, 0);
	EXPECT(!del_timer(&t));
	EXPECT(!del_timer_sync(&t));
	t.expires = 1000;
	add_timer_on(&t, 2);
	EXPECT(del_timer(&t));
	EXPECT(!del_timer(&t));
	add_timer_on(&t, 2);
	EXPECT(del_timer_sync(&t));
	EXPECT(!timer_pending(&t));
	tick_on(2);
	EXPECT_EQ(fired, 0);
	/* Re-adding moves a pending timer: it is on one list only. */
	add_timer_on(&t, 2);
	add_timer_on(&t, 1);
	tick_on(2);
	EXPECT_EQ(fired, 0);
	tick_on(1);
	EXPECT_EQ(fired, 1);
}

/* A handler that re-arms for a time already due runs once per tick. */
static int rearm_runs;

static void rearm_now_fn(struct timer_list *t)
{
	/* Bounded, so that a tick that would loop for ever ends. */
	if (++rearm_runs > 1000)
		return;
	t->expires = jiffies;
	add_timer(t);
}

static void timer_rearm_for_now_waits_for_next_tick(void)
{
	struct timer_list t;

	rearm_runs = 0;
	timer_start_due(&t, rearm_now_fn, 0);
	tick();
	EXPECT_MSG(rearm_runs == 1, "one tick ran the handler %d times", rearm_runs);
	EXPECT(timer_pending(&t));
	tick();
	EXPECT_EQ(rearm_runs, 2);
	del_timer_sync(&t);
	EXPECT(!timer_pending(&t));
}

/* del_timer_sync() from the timer's own handler undoes its re-arm. */
static bool own_del_result;

static void del_own_fn(struct timer_list *t)
{
	t->expires = jiffies;
	add_timer(t);
	own_del_result = del_timer_sync(t);
}

static void timer_del_sync_from_own_handler(void)
{
	struct timer_list t;

	timer_start_due(&t, del_own_fn, 0);
	tick();
	EXPECT(own_del_result);
	EXPECT(!timer_pending(&t));
}

/* ---- cross-CPU: del_timer_sync() against a running handler ------------- */

/*
 * CPU 1 runs the handler; CPU 0 deletes.  The handler waits until CPU 0
 * spins inside del_timer_sync() waiting for it, then re-arms its timer
 * and returns: del_timer_sync() must not return with it pending.
 */
static struct {
	struct timer_list t;
	int running;		/* the handler has started */
	int deleting;		/* CPU 0 is about to call del_timer_sync() */
	int relax0;		/* CPU 0's relax count before it did */
	int timed_out;
	int handler_runs;
} rr;

static void rearming_fn(struct timer_list *t)
{
	INC(rr.handler_runs);
	STORE(rr.running, 1);
	if (!WAIT_UNTIL(LOAD(rr.deleting) &&
			LOAD(relax_count[0]) > LOAD(rr.relax0), 10000))
		STORE(rr.timed_out, 1);
	t->expires = jiffies + 1;
	add_timer(t);
}

static void rr_tick(void *unused)
{
	(void)unused;
	tick();
}

static void timer_del_sync_after_rearming_handler(void)
{
	struct on_cpu cpu1;

	memset(&rr, 0, sizeof(rr));
	timer_start(&rr.t, rearming_fn, 0);
	rr.t.expires = 1000;
	add_timer_on(&rr.t, 1);
	start_on(&cpu1, 1, rr_tick, NULL);
	if (!WAIT_UNTIL(LOAD(rr.running), 10000)) {
		KTEST_FAIL("CPU 1's tick never ran the handler (10 s)");
		join(&cpu1);
		return;
	}
	STORE(rr.relax0, LOAD(relax_count[0]));
	STORE(rr.deleting, 1);
	del_timer_sync(&rr.t);
	EXPECT_MSG(!timer_pending(&rr.t),
		   "del_timer_sync() returned with the timer pending again (its handler re-armed it)");
	join(&cpu1);
	EXPECT_MSG(!rr.timed_out, "CPU 0 never spun in del_timer_sync() while the handler ran");
	/* Nothing left for CPU 1's next tick. */
	set_jiffies(1001);
	tick_on(1);
	EXPECT_EQ(rr.handler_runs, 1);
	del_timer_sync(&rr.t);
}

/*
 * The tick is held at TIMER_INJECT_START (the handler about to run) until
 * CPU 0's del_timer_sync() has returned (200 ms at most).  It must not
 * return before the handler has run and finished.
 */
static struct {
	struct timer_list t;
	int started;		/* the tick reached the hook */
	int deleted;		/* del_timer_sync() returned */
	int ran_after_delete;
	int handler_runs;
	int hook_waited_out;
} so;

static void so_hook(enum timer_inject_point where, struct timer_list *t)
{
	if (where != TIMER_INJECT_START || t != &so.t)
		return;
	STORE(so.started, 1);
	if (!WAIT_UNTIL(LOAD(so.deleted), 200))
		STORE(so.hook_waited_out, 1);
}

static void so_fn(struct timer_list *t)
{
	(void)t;
	INC(so.handler_runs);
	if (LOAD(so.deleted))
		INC(so.ran_after_delete);
}

static void so_delete(void *unused)
{
	(void)unused;
	if (!WAIT_UNTIL(LOAD(so.started), 10000))
		return;
	del_timer_sync(&so.t);
	STORE(so.deleted, 1);
}

static void timer_del_sync_waits_for_handler_start(void)
{
	struct on_cpu cpu0;

	memset(&so, 0, sizeof(so));
	timer_start_due(&so.t, so_fn, 1);
	__atomic_store_n(&timer_inject_hook, so_hook, __ATOMIC_RELEASE);
	start_on(&cpu0, 0, so_delete, NULL);
	tick();			/* CPU 1 */
	join(&cpu0);
	__atomic_store_n(&timer_inject_hook, NULL, __ATOMIC_RELEASE);
	shim_cpu = 0;
	EXPECT_MSG(LOAD(so.started), "the tick never reached the hook");
	EXPECT_MSG(LOAD(so.deleted), "del_timer_sync() never returned");
	EXPECT_EQ(so.handler_runs, 1);
	EXPECT_MSG(so.ran_after_delete == 0,
		   "the handler ran after del_timer_sync() returned");
	EXPECT(!timer_pending(&so.t));
}

/* A handler that re-arms onto another CPU keeps its timer on its own. */
static int moved_runs;

static void move_fn(struct timer_list *t)
{
	if (moved_runs++ == 0) {
		t->expires = jiffies;
		add_timer_on(t, 5);
	}
}

static void timer_rearm_on_other_cpu_stays_on_own(void)
{
	struct timer_list t;

	moved_runs = 0;
	timer_start_due(&t, move_fn, 4);
	tick();
	EXPECT_EQ(moved_runs, 1);
	EXPECT_EQ(t.cpu, 4);
	tick_on(5);
	EXPECT_EQ(moved_runs, 1);
	tick();
	EXPECT_EQ(moved_runs, 2);
	/* Once not running, add_timer_on() does move it. */
	t.expires = jiffies;
	add_timer_on(&t, 5);
	EXPECT_EQ(t.cpu, 5);
	tick_on(5);
	EXPECT_EQ(moved_runs, 3);
	shim_cpu = 0;
}

/* CPU hotplug: a dead CPU's pending timers move to this CPU's base. */
static void timer_migrate_dead_cpu(void)
{
	struct timer_list due, later;

	fired = 0;
	timer_start(&due, count_fn, 0);
	timer_setup(&later, count_fn, 0);
	due.expires = 1000;
	later.expires = 1005;
	add_timer_on(&due, 6);
	add_timer_on(&later, 6);
	timers_migrate_cpu(6);
	EXPECT_EQ(due.cpu, 0);
	EXPECT_EQ(later.cpu, 0);
	tick_on(6);			/* nothing left there */
	EXPECT_EQ(fired, 0);
	tick();
	EXPECT_EQ(fired, 1);
	EXPECT(!timer_pending(&due));
	EXPECT(timer_pending(&later));
	EXPECT(del_timer_sync(&later));
	EXPECT(!timer_pending(&later));
	set_jiffies(1005);
	tick();
	EXPECT_EQ(fired, 1);
}

/* ---- stress: ticking CPUs, timers re-arming, deleted and freed --------- */

#ifndef STRESS_ITERS
#define STRESS_ITERS 3000
#endif
#define STRESS_TICKERS 4
#define STRESS_WORKERS 2
#define ALIVE 0x600dull
#define DEAD 0xdeadull

struct stress_timer {
	struct timer_list t;
	unsigned long magic;
	int rearms_left;
	int runs;
	int in_handler;
	unsigned int seed;
};

static int stress_stop;
static int stress_bad_magic, stress_in_handler_after_del, stress_pending_after_del;
static int stress_never_fired, stress_runs, stress_waited;

static void stress_fn(struct timer_list *t)
{
	struct stress_timer *s = (struct stress_timer *)t;

	if (LOAD(s->magic) != ALIVE)
		INC(stress_bad_magic);
	STORE(s->in_handler, 1);
	INC(stress_runs);
	STORE(s->runs, s->runs + 1);
	if (s->rearms_left > 0) {
		s->rearms_left--;
		t->expires = jiffies + (rand_r(&s->seed) & 1);
		if (rand_r(&s->seed) & 1)
			add_timer(t);
		else
			add_timer_on(t, rand_r(&s->seed) % STRESS_TICKERS);
	}
	/* Linger, so that deleters find it running. */
	for (int i = rand_r(&s->seed) % 8; i > 0; i--)
		sched_yield();
	STORE(s->in_handler, 0);
}

static void stress_ticker(void *unused)
{
	(void)unused;
	while (!LOAD(stress_stop)) {
		tick();
		if (shim_cpu == 0)
			__atomic_fetch_add(&shim_jiffies, 1, __ATOMIC_RELAXED);
		sched_yield();
	}
}

static void stress_worker(void *arg)
{
	unsigned int seed = (unsigned int)(unsigned long)arg;
	int relax0;

	for (int i = 0; i < STRESS_ITERS; i++) {
		struct stress_timer *s = calloc(1, sizeof(*s));

		timer_setup(&s->t, stress_fn, 0);
		s->magic = ALIVE;
		s->seed = seed + (unsigned int)i;
		s->rearms_left = rand_r(&seed) % 4;
		s->t.expires = jiffies + (rand_r(&seed) % 3);
		add_timer_on(&s->t, rand_r(&seed) % STRESS_TICKERS);
		/*
		 * A third at once, a third once it has run, a third while its
		 * handler runs (as a rule: a short handler may be missed).
		 * The tickers keep ticking, so a wait for a run must end.
		 */
		if (i % 3 == 1 && !WAIT_UNTIL(LOAD(s->runs) > 0, 10000))
			INC(stress_never_fired);
		if (i % 3 == 2 && !WAIT_UNTIL(LOAD(s->in_handler) || LOAD(s->runs) > 0, 10000))
			INC(stress_never_fired);
		relax0 = LOAD(relax_count[shim_cpu]);
		del_timer_sync(&s->t);
		if (LOAD(relax_count[shim_cpu]) != relax0)
			INC(stress_waited);
		if (timer_pending(&s->t))
			INC(stress_pending_after_del);
		if (LOAD(s->in_handler))
			INC(stress_in_handler_after_del);
		STORE(s->magic, DEAD);
		free(s);	/* a later touch by a tick is ASan's use-after-free */
	}
}

static void timer_stress_delete_and_free(void)
{
	struct on_cpu tickers[STRESS_TICKERS], workers[STRESS_WORKERS];

	set_jiffies(1000);
	STORE(stress_stop, 0);
	for (int c = 0; c < STRESS_TICKERS; c++)
		start_on(&tickers[c], c, stress_ticker, NULL);
	for (int w = 0; w < STRESS_WORKERS; w++)
		start_on(&workers[w], STRESS_TICKERS + w, stress_worker,
			 (void *)(unsigned long)(w * 7919 + 1));
	for (int w = 0; w < STRESS_WORKERS; w++)
		join(&workers[w]);
	STORE(stress_stop, 1);
	for (int c = 0; c < STRESS_TICKERS; c++)
		join(&tickers[c]);
	printf("    %d timers, %d handler runs on %d ticking CPUs, %d deletes spun (handler running or base locked)\n",
	       STRESS_ITERS * STRESS_WORKERS, stress_runs, STRESS_TICKERS, stress_waited);
	EXPECT_EQ(stress_bad_magic, 0);
	EXPECT_EQ(stress_pending_after_del, 0);
	EXPECT_EQ(stress_in_handler_after_del, 0);
	EXPECT_EQ(stress_never_fired, 0);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	timers_init();
	RUN(timer_fires_once_when_due);
	RUN(timer_del_returns_whether_pending);
	RUN(timer_rearm_for_now_waits_for_next_tick);
	RUN(timer_del_sync_from_own_handler);
	RUN(timer_del_sync_after_rearming_handler);
	RUN(timer_del_sync_waits_for_handler_start);
	RUN(timer_rearm_on_other_cpu_stays_on_own);
	RUN(timer_migrate_dead_cpu);
	RUN(timer_stress_delete_and_free);
	if (warnings) {
		printf("%d kernel warnings\n", warnings);
		ktest_summary();
		return 1;
	}
	return ktest_summary();
}
