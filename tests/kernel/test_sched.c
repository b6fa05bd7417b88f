/*
 * tests/kernel/test_sched.c - KTAP suite `sched`: kthreads, preemption,
 * priorities, binding, cross-CPU wake-ups, sleeping, the
 * scheduling-while-atomic report, and the context-switch benchmark.
 *
 * Tests that need the other preemption model report SKIP; tests that
 * provoke BUG reports on purpose run only with sched.provoke_bugs (the
 * runner fails a log with an unexpected "BUG:", so tests/qemu-configs
 * allows exactly those lines in the runs that set it).  Every wait is
 * bounded: a broken scheduler fails a case, it does not hang the run.
 */
#include "kernel/ktap.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/slab.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/math.h"

bool sched_provoke_bugs;
core_param(sched.provoke_bugs, sched_provoke_bugs, bool,
	   "test: run the cases that provoke BUG reports on purpose (sched, locks)");

/* A CPU other than the boot CPU (where the test runner sits) if there is one. */
static int test_cpu(void)
{
	return nr_cpu_ids > 1 ? 1 : 0;
}

static void spin_ms(unsigned int ms)
{
	u64 end = ktime_get_ns() + (u64)ms * 1000000ull;

	while (ktime_get_ns() < end)
		cpu_relax();
}

/* Sleeps in 1 ms steps until cond or ms pass; true if cond. */
#define WAIT_UNTIL(cond, ms) ({						\
	u64 __end = ktime_get_ns() + (u64)(ms) * 1000000ull;		\
	while (!(cond) && ktime_get_ns() < __end)			\
		msleep(1);						\
	(bool)(cond); })

static struct task *start_on(int (*fn)(void *), void *arg, int cpu, int prio,
			     const char *name)
{
	struct task *t = kthread_create_on_cpu(fn, arg, cpu, name);

	if (t) {
		set_task_prio(t, prio);
		wake_up_process(t);
	}
	return t;
}

/* ---- lifecycle --------------------------------------------------------- */

static int ret_arg(void *arg) { return (int)(long)arg; }

static volatile int stop_loops;
static int loop_until_stopped(void *arg)
{
	while (!kthread_should_stop())
		msleep(1);
	return (int)(long)arg;
}

static int never_called;
static int mark_called(void *arg) { never_called = 1; return 0; }

static void sched_kthread_lifecycle(void)
{
	struct task *t;
	unsigned long large0 = kmalloc_large_in_use();

	t = kthread_run(ret_arg, (void *)42l, "ret42");
	KTAP_ASSERT(t);
	KTAP_EXPECT_EQ(kthread_join(t), 42);

	t = kthread_run(loop_until_stopped, (void *)7l, "looper");
	KTAP_ASSERT(t);
	msleep(5);
	KTAP_EXPECT_EQ(kthread_stop(t), 7);

	never_called = 0;
	t = kthread_create(mark_called, NULL, "never");
	KTAP_ASSERT(t);
	KTAP_EXPECT_EQ(kthread_stop(t), -EINTR);
	KTAP_EXPECT_EQ(never_called, 0);

	/* Many at once, spread over the CPUs; stacks must all come back. */
	enum { N = 64 };
	struct task *ts[N];
	int made = 0, sum = 0;

	for (int i = 0; i < N; i++) {
		ts[i] = kthread_run(ret_arg, (void *)(long)i, "many");
		made += ts[i] != NULL;
	}
	for (int i = 0; i < N; i++)
		if (ts[i])
			sum += kthread_join(ts[i]);
	KTAP_EXPECT_EQ(made, N);
	KTAP_EXPECT_EQ(sum, N * (N - 1) / 2);
	KTAP_EXPECT_EQ(kmalloc_large_in_use(), large0);
}

/* ---- preemption -------------------------------------------------------- */

struct busy {
	volatile bool stop;
	volatile bool spinning;
	volatile bool timed_out;
	volatile int other_ran;
	volatile bool other_saw_spinning;
	volatile bool after_enable;
	volatile bool other_saw_after_enable;
	volatile int ran_during;
	volatile u64 switches_during;
	struct task *other;
};

/* Spins without ever offering the CPU, for up to 5 s. */
static int busy_spin(void *p)
{
	struct busy *b = p;
	u64 end = ktime_get_ns() + 5000000000ull;

	b->spinning = true;
	while (!b->stop) {
		if (ktime_get_ns() > end) {
			b->timed_out = true;
			break;
		}
		cpu_relax();
	}
	b->spinning = false;
	return 0;
}

