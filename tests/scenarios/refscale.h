/* tests/scenarios/refscale.h: the read-side measurement, in the manner of
 * Linux's refscale (kernel/rcu/refscale.c), for the paper_readside and
 * paper_cslen suites and every scenario that reports a per-section cost.
 *
 * One measurement = R runs.  In a run, N reader threads bound one per
 * CPU meet at a start barrier (or, with refscale.linux_start=1, each
 * runs one untimed pass on its own first, as Linux 6.1's readers do in
 * effect), then each times (TSC) `loops` read-side critical sections of
 * one reader type.  A run's figure is the readers'
 * summed time over N * loops: the gross cost of one critical section,
 * loop included.  Over the R runs: mean, standard deviation, median, in
 * ns and cycles.  The timed loop is cut into batches so that host gaps
 * (a vCPU descheduled by the host under QEMU) are counted without a TSC
 * read per section (docs/design.md, "Measurement"), and so that the readers'
 * median batch gives the cost of a section while the host lets the vCPU
 * run (batch_ns=); the gross figure less what the host gaps took beyond a
 * median batch (less_gaps_ns=) is the gross time of a run the host did
 * not interrupt, harness included.  About RS_BATCHES batches per run:
 * few enough that a batch's TSC reads and bookkeeping, inside the gross
 * figure, are amortised over thousands of sections (the readside_harness
 * row prints what they still cost per section), many enough for a
 * median.
 *
 * Bounded: `loops` is cut to fit a per-run time budget (refscale.run_ms)
 * after probe runs, and a run that still outlasts 20 budgets (a lock
 * convoy on an overcommitted host) is cut short between batches and
 * counted in cut_runs=; its figures come from the sections it did.
 */
#pragma once

#include "kernel/types.h"
#include "tests/scenarios/scenario.h"

/* One reader type.  The loops live in tests/scenarios/readers.c, one
 * function per type, so the host check of the article's Quick Quiz 1
 * (docs/article.md; tests/host/scenarios_qq1.py) can read their
 * disassembly. */
struct rs_ops {
	const char *type;		/* the row's type= */
	void (*read)(long n);		/* n empty critical sections */
	void (*read_delay)(long n, unsigned int cs_ns);	/* n of cs_ns work each */
	/* After a measurement: the primitive is back in its idle state
	 * (lock free, count zero).  NULL: nothing to check. */
	bool (*idle)(void);
	const char *note;		/* printed beside the row (e.g. QQ1) */
};

extern const struct rs_ops rs_ops_table[];
/* Not a reader type: the harness timing batches of nothing (readers.c). */
extern const struct rs_ops rs_ops_harness;
extern const int rs_ops_count;
const struct rs_ops *rs_ops_find(const char *type);

struct rs_result {
	int cpus;
	unsigned int cs_ns;
	long loops;			/* per reader per run */
	int runs;			/* runs that completed */
	struct scen_stats ps;		/* per section, picoseconds */
	u64 mean_mcycles;		/* per section, millicycles */
	unsigned long host_gaps;	/* summed over readers and runs */
	long long sections;		/* critical sections completed, all runs */
	int cut_runs;			/* runs stopped at their time limit */
	u64 batch_ps;			/* per section: the median over runs of the
					 * readers' median batch (batch_ns=) */
	u64 less_gaps_ps;		/* per section: the median over runs of the
					 * gross time less what host gaps took beyond
					 * a median batch (less_gaps_ns=) */
};

/* Measures ops with `cpus` readers (CPUs 0..cpus-1 online), cs_ns of
 * work per section, loops per reader, `runs` runs.  0, or -errno when a
 * run could not be made (timeout, missing CPUs). */
int refscale_measure(const struct rs_ops *ops, int cpus, unsigned int cs_ns,
		     long loops, int runs, struct rs_result *res);

/* Prints `# bench name=NAME type=... cpus=... vcpus=... cs_ns=... ns_per_op=...
 * stddev=... runs=... median_ns=... cycles_per_op=... host_gaps=...
 * loops=... cut_runs=... batch_ns=... less_gaps_ns=...` and,
 * given the empty loop's result at the same point, `net_ns=`. */
void refscale_print_row(const char *name, const struct rs_ops *ops,
			const struct rs_result *r, const struct rs_result *empty);

/* A batch of the timed loop taking more than this beyond the reader's
 * fastest batch is a host gap (timer ticks and cache misses are far
 * shorter; a descheduled vCPU is gone for milliseconds). */
#define RS_GAP_NS 500000

/* Full-size batches per run (after the ramp from one section up). */
#define RS_BATCHES 64

/* A case measuring reader type `type` (ops: rs_ops_find(type)) goes on:
 * false if it failed (no such type) or skipped (not in the list given as
 * option opt). */
bool refscale_case_ops(const struct rs_ops *ops, const char *type, const char *list,
		       const char *opt);

/* The cs_ns=0 result of ops at cpus, kept for net_ns and the goals (zero
 * runs: not measured). */
struct rs_result *refscale_zero(const struct rs_ops *ops, int cpus);
/* The empty loop's result at (cpus, cs_ns), measured now into tmp if not
 * yet kept; NULL if it could not be measured. */
const struct rs_result *refscale_empty_at(int cpus, unsigned int cs_ns, struct rs_result *tmp);
/* Keeps an empty row measured at cs_ns > 0 for the other types' net_ns. */
void refscale_empty_keep(int cpus, unsigned int cs_ns, const struct rs_result *r);

/* The loop count per reader for a quick run (bench=quick), and the run
 * count; the full sweep's come from refscale.loops= / refscale.runs=. */
long refscale_loops(unsigned int cs_ns);
int refscale_runs(void);
/* The per-reader time budget of one run (ms): refscale_measure() cuts
 * the loop count to fit it (probe runs first), never below RS_MIN_LOOPS
 * (RS_MIN_LOOPS_QUICK in the quick runs of `make test`).
 * The row's loops= is the count used. */
unsigned int refscale_run_ms(void);
#define RS_MIN_LOOPS 10
#define RS_MIN_LOOPS_QUICK 3
