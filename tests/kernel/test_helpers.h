/* tests/kernel/test_helpers.h: helpers the in-kernel suites share (threads on a
 * chosen CPU, bounded waits); the KTAP framework itself is kernel/ktap.h. */
#pragma once

#include "kernel/sched.h"
#include "kernel/time.h"

/* Sleeps in 1 ms steps until cond or ms pass; true if cond.  A test never
 * waits without a bound: a hung thread is a failure, not a hang. */
#define WAIT_UNTIL(cond, ms) ({						\
	u64 __end = ktime_get_ns() + (u64)(ms) * 1000000ull;		\
	bool __ok;							\
	while (!(__ok = (cond)) && ktime_get_ns() < __end)		\
		msleep(1);						\
	__ok; })

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
