/*
 * kernel/cpu.c - CPU hotplug: cpu_down(), cpu_up(), the lock that
 * excludes them, the per-CPU hooks, and the cpu.offline= boot option
 * (the contract is in kernel/cpu.h).
 *
 * cpu_down(cpu), in the order of Linux's hotplug state machine:
 *  1. cpu leaves cpu_online_mask: from now on no new thread is placed
 *     there, and cross-CPU calls and NMI backtraces skip it; reschedule
 *     IPIs still reach it until it is dead (cpu_going_down()), for the
 *     threads still queued there: its kthreads parking in step 3.
 *  2. synchronize_sched(): a sender tests the mask and queues its call
 *     with irqs off, an RCU-sched reader, so after a grace period every
 *     sender that saw cpu online has queued; cpu runs those calls before
 *     it dies (step 5).
 *  3. The offline hooks, newest first: per-CPU kthreads park (rcuc/N).
 *     If one fails, the hooks already run are undone (their online
 *     hooks) and cpu is online again: cpu_down() returns the error.
 *  4. The scheduler moves every other thread off cpu: queued ones from
 *     cpu's idle task, sleeping ones when they are next woken
 *     (kernel/sched.c), and cpu's idle task takes over.
 *  5. The idle task plays dead (cpuhp_play_dead()): the calls still
 *     queued, rcu_report_dead() (RCU stops waiting for cpu; a grace
 *     period in progress gets its QS), its LAPIC timer stops, it gives
 *     the jiffies duty up if it holds it (the next CPU to tick takes it),
 *     it says it is dead, and halts with irqs off for good.
 *  6. Here, once it is dead: its timers and RCU callbacks (in order,
 *     their grace-period tags kept) move to this CPU.
 * If cpu has not said it is dead within cpu.timeout_ms, cpu_down() names
 * it and returns -ETIMEDOUT; cpu is then neither online nor dead.  Its
 * rcuc kthread is parked, so its RCU callbacks (and every
 * rcu_barrier_sched() and synchronize_sched() that waits on one) wait
 * there: a kthread (cpuhp_late) waits for it to stop and does step 6
 * then, or leaves it to a cpu_up() that comes first.  cpu_up() refuses
 * such a CPU until it has stopped.
 * cpu_up(cpu): the arch starts cpu with INIT-SIPI-SIPI through the
 * trampoline and waits until it is online (rcu_cpu_starting() came
 * first, before cpu can run a reader), then the online hooks unpark its
 * kthreads.  cpu itself lets its run queue run again, once it runs: if
 * it never comes back, the queue stays dying, and threads that last ran
 * there still move away when woken.
 */
#include "kernel/cpu.h"
#include "kernel/atomic.h"
#include "kernel/cmdline.h"
#include "kernel/jitter.h"
#include "kernel/mutex.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "kernel/tick_sched.h"
#include "kernel/time.h"
#include "kernel/trace.h"
#include "kernel/wait.h"
#include "rcu/rcupdate.h"
#include "asm/irqflags.h"

/* How long a CPU may take to die, once asked (a bounded wait, not a test). */
static unsigned int cpuhp_timeout_ms = 30000;
core_param(cpu.timeout_ms, cpuhp_timeout_ms, uint,
	   "how long cpu_down() waits for the CPU to stop before naming it");
static char *cpu_offline_list;
core_param(cpu.offline, cpu_offline_list, charp,
	   "CPUs to take offline once the kernel is up: a comma-separated list of numbers");

/* ---- the hotplug lock: one writer (cpu_down/cpu_up) or many readers ---- */

static DEFINE_MUTEX(cpu_add_remove_lock);
static atomic_t cpuhp_readers = ATOMIC_INIT(0);
static int cpuhp_writer;
static DECLARE_WAIT_QUEUE_HEAD(cpuhp_wq);

/* The atomic RMWs are full barriers: a reader's increment and a writer's
 * flag store are each followed by the other side's check. */
bool cpus_read_trylock(void)
{
	if (READ_ONCE(cpuhp_writer))
		return false;
	atomic_inc(&cpuhp_readers);
	if (!READ_ONCE(cpuhp_writer))
		return true;
	if (atomic_dec_and_test(&cpuhp_readers))
		wake_up_all(&cpuhp_wq);
	return false;
}

