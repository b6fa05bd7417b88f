/*
 * kernel/timer.h - per-CPU timer lists, run from the scheduling tick.
 *
 * A timer fires on the CPU it was added on, in that CPU's tick (irq
 * context), at the first tick at or after `expires` (in jiffies).  Used by
 * schedule_timeout()/msleep(); resolution is one tick.
 */
#pragma once

#include "kernel/types.h"
#include "kernel/list.h"

struct timer_list {
	struct list_head entry;
	unsigned long expires;
	void (*function)(struct timer_list *);
	int cpu;		/* whose list it is on, -1 if none */
	int base;		/* the base that owns it and runs its handler
				 * (-1 before the first add) */
};

void timers_init(void);	/* the boot CPU, before any timer is set up (kmain()) */
void timer_setup(struct timer_list *t, void (*fn)(struct timer_list *), unsigned flags);
void add_timer(struct timer_list *t);		/* on this CPU */
void add_timer_on(struct timer_list *t, int cpu);
/*
 * A handler that re-arms its own timer (add_timer(), add_timer_on() to any
 * CPU) keeps it on the CPU the handler runs on, as Linux does for a running
 * timer, so that del_timer_sync() can find both on one base.
 */
/* Returns whether it was pending.  The _sync form also waits out a handler
 * running on another CPU, and on return the timer is neither pending nor
 * running anywhere, even if its handler re-armed it (it may then be freed).
 * From the timer's own handler it only undoes a re-arm. */
bool del_timer(struct timer_list *t);
bool del_timer_sync(struct timer_list *t);
bool timer_pending(const struct timer_list *t);
void run_local_timers(void);	/* from sched_tick() */
/* This CPU's earliest pending timer (irqs off); false if it has none. */
bool timer_next_expiry(unsigned long *next);

#ifdef CONFIG_SANITIZE
/* Test build: a hook the tests set to widen a window (NULL: none). */
enum timer_inject_point {
	TIMER_INJECT_START,	/* a handler is about to run: base lock held */
	TIMER_INJECT_SYNC_WAIT,	/* del_timer_sync() waits for its running handler */
};
extern void (*timer_inject_hook)(enum timer_inject_point where, struct timer_list *t);
#endif
