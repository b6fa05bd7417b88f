/*
 * kernel/cpu.h - CPU hotplug (Linux's names): cpu_down() and cpu_up() take
 * any CPU but the boot CPU offline and bring it back, at run time, from
 * any thread that may sleep, any number of times.
 *
 * Going down (kernel/cpu.c has the steps and why in this order): the CPU
 * leaves cpu_online_mask (no new IPIs, cross-CPU calls, NMI backtraces or
 * threads land there); a grace period lets every sender that saw it online
 * finish; per-CPU kthreads park (cpuhp hooks); the scheduler moves every
 * other thread away and the CPU's idle task plays dead: its last cross-CPU
 * calls, rcu_report_dead(), the LAPIC timer off, then a hlt loop with irqs
 * off.  Once it says so, its timers and RCU callbacks move to this CPU.
 * Coming up: INIT-SIPI-SIPI through the trampoline again, and the AP
 * rejoins as at boot (rcu_cpu_starting() before it can run a reader).
 */
#pragma once

#include "kernel/types.h"

/* 0, or -EINVAL (the boot CPU, not a CPU, already in that state),
 * -EBUSY (the caller is bound to that CPU, or it is the last one online),
 * -ETIMEDOUT (the CPU did not stop: named on the console; it is not
 * online, and what it leaves moves once it stops), or the error
 * of an offline hook that failed: then the hooks already run are undone
 * and the CPU is online again, as before the call. */
int cpu_down(int cpu);

#ifdef CONFIG_SANITIZE
/* Test build: the next cpu_down() fails at step (a cpuhp state's name:
 * its offline hook fails without running; "teardown": the last step,
 * after every hook), as a hook that fails would; or, step "bringup", the
 * next cpu_up() fails as an AP that does not answer would (-EIO). */
void cpuhp_inject_fail(const char *step);
/* Test build: the next cpu_down(cpu) waits timeout_ms for it to stop,
 * and cpu is held (irqs off) before it stops until
 * cpuhp_inject_late_death_release(), or 5 s: a CPU that stops only after
 * cpu_down() gave up on it. */
void cpuhp_inject_late_death(int cpu, unsigned int timeout_ms);
void cpuhp_inject_late_death_release(void);
#endif
/* 0, -EINVAL (online, or not a CPU), -EBUSY (cpu_down() gave up on it
 * and it has not stopped yet), or the arch's error (-EIO: no answer). */
int cpu_up(int cpu);

/* cpu_down() has taken cpu out of cpu_online_mask and it has not yet
 * said it is dead: it still runs threads, so a wake-up that queues one
 * there must still send it the reschedule IPI (smp_send_reschedule()).
 * Read only for a CPU that is offline: a cpu_down() that backs out leaves
 * it set, so that no waker can see the CPU neither online nor going down. */
bool cpu_going_down(int cpu);

/* cpu.offline=LIST, from kmain() once the scheduler and RCU run. */
void cpu_offline_boot(void);

/* CPUs that exist (came up at boot, or were parked by cpu.offline=). */
bool cpu_present(int cpu);

/* Hotplug excluded while held (sleeping; readers share it).  Held by the
 * expedited grace periods, whose CPU masks must not change under them. */
void cpus_read_lock(void);
void cpus_read_unlock(void);
/* cpus_read_lock() if no hotplug operation is under way: true if taken. */
bool cpus_read_trylock(void);

/*
 * Per-CPU work for the CPUs that come and go (Linux's cpuhp states,
 * reduced to one online/offline pair): online(cpu) runs after cpu is
 * online, from the thread that brought it up; offline(cpu) before cpu_down()
 * takes it down, while it is still running tasks (park its kthreads
 * there).  Run in registration order going up, the reverse going down.
 * Returns the slot, or -ENOSPC.
 */
int cpuhp_setup_state(const char *name, int (*online)(int cpu), int (*offline)(int cpu));

/* Statistics for the tests and the torture onoff report. */
struct cpuhp_stats {
	unsigned long downs, ups;	/* successful operations */
	u64 down_ns_total, down_ns_max;
	u64 up_ns_total, up_ns_max;
};
void cpuhp_get_stats(struct cpuhp_stats *s);

/* The scheduler's and the arch's parts (kernel/sched.c, arch/x86_64). */
void sched_cpu_dying_begin(int cpu);	/* controller: mark the rq, kick it */
void sched_cpu_dying(void);		/* dying CPU's idle, irqs off: move threads */
#ifdef CONFIG_JITTER
bool sched_cpu_runs_thread(void *cpu);	/* test build (jitter): (long)cpu not idle */
#endif
#ifdef CONFIG_SANITIZE
void sched_cpu_dead_check(int cpu);	/* test build: the dead rq owns no thread */
#else
static inline void sched_cpu_dead_check(int cpu) { (void)cpu; }
#endif
__noreturn void cpuhp_play_dead(void);	/* dying CPU, irqs off, from the above */
__noreturn void arch_cpu_play_dead(void);	/* LAPIC timer off, hlt loop */
int arch_cpu_up(int cpu);		/* INIT-SIPI-SIPI again; waits until online */
void arch_cpu_stop_timer(void);		/* this CPU's LAPIC timer off */
void timers_migrate_cpu(int cpu);	/* kernel/timer.c: a dead CPU's timers here */
