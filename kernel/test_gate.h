/*
 * kernel/test_gate.h - a gate that a kernel path sleeps at, in the test
 * build, until a test releases it: the test arms it, waits for
 * test_gate_waiting(), makes the world change under the sleeper (a CPU
 * goes down, say), then calls test_gate_release().  The sleeper never
 * waits longer than its bound, so a test that fails before releasing
 * costs seconds, not a hang.  The windows that rcu/ holds open for its
 * tests (rcu_barrier_window_*(), kvfree_rcu_barrier_window_*()) are
 * built on it.
 */
#ifndef KERNEL_TEST_GATE_H
#define KERNEL_TEST_GATE_H

#include "kernel/atomic.h"
#include "kernel/sched.h"
#include "kernel/time.h"

struct test_gate {
	bool waiting;		/* a path sleeps at the gate */
	bool release;		/* the test let it go */
};

static inline void test_gate_arm(struct test_gate *g)
{
	WRITE_ONCE(g->waiting, false);
	WRITE_ONCE(g->release, false);
}

static inline bool test_gate_waiting(struct test_gate *g)
{
	return smp_load_acquire(&g->waiting);
}

static inline bool test_gate_released(struct test_gate *g)
{
	return READ_ONCE(g->release);
}

static inline void test_gate_release(struct test_gate *g)
{
	smp_store_release(&g->release, true);
}

/* Sleeps (task context) until released, max_ms at most. */
static inline void test_gate_wait(struct test_gate *g, unsigned int max_ms)
{
	unsigned int ms = 0;

	smp_store_release(&g->waiting, true);
	while (!smp_load_acquire(&g->release) && ms < max_ms) {
		schedule_timeout_uninterruptible(msecs_to_jiffies(10));
		ms += 10;
	}
	WRITE_ONCE(g->waiting, false);
}

#endif
