/* arch/x86_64/timer.h: the per-CPU LAPIC timer that ticks at hz. */
#pragma once

#include "kernel/types.h"
#include "kernel/percpu.h"

DECLARE_PER_CPU(u64, timer_ticks);	/* ticks taken on this CPU */
DECLARE_PER_CPU(const char *, timer_mode);
DECLARE_PER_CPU(u64, timer_early);	/* deadline interrupts that came early */	/* "tsc-deadline" / "periodic" */

/* Boot CPU: calibrate the LAPIC timer against the TSC, start ticking. */
void timer_init(void);
/* Each AP: start its own timer with the boot CPU's calibration. */
void timer_init_ap(void);

/* The hook the tick calls on every CPU (a weak no-op until the scheduler
 * links its own, which also calls RCU's tick hook). */
void sched_tick(void);