static int note_ran(void *p)
{
	struct busy *b = p;

	b->other_saw_spinning = b->spinning;
	b->other_saw_after_enable = b->after_enable;
	b->other_ran = 1;
	return 0;
}

static void sched_busy_thread_does_not_starve(void)
{
	struct busy b = { 0 };
	struct task *a, *o;
	int cpu = test_cpu();

	if (!preempt_full) {
		ktap_skip("preempt=none: a busy thread is not preempted by design");
		return;
	}
	a = start_on(busy_spin, &b, cpu, PRIO_NORMAL, "busy");
	KTAP_ASSERT(a);
	KTAP_EXPECT(WAIT_UNTIL(b.spinning, 2000));
	o = start_on(note_ran, &b, cpu, PRIO_NORMAL, "starved?");
	KTAP_EXPECT(o);
	bool ran = WAIT_UNTIL(b.other_ran, 3000);
	b.stop = true;
	if (o)
		kthread_join(o);
	kthread_join(a);
	KTAP_EXPECT(ran);
	KTAP_EXPECT(b.other_saw_spinning);	/* it ran while the busy one spun */
	KTAP_EXPECT(!b.timed_out);
	ktap_log("CPU %d: a second thread ran beside a busy one", cpu);
}

/* Wakes a more urgent thread with preemption off and checks it waited. */
static int spin_preempt_off(void *p)
{
	struct busy *b = p;
	int cpu = smp_processor_id();
	u64 sw0;

	preempt_disable();
	sw0 = sched_nr_switches(cpu);
	wake_up_process(b->other);
	spin_ms(3 * sched_slice_ms + 20);
	b->ran_during = b->other_ran;
	b->switches_during = sched_nr_switches(cpu) - sw0;
	preempt_enable();	/* preempt=full switches right here */
	b->after_enable = true;
	cond_resched();		/* preempt=none switches here */
	return 0;
}

static void sched_preempt_disabled_not_preempted(void)
{
	struct busy b = { 0 };
	int cpu = test_cpu();
	struct task *a;

	b.other = kthread_create_on_cpu(note_ran, &b, cpu, "urgent");
	KTAP_ASSERT(b.other);
	set_task_prio(b.other, PRIO_HIGH);
	a = start_on(spin_preempt_off, &b, cpu, PRIO_NORMAL, "nopreempt");
	KTAP_ASSERT(a);
	kthread_join(a);
	kthread_join(b.other);
	KTAP_EXPECT_EQ(b.ran_during, 0);
	KTAP_EXPECT_EQ(b.switches_during, 0);
	KTAP_EXPECT_EQ(b.other_ran, 1);
	if (preempt_full)	/* it ran at preempt_enable(), before the next line */
		KTAP_EXPECT(!b.other_saw_after_enable);
}

/* preempt=none: a busy thread keeps the CPU until it offers it. */
static int spin_then_cond_resched(void *p)
{
	struct busy *b = p;

	wake_up_process(b->other);
	spin_ms(5 * sched_slice_ms + 20);
	b->ran_during = b->other_ran;
	b->after_enable = true;
	cond_resched();
	return 0;
}

static void sched_none_mode_not_preempted(void)
{
	struct busy b = { 0 };
	int cpu = test_cpu();
	struct task *a;

	if (preempt_full) {
		ktap_skip("preempt=full: busy threads are preempted");
		return;
	}
	b.other = kthread_create_on_cpu(note_ran, &b, cpu, "waiting");
	KTAP_ASSERT(b.other);
	a = start_on(spin_then_cond_resched, &b, cpu, PRIO_NORMAL, "busy");
	KTAP_ASSERT(a);
	kthread_join(a);
	kthread_join(b.other);
	KTAP_EXPECT_EQ(b.ran_during, 0);
	KTAP_EXPECT_EQ(b.other_ran, 1);
}

/* ---- priorities -------------------------------------------------------- */

struct order {
	atomic_t seq;
	int high_pos, normal_pos;
	volatile bool after_enable;
	bool high_saw_after_enable;
	struct task *high, *normal;
};

static int record_high(void *p)
{
	struct order *o = p;

	o->high_saw_after_enable = o->after_enable;
	o->high_pos = atomic_inc_return(&o->seq);
	return 0;
}

