/* arch/x86_64/timer.h: the per-CPU LAPIC timer that ticks at hz. */
#pragma once

#include "kernel/types.h"
#include "kernel/percpu.h"

DECLARE_PER_CPU(u64, timer_ticks);	/* ticks taken on this CPU */
DECLARE_PER_CPU(const char *, timer_mode);	/* "tsc-deadline" / "periodic" */
DECLARE_PER_CPU(u64, timer_early);	/* deadline interrupts that came early */
DECLARE_PER_CPU(u64, timer_rearms);	/* stopped or overdue ticks restarted */

/* Boot CPU: calibrate the LAPIC timer against the TSC, start ticking. */
void timer_init(void);
/* Each AP: start its own timer with the boot CPU's calibration. */
void timer_init_ap(void);

/* The hook the tick calls on every CPU (kernel/sched.c; it also calls
 * RCU's tick hook). */
void sched_tick(void);

/* Restarts this CPU's tick if it is overdue (no tick for two periods),
 * or, when idle, if the timer is not counting at all: one lost deadline
 * interrupt would otherwise stop the tick for good.  Irqs off; called by
 * the interrupt dispatcher and before each idle halt. */
void timer_check_tick(bool idle);

/* The decision (arch/x86_64/tick_check.c, pure: host-tested). */
struct tick_state {
	bool idle;		/* asked before a halt */
	bool stopped;		/* tickless: a one-shot at next_deadline (or
				 * the periodic count) instead of the tick */
	bool deadline;		/* TSC-deadline mode, else periodic */
	u64 now, last_tick, next_deadline, per_tick;	/* TSC cycles */
	bool (*irq_pending)(void);	/* the timer vector is in the IRR */
	bool (*counting)(void);		/* periodic: current count nonzero */
};
bool tick_needs_restart(const struct tick_state *s);

/* test: disarm this CPU's timer, as if its interrupt had been lost. */
void timer_test_lose_tick(void);

/* AMD erratum 400 with C1E enabled by firmware: C1E is turned off again
 * before each halt (amd_c1e_clear(), irqs off), since firmware (SMM,
 * ACPI) may turn it back on. */
extern bool amd_c1e_clear_on_halt;
void amd_c1e_clear(void);
