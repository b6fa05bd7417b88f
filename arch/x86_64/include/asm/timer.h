/* asm/timer.h: what kernel/ may ask of a CPU's tick timer beyond the tick
 * itself: subticks, for a user that needs interrupts faster than hz on one
 * CPU (the NMI profiler's sampler), and whether the tick may be stopped. */
#pragma once

#include "kernel/types.h"

/*
 * Called in hardirq context, irqs off, on every interrupt of this CPU's
 * timer while set: n - 1 subticks (tick false), then the real tick (tick
 * true, called before the tick's own work).  It may call
 * arch_timer_subticks() to change or end the subticks.
 */
typedef void (*timer_subtick_fn)(bool tick);

/*
 * Runs this CPU's timer at n times hz and calls fn on each interrupt,
 * every n-th of which is the tick (so ticks still come at hz).  n == 1
 * with fn NULL ends it.  Irqs off, on the CPU concerned.  -EBUSY if
 * another fn holds the subticks, -EINVAL for n out of 1..TIMER_SUBTICKS_MAX, -ENODEV
 * if this CPU does not tick.
 */
#define TIMER_SUBTICKS_MAX 64
int arch_timer_subticks(unsigned int n, timer_subtick_fn fn);
