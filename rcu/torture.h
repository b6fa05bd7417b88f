/*
 * rcu/torture.h - running rcutorture (rcu/torture.c) from the kernel's
 * command line, its KTAP suite, and the host build.
 */
#pragma once

#include "kernel/types.h"

/* Stages an old element walks, one per grace period (rcutorture's). */
#define RCU_TORTURE_PIPE_LEN 10

struct rcu_torture_result {
	unsigned long versions;		/* updates the writer made */
	unsigned long gps;		/* normal grace periods completed */
	unsigned long exp_gps;		/* expedited ones */
	long reads;			/* reader critical sections */
	long nmi_reads;			/* ... of them from NMI handlers */
	long pipe_errors;		/* reads that saw an element >= 2 stages old */
	long mberrors;			/* elements seen freed (poisoned) */
	long errors;			/* all errors */
	bool success;
	/* Where the time went (ktime, ms): starting the threads, the run
	 * proper (duration_ms, longer only while onoff finishes its pairs),
	 * waiting for each stressor's first round, stopping the threads
	 * and draining the callbacks. */
	unsigned long setup_ms, run_ms, settle_ms, stop_ms;
};

/* Runs flavour type (sched, sched-expedited, sched-async, sched-polled,
 * busted) for duration_ms of ktime (not jiffies: on a loaded host a
 * vCPU's late ticks count once, and 10 s of jiffies took 30 s); prints
 * rcutorture's summary, where the time went, and SUCCESS or FAILURE.  Returns 0 on SUCCESS, 1 on FAILURE, -EINVAL for an unknown
 * flavour. */
int rcu_torture_run(const char *type, unsigned int duration_ms,
		    struct rcu_torture_result *res);
/* torture= and torture.secs= from the command line (NULL if not given). */
const char *rcu_torture_cmdline_type(void);
/* Prints the torture= flavours (for `help` and an unknown one). */
void rcu_torture_list(void);
unsigned int rcu_torture_cmdline_secs(void);
/* WARNINGs a run provokes on purpose (object_debug's two ODEBUG reports),
 * for the test that runs it to announce. */
unsigned int rcu_torture_expected_warnings(void);
/* Set while a torture runs: NMI handlers call it to read as RCU readers. */
extern void (*rcu_torture_nmi_hook)(void);
