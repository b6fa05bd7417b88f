/*
 * rcu/torture_onoff.h - rcutorture's CPU offline/online stressor
 * (rcu/torture_onoff.c), started and stopped by rcu_torture_run().
 */
#pragma once

#include "kernel/types.h"

struct torture_onoff_stats {
	unsigned long offl_attempts, offl;	/* cpu_down() calls, successes */
	unsigned long onl_attempts, onl;	/* cpu_up() */
	unsigned long errors;			/* failures other than -EBUSY */
	u64 offl_ns_sum, offl_ns_max, onl_ns_sum, onl_ns_max;
};

/* Starts the onoff thread if torture.onoff_interval is set (true if so). */
bool torture_onoff_start(void);
/* True once torture.onoff_min offline+online pairs are done (or no onoff). */
bool torture_onoff_done(void);
/* Operations that succeeded so far: the run's progress, for its hang guard. */
unsigned long torture_onoff_ops(void);
/* Stops it, brings every CPU back online, prints the counts and times
 * (a `# bench name=torture_onoff` row).  False on an error, or fewer
 * pairs than torture.onoff_min. */
bool torture_onoff_stop(const char *type, struct torture_onoff_stats *out);
