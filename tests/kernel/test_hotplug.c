/* tests/kernel/test_hotplug.c: KTAP suite `hotplug`: cpu_down() and
 * cpu_up() (kernel/cpu.c) of every CPU but the boot CPU, repeatedly; what
 * must happen to the CPU's threads, timers, RCU callbacks and jiffies
 * duty, and that grace periods, cross-CPU calls and NMI backtraces leave
 * it alone while it is away.  With cpu.offline=LIST the listed CPUs start offline and the
 * first case brings them back.  Every wait is bounded; every count is of
 * what must happen, never of what happens within a time. */
#include "kernel/ktap.h"
#include "kernel/atomic.h"
#include "kernel/cpu.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/slab.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/timer.h"
#include "kernel/tick_sched.h"
#include "rcu/rcupdate.h"
#include "rcu/tree.h"
#include "asm/irqflags.h"
#include "tests/kernel/test_helpers.h"

/* CPUs that can go down: present, not the boot CPU. */
static int hotplug_cpus(int *list)
{
	int n = 0;

	for (int cpu = 1; cpu < NR_CPUS; cpu++)
		if (cpu_present(cpu))
			list[n++] = cpu;
	return n;
}

static bool skip_if_one_cpu(void)
{
	int list[NR_CPUS];

	if (hotplug_cpus(list) == 0) {
		ktap_skip("one CPU: nothing to take offline");
		return true;
	}
	return false;
}

/* cpu.offline=LIST left CPUs offline: bring them back (and count them). */
static void hotplug_boot_offline_cpus_come_up(void)
{
	int list[NR_CPUS], n = hotplug_cpus(list), offline = 0;

	for (int i = 0; i < n; i++) {
		if (cpu_online(list[i]))
			continue;
		offline++;
		KTAP_EXPECT_EQ(cpu_up(list[i]), 0);
		KTAP_EXPECT(cpu_online(list[i]));
	}
	ktap_log("%d of %d CPUs were offline at boot (cpu.offline=)", offline, n);
	KTAP_EXPECT_EQ(num_online_cpus(), n + 1);
}

static void hotplug_bad_requests(void)
{
	KTAP_EXPECT_EQ(cpu_down(0), -EINVAL);
	KTAP_EXPECT_EQ(cpu_down(-1), -EINVAL);
	KTAP_EXPECT_EQ(cpu_down(NR_CPUS), -EINVAL);
	KTAP_EXPECT_EQ(cpu_up(0), -EINVAL);
	if (skip_if_one_cpu())
		return;
	KTAP_EXPECT_EQ(cpu_up(1), -EINVAL);		/* already online */
	KTAP_ASSERT(cpu_down(1) == 0);
	KTAP_EXPECT_EQ(cpu_down(1), -EINVAL);		/* already offline */
	KTAP_EXPECT_EQ(cpu_up(1), 0);
}

struct ran_on {
	atomic_t ran;
	int cpu;
};

static int note_cpu(void *arg)
{
	struct ran_on *r = arg;

	r->cpu = raw_smp_processor_id();
	atomic_inc(&r->ran);
	return 0;
}

/*
 * Every CPU down and up, then twice more for up to HP_REPEAT_CPUS of
 * them spread over the list (all of them up to -smp 16); a thread bound
 * there runs there after.  Each pair costs a grace period or two.
 */
#define HP_REPEAT_CPUS 15

static void hotplug_each_cpu_down_up(void)
{
	int list[NR_CPUS], n = hotplug_cpus(list);
	int step = (n + HP_REPEAT_CPUS - 1) / HP_REPEAT_CPUS;

	if (skip_if_one_cpu())
		return;
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < n; i += round ? step : 1) {
			int cpu = list[i];
			struct ran_on r = { .ran = ATOMIC_INIT(0), .cpu = -1 };
			struct task *t;

			KTAP_ASSERT(cpu_down(cpu) == 0);
			KTAP_EXPECT(!cpu_online(cpu));
			KTAP_EXPECT(kthread_create_on_cpu(note_cpu, &r, cpu, "offline") == NULL);
			KTAP_ASSERT(cpu_up(cpu) == 0);
			KTAP_EXPECT(cpu_online(cpu));
			t = kthread_create_on_cpu(note_cpu, &r, cpu, "back");
			KTAP_ASSERT(t);
			wake_up_process(t);
			kthread_join(t);
			KTAP_EXPECT_EQ(atomic_read(&r.ran), 1);
			KTAP_EXPECT_EQ(r.cpu, cpu);
		}
	}
	KTAP_EXPECT_EQ(num_online_cpus(), n + 1);
}

/* A caller bound to the CPU it takes down would have to leave itself. */
static int down_own_cpu(void *arg)
{
	return cpu_down(*(int *)arg);
}

static void hotplug_bound_caller_refused(void)
{
	int cpu = 1;
	struct task *t;

	if (skip_if_one_cpu())
		return;
	t = kthread_create_on_cpu(down_own_cpu, &cpu, cpu, "downself");
	KTAP_ASSERT(t);
	wake_up_process(t);
	KTAP_EXPECT_EQ(kthread_join(t), -EBUSY);
	KTAP_EXPECT(cpu_online(cpu));
}

/* Unbound threads on the CPU that goes keep running elsewhere: spinners
 * (queued or running there) and sleepers (woken after it left). */
#define HP_MOVERS 4

struct movers {
	atomic_t stop, sleepers_woke;
	int down_cpu;
	struct completion wake;
	struct mover {
		struct movers *m;
		atomic_t ran_elsewhere;	/* after the CPU went down */
	} spin[HP_MOVERS];
};

static int spinner(void *arg)
{
	struct mover *me = arg;
	struct movers *m = me->m;

	while (!atomic_read(&m->stop)) {
		if (!cpu_online(m->down_cpu) && raw_smp_processor_id() != m->down_cpu)
			atomic_set(&me->ran_elsewhere, 1);
		cond_resched();
	}
	return 0;
}

static int sleeper(void *arg)
{
	struct movers *m = arg;

	wait_for_completion(&m->wake);
	if (raw_smp_processor_id() != m->down_cpu)
		atomic_inc(&m->sleepers_woke);
	return 0;
}

static bool all_moved(struct movers *m)
{
	for (int i = 0; i < HP_MOVERS; i++)
		if (!atomic_read(&m->spin[i].ran_elsewhere))
			return false;
	return true;
}