/* A reader that lost to a writer waits for that writer's end, then retries. */
void cpus_read_lock(void)
{
	might_sleep();
	while (!cpus_read_trylock())
		wait_event(cpuhp_wq, !READ_ONCE(cpuhp_writer));
}

void cpus_read_unlock(void)
{
	if (atomic_dec_and_test(&cpuhp_readers))
		wake_up_all(&cpuhp_wq);
}

static void cpu_hotplug_begin(void)
{
	mutex_lock(&cpu_add_remove_lock);
	__atomic_store_n(&cpuhp_writer, 1, __ATOMIC_SEQ_CST);
	wait_event(cpuhp_wq, atomic_read(&cpuhp_readers) == 0);
	jitter_hotplug_begin();		/* test build: walks over the CPUs wait for us */
}

static void cpu_hotplug_done(void)
{
	jitter_hotplug_end();
	__atomic_store_n(&cpuhp_writer, 0, __ATOMIC_SEQ_CST);
	wake_up_all(&cpuhp_wq);
	mutex_unlock(&cpu_add_remove_lock);
}

/* ---- hooks ---- */

#define CPUHP_MAX_STATES 8

static struct cpuhp_state {
	const char *name;
	int (*online)(int cpu);
	int (*offline)(int cpu);
} cpuhp_states[CPUHP_MAX_STATES];
static int cpuhp_nr_states;

int cpuhp_setup_state(const char *name, int (*online)(int cpu), int (*offline)(int cpu))
{
	int slot;

	mutex_lock(&cpu_add_remove_lock);
	slot = cpuhp_nr_states;
	if (slot >= CPUHP_MAX_STATES) {
		mutex_unlock(&cpu_add_remove_lock);
		pr_err("cpuhp: no room for state %s\n", name);
		return -ENOSPC;
	}
	cpuhp_states[slot] = (struct cpuhp_state){ name, online, offline };
	WRITE_ONCE(cpuhp_nr_states, slot + 1);
	mutex_unlock(&cpu_add_remove_lock);
	return slot;
}

/* ---- statistics ---- */

static struct cpuhp_stats cpuhp_stats;	/* under cpu_add_remove_lock */

void cpuhp_get_stats(struct cpuhp_stats *s)
{
	mutex_lock(&cpu_add_remove_lock);
	*s = cpuhp_stats;
	mutex_unlock(&cpu_add_remove_lock);
}

static void account(bool down, u64 ns)
{
	if (down) {
		cpuhp_stats.downs++;
		cpuhp_stats.down_ns_total += ns;
		cpuhp_stats.down_ns_max = MAX(cpuhp_stats.down_ns_max, ns);
	} else {
		cpuhp_stats.ups++;
		cpuhp_stats.up_ns_total += ns;
		cpuhp_stats.up_ns_max = MAX(cpuhp_stats.up_ns_max, ns);
	}
}

/* ---- going down ---- */

#ifdef CONFIG_SANITIZE
/* Test build: cpuhp_inject_fail() (kernel/cpu.h). */
static const char *cpuhp_fail_step;

void cpuhp_inject_fail(const char *step)
{
	WRITE_ONCE(cpuhp_fail_step, step);
}

static int cpuhp_injected_failure(const char *step)
{
	const char *want = READ_ONCE(cpuhp_fail_step);

	if (!want || strcmp(want, step))
		return 0;
	WRITE_ONCE(cpuhp_fail_step, NULL);
	pr_info("cpuhp: step %s made to fail (test build)\n", step);
	return -EIO;
}
#else
static inline int cpuhp_injected_failure(const char *step)
{
	(void)step;
	return 0;
}
#endif

/* cpu_down()'s offline step for state i (the failing one does no harm). */
static int cpuhp_offline_step(int i, int cpu)
{
	int ret = cpuhp_injected_failure(cpuhp_states[i].name);

	if (!ret && cpuhp_states[i].offline)
		ret = cpuhp_states[i].offline(cpu);
	trace_cpuhp("down", cpuhp_states[i].name, cpu, ret);
	if (ret)
		pr_warn("cpuhp: %s: CPU %d offline step failed (%d)\n",
			cpuhp_states[i].name, cpu, ret);
	return ret;
}

/* cpu_down() has cleared cpu's online bit and it is not dead yet. */
static bool cpuhp_going_down[NR_CPUS];

