/* kernel/tick_sched.h: which CPU advances jiffies (Linux's
 * tick_do_timer_cpu), called from every CPU's tick. */
#pragma once

#include "kernel/types.h"

#define TICK_DO_TIMER_NONE	-1	/* nobody: the next CPU to tick takes it */

/* The CPU whose tick advances jiffies, or TICK_DO_TIMER_NONE. */
extern int tick_do_timer_cpu;
/* Times a CPU took the duty over from one whose ticks had stopped. */
extern unsigned long tick_duty_takeovers;

/* A CPU that sees jiffies stand still for this many of its own ticks
 * takes the duty from the CPU that holds it. */
#define TICK_DUTY_STALE_TICKS 5

/* Every CPU's tick, irqs off, before anything that reads jiffies. */
void tick_sched_do_timer(void);