static void hotplug_threads_move(void)
{
	struct movers *m;
	struct task *sp[HP_MOVERS], *sl[HP_MOVERS];
	int cpu = 1;

	if (skip_if_one_cpu())
		return;
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	KTAP_ASSERT(m);
	m->down_cpu = cpu;
	init_completion(&m->wake);
	for (int i = 0; i < HP_MOVERS; i++) {
		/* created on cpu, then unbound: the scheduler may move them */
		m->spin[i].m = m;
		sp[i] = kthread_create_on_cpu(spinner, &m->spin[i], cpu, "spinner");
		sl[i] = kthread_create_on_cpu(sleeper, m, cpu, "sleeper");
		KTAP_ASSERT(sp[i] && sl[i]);
		sp[i]->bound_cpu = -1;
		sl[i]->bound_cpu = -1;
		wake_up_process(sp[i]);
		wake_up_process(sl[i]);
	}
	msleep(20);		/* let them start on cpu (not required) */
	KTAP_ASSERT(cpu_down(cpu) == 0);
	KTAP_EXPECT(WAIT_UNTIL(all_moved(m), 20000));
	complete_all(&m->wake);
	atomic_set(&m->stop, 1);
	for (int i = 0; i < HP_MOVERS; i++) {
		kthread_join(sp[i]);
		kthread_join(sl[i]);
	}
	KTAP_EXPECT_EQ(atomic_read(&m->sleepers_woke), HP_MOVERS);
	KTAP_EXPECT_EQ(cpu_up(cpu), 0);
	kfree(m);
}

/* A timer pending on the CPU that goes fires anyway, once. */
static atomic_t timer_fired;
static int timer_fired_cpu;

static void fire(struct timer_list *t)
{
	(void)t;
	timer_fired_cpu = raw_smp_processor_id();
	atomic_inc(&timer_fired);
}

static void hotplug_timers_move(void)
{
	struct timer_list t;
	int cpu = 1;

	if (skip_if_one_cpu())
		return;
	/*
	 * The timer must still be pending when cpu leaves.  A slow host can
	 * take longer than the delay to get cpu down, and the timer then
	 * rightly fires on cpu first: try again with a longer delay.
	 */
	for (unsigned int ms = 300, tries = 0;; ms *= 4, tries++) {
		atomic_set(&timer_fired, 0);
		timer_fired_cpu = -1;
		timer_setup(&t, fire, 0);
		t.expires = jiffies + msecs_to_jiffies(ms);
		add_timer_on(&t, cpu);
		KTAP_ASSERT(cpu_down(cpu) == 0);
		KTAP_EXPECT(WAIT_UNTIL(atomic_read(&timer_fired) == 1, 20000 + ms));
		del_timer_sync(&t);
		KTAP_EXPECT_EQ(atomic_read(&timer_fired), 1);
		if (timer_fired_cpu != cpu || tries == 3)
			break;
		ktap_log("the timer fired on CPU %d before it left (%u ms); again", cpu, ms);
		KTAP_ASSERT(cpu_up(cpu) == 0);
	}
	KTAP_EXPECT(timer_fired_cpu != cpu);
	KTAP_EXPECT_EQ(cpu_up(cpu), 0);
}

/* Grace periods, normal and expedited, end while a CPU is away (none
 * waits for it), and cross-CPU calls and NMI backtraces skip it. */
static atomic_t calls_ran;
static void count_call(void *arg)
{
	(void)arg;
	atomic_inc(&calls_ran);
}

struct hp_wait {
	struct rcu_head head;
	struct completion done;
};

static void hp_wake(struct rcu_head *h)
{
	complete(&container_of(h, struct hp_wait, head)->done);
}

static void hotplug_offline_cpu_left_alone(void)
{
	int cpu = 1;
	unsigned long gp0;

	if (skip_if_one_cpu())
		return;
	if (cpu_online(cpu))	/* cpu.offline= may have taken it down already */
		KTAP_ASSERT(cpu_down(cpu) == 0);
	gp0 = rcu_batches_completed_sched();
	for (int i = 0; i < 3; i++) {
		struct hp_wait *w = kzalloc(sizeof(*w), GFP_KERNEL);

		KTAP_ASSERT(w);
		/* A callback waits for a real GP even with one CPU online
		 * (where synchronize_sched() may return at once). */
		init_completion(&w->done);
		call_rcu_sched(&w->head, hp_wake);
		if (!wait_for_completion_timeout(&w->done, msecs_to_jiffies(30000))) {
			/* w stays queued: leave it (and CPU 1) as they are */
			ktap_fail("no grace period ended within 30 s with CPU %d offline", cpu);
			return;
		}
		kfree(w);
		synchronize_sched();
		synchronize_sched_expedited();
		synchronize_rcu();
		synchronize_rcu_expedited();
	}
	KTAP_EXPECT(rcu_batches_completed_sched() - gp0 >= 3);
	KTAP_EXPECT_EQ(smp_call_function_single(cpu, count_call, NULL, 1), -EINVAL);
	atomic_set(&calls_ran, 0);
	KTAP_EXPECT_EQ(on_each_cpu(count_call, NULL, 1), 0);
	KTAP_EXPECT_EQ(atomic_read(&calls_ran), num_online_cpus());
	KTAP_EXPECT(!trigger_cpu_backtrace(cpu));
	KTAP_EXPECT_EQ(cpu_up(cpu), 0);
}

/*
 * Callbacks queued on a CPU just before it goes: every one runs, each
 * CPU's in the order queued, and rcu_barrier_sched() after the CPU left
 * waits for them.  The CPU's rcuc parks between batches, so callbacks
 * still queued there move to another CPU (counted, not required: the
 * grace period in cpu_down() may have let rcuc run them first).
 */
#define HP_CBS 64

struct hp_cb {
	struct rcu_head head;
	int seq;
	atomic_t *ran;
	int *last_seq;
	atomic_t *order_bad;
};

static void hp_cb_fn(struct rcu_head *h)
{
	struct hp_cb *c = container_of(h, struct hp_cb, head);

	if (c->seq != *c->last_seq + 1)
		atomic_inc(c->order_bad);
	*c->last_seq = c->seq;
	atomic_inc(c->ran);
}

struct hp_cbs {
	struct hp_cb cb[HP_CBS];
	atomic_t ran, order_bad;
	int last_seq;
};

static int queue_cbs(void *arg)
{
	struct hp_cbs *s = arg;

	for (int i = 0; i < HP_CBS; i++)
		call_rcu_sched(&s->cb[i].head, hp_cb_fn);
	return 0;
}

