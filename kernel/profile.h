/* kernel/profile.h: the NMI profile buffer of the article's "RCU is a way
 * of waiting for things to finish" section.
 *
 * NMIs sample the interrupted instruction pointer into a histogram over
 * kernel text.  The histogram buffer is reached through one RCU-protected
 * pointer; the NMI handler is an RCU-sched reader (it cannot be preempted),
 * so replacing or removing the buffer is: publish the new pointer, wait
 * for a grace period with synchronize_sched(), free the old buffer. */
#pragma once

#include "kernel/types.h"
#include "kernel/atomic.h"

struct profile_buffer {
	long size;		/* entries; travels with the buffer, so a range */
	int shift;		/* check can never use another buffer's size   */
	atomic_t entry[];
};

/* The article's reader: runs in NMI context.  pc is the sampled address
 * as an offset into kernel text. */
void nmi_profile(unsigned long pc);
/* The article's updater: remove the buffer, wait for every NMI that may
 * hold it, free it.  Caller serialises (profile_start/switch/stop hold
 * profile_mutex for it). */
void nmi_stop(void);

/* The article's Quick Quiz 6 (docs/article.md): the same reader, were it
 * preemptible (called from a thread rather than an NMI), and its updater. */
void nmi_profile_preemptible(unsigned long pc);
void nmi_stop_preemptible(void);

/* Installs a buffer of size entries (a shift covering all kernel text)
 * and starts sampling every other CPU at rate_hz. */
int profile_start(long size, unsigned int rate_hz);
/* Replaces the buffer by one of new_size entries while NMIs keep coming;
 * the old one is folded into the report and freed after a grace period. */
int profile_switch(long new_size);
/* nmi_stop() and a fresh buffer of size entries, the sampler running on. */
int profile_restart_buffer(long size);
/* Stops sampling, removes the buffer (nmi_stop), prints the report. */
void profile_stop(bool report);
bool profile_running(void);
/* For `profile=SECONDS[,rate]`: start at boot, report at the end. */
void profile_boot_start(void);
void profile_boot_finish(void);

/* Totals since the last profile_reset_stats(). */
struct profile_stats {
	u64 samples[64];	/* per CPU (NR_CPUS) */
	u64 dropped;		/* no buffer installed */
	u64 out_of_range;	/* bucket past the buffer's own size */
	u64 outside_text;	/* the interrupted RIP was not kernel text */
};
void profile_get_stats(struct profile_stats *st);
void profile_reset_stats(void);
/* Name of the function with most samples in the folded report, or NULL. */
const char *profile_top_function(unsigned long *samples);
/* The sampler's achieved NMI rate (per target CPU) in the last run. */
u64 profile_achieved_rate_hz(void);

/* The arch's NMI sources (arch/x86_64/profile_nmi.c). */
bool arch_profile_pmu_available(void);
int arch_profile_pmu_start(unsigned int rate_hz);	/* on every CPU */
void arch_profile_pmu_stop(void);
/* Marks cpu as owed a sample and sends it an NMI. */
bool arch_profile_kick(int cpu);
int arch_profile_init(void);	/* registers the NMI handler */
/* Called by the arch's NMI handler with the interrupted RIP. */
void profile_nmi_sample(unsigned long ip);

/* Guard words around each live buffer intact? */
bool profile_guards_ok(void);
