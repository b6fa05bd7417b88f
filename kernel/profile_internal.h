/* kernel/profile_internal.h: what the profiler's files share and nothing
 * else may use: the buffer's updater lock, the NMI sources, the folded
 * report, and the test build's hooks into the article's code. */
#pragma once

#include "kernel/mutex.h"
#include "kernel/profile.h"
#include "rcu/rcupdate.h"

extern char __text_start[], __text_end[];

/* Serialises the updaters (start, switch, stop) and the report. */
extern struct mutex profile_mutex;

/* kernel/profile_sampler.c: the NMI source of a run (PMU or NMI IPIs). */
int profile_sources_start(unsigned int rate_hz);
void profile_sources_stop(void);
const char *profile_source_desc(void);
u64 profile_run_ns(void);
/* Sampling stops at end_ns (ktime), the buffer stays installed. */
void profile_sample_until(u64 end_ns);
/* What the IPI sampler did since profile_start(): false (and counts of
 * nothing) when the PMU is the source. */
struct profile_sampler_counts {
	u64 interrupts;		/* the sampling CPU's timer interrupts it saw */
	u64 ticks;		/* how many of those were the tick */
	u64 rounds;		/* rounds of NMIs sent */
	u64 kicks;		/* NMIs sent */
	bool active;		/* still paced by the sampling CPU's timer */
};
bool profile_sampler_counts(struct profile_sampler_counts *c);

/* kernel/profile_report.c: every retired buffer is folded into one
 * histogram, reported per function. */
void profile_fold(struct profile_buffer *p);
void profile_fold_reset(void);
void profile_report(void);

#ifdef CONFIG_SANITIZE
/* The test build's hooks (kernel/profile_test.c) for
 * tests/kernel/test_profile.c: the grace-period wait the updaters use
 * (default synchronize_sched), a delay inside the NMI reader, and a
 * quarantine that keeps retired buffers poisoned for checking. */
extern void (*profile_sync)(void);
extern unsigned int profile_reader_delay_ns;
void profile_quarantine(bool on);
/* Number of quarantined buffers whose poison was overwritten; frees them. */
unsigned long profile_quarantine_check(void);
/* true: the buffer is kept in quarantine, not to be freed. */
bool profile_quarantine_retire(void *g, size_t len, size_t head);
#else
#define profile_sync synchronize_sched
#define profile_reader_delay_ns 0u
static inline bool profile_quarantine_retire(void *g, size_t len, size_t head)
{
	(void)g; (void)len; (void)head;
	return false;
}
#endif