static void hotplug_callbacks_move_in_order(void)
{
	int list[NR_CPUS], n = hotplug_cpus(list);
	unsigned long migrated0 = READ_ONCE(rcu_state.n_cbs_migrated);

	if (skip_if_one_cpu())
		return;
	for (int round = 0; round < 4; round++) {
		int cpu = list[round % n];
		struct hp_cbs *s = kzalloc(sizeof(*s), GFP_KERNEL);
		struct task *t;

		KTAP_ASSERT(s);
		s->last_seq = -1;
		for (int i = 0; i < HP_CBS; i++) {
			s->cb[i].seq = i;
			s->cb[i].ran = &s->ran;
			s->cb[i].last_seq = &s->last_seq;
			s->cb[i].order_bad = &s->order_bad;
		}
		t = kthread_create_on_cpu(queue_cbs, s, cpu, "queuecbs");
		KTAP_ASSERT(t);
		wake_up_process(t);
		kthread_join(t);
		KTAP_ASSERT(cpu_down(cpu) == 0);
		rcu_barrier_sched();
		KTAP_EXPECT_EQ(atomic_read(&s->ran), HP_CBS);
		KTAP_EXPECT_EQ(atomic_read(&s->order_bad), 0);
		KTAP_EXPECT_EQ(cpu_up(cpu), 0);
		kfree(s);
	}
	ktap_log("callbacks moved off departed CPUs: %lu",
		 READ_ONCE(rcu_state.n_cbs_migrated) - migrated0);
}

/*
 * rcu_barrier_sched() racing with cpu_down(): every barrier returns only
 * once every callback queued before it has run, the departed CPU's
 * included (they wait on its list until they move, the barrier's own
 * callback with them).  A barrier thread checks that over and over while
 * a thread on the CPU queues callbacks until it is moved away, so some
 * wait for a grace period after the one cpu_down() itself waits for, and
 * are still on the departed CPU's list when barriers run.
 */
#define HP_BARRIER_ROUNDS 20
#define HP_BARRIER_POOL 8192

static struct rcu_head hp_bar_heads[HP_BARRIER_POOL];
static atomic_t hp_bar_next, hp_bar_queued, hp_bar_invoked, hp_bar_bad, hp_bar_stop,
	hp_bar_barriers;

static void hp_bar_cb(struct rcu_head *h)
{
	(void)h;
	atomic_inc(&hp_bar_invoked);
}

/* Started on the CPU about to go; it is moved off it in cpu_down().  At
 * most HP_BARRIER_POOL / HP_BARRIER_ROUNDS callbacks, paced by sleeps so
 * they span the whole cpu_down(). */
static int hp_bar_flooder(void *arg)
{
	atomic_t *stop = arg;

	for (int i = 0; i < HP_BARRIER_POOL / HP_BARRIER_ROUNDS && !atomic_read(stop); i++) {
		int n = atomic_inc_return(&hp_bar_next) - 1;

		if (n >= HP_BARRIER_POOL)
			break;
		call_rcu_sched(&hp_bar_heads[n], hp_bar_cb);
		/* Counted once queued: a barrier that reads the count starts after. */
		atomic_inc_return(&hp_bar_queued);
		if (!(i & 3))
			msleep(1);
		else
			cond_resched();
	}
	return 0;
}

static int hp_barrier_thread(void *arg)
{
	(void)arg;
	while (!atomic_read(&hp_bar_stop)) {
		int queued = atomic_read(&hp_bar_queued);

		rcu_barrier_sched();
		if (atomic_read(&hp_bar_invoked) < queued)	/* all of those have run */
			atomic_inc(&hp_bar_bad);
		atomic_inc(&hp_bar_barriers);
		cond_resched();	/* shares CPU 0 with the case (preempt=none too) */
	}
	return 0;
}

static void hotplug_barrier_waits_for_departed(void)
{
	int cpu = 1;
	struct task *t;

	if (skip_if_one_cpu())
		return;
	atomic_set(&hp_bar_next, 0);
	atomic_set(&hp_bar_queued, 0);
	atomic_set(&hp_bar_invoked, 0);
	atomic_set(&hp_bar_bad, 0);
	atomic_set(&hp_bar_stop, 0);
	atomic_set(&hp_bar_barriers, 0);
	t = kthread_create_on_cpu(hp_barrier_thread, NULL, 0, "barrier");
	KTAP_ASSERT(t);
	wake_up_process(t);
	for (int round = 0; round < HP_BARRIER_ROUNDS; round++) {
		atomic_t stop = ATOMIC_INIT(0);
		int before = atomic_read(&hp_bar_queued);
		struct task *f = kthread_create_on_cpu(hp_bar_flooder, &stop, cpu, "flooder");

		KTAP_ASSERT(f);
		f->bound_cpu = -1;	/* on cpu, but free to move */
		wake_up_process(f);
		WAIT_UNTIL(atomic_read(&hp_bar_queued) > before, 5000);
		KTAP_EXPECT_EQ(cpu_down(cpu), 0);
		atomic_set(&stop, 1);
		kthread_join(f);
		KTAP_EXPECT_EQ(cpu_up(cpu), 0);
	}
	atomic_set(&hp_bar_stop, 1);
	kthread_join(t);
	rcu_barrier_sched();
	ktap_log("%d barriers beside %d CPU %d offline/online pairs, %d callbacks",
		 atomic_read(&hp_bar_barriers), HP_BARRIER_ROUNDS, cpu,
		 atomic_read(&hp_bar_queued));
	KTAP_EXPECT_EQ(atomic_read(&hp_bar_bad), 0);
	KTAP_EXPECT_EQ(atomic_read(&hp_bar_invoked), atomic_read(&hp_bar_queued));
}

/*
 * A step of cpu_down() that fails backs the whole call out: the steps
 * already done are undone (their online hooks, each once), the CPU is
 * online again and works (a thread bound there runs there, callbacks
 * queued there run, so its rcuc is not left parked), the call is not
 * counted, and the next cpu_down()/cpu_up() work.  cpuhp_inject_fail()
 * (test build) fails a named step: this case's own state (the first to
 * go, nothing to undo), "rcu" (after it: this case's state undone), and
 * "teardown" (after every hook: rcu's and this case's undone).
 */
#ifdef CONFIG_SANITIZE
static int bo_cpu = -1;			/* the CPU whose hook calls count */
static atomic_t bo_offlines, bo_onlines;

static int bo_offline(int cpu)
{
	if (cpu == READ_ONCE(bo_cpu))
		atomic_inc(&bo_offlines);
	return 0;
}

static int bo_online(int cpu)
{
	if (cpu == READ_ONCE(bo_cpu))
		atomic_inc(&bo_onlines);
	return 0;
}

static int queue_one(void *arg)
{
	call_rcu_sched(&((struct hp_wait *)arg)->head, hp_wake);
	return 0;
}
#endif

