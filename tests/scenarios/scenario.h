/* tests/scenarios/scenario.h: what every paper_* scenario suite shares.
 *
 * - Worker groups: N kthreads, each bound to its own CPU, started together
 *   and waited for with a bound.
 * - The quick/full switch: `bench=full` turns the short correctness runs
 *   of `make test` into the article's sweeps (`make bench`).
 * - Fixed-point output: no floating point in the kernel, so times are kept
 *   in picoseconds and printed as ns with three decimals.
 */
#pragma once

#include "kernel/types.h"
#include "kernel/atomic.h"
#include "kernel/percpu.h"
#include "rcu/rcupdate.h"

/* bench=full: the long sweeps.  Otherwise each scenario runs its short
 * version, which judges correctness only. */
bool scen_full(void);

struct scen_group;

struct scen_worker {
	struct scen_group *g;
	int idx;		/* 0..n-1 within the group */
	int cpu;		/* the CPU it is bound to */
	void *arg;		/* the group's argument */
	void *priv;		/* the caller's per-worker state */
	bool finished;
	bool owes;		/* scen_owe() without scen_paid() yet */
};

struct scen_group {
	int n;
	void (*fn)(struct scen_worker *w);
	atomic_t ready;		/* workers past scen_start_barrier() */
	atomic_t done;		/* workers that returned */
	int go;			/* release/acquire: all arrived at the barrier */
	atomic_t owing;		/* workers short of their minimum (scen_owe) */
	int stop;		/* READ_ONCE: asked to finish */
	u64 run_ns;		/* scen_group_run_for(), 0: until stopped */
	u64 end_ns;		/* 0, or ktime_get_ns() at which to finish
				 * (set when the start barrier opens) */
	int failed;		/* a worker's bounded wait ran out */
	u64 progress_ns;	/* the last scen_progress(), 0: none */
	struct task *task[NR_CPUS];	/* with the scheduler: joined once done */
	struct scen_worker w[NR_CPUS];
};

/* Starts n workers running fn, worker i on cpus[i].  Returns 0 or -errno
 * (no such CPU, out of memory).  The group must stay allocated until
 * scen_group_wait() has returned 0. */
int scen_group_start(struct scen_group *g, const int *cpus, int n,
		     void (*fn)(struct scen_worker *w), void *arg);
/* Waits at most timeout_ms for every worker to return; 0 or -ETIMEDOUT
 * (the late workers are named; the group is then left allocated since
 * they may still touch it). */
int scen_group_wait(struct scen_group *g, unsigned int timeout_ms);
/* Asks the workers to finish (they poll scen_should_stop()). */
static inline void scen_group_stop(struct scen_group *g) { WRITE_ONCE(g->stop, 1); }
bool scen_should_stop(struct scen_worker *w);
/* A worker that must get some work done however late the host runs it
 * owes (before scen_start_barrier()) and pays once it has; while any
 * worker owes, scen_should_stop() keeps the whole group going past the
 * run's end, for at most scen_owe_grace_ns() more (see scen_progress()).
 * Returning pays. */
void scen_owe(struct scen_worker *w);
void scen_paid(struct scen_worker *w);
/* The grace is the wall time one step of the owed work may take on a
 * host that runs the guest's vCPUs in turns, counted from the run's end
 * or from the last scen_progress(), whichever is later.  A step waits
 * for every online CPU (a grace period, a pass of all workers), so it
 * grows with the CPUs there are to run: SCEN_OWE_GRACE_CPU_NS each, no
 * less than for 16 CPUs, whose 10 s the runs were tuned on. */
#define SCEN_OWE_GRACE_CPU_NS 625000000ull
u64 scen_owe_grace_ns(void);
/* An owing worker finished one step of what it owes: the grace starts
 * again (scen_group_wait() waits longer accordingly). */
void scen_progress(struct scen_worker *w);
/* The workers of the next start finish by themselves ms after they have
 * all passed scen_start_barrier() (they poll scen_should_stop()); 0:
 * only when stopped. */
static inline void scen_group_run_for(struct scen_group *g, unsigned int ms)
{
	g->run_ns = ms * 1000000ull;
}
/* Every worker of the group waits here until all have arrived, so their
 * timed loops overlap.  Bounded: false (and g->failed) after 10 s. */
bool scen_start_barrier(struct scen_worker *w);

/* Around a scenario that hammers one lock from `cpus` CPUs: under a
 * hypervisor, lock waits of a host-made convoy are not reported as
 * lockups (see scenario.c).  Nest; pair each begin with an end. */
void scen_convoy_begin(int cpus);
void scen_convoy_end(int cpus);

/* Undoes scen_setup() after a later allocation failed: frees ctx and g
 * and fails the case ("out of memory"). */
void scen_setup_undo(void *ctx, struct scen_group *g);

/* The run length of a scenario: opt (its .ms= option) if set, else 200 ms
 * (quick) or 2000 ms (bench=full). */
unsigned int scen_run_ms(unsigned int opt);

/* Runs fn on the n CPUs of cpus with arg for run_ms (0: until stopped),
 * inside scen_convoy_begin()/end() if convoy, and waits at most 60 s
 * longer.  0, or the case fails ("[what: ]the run did not finish (err)")
 * and the error is returned: g and arg must then stay allocated, since a
 * worker may still use them. */
int scen_run(struct scen_group *g, const int *cpus, int n, void (*fn)(struct scen_worker *w),
	     void *arg, unsigned int run_ms, bool convoy, const char *what);

/* Allocates a zeroed group; NULL if out of memory. */
struct scen_group *scen_group_alloc(void);
/* Frees it, unless a worker may still run (after a timeout): then leaks. */
void scen_group_free(struct scen_group *g, int wait_ret);

/* The online CPUs in id order; returns how many (at most max). */
int scen_online_cpus(int *cpus, int max);

/* The start of a scenario with an updater beside readers: the online CPUs
 * into cpus[NR_CPUS] and *n, a new group into *g, and a zeroed context of
 * ctx_size bytes, returned.  NULL if the case cannot run: it was skipped
 * with fewer than 2 CPUs ("needs 2 CPUs (who)") or failed out of memory. */
void *scen_setup(int *cpus, int *n, size_t ctx_size, struct scen_group **g,
		 const char *who);

/* Lets the scheduler run others on this CPU if it wants to. */
void scen_yield(void);
/* Sleeps ms milliseconds. */
void scen_sleep_ms(unsigned int ms);

/* Parses a comma-separated list of unsigned numbers ("1,2,4,8,16") into
 * out (at most max); returns how many, or -1 on a bad list. */
int scen_parse_list(const char *s, unsigned int *out, int max);
/* True if `word` is in the comma-separated list s (NULL or "" or "all":
 * every word is). */
bool scen_list_has(const char *s, const char *word);

/* Picoseconds as "NNN.NNN" ns (signed), into buf; returns buf. */
char *scen_fmt_ps(char *buf, size_t size, s64 ps);
#define SCEN_FMT_BUF 32

/* Cycles to picoseconds and back, from the calibrated TSC. */
u64 scen_cycles_to_ps(u64 cycles);
u64 scen_ns_to_cycles(u64 ns);

/* Statistics over n samples (picoseconds): mean, sample standard
 * deviation, median, min, max (kernel/math.h).  Sorts v in place. */
struct scen_stats {
	u64 mean, stddev, median, min, max;
};
void scen_stats(u64 *v, int n, struct scen_stats *st);

/* A reader's view of poisoned memory: kfree fills with 0x6b. */
#define SCEN_POISON_LONG 0x6b6b6b6b6b6b6b6bul