/*
 * A step of cpu_down() failed before cpu stopped: undo the steps done,
 * states from..nr-1 (their online hooks, in the order going up), and
 * cpu is online again, as Linux's hotplug state machine rolls back.
 * Nothing else changed: cpu still runs its threads and timers, and RCU
 * never stopped watching it.
 */
static void cpuhp_back_out(int cpu, int from, int nr)
{
	int i;

	for (i = from; i < nr; i++)
		if (cpuhp_states[i].online && cpuhp_states[i].online(cpu))
			pr_warn("cpuhp: %s: CPU %d online step failed backing out\n",
				cpuhp_states[i].name, cpu);
	smp_mb();	/* the hooks' work before cpu is seen online */
	cpumask_set_cpu(cpu, &cpu_online_mask);
	pr_warn("cpuhp: CPU %d stays online: a step of going down failed\n", cpu);
}

/*
 * Per CPU, not one completion: a CPU that cpu_down() gave up on may say
 * it is dead during a later cpu_down() of another CPU, and must not end
 * that one's wait.
 */
static bool cpuhp_dead[NR_CPUS];	/* smp_store_release by the dying CPU */
static bool cpuhp_late[NR_CPUS];	/* cpu_down() gave up on it; under the hotplug lock */
static u64 cpuhp_late_t0[NR_CPUS];	/* when that cpu_down() began */
static DECLARE_WAIT_QUEUE_HEAD(cpuhp_dead_wq);

#ifdef CONFIG_SANITIZE
/* Test build: cpuhp_inject_late_death() (kernel/cpu.h). */
static struct {
	int cpu;		/* -1: none */
	unsigned int timeout_ms;
	bool release;
} cpuhp_late_inject = { .cpu = -1 };

void cpuhp_inject_late_death(int cpu, unsigned int timeout_ms)
{
	WRITE_ONCE(cpuhp_late_inject.release, false);
	WRITE_ONCE(cpuhp_late_inject.timeout_ms, timeout_ms);
	smp_store_release(&cpuhp_late_inject.cpu, cpu);
}

void cpuhp_inject_late_death_release(void)
{
	smp_store_release(&cpuhp_late_inject.release, true);
}

static unsigned int cpuhp_down_timeout_ms(int cpu)
{
	if (smp_load_acquire(&cpuhp_late_inject.cpu) == cpu)
		return READ_ONCE(cpuhp_late_inject.timeout_ms);
	return cpuhp_timeout_ms;
}

/* The dying CPU, irqs off: held until released (at most 5 s). */
static void cpuhp_late_death_hold(int cpu)
{
	if (smp_load_acquire(&cpuhp_late_inject.cpu) != cpu)
		return;
	WRITE_ONCE(cpuhp_late_inject.cpu, -1);
	pr_info("cpuhp: CPU %d held before it stops (test build)\n", cpu);
	for (int i = 0; i < 5000 && !smp_load_acquire(&cpuhp_late_inject.release); i++)
		udelay(1000);
}
#else
static inline unsigned int cpuhp_down_timeout_ms(int cpu)
{
	(void)cpu;
	return cpuhp_timeout_ms;
}
static inline void cpuhp_late_death_hold(int cpu) { (void)cpu; }
#endif

bool cpu_going_down(int cpu)
{
	return cpu >= 0 && cpu < NR_CPUS && READ_ONCE(cpuhp_going_down[cpu]);
}

/* The dying CPU's idle task, irqs off, every other thread gone. */
__noreturn void cpuhp_play_dead(void)
{
	int cpu = smp_processor_id();

	lockdep_assert_irqs_disabled();
	/* Its threads are gone and it halts: no more reschedule IPIs. */
	WRITE_ONCE(cpuhp_going_down[cpu], false);
	jitter_play_dead();		/* test build: its last steps, slow */
	cpuhp_late_death_hold(cpu);	/* test build only */
	smp_call_function_drain();	/* senders that saw it online (step 2) */
	trace_cpuhp("down", "play_dead", cpu, 0);
	jitter_site(JITTER_HOTPLUG);
	rcu_report_dead(cpu);
	jitter_site(JITTER_HOTPLUG);
	arch_cpu_stop_timer();
	tick_handover_do_timer();	/* its ticks are over: jiffies go on elsewhere */
	smp_store_release(&cpuhp_dead[cpu], true);
	wake_up_all(&cpuhp_dead_wq);
	arch_cpu_play_dead();
}