static void hotplug_failed_step_backs_out(void)
{
#ifdef CONFIG_SANITIZE
	static bool registered;
	static const struct { const char *step; int undone; } steps[] = {
		{ "hotplug_backout", 0 }, { "rcu", 1 }, { "teardown", 1 },
	};
	int cpu = 1;

	if (skip_if_one_cpu())
		return;
	if (!registered) {
		/* registered after rcu's: it goes down first */
		KTAP_ASSERT(cpuhp_setup_state("hotplug_backout", bo_online, bo_offline) >= 0);
		registered = true;
	}
	for (unsigned int k = 0; k < ARRAY_SIZE(steps); k++) {
		struct cpuhp_stats st0, st1;
		struct ran_on r = { .ran = ATOMIC_INIT(0), .cpu = -1 };
		struct hp_wait *w;
		struct task *t;

		cpuhp_get_stats(&st0);
		atomic_set(&bo_offlines, 0);
		atomic_set(&bo_onlines, 0);
		WRITE_ONCE(bo_cpu, cpu);
		cpuhp_inject_fail(steps[k].step);
		KTAP_EXPECT_EQ(cpu_down(cpu), -EIO);
		cpuhp_inject_fail(NULL);
		WRITE_ONCE(bo_cpu, -1);
		ktap_log("step %s failed: cpu_down() backed out", steps[k].step);
		KTAP_ASSERT(cpu_online(cpu));
		KTAP_EXPECT_EQ(atomic_read(&bo_offlines), steps[k].undone);
		KTAP_EXPECT_EQ(atomic_read(&bo_onlines), steps[k].undone);
		cpuhp_get_stats(&st1);
		KTAP_EXPECT_EQ(st1.downs, st0.downs);
		/* the CPU works: runs a thread bound to it, and its callbacks */
		t = kthread_create_on_cpu(note_cpu, &r, cpu, "backedout");
		KTAP_ASSERT(t);
		wake_up_process(t);
		kthread_join(t);
		KTAP_EXPECT_EQ(r.cpu, cpu);
		w = kzalloc(sizeof(*w), GFP_KERNEL);
		KTAP_ASSERT(w);
		init_completion(&w->done);
		t = kthread_create_on_cpu(queue_one, w, cpu, "backedoutcb");
		KTAP_ASSERT(t);
		wake_up_process(t);
		kthread_join(t);
		if (!wait_for_completion_timeout(&w->done, msecs_to_jiffies(30000))) {
			/* w stays queued on cpu: leave it */
			ktap_fail("a callback queued on CPU %d did not run within 30 s "
				  "after step %s failed (rcuc/%d left parked?)", cpu,
				  steps[k].step, cpu);
			return;
		}
		kfree(w);
		/* and the next operations work */
		KTAP_ASSERT(cpu_down(cpu) == 0);
		KTAP_EXPECT(!cpu_online(cpu));
		KTAP_ASSERT(cpu_up(cpu) == 0);
	}
#else
	ktap_skip("needs the test build (cpuhp_inject_fail)");
#endif
}

/* The CPU that goes down holds the jiffies duty (made so just before its
 * run queue is marked dying, test build: once it is marked, the CPU may
 * see it at any wake-up and die before a later injection, which would
 * then leave the duty on a dead CPU).  It must give the duty up as it
 * dies, and the next tick of an online CPU take it, not the
 * TICK_DUTY_STALE_TICKS-th: counted in this CPU's ticks, not in time.
 * Counted as the spinner sees them: a tick that ran late comes in a
 * burst (QEMU's periodic LAPIC timer fires every missed period, one
 * interrupt per few instructions once irqs are on again), and a burst
 * seen at once counts once, as jiffies count it.  The other CPUs keep
 * their ticks (a tick dependency) while it runs: an idle CPU whose tick
 * restarts takes an unheld duty there and then, and would hide a tick
 * that does not. */
#ifdef CONFIG_SANITIZE
static int duty_cpu = -1;

static void duty_hook(enum sched_inject_point where, struct task *t, int cpu)
{
	(void)t;
	if (where == SCHED_INJECT_DYING_BEGIN && cpu == READ_ONCE(duty_cpu))
		tick_inject_do_timer_cpu(cpu);
}

static bool duty_held_online(void)
{
	int holder = READ_ONCE(tick_do_timer_cpu);

	return holder >= 0 && cpu_online(holder);
}

/* One step of the wait: count a change of this CPU's tick count as one
 * tick, and note whether the dead CPU holds the duty. */
static void duty_wait_step(int me, int dead, u64 *seen, u64 *ticks, bool *dead_held)
{
	u64 now = cpu_ticks(me);

	if (READ_ONCE(tick_do_timer_cpu) == dead)
		*dead_held = true;
	if (now != *seen) {
		*seen = now;
		(*ticks)++;
	}
	cpu_relax();
}
#endif

static void hotplug_jiffies_duty_handed_over(void)
{
#ifdef CONFIG_SANITIZE
	int list[NR_CPUS], n = hotplug_cpus(list), cpu, me, holder, ret, c;
	u64 seen, ticks = 0, t0;
	bool dead_held = false, held = false;
	struct cpumask ticking;

	if (skip_if_one_cpu())
		return;
	cpu = list[n - 1];
	KTAP_ASSERT(cpu_online(cpu));
	cpumask_clear(&ticking);
	for_each_online_cpu(c) {
		if (c == cpu)
			continue;
		cpumask_set_cpu(c, &ticking);
		KTAP_EXPECT(test_keep_ticking(c, true));
	}
	WRITE_ONCE(duty_cpu, cpu);
	__atomic_store_n(&sched_inject_hook, duty_hook, __ATOMIC_RELEASE);
	ret = cpu_down(cpu);
	__atomic_store_n(&sched_inject_hook, NULL, __ATOMIC_RELEASE);
	WRITE_ONCE(duty_cpu, -1);
	holder = READ_ONCE(tick_do_timer_cpu);
	/* This CPU runs, so it ticks: its first tick takes a duty nobody
	 * holds.  Preemption off, so that no other thread's ticks count. */
	preempt_disable();
	me = raw_smp_processor_id();
	seen = cpu_ticks(me);
	if (!ret)
		BOUNDED_WAIT(duty_held_online() || ticks >= TICK_DUTY_STALE_TICKS, 30000,
			     duty_wait_step(me, cpu, &seen, &ticks, &dead_held));
	held = duty_held_online();	/* before the others may stop their ticks */
	preempt_enable();
	for_each_cpu(c, &ticking)
		test_keep_ticking(c, false);
	KTAP_ASSERT(ret == 0);
	ktap_log("duty held by CPU %d after cpu_down(%d), by CPU %d %llu ticks of CPU %d later",
		 holder, cpu, READ_ONCE(tick_do_timer_cpu), (unsigned long long)ticks, me);
	if (holder == cpu)
		ktap_fail("CPU %d, offline, still holds the jiffies duty", cpu);
	if (dead_held)
		ktap_fail("CPU %d, dead, held the jiffies duty after cpu_down() returned", cpu);
	if (!held || ticks > 2)
		ktap_fail("no online CPU took the jiffies duty within 2 ticks of CPU %d",
			  me);
	/* A sanity check, not a verdict: sleeps go by the TSC again. */
	t0 = ktime_get_ns();
	msleep(100);
	ktap_log("a 100 ms sleep then took %llu ms of TSC",
		 (unsigned long long)((ktime_get_ns() - t0) / 1000000));
	KTAP_EXPECT_EQ(cpu_up(cpu), 0);
#else
	ktap_skip("needs the test build (sched_inject_hook)");
#endif
}

