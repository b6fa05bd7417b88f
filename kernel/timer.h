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
};

void timers_init(void);	/* the boot CPU, before any timer is set up (kmain()) */
void timer_setup(struct timer_list *t, void (*fn)(struct timer_list *), unsigned flags);
void add_timer(struct timer_list *t);		/* on this CPU */
void add_timer_on(struct timer_list *t, int cpu);
/* Returns whether it was pending; the _sync form also waits out a handler
 * running on another CPU. */
bool del_timer(struct timer_list *t);
bool del_timer_sync(struct timer_list *t);
bool timer_pending(const struct timer_list *t);
void run_local_timers(void);	/* from sched_tick() */