/* Step 6, hotplug lock held: cpu is dead; what it left moves here. */
static void cpuhp_take_over_dead(int cpu)
{
	/* It gave the jiffies duty up as it died (cpuhp_play_dead()). */
	WARN_ON_ONCE(READ_ONCE(tick_do_timer_cpu) == cpu);
	jitter_site(JITTER_HOTPLUG);
	timers_migrate_cpu(cpu);
	jitter_site(JITTER_HOTPLUG);
	rcu_migrate_callbacks(cpu);
	/* Test build: nothing of cpu is owned by it any more. */
	sched_cpu_dead_check(cpu);
	rcu_cpu_dead_check(cpu);
}

/*
 * cpu_down() gave up on cpu: wait for it to stop, however long, and then
 * do step 6 for it, unless a cpu_up() came first (it clears cpuhp_late).
 * Detached: nobody joins it.
 */
static int cpuhp_late_death(void *arg)
{
	int cpu = (int)(long)arg;
	unsigned long start = jiffies;

	while (!wait_event_timeout(cpuhp_dead_wq, smp_load_acquire(&cpuhp_dead[cpu]) ||
				   !READ_ONCE(cpuhp_late[cpu]), 60 * HZ))
		pr_warn("cpuhp: CPU %d has not stopped %lu s after cpu_down() gave up on it: "
			"its RCU callbacks and timers wait there\n", cpu, (jiffies - start) / HZ);
	cpu_hotplug_begin();
	if (cpuhp_late[cpu] && smp_load_acquire(&cpuhp_dead[cpu])) {
		cpuhp_late[cpu] = false;
		account(true, ktime_get_ns() - cpuhp_late_t0[cpu]);	/* a down, late */
		pr_info("cpuhp: CPU %d stopped %u ms after cpu_down() gave up on it; its "
			"timers and RCU callbacks move to CPU %d\n", cpu,
			jiffies_to_msecs(jiffies - start), raw_smp_processor_id());
		cpuhp_take_over_dead(cpu);
		trace_cpuhp("down", "late", cpu, 0);
	}
	cpu_hotplug_done();
	return 0;
}

/* cpu_down() begun at t0 gave up on cpu (hotplug lock held). */
static void cpuhp_gave_up(int cpu, u64 t0)
{
	struct task *t;

	cpuhp_late[cpu] = true;
	cpuhp_late_t0[cpu] = t0;
	t = kthread_run(cpuhp_late_death, (void *)(long)cpu, "cpuhp_late");
	if (t)
		put_task_struct(t);	/* detached */
	else
		pr_err("cpuhp: no thread to wait for CPU %d: its RCU callbacks stay there "
		       "until it comes back up\n", cpu);
}

int cpu_down(int cpu)
{
	u64 t0;
	int ret = 0, i, nr;
	unsigned int timeout_ms;

	might_sleep();
	if (cpu <= 0 || cpu >= NR_CPUS)
		return -EINVAL;
	if (READ_ONCE(current->bound_cpu) == cpu)
		return -EBUSY;
	cpu_hotplug_begin();
	if (!cpu_online(cpu)) {
		ret = -EINVAL;
		goto out;
	}
	if (num_online_cpus() <= 1) {
		ret = -EBUSY;
		goto out;
	}
	t0 = ktime_get_ns();
	trace_cpuhp("down", "begin", cpu, 0);
	WRITE_ONCE(cpuhp_dead[cpu], false);
	/* Test build: a random delay before each step (kernel/jitter.h). */
	jitter_site(JITTER_HOTPLUG);
	/* Before it leaves the mask: a waker that finds it offline must
	 * find it going down (smp_send_reschedule()). */
	WRITE_ONCE(cpuhp_going_down[cpu], true);
	smp_wmb();
	cpumask_clear_cpu(cpu, &cpu_online_mask);
	smp_mb();
	jitter_site(JITTER_HOTPLUG);
	synchronize_sched();
	/* Test build: from here a barrier walk may sleep across cpu's death
	 * (nothing below waits for a callback: kernel/jitter.h). */
	jitter_hotplug_down(cpu);
	nr = READ_ONCE(cpuhp_nr_states);
	for (i = nr - 1; i >= 0; i--) {
		jitter_site(JITTER_HOTPLUG);
		ret = cpuhp_offline_step(i, cpu);
		if (ret) {
			cpuhp_back_out(cpu, i + 1, nr);
			goto out;
		}
	}
	/* The last step that may fail: after it, cpu stops. */
	ret = cpuhp_injected_failure("teardown");
	if (ret) {
		cpuhp_back_out(cpu, 0, nr);
		goto out;
	}
	/* Test build: when this step's delay fires, it lasts until cpu runs
	 * a thread (bounded): an idle CPU going down moves nothing, a busy
	 * one has its thread switched out under the dying run queue, and a
	 * wake-up of it from another CPU then races that switch. */
	jitter_site_until(JITTER_HOTPLUG, sched_cpu_runs_thread, (void *)(long)cpu);
	timeout_ms = cpuhp_down_timeout_ms(cpu);
	sched_cpu_dying_begin(cpu);
	if (!wait_event_timeout(cpuhp_dead_wq, smp_load_acquire(&cpuhp_dead[cpu]),
				msecs_to_jiffies(timeout_ms))) {
		pr_err("cpuhp: CPU %d did not stop within %u ms (a thread bound to it "
		       "that cannot be moved, or it runs with interrupts off)\n",
		       cpu, timeout_ms);
		ret = -ETIMEDOUT;
		cpuhp_gave_up(cpu, t0);	/* it may still die later */
		goto out;
	}
	cpuhp_take_over_dead(cpu);
	account(true, ktime_get_ns() - t0);
	trace_cpuhp("down", "done", cpu, 0);
out:
	cpu_hotplug_done();
	return ret;
}