/* cpu_up() fails (test build: the AP "does not answer"): the CPU stays
 * offline, and a thread that last ran there and sleeps runs elsewhere
 * when woken, as while the CPU was down, not queued where nothing runs. */
#ifdef CONFIG_SANITIZE
struct bu_sleeper {
	struct completion go;
	int asleep, ran_cpu;
};

static int bu_sleep(void *arg)
{
	struct bu_sleeper *b = arg;

	WRITE_ONCE(b->asleep, 1);
	wait_for_completion(&b->go);
	WRITE_ONCE(b->ran_cpu, raw_smp_processor_id());
	return 0;
}
#endif

static void hotplug_failed_bringup_keeps_threads_away(void)
{
#ifdef CONFIG_SANITIZE
	struct bu_sleeper *b;
	struct task *t;
	int cpu = 1;

	if (skip_if_one_cpu())
		return;
	KTAP_ASSERT(cpu_online(cpu));
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	KTAP_ASSERT(b);
	init_completion(&b->go);
	b->ran_cpu = -1;
	t = kthread_create_on_cpu(bu_sleep, b, cpu, "bringupsleeper");
	KTAP_ASSERT(t);
	t->bound_cpu = -1;	/* free to move */
	wake_up_process(t);
	/* Asleep on cpu: neither queued nor on it. */
	KTAP_ASSERT(WAIT_UNTIL(READ_ONCE(b->asleep) && !READ_ONCE(t->on_rq) &&
			       !smp_load_acquire(&t->on_cpu), 10000));
	KTAP_ASSERT(READ_ONCE(t->cpu) == cpu);
	KTAP_ASSERT(cpu_down(cpu) == 0);
	cpuhp_inject_fail("bringup");
	KTAP_EXPECT_EQ(cpu_up(cpu), -EIO);
	cpuhp_inject_fail(NULL);
	KTAP_EXPECT(!cpu_online(cpu));
	complete(&b->go);
	if (!WAIT_UNTIL(READ_ONCE(b->ran_cpu) >= 0, 30000))
		ktap_fail("a thread woken after CPU %d failed to come up did not run "
			  "within 30 s (queued on the offline CPU?)", cpu);
	else
		KTAP_EXPECT(READ_ONCE(b->ran_cpu) != cpu);
	KTAP_EXPECT_EQ(cpu_up(cpu), 0);
	kthread_join(t);
	ktap_log("the thread ran on CPU %d", READ_ONCE(b->ran_cpu));
	kfree(b);
#else
	ktap_skip("needs the test build (cpuhp_inject_fail)");
#endif
}

/* Printed for the closing note: down and up latencies so far. */
static void hotplug_latency_report(void)
{
	struct cpuhp_stats st;

	cpuhp_get_stats(&st);
	ktap_log("bench name=hotplug cpus=%d downs=%lu ups=%lu down_mean_us=%lu "
		 "down_max_us=%lu up_mean_us=%lu up_max_us=%lu",
		 num_online_cpus(), st.downs, st.ups,
		 st.downs ? st.down_ns_total / st.downs / 1000 : 0, st.down_ns_max / 1000,
		 st.ups ? st.up_ns_total / st.ups / 1000 : 0, st.up_ns_max / 1000);
	KTAP_EXPECT_EQ(st.downs, st.ups);
}

KTAP_SUITE(hotplug,
	   KTAP_CASE(hotplug_boot_offline_cpus_come_up),
	   KTAP_CASE(hotplug_bad_requests),
	   KTAP_CASE(hotplug_each_cpu_down_up),
	   KTAP_CASE(hotplug_bound_caller_refused),
	   KTAP_CASE(hotplug_threads_move),
	   KTAP_CASE(hotplug_timers_move),
	   KTAP_CASE(hotplug_callbacks_move_in_order),
	   KTAP_CASE(hotplug_barrier_waits_for_departed),
	   KTAP_CASE(hotplug_failed_step_backs_out),
	   KTAP_CASE(hotplug_jiffies_duty_handed_over),
	   KTAP_CASE(hotplug_failed_bringup_keeps_threads_away),
	   KTAP_CASE(hotplug_latency_report));

/* Its own suite, so that the build with rcu.inject=report_dead shows it
 * failing without the suite above hanging behind it. */
KTAP_SUITE(hotplug_gp,
	   KTAP_CASE(hotplug_offline_cpu_left_alone));

/*
 * rcu_report_dead() reports the departing CPU's QS, which may end the
 * grace period, and only then takes the CPU out of qsmaskinitnext.  If
 * the next grace period's rcu_gp_init() copies qsmaskinitnext in
 * between, that grace period waits for a CPU that is gone, and every
 * later cpu_down() (which waits for a grace period, holding the hotplug
 * lock) hangs with it.  rcu_ofl_window_arm() (test build) holds the
 * dying CPU in that window until the next rcu_gp_init() has either run
 * or found ofl_lock held; each round must hold it once, and a grace
 * period must then end with the CPU offline.
 */
#define HP_OFL_ROUNDS 3

static void hotplug_ofl_gp_init_vs_report_dead(void)
{
#ifdef CONFIG_SANITIZE
	int list[NR_CPUS], n = hotplug_cpus(list);
	int cpu = n ? list[n - 1] : 0;

	if (skip_if_one_cpu())
		return;
	for (int round = 0; round < HP_OFL_ROUNDS; round++) {
		int held0 = atomic_read(&rcu_ofl_windows_held);
		struct hp_wait *w = kzalloc(sizeof(*w), GFP_KERNEL);

		KTAP_ASSERT(w);
		if (!cpu_online(cpu))
			KTAP_ASSERT(cpu_up(cpu) == 0);
		rcu_ofl_window_arm(cpu);
		KTAP_ASSERT(cpu_down(cpu) == 0);
		KTAP_EXPECT_EQ(atomic_read(&rcu_ofl_windows_held), held0 + 1);
		init_completion(&w->done);
		call_rcu_sched(&w->head, hp_wake);
		if (!wait_for_completion_timeout(&w->done, msecs_to_jiffies(30000))) {
			/* w stays queued (its GP ends once cpu is back): leave it */
			ktap_fail("round %d: no grace period ended within 30 s with CPU %d "
				  "offline: one began waiting for it after it had gone",
				  round, cpu);
			KTAP_EXPECT_EQ(cpu_up(cpu), 0);
			return;
		}
		kfree(w);
		KTAP_EXPECT_EQ(cpu_up(cpu), 0);
	}
	ktap_log("%d windows held open, CPU %d", HP_OFL_ROUNDS, cpu);
#else
	ktap_skip("needs the test build (rcu_ofl_window_arm)");
#endif
}