static int record_normal(void *p)
{
	struct order *o = p;

	o->normal_pos = atomic_inc_return(&o->seq);
	return 0;
}

/* Wakes NORMAL first, then HIGH: FIFO alone would run NORMAL first. */
static int wake_both(void *p)
{
	struct order *o = p;

	preempt_disable();
	wake_up_process(o->normal);
	wake_up_process(o->high);
	preempt_enable();
	o->after_enable = true;
	yield();
	return 0;
}

static void sched_high_prio_runs_next(void)
{
	struct order o = { .seq = ATOMIC_INIT(0) };
	int cpu = test_cpu();
	struct task *w;

	o.high = kthread_create_on_cpu(record_high, &o, cpu, "high");
	o.normal = kthread_create_on_cpu(record_normal, &o, cpu, "normal");
	KTAP_ASSERT(o.high && o.normal);
	set_task_prio(o.high, PRIO_HIGH);
	w = start_on(wake_both, &o, cpu, PRIO_NORMAL, "waker");
	KTAP_ASSERT(w);
	kthread_join(w);
	kthread_join(o.high);
	kthread_join(o.normal);
	KTAP_EXPECT_EQ(o.high_pos, 1);
	KTAP_EXPECT_EQ(o.normal_pos, 2);
	if (preempt_full)
		KTAP_EXPECT(!o.high_saw_after_enable);
}

/* A HIGH thread woken from another CPU preempts a busy NORMAL one. */
static DECLARE_WAIT_QUEUE_HEAD(remote_wq);
static volatile int remote_flag;
struct remote {
	struct busy *b;
	u64 woken_at, ran_at;
	bool saw_spinning;
};

static int remote_sleeper(void *p)
{
	struct remote *r = p;

	wait_event(remote_wq, remote_flag);
	r->ran_at = ktime_get_ns();
	r->saw_spinning = r->b->spinning;
	return 0;
}

static void sched_remote_wakeup_preempts(void)
{
	struct busy b = { 0 };
	struct remote r = { .b = &b };
	struct task *a, *s;
	int cpu = test_cpu();

	if (cpu == smp_processor_id()) {
		ktap_skip("needs 2 CPUs");
		return;
	}
	if (!preempt_full) {
		ktap_skip("preempt=none: the busy thread is not preempted");
		return;
	}
	remote_flag = 0;
	s = start_on(remote_sleeper, &r, cpu, PRIO_HIGH, "sleeper");
	KTAP_ASSERT(s);
	msleep(20);
	a = start_on(busy_spin, &b, cpu, PRIO_NORMAL, "busy");
	KTAP_ASSERT(a);
	KTAP_EXPECT(WAIT_UNTIL(b.spinning, 2000));
	r.woken_at = ktime_get_ns();
	remote_flag = 1;
	wake_up(&remote_wq);
	bool ran = WAIT_UNTIL(r.ran_at, 3000);
	b.stop = true;
	kthread_join(a);
	if (!ran) {	/* let it out so it can be joined */
		WAIT_UNTIL(r.ran_at, 6000);
	}
	kthread_join(s);
	KTAP_EXPECT(ran);
	KTAP_EXPECT(r.saw_spinning);
	if (ran)
		ktap_log("woken on CPU %d from CPU %d: ran after %llu us", cpu,
			 smp_processor_id(), (unsigned long long)(r.ran_at - r.woken_at) / 1000);
}

/* ---- binding and cross-CPU wake-ups ------------------------------------ */

struct bound {
	int want;		/* -1: unbound, check it stays where created */
	int runs, wrong;
	struct task *self;
};

static int check_cpu(void *p)
{
	struct bound *b = p;

	for (int k = 0; k < 20; k++) {
		int want = b->want >= 0 ? b->want : READ_ONCE(b->self->cpu);
		if (smp_processor_id() != want)
			b->wrong++;
		b->runs++;
		if (k & 1)
			msleep(1);
		else
			yield();
	}
	return 0;
}