/* ---- coming up ---- */

int cpu_up(int cpu)
{
	u64 t0;
	int ret, i;

	might_sleep();
	if (cpu <= 0 || cpu >= NR_CPUS)
		return -EINVAL;
	cpu_hotplug_begin();
	if (cpu_online(cpu) || !cpu_present(cpu)) {
		ret = -EINVAL;
		goto out;
	}
	if (cpuhp_late[cpu]) {
		/* INIT-SIPI-SIPI would reset it wherever it is. */
		if (!smp_load_acquire(&cpuhp_dead[cpu])) {
			pr_warn("cpuhp: CPU %d has not stopped since cpu_down() gave up on it; "
				"not bringing it up\n", cpu);
			ret = -EBUSY;
			goto out;
		}
		/* Its callbacks and timers stay: it runs them itself again. */
		cpuhp_late[cpu] = false;
		account(true, ktime_get_ns() - cpuhp_late_t0[cpu]);	/* a down, late */
		wake_up_all(&cpuhp_dead_wq);	/* its cpuhp_late thread: nothing to do */
	}
	t0 = ktime_get_ns();
	trace_cpuhp("up", "begin", cpu, 0);
	jitter_site(JITTER_HOTPLUG);
	ret = cpuhp_injected_failure("bringup");
	jitter_cpu_up(cpu);
	if (!ret)
		ret = arch_cpu_up(cpu);
	trace_cpuhp("up", "arch_cpu_up", cpu, ret);
	if (ret)
		goto out;
	for (i = 0; i < READ_ONCE(cpuhp_nr_states); i++) {
		jitter_site(JITTER_HOTPLUG);
		if (cpuhp_states[i].online && cpuhp_states[i].online(cpu))
			pr_warn("cpuhp: %s: CPU %d online step failed\n", cpuhp_states[i].name, cpu);
	}
	account(false, ktime_get_ns() - t0);
	trace_cpuhp("up", "done", cpu, 0);
out:
	cpu_hotplug_done();
	return ret;
}

/* cpu.offline=LIST: from kmain(), once RCU's kthreads run. */
void cpu_offline_boot(void)
{
	const char *p = cpu_offline_list;

	while (p && *p) {
		int cpu = 0, digits = 0, ret;

		for (; *p >= '0' && *p <= '9' && digits < 4; p++, digits++)
			cpu = cpu * 10 + (*p - '0');
		if (!digits || (*p && *p != ',')) {
			pr_err("cpu.offline=%s: not a comma-separated list of CPU numbers\n",
			       cpu_offline_list);
			return;
		}
		ret = cpu_down(cpu);
		if (ret)
			pr_err("cpu.offline: CPU %d stays online (%d)\n", cpu, ret);
		else
			pr_info("cpu.offline: CPU %d offline\n", cpu);
		if (*p == ',')
			p++;
	}
}