/*
 * rcu_barrier_sched() against the migration of a dead CPU's callbacks:
 * the barrier deals with the CPUs in turn, and cpu_down(B) moves B's
 * callbacks to the CPU running it.  If that CPU has been dealt with and
 * B has not, the barrier finds B's list empty when it comes to it, and
 * would return before the moved callbacks ran (issue 27, bug 3).
 * rcu_barrier_window_arm(B) (test build) forces the order: B's rcuc
 * leaves B's callbacks queued, and the barrier sleeps in front of B while
 * B goes down.  Every callback queued before the barrier must have run
 * when it returns.  Round 1 also queues callbacks on every other CPU,
 * so the barrier's own callback is already on the list they move to.
 */
#define HP_BW_CBS 32

#ifdef CONFIG_SANITIZE
static struct rcu_head hp_bw_heads[HP_BW_CBS];
static atomic_t hp_bw_ran;

static void hp_bw_cb(struct rcu_head *h)
{
	(void)h;
	atomic_inc(&hp_bw_ran);
}

static int hp_bw_queue(void *arg)
{
	int n = (int)(long)arg;

	for (int i = 0; i < n; i++)
		call_rcu_sched(&hp_bw_heads[i], hp_bw_cb);
	return 0;
}

static int hp_bw_barrier(void *arg)
{
	int *seen = arg;

	rcu_barrier_sched();
	*seen = atomic_read(&hp_bw_ran);
	return 0;
}
#endif

static void hotplug_barrier_vs_migration(void)
{
#ifdef CONFIG_SANITIZE
	static struct hp_wait others[NR_CPUS];
	int list[NR_CPUS], n = hotplug_cpus(list);
	int cpu = n ? list[n - 1] : 0;

	if (skip_if_one_cpu())
		return;
	for (int round = 0; round < 2; round++) {
		unsigned long migrated0;
		int seen = -1, queued = HP_BW_CBS;
		struct task *q, *b;

		if (!cpu_online(cpu))
			KTAP_ASSERT(cpu_up(cpu) == 0);
		atomic_set(&hp_bw_ran, 0);
		rcu_barrier_window_arm(cpu);
		q = kthread_create_on_cpu(hp_bw_queue, (void *)(long)HP_BW_CBS, cpu, "bwqueue");
		KTAP_ASSERT(q);
		wake_up_process(q);
		kthread_join(q);
		for (int c = 0; round && c < NR_CPUS; c++) {
			if (c == cpu || !cpu_online(c))
				continue;
			init_completion(&others[c].done);
			q = kthread_create_on_cpu(queue_one, &others[c], c, "bwother");
			KTAP_ASSERT(q);
			wake_up_process(q);
			kthread_join(q);
		}
		b = kthread_create(hp_bw_barrier, &seen, "bwbarrier");
		KTAP_ASSERT(b);
		wake_up_process(b);
		if (!WAIT_UNTIL(rcu_barrier_window_waiting(), 30000)) {
			ktap_fail("round %d: the barrier never came to CPU %d", round, cpu);
			rcu_barrier_window_release();
			kthread_join(b);
			rcu_barrier_window_close();
			return;
		}
		migrated0 = READ_ONCE(rcu_state.n_cbs_migrated);
		KTAP_EXPECT_EQ(cpu_down(cpu), 0);
		/* The window was open: B's callbacks were still there to move. */
		KTAP_EXPECT(READ_ONCE(rcu_state.n_cbs_migrated) - migrated0 >= HP_BW_CBS);
		rcu_barrier_window_release();
		kthread_join(b);
		rcu_barrier_window_close();	/* if the barrier did not wait */
		if (seen != queued)
			ktap_fail("round %d: rcu_barrier_sched() returned having seen %d of the "
				  "%d callbacks queued on CPU %d before it (moved off it meanwhile)",
				  round, seen, queued, cpu);
		KTAP_EXPECT_EQ(cpu_up(cpu), 0);
		rcu_barrier_sched();	/* every head idle again before the next round */
		KTAP_EXPECT_EQ(atomic_read(&hp_bw_ran), queued);
	}
	ktap_log("2 barriers held in front of CPU %d while it went down", cpu);
#else
	ktap_skip("needs the test build (rcu_barrier_window_arm)");
#endif
}

/*
 * A CPU that stops only after cpu_down() gave up on it (-ETIMEDOUT): its
 * rcuc kthread is parked, so the callbacks it still holds run only if
 * they move once it has stopped; an rcu_barrier_sched() (or a
 * synchronize_sched() whose callback is there) waits on them until then.
 * cpuhp_inject_late_death() (test build) holds the CPU before it stops,
 * past a short cpu_down() wait; rcu_barrier_window_arm() keeps its
 * callbacks queued until cpu_down() has parked its rcuc.  A barrier begun
 * after it stopped must return, with every callback run.
 */
#ifdef CONFIG_SANITIZE
static int hp_late_barrier(void *arg)
{
	int *seen = arg;

	rcu_barrier_sched();
	smp_store_release(seen, atomic_read(&hp_bw_ran));
	return 0;
}
#endif

static void hotplug_late_death_callbacks_move(void)
{
#ifdef CONFIG_SANITIZE
	int list[NR_CPUS], n = hotplug_cpus(list);
	int cpu = n ? list[n - 1] : 0, seen = -1, ret;
	struct task *q, *b;

	if (skip_if_one_cpu())
		return;
	if (!cpu_online(cpu))
		KTAP_ASSERT(cpu_up(cpu) == 0);
	atomic_set(&hp_bw_ran, 0);
	rcu_barrier_window_arm(cpu);
	q = kthread_create_on_cpu(hp_bw_queue, (void *)(long)HP_BW_CBS, cpu, "latequeue");
	KTAP_ASSERT(q);
	wake_up_process(q);
	kthread_join(q);
	cpuhp_inject_late_death(cpu, 300);
	ktap_expect_alarm("cpuhp: CPU %d did not stop within 300 ms", cpu);
	ret = cpu_down(cpu);
	/* Its rcuc is parked now: nothing runs the callbacks there. */
	rcu_barrier_window_release();
	rcu_barrier_window_close();
	cpuhp_inject_late_death_release();
	KTAP_EXPECT_EQ(ret, -ETIMEDOUT);
	b = kthread_create(hp_late_barrier, &seen, "latebarrier");
	KTAP_ASSERT(b);
	wake_up_process(b);
	if (!WAIT_UNTIL(smp_load_acquire(&seen) >= 0, 30000)) {
		ktap_fail("rcu_barrier_sched() has not returned 30 s after CPU %d stopped late "
			  "(cpu_down() gave up on it): %d of the %d callbacks queued there ran",
			  cpu, atomic_read(&hp_bw_ran), HP_BW_CBS);
		/* Its rcuc runs them once it is back: the barrier returns. */
		KTAP_EXPECT_EQ(cpu_up(cpu), 0);
		kthread_join(b);
		return;
	}
	kthread_join(b);
	KTAP_EXPECT_EQ(seen, HP_BW_CBS);
	KTAP_EXPECT_EQ(cpu_up(cpu), 0);	/* it has stopped: the barrier saw its callbacks run */
	ktap_log("CPU %d stopped after cpu_down() gave up; %d callbacks ran", cpu, seen);
#else
	ktap_skip("needs the test build (cpuhp_inject_late_death)");
#endif
}

