/* asm/tick.h: what tickless idle (kernel/tick_sched.c) asks of the arch's
 * per-CPU timer (arch/x86_64/timer.c).  All on the calling CPU, irqs off. */
#pragma once

#include "kernel/types.h"

/* Whether this CPU's tick may stop now: it is ticking, and no subtick
 * user (asm/timer.h: the profiler's sampler) counts on its interrupts. */
bool arch_tick_can_stop(void);
/* Stop the periodic tick; one timer interrupt comes after `ticks`
 * periods (fewer if the hardware cannot count that far). */
void arch_tick_stop(unsigned long ticks);
/* The periodic tick again, from now; a one-shot that is already due
 * still comes, as a tick. */
void arch_tick_restart(void);
