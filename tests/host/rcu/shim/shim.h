/*
 * tests/host/rcu/shim/shim.h - what the host RCU test programs (torture,
 * flood, gpbench under tests/host/rcu) ask of the shim that stands in for
 * kernel/ (cpu.c: CPUs, scheduler, interrupts, timers; misc.c: printk,
 * kmalloc, clocks).
 *
 * A shim CPU is a set of host threads of which exactly one runs at a time:
 * each task (kthread, the CPU's idle task, the boot thread) is a pthread,
 * and owning the CPU is a hand-off under the CPU's mutex, so a task that
 * disabled preemption really does keep every other task off its CPU.
 * Interrupts (the tick, cross-CPU calls, NMIs) are posted to a CPU's
 * mailbox and taken by whichever task owns it at its next interrupt point:
 * interrupts turned back on, preempt_enable() with work pending,
 * cond_resched(), udelay(), cpu_relax() (NMIs only while irqs are off),
 * and in the idle task's halt.
 */
#pragma once

#include "kernel/types.h"

struct shim_opts {
	int ncpus;
	unsigned int idle_tick_every;	/* an idle CPU takes every Nth tick (0: none) */
	unsigned int nmi_every;		/* jiffies between NMIs to a random CPU (0: none) */
	unsigned int tick_us;		/* host microseconds per jiffy (default 1000) */
	/* A task moved off a CPU that goes down is queued on its new one this
	 * much later (host us): the window in which that CPU may go down too,
	 * or the task be woken and run there, made wide for the tests. */
	unsigned int move_delay_us;
	/* Kernel command-line options (core_param, kernel/cmdline.c), applied
	 * before rcu_init(): e.g. "rcu.geometry_cpus=16 rcu.fanout_leaf=4". */
	const char *cmdline;
};

/*
 * The options every host RCU program takes: `--cpus N` (ncpus),
 * `--cmdline OPTS` and `--move-delay-us US`.  True if argv[*i] is one of them, *i then at its value.
 */
bool shim_parse_opt(struct shim_opts *opts, int argc, char **argv, int *i);

/*
 * Brings up opts->ncpus CPUs, the calling thread becoming the boot task on
 * CPU 0, runs rcu_init() and brings every CPU online for RCU, then starts
 * the tick and runs rcu_late_init().  The caller then is a kthread-like
 * task on CPU 0 and may call any RCU API.
 */
void shim_boot(const struct shim_opts *opts);
/* Stops RCU's kthreads and the tick; returns the shim's own error count
 * (warnings, BUGs, scheduling-while-atomic, failed cross-CPU calls). */
long shim_shutdown(void);

/* Counters for the closing summary. */
struct shim_stats {
	unsigned long ticks, idle_ticks, nmis, nmis_in_idle, calls, switches, preemptions;
};
void shim_get_stats(struct shim_stats *st);

long shim_errors(void);		/* WARNs, BUGs, shim-detected misuse so far */
void shim_count_error(void);	/* the shim saw misuse or a failure */
u64 shim_now_ns(void);
void shim_printk_quiet(bool quiet);	/* drop KERN_INFO lines (benchmarks) */