/* Its own suite: with rcu.inject=ofl_lock it fails without hanging the
 * others (CPU cpu comes back, and the stuck grace period ends); the
 * barrier case fails, without hanging, with rcu.inject=barrier_migrate. */
KTAP_SUITE(hotplug_ofl,
	   KTAP_CASE(hotplug_ofl_gp_init_vs_report_dead),
	   KTAP_CASE(hotplug_barrier_vs_migration),
	   KTAP_CASE(hotplug_late_death_callbacks_move));

/*
 * Preempted readers against a leaf that loses all its CPUs (suite
 * hotplug_blkd; needs a leaf without the boot CPU below a parent:
 * rcu.fanout_leaf=2 at 4 CPUs).  A reader switched out inside
 * rcu_read_lock() stays queued on the leaf of the CPU it was on, also
 * once that CPU and the others of its leaf are offline.
 */
#if defined(CONFIG_SANITIZE) && defined(CONFIG_PREEMPT_RCU)
struct hb_reader {
	int cpu;			/* where it starts (bound) */
	bool at_go;			/* enter at go, stay until moved off cpu */
	int go, in, moved, release, done;
};

static int hb_reader_fn(void *arg)
{
	struct hb_reader *r = arg;
	u64 end = ktime_get_ns() + 60ull * 1000000000ull;

	while (r->at_go && !READ_ONCE(r->go) && ktime_get_ns() < end)
		cond_resched();
	rcu_read_lock();
	WRITE_ONCE(r->in, 1);
	/* A voluntary switch in a reader queues it too (preempt=none). */
	while (r->at_go && raw_smp_processor_id() == r->cpu && ktime_get_ns() < end)
		cond_resched();
	WRITE_ONCE(r->moved, 1);
	while (!READ_ONCE(r->release) && ktime_get_ns() < end)
		schedule_timeout_uninterruptible(1);
	rcu_read_unlock();
	smp_store_release(&r->done, 1);
	return 0;
}

static struct hb_reader *hb_dying;	/* the reader hb_offline() lets in */

static int hb_online(int cpu)
{
	(void)cpu;
	return 0;
}

/* cpu_down(cpu) past its synchronize_sched(): the reader may enter now,
 * and the grace period it waited for does not wait for this one. */
static int hb_offline(int cpu)
{
	struct hb_reader *r = READ_ONCE(hb_dying);

	if (r && r->cpu == cpu) {
		WRITE_ONCE(r->go, 1);
		WAIT_UNTIL(READ_ONCE(r->in), 30000);
	}
	return 0;
}

/* The leaf of the last CPU, if it has a parent and not the boot CPU. */
static struct rcu_node *hb_leaf(void)
{
	int list[NR_CPUS], n = hotplug_cpus(list);
	struct rcu_node *leaf;

	if (!n)
		return NULL;
	leaf = per_cpu_ptr(&rcu_data, list[n - 1])->mynode;
	return leaf->parent && leaf->grplo > 0 ? leaf : NULL;
}

/* True (and the case skipped) when this machine has no such leaf. */
static bool hb_skip(struct rcu_node *leaf)
{
	if (skip_if_one_cpu())
		return true;
	if (!leaf) {
		ktap_skip("needs a leaf without the boot CPU below a parent "
			  "(rcu.fanout_leaf=2 at 4 CPUs)");
		return true;
	}
	return false;
}

static void hb_leaf_cpus(struct rcu_node *leaf, bool up, int except)
{
	for (int c = leaf->grplo; c <= leaf->grphi; c++) {
		if (c == except || !cpu_present(c) || cpu_online(c) == up)
			continue;
		KTAP_EXPECT_EQ(up ? cpu_up(c) : cpu_down(c), 0);
	}
}

static bool hb_blocked_on(struct task *t, struct rcu_node *leaf)
{
	return (READ_ONCE(t->rcu_read_unlock_special) & RCU_SPECIAL_BLOCKED) &&
		READ_ONCE(t->rcu_blocked_node) == leaf;
}
#endif

/*
 * A reader switched out on the last CPU of a leaf as that CPU goes
 * (cpu_down()'s move of its threads) stays queued there.  A grace
 * period that begins afterwards must wait for it: rcu_gp_init() keeps
 * such a leaf in the tree for its blocked readers alone (Linux's
 * ->wait_blkd_tasks).  Judged by counts: either that grace period ends
 * (the bug), or it reaches the state where it waits for nothing but the
 * leaf.  A grace period that began before the leaf emptied, and holds
 * the reader as its last CPU's, is no test of it: the round is run again.
 */
static void hotplug_blkd_reader_on_emptied_leaf(void)
{
#if defined(CONFIG_SANITIZE) && defined(CONFIG_PREEMPT_RCU)
	static bool registered;
	struct rcu_node *leaf = hb_leaf();
	int checked = 0, round;

	if (hb_skip(leaf))
		return;
	if (!registered) {
		KTAP_ASSERT(cpuhp_setup_state("hotplug_blkd", hb_online, hb_offline) >= 0);
		registered = true;
	}
	for (round = 0; round < 3 && !checked; round++) {
		static struct hb_reader r;
		int cpu = leaf->grphi;
		unsigned long cookie, gps = 0;
		bool waited, ended;
		struct task *t;

		while (!cpu_present(cpu))
			cpu--;
		if (!cpu_online(cpu))
			KTAP_ASSERT(cpu_up(cpu) == 0);
		hb_leaf_cpus(leaf, false, cpu);
		r = (struct hb_reader){ .cpu = cpu, .at_go = true };
		t = start_on(hb_reader_fn, &r, cpu, PRIO_LOW, "blkdreader");
		KTAP_ASSERT(t);
		WRITE_ONCE(hb_dying, &r);
		KTAP_ASSERT(cpu_down(cpu) == 0);
		WRITE_ONCE(hb_dying, NULL);
		if (!WAIT_UNTIL(READ_ONCE(r.moved), 30000) || !hb_blocked_on(t, leaf)) {
			ktap_fail("round %d: the reader was not switched out on CPU %d as it "
				  "went (moved %d)", round, cpu, READ_ONCE(r.moved));
			WRITE_ONCE(r.release, 1);
			kthread_join(t);
			break;
		}
		/* Leaf of CPUs grplo-grphi: every CPU offline, one reader queued. */
		cookie = start_poll_synchronize_rcu();
		waited = WAIT_UNTIL(poll_state_synchronize_rcu(cookie) ||
				    rcu_gp_waits_only_on(leaf, &gps), 30000);
		ended = poll_state_synchronize_rcu(cookie);
		WRITE_ONCE(r.release, 1);
		kthread_join(t);
		if (ended) {
			ktap_fail("round %d: a grace period that began with CPUs %d-%d all offline "
				  "ended while a reader was still blocked on their leaf",
				  round, leaf->grplo, leaf->grphi);
			break;
		}
		if (!waited) {
			ktap_fail("round %d: within 30 s no grace period ended or waited for "
				  "nothing but the leaf of CPUs %d-%d", round, leaf->grplo,
				  leaf->grphi);
			break;
		}
		if (gps == cookie - RCU_SEQ_STATE_MASK)
			checked++;
		else
			ktap_log("round %d: a grace period from before the leaf emptied held the "
				 "reader; again", round);
		KTAP_EXPECT(WAIT_UNTIL(poll_state_synchronize_rcu(cookie), 30000));
	}
	KTAP_EXPECT_EQ(checked, 1);
	ktap_log("%d round(s): the grace period waited for a reader on the empty leaf of "
		 "CPUs %d-%d", round, leaf->grplo, leaf->grphi);
	hb_leaf_cpus(leaf, true, -1);
#else
	ktap_skip("needs the test build and preemptible RCU");
#endif
}

