/* kernel/tick_sched.h: which CPU advances jiffies (Linux's
 * tick_do_timer_cpu), and tickless idle (NO_HZ_IDLE, `nohz=`). */
#pragma once

#include "kernel/types.h"
#include "kernel/percpu.h"

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
/* Irqs off: if this CPU holds the duty, nobody does any more, and the
 * next CPU to tick takes it.  A CPU stopping its tick, or going offline
 * (cpuhp_play_dead(): a dead CPU never holds it), calls it. */
void tick_handover_do_timer(void);
#ifdef CONFIG_SANITIZE
/* Test build: cpu holds the duty from now on (until it gives it up or
 * another CPU takes it over), whatever it is doing. */
void tick_inject_do_timer_cpu(int cpu);
#endif

/* ---- tickless idle ---- */

/* The longest a tickless CPU sleeps without a timer due. */
#define NOHZ_MAX_TICKS (10ul * hz)

extern bool tick_nohz_enabled;		/* nohz=on (default) | off */
DECLARE_PER_CPU(bool, tick_stopped);	/* this CPU's tick is stopped */
DECLARE_PER_CPU(u64, tick_nohz_stops);	/* times it stopped */

/* The idle loop, irqs off, before rcu_idle_enter(): stop this CPU's tick
 * if nothing needs it before the next timer.  A stopped tick restarts on
 * any interrupt (tick_irq_enter()) and when the idle loop ends
 * (tick_nohz_idle_exit()). */
void tick_nohz_idle_stop_tick(void);
void tick_nohz_idle_exit(void);
/* irq_enter(): an interrupt ends tickless idle. */
void tick_irq_enter(void);

static inline bool tick_nohz_tick_stopped_cpu(int cpu)
{
	return __atomic_load_n(&per_cpu(tick_stopped, cpu), __ATOMIC_RELAXED);
}

/* While set (a count), cpu keeps its tick even when idle (Linux's tick
 * dependency, tick_dep_set_cpu()): for what needs a ticking idle CPU,
 * such as a test of the tick itself.  Setting it wakes a tickless cpu. */
void tick_dep_set_cpu(int cpu);
void tick_dep_clear_cpu(int cpu);

/* Something was queued for cpu that its tick must see (a timer): if its
 * tick is stopped, wake it so that it looks again (Linux's name). */
void wake_up_nohz_cpu(int cpu);