static void sched_bound_threads_stay(void)
{
	int n = nr_cpu_ids, total = 2 * n, wrong = 0, runs = 0, made = 0;
	struct bound *bs = kcalloc(total, sizeof(*bs), GFP_KERNEL);

	KTAP_ASSERT(bs);
	for (int i = 0; i < total; i++) {
		bs[i].want = i < n ? i : -1;
		bs[i].self = kthread_create_on_cpu(check_cpu, &bs[i], bs[i].want, "bound");
		if (i >= n && bs[i].self)
			bs[i].self->bound_cpu = -1;
	}
	for (int i = 0; i < total; i++)
		if (bs[i].self) {
			wake_up_process(bs[i].self);
			made++;
		}
	for (int i = 0; i < total; i++) {
		if (!bs[i].self)
			continue;
		kthread_join(bs[i].self);
		wrong += bs[i].wrong;
		runs += bs[i].runs;
		if (bs[i].runs != 20)
			ktap_fail("thread %d ran %d of 20 rounds", i, bs[i].runs);
	}
	KTAP_EXPECT_EQ(made, total);
	KTAP_EXPECT_EQ(wrong, 0);
	ktap_log("%d threads (%d bound, %d unbound), %d rounds, %d on a wrong CPU",
		 total, n, n, runs, wrong);
	kfree(bs);
}

/* A token passed around one thread per CPU, each wake-up crossing CPUs. */
static DECLARE_WAIT_QUEUE_HEAD(ring_wq);
static volatile int ring_token, ring_abort, ring_hops, ring_wrong_cpu;
#define RING_ROUNDS 5

static int ring_member(void *p)
{
	int me = (int)(long)p, n = nr_cpu_ids;

	for (int r = 0; r < RING_ROUNDS; r++) {
		wait_event(ring_wq, ring_token % n == me || ring_abort);
		if (ring_abort)
			break;
		if (smp_processor_id() != me)
			ring_wrong_cpu++;
		ring_hops++;
		ring_token++;
		wake_up_all(&ring_wq);
	}
	return 0;
}

static void sched_wakeup_ring_across_cpus(void)
{
	int n = nr_cpu_ids;
	struct task **ts = kcalloc(n, sizeof(*ts), GFP_KERNEL);

	KTAP_ASSERT(ts);
	ring_token = ring_abort = ring_hops = ring_wrong_cpu = 0;
	for (int i = 0; i < n; i++)
		ts[i] = kthread_create_on_cpu(ring_member, (void *)(long)i, i, "ring");
	for (int i = 0; i < n; i++)
		if (ts[i])
			wake_up_process(ts[i]);
	bool done = WAIT_UNTIL(ring_hops == n * RING_ROUNDS, 60000);
	if (!done) {
		ring_abort = 1;
		wake_up_all(&ring_wq);
	}
	for (int i = 0; i < n; i++)
		if (ts[i])
			kthread_join(ts[i]);
	kfree(ts);
	KTAP_EXPECT(done);
	KTAP_EXPECT_EQ(ring_hops, n * RING_ROUNDS);
	KTAP_EXPECT_EQ(ring_wrong_cpu, 0);
	ktap_log("token went %d times round %d CPUs", RING_ROUNDS, n);
}

/* ---- sleeping ---------------------------------------------------------- */

static DECLARE_COMPLETION(never_done);

static void sched_sleep_and_timeouts(void)
{
	u64 t0, dt;
	struct completion c;
	int bugs = atomic_read(&sched_atomic_bugs), sbugs = atomic_read(&sched_sleep_bugs);

	t0 = ktime_get_ns();
	msleep(30);
	dt = ktime_get_ns() - t0;
	KTAP_EXPECT(dt >= 30000000ull);
	ktap_log("msleep(30) took %llu us", (unsigned long long)dt / 1000);

	t0 = ktime_get_ns();
	KTAP_EXPECT_EQ(wait_for_completion_timeout(&never_done, msecs_to_jiffies(20)), 0);
	KTAP_EXPECT(ktime_get_ns() - t0 >= 19000000ull);

	init_completion(&c);
	complete(&c);
	KTAP_EXPECT(wait_for_completion_timeout(&c, msecs_to_jiffies(1000)) > 0);
	KTAP_EXPECT(!try_wait_for_completion(&c));
	complete_all(&c);
	KTAP_EXPECT(try_wait_for_completion(&c));
	KTAP_EXPECT(try_wait_for_completion(&c));	/* complete_all lets all in */

	DECLARE_WAIT_QUEUE_HEAD(wq);
	int cond = 0;
	KTAP_EXPECT_EQ(wait_event_timeout(wq, cond, msecs_to_jiffies(10)), 0);
	cond = 1;
	KTAP_EXPECT(wait_event_timeout(wq, cond, msecs_to_jiffies(10)) > 0);

	udelay(100);
	KTAP_EXPECT_EQ(atomic_read(&sched_atomic_bugs), bugs);	/* no false reports */
	KTAP_EXPECT_EQ(atomic_read(&sched_sleep_bugs), sbugs);
}