/*
 * A leaf that rcu_gp_init()'s first pass left out (no CPU online, no
 * reader queued) can gain both before its second pass: its first CPU
 * comes online and a reader is switched out there (RCU_GP_HOLD_INIT
 * holds that window open).  The reader began after the grace period
 * did, and nobody reports such a leaf up the tree, so the grace period
 * must not put it on ->gp_tasks: there it would outlive the grace
 * period, trip the next one's "nothing pending" check in rcu_gp_init()
 * (a false WARN) and, at its unlock, report for a grace period that
 * never waited for it.  The next grace period, with the leaf in it,
 * must wait for that reader.  A preempted reader on another leaf holds
 * the first grace period open until the leaf has been looked at.
 */
static void hotplug_blkd_late_leaf_not_in_gp(void)
{
#if defined(CONFIG_SANITIZE) && defined(CONFIG_PREEMPT_RCU)
	static struct hb_reader h, r;
	struct rcu_node *leaf = hb_leaf();
	int cpu, hcpu = cpu_online(1) && !(leaf && leaf->grplo <= 1) ? 1 : 0;
	unsigned long cookie, cookie2, flags, gps = 0;
	struct task *ht, *rt;
	bool queued, on_gp_tasks, ended;

	if (hb_skip(leaf))
		return;
	cpu = leaf->grplo;
	hb_leaf_cpus(leaf, false, -1);
	KTAP_ASSERT(list_empty(&leaf->blkd_tasks));
	/* The next GP's first pass leaves the leaf out: no CPU, no reader. */
	rcu_gp_hold_arm(RCU_GP_HOLD_INIT);
	cookie = start_poll_synchronize_rcu();
	if (!WAIT_UNTIL(rcu_gp_hold_held(RCU_GP_HOLD_INIT), 30000)) {
		ktap_fail("no rcu_gp_init() reached its second pass within 30 s");
		rcu_gp_hold_release(RCU_GP_HOLD_INIT);
		return;
	}
	h = (struct hb_reader){ .cpu = hcpu };
	ht = start_on(hb_reader_fn, &h, hcpu, PRIO_NORMAL, "blkdholder");
	KTAP_ASSERT(ht);
	KTAP_EXPECT(WAIT_UNTIL(hb_blocked_on(ht, per_cpu_ptr(&rcu_data, hcpu)->mynode), 30000));
	KTAP_EXPECT_EQ(cpu_up(cpu), 0);
	r = (struct hb_reader){ .cpu = cpu };
	rt = start_on(hb_reader_fn, &r, cpu, PRIO_NORMAL, "blkdlate");
	KTAP_ASSERT(rt);
	KTAP_EXPECT(WAIT_UNTIL(hb_blocked_on(rt, leaf), 30000));
	rcu_gp_hold_release(RCU_GP_HOLD_INIT);
	/* The second pass has been at the leaf (the holder keeps the GP). */
	KTAP_EXPECT(WAIT_UNTIL(rcu_seq_state(READ_ONCE(leaf->gp_seq)) &&
			       READ_ONCE(leaf->gp_seq) == READ_ONCE(rcu_state.gp_seq), 30000));
	spin_lock_irqsave(&leaf->lock, flags);
	queued = !list_empty(&leaf->blkd_tasks);
	on_gp_tasks = leaf->gp_tasks != NULL;
	spin_unlock_irqrestore(&leaf->lock, flags);
	KTAP_EXPECT(queued);
	if (on_gp_tasks)
		ktap_fail("the leaf of CPUs %d-%d, left out of the grace period by its first "
			  "pass, holds a reader begun after it on ->gp_tasks", leaf->grplo,
			  leaf->grphi);
	WRITE_ONCE(h.release, 1);
	KTAP_EXPECT(WAIT_UNTIL(poll_state_synchronize_rcu(cookie), 30000));
	kthread_join(ht);

	/* The reader is still queued: the next GP has the leaf, and waits. */
	cookie2 = start_poll_synchronize_rcu();
	WAIT_UNTIL(poll_state_synchronize_rcu(cookie2) ||
		   (rcu_gp_waits_only_on(leaf, &gps) && gps == cookie2 - RCU_SEQ_STATE_MASK &&
		    !READ_ONCE(leaf->qsmask)), 30000);
	ended = poll_state_synchronize_rcu(cookie2);
	WRITE_ONCE(r.release, 1);
	kthread_join(rt);
	if (ended)
		ktap_fail("a grace period that began with a reader queued on the leaf of CPUs "
			  "%d-%d ended before it left", leaf->grplo, leaf->grphi);
	else
		KTAP_EXPECT_EQ(gps, cookie2 - RCU_SEQ_STATE_MASK);
	KTAP_EXPECT(WAIT_UNTIL(poll_state_synchronize_rcu(cookie2), 30000));
	if (!on_gp_tasks && !ended)
		ktap_log("reader on CPU %d: not on ->gp_tasks while its leaf was out of the "
			 "grace period; the next one waited for it", cpu);
	hb_leaf_cpus(leaf, true, -1);
#else
	ktap_skip("needs the test build and preemptible RCU");
#endif
}

/* Its own suite, in its own configuration (hotplug-blkd-4): a two-level
 * tree at 4 CPUs. */
KTAP_SUITE(hotplug_blkd,
	   KTAP_CASE(hotplug_blkd_reader_on_emptied_leaf),
	   KTAP_CASE(hotplug_blkd_late_leaf_not_in_gp));
