/* tests/kernel/test_helpers.h: helpers the in-kernel suites share (threads on a
 * chosen CPU, bounded waits); the KTAP framework itself is kernel/ktap.h. */
#pragma once

#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/tick_sched.h"
#include "kernel/time.h"
#include "tests/kernel/bounded_wait.h"

/*
 * Bounded waits.  WAIT_UNTIL(cond, ms) waits for something that must
 * happen: it sleeps in 1 ms steps until cond, for at least WAIT_MIN_MS
 * whatever ms says.  On a loaded host a vCPU may go unrun for seconds,
 * and a wait that ends when cond holds costs nothing, so the bound only
 * decides how soon a real failure is reported; a test never waits
 * without one (a hung thread is a failure, not a hang).
 * WAIT_WINDOW(cond, ms) watches for exactly ms: for a window whose
 * length is the point, when cond must NOT happen within it.
 * SPIN_UNTIL(cond, ms) and SPIN_WINDOW(cond, ms) are the same two that
 * spin instead of sleeping, for a caller that may not sleep (irq
 * context, inside a reader, irqs off).  True if cond.
 */
#define WAIT_MIN_MS 30000
#define WAIT_WINDOW(cond, ms) BOUNDED_WAIT(cond, ms, msleep(1))
#define WAIT_UNTIL(cond, ms)						\
	WAIT_WINDOW(cond, (ms) > WAIT_MIN_MS ? (ms) : WAIT_MIN_MS)
#define SPIN_WINDOW(cond, ms) BOUNDED_WAIT(cond, ms, cpu_relax())
#define SPIN_UNTIL(cond, ms)						\
	SPIN_WINDOW(cond, (ms) > WAIT_MIN_MS ? (ms) : WAIT_MIN_MS)

/* The CPU farthest from the one running the case (itself at -smp 1). */
static inline int farthest_cpu(void)
{
	int me = raw_smp_processor_id(), cpu, pick = me;

	for_each_online_cpu(cpu)
		if (cpu != me)
			pick = cpu;
	return pick;
}

/*
 * A test that counts an idle CPU's ticks keeps them coming: under
 * tickless idle (nohz=on) an idle CPU takes none.  on: from the return
 * on, cpu's tick runs (false if it did not restart); off: it may stop
 * again.  Pair every on with an off.
 */
static inline bool test_keep_ticking(int cpu, bool on)
{
	if (!on) {
		tick_dep_clear_cpu(cpu);
		return true;
	}
	tick_dep_set_cpu(cpu);
	return WAIT_UNTIL(!tick_nohz_tick_stopped_cpu(cpu), 10000);
}

/*
 * The ticks a CPU has taken.  A spinner bounded by its own CPU's ticks
 * rather than by time gives up only after that CPU has really run for
 * so long: a vCPU the host leaves unrun for seconds takes no ticks, so a
 * loaded host slows such a bound down instead of ending it early.
 */
static inline u64 cpu_ticks(int cpu)
{
	return sched_stat(cpu, tick_qs) + sched_stat(cpu, tick_atomic) +
	       sched_stat(cpu, tick_idle);
}

/* A kthread bound to cpu at priority prio, already woken (NULL if none). */
static inline struct task *start_on(int (*fn)(void *), void *arg, int cpu, int prio,
				    const char *name)
{
	struct task *t = kthread_create_on_cpu(fn, arg, cpu, name);

	if (t) {
		set_task_prio(t, prio);
		wake_up_process(t);
	}
	return t;
}