/* ---- debug reports ----------------------------------------------------- */

static void sched_atomic_bug_reported(void)
{
	int bugs, sbugs;

	if (!sched_provoke_bugs) {
		ktap_skip("provokes BUG reports: boot with sched.provoke_bugs");
		return;
	}
	bugs = atomic_read(&sched_atomic_bugs);
	preempt_disable();
	schedule();
	preempt_enable();
	KTAP_EXPECT_EQ(atomic_read(&sched_atomic_bugs), bugs + 1);

	sbugs = atomic_read(&sched_sleep_bugs);
	preempt_disable();
	msleep(1);
	preempt_enable();
	KTAP_EXPECT_EQ(atomic_read(&sched_sleep_bugs), sbugs + 1);
	KTAP_EXPECT(atomic_read(&sched_atomic_bugs) >= bugs + 2);
	KTAP_EXPECT_EQ(preempt_count(), 0);
}

/* ---- benchmark --------------------------------------------------------- */

#define CTX_RUNS 7
#define CTX_ITERS 2000

struct pingpong {
	volatile bool stop;
	volatile bool partner_up;
	u64 ns[CTX_RUNS];	/* ns per switch, x1000 */
	u64 switches[CTX_RUNS];
};

static int yield_partner(void *p)
{
	struct pingpong *pp = p;

	pp->partner_up = true;
	while (!pp->stop)
		yield();
	return 0;
}

static int yield_timer(void *p)
{
	struct pingpong *pp = p;
	int cpu = smp_processor_id();

	while (!pp->partner_up)
		yield();
	for (int r = 0; r < CTX_RUNS; r++) {
		u64 sw0 = sched_nr_switches(cpu);
		u64 t0 = ktime_get_ns();

		for (int i = 0; i < CTX_ITERS; i++)
			yield();
		u64 dt = ktime_get_ns() - t0;
		u64 sw = sched_nr_switches(cpu) - sw0;

		pp->switches[r] = sw;
		pp->ns[r] = sw ? dt * 1000 / sw : 0;
	}
	pp->stop = true;
	return 0;
}

static void sched_bench_ctxsw(void)
{
	struct pingpong pp = { 0 };
	int cpu = test_cpu();
	struct task *a, *b;
	u64 min_sw = ~0ull;
	struct stats st;

	b = start_on(yield_partner, &pp, cpu, PRIO_NORMAL, "pong");
	a = start_on(yield_timer, &pp, cpu, PRIO_NORMAL, "ping");
	KTAP_ASSERT(a && b);
	kthread_join(a);
	kthread_join(b);
	for (int r = 0; r < CTX_RUNS; r++)
		if (pp.switches[r] < min_sw)
			min_sw = pp.switches[r];
	stats_compute(pp.ns, CTX_RUNS, &st);
	/* Each yield() must have switched to the partner and back. */
	KTAP_EXPECT(min_sw >= 2 * CTX_ITERS - 2);
	ktap_log("bench name=ctxsw cpus=%d mean_ns=%llu.%03llu stddev=%llu.%03llu "
		 "runs=%d switches_per_run=%llu cpu=%d preempt=%s",
		 nr_cpu_ids, (unsigned long long)(st.mean / 1000), (unsigned long long)(st.mean % 1000),
		 (unsigned long long)(st.stddev / 1000), (unsigned long long)(st.stddev % 1000),
		 CTX_RUNS, (unsigned long long)min_sw, cpu, preempt_full ? "full" : "none");
}

KTAP_SUITE(sched,
	   KTAP_CASE(sched_kthread_lifecycle),
	   KTAP_CASE(sched_busy_thread_does_not_starve),
	   KTAP_CASE(sched_preempt_disabled_not_preempted),
	   KTAP_CASE(sched_none_mode_not_preempted),
	   KTAP_CASE(sched_high_prio_runs_next),
	   KTAP_CASE(sched_remote_wakeup_preempts),
	   KTAP_CASE(sched_bound_threads_stay),
	   KTAP_CASE(sched_wakeup_ring_across_cpus),
	   KTAP_CASE(sched_sleep_and_timeouts),
	   KTAP_CASE(sched_atomic_bug_reported),
	   KTAP_CASE(sched_bench_ctxsw));
