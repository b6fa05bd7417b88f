/*
 * rcu/debug_head.h - Linux's CONFIG_DEBUG_OBJECTS_RCU_HEAD, in the test
 * build (CONFIG_SANITIZE): every rcu_head between call_rcu*()/call_srcu()
 * and the invocation of its callback is tracked, so that queueing it a
 * second time, or queueing a head in freed (poisoned) memory, is reported
 * with a backtrace and refused instead of corrupting the callback list.
 * In the benchmark build and on the host these are empty.
 */
#pragma once

#include "rcu/rcupdate.h"

#ifdef CONFIG_SANITIZE
/* Before queueing head: false if it must not be queued (reported). */
bool debug_rcu_head_queue(struct rcu_head *head, rcu_callback_t func, const char *who);
/* Before invoking its callback (a head never tracked is ignored). */
void debug_rcu_head_unqueue(struct rcu_head *head);
#define RCU_DEBUG_HEAD 1
#else
static inline bool debug_rcu_head_queue(struct rcu_head *head, rcu_callback_t func,
					const char *who)
{
	(void)head;
	(void)func;
	(void)who;
	return true;
}
static inline void debug_rcu_head_unqueue(struct rcu_head *head) { (void)head; }
#define RCU_DEBUG_HEAD 0
#endif

/* Reports so far (double queue, freed head); tests read them. */
extern atomic_t rcu_debug_head_double, rcu_debug_head_freed;
