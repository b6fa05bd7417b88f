/* tests/scenarios/refscale.c: the read-side measurement machinery (see
 * refscale.h): reader workers bound one per CPU, a start barrier, TSC
 * timing in batches, R runs, statistics, host-gap counting and the
 * `# bench` row. */
#include "tests/scenarios/refscale.h"
#include "asm/irqflags.h"
#include "kernel/cmdline.h"
#include "kernel/ktap.h"
#include "kernel/preempt.h"
#include "kernel/printk.h"
#include "kernel/slab.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "kernel/time.h"

/* 0: the built-in defaults (quick or full). */
static unsigned int rs_loops_param;
core_param(refscale.loops, rs_loops_param, uint,
	   "critical sections per reader per run (default: cs_ns=0: 20000 quick, 1000000 full; else 0.5 ms (quick) or 20 ms (full) of section work)");
static unsigned int rs_runs_param;
core_param(refscale.runs, rs_runs_param, uint, "runs per measurement (default: 3 quick, 10 full)");
static unsigned int rs_run_ms_param;
core_param(refscale.run_ms, rs_run_ms_param, uint,
	   "per-reader time budget of one run in ms: the loop count is cut to fit unless refscale.loops= is given (default 30 quick, 250 full)");
/*
 * Linux's refscale keeps irqs off around its whole timed loop.  1: each
 * batch (at most an eighth of the run budget, so milliseconds) is timed
 * with irqs off: no tick, no IPI and no task switch inside a timed batch,
 * but the tick (HZ a second) still comes between batches.  2: irqs off
 * around the whole timed loop, as Linux's: under TCG each tick is a
 * QEMU timer, a kick of the vCPU and a few LAPIC accesses, all under
 * QEMU's global lock, which a loaded host may have descheduled with its
 * holder; Linux's loop takes none of them.  Off by default: a reader's
 * cost with the kernel running around it is the article's figure.
 */
static unsigned int rs_irqs_off;
core_param(refscale.irqs_off, rs_irqs_off, uint,
	   "0: irqs on (default); 1: each timed batch with irqs off; 2: the whole timed loop with irqs off, as Linux's refscale");
/*
 * How the readers of a run start.  0: together, at a start barrier (each
 * reader's loop overlaps all the others').  1: as Linux 6.1's refscale
 * does in effect: its start and warm-up waits are no-ops (each is
 * `if (!atomic_dec_return(&n)) while (atomic_read(&n)) ...`, so only the
 * last reader waits, for a count already at zero), so a reader runs one
 * untimed pass of `loops` sections with irqs on as soon as it is woken,
 * then times a second pass, and exits: readers woken later, or run later
 * by the host, time their pass while the first ones are already gone.
 * The untimed pass has no time limit (refscale.run_ms= cuts only the
 * timed one): meant for fixed loop counts, as gpcompare --readside runs.
 */
static unsigned int rs_linux_start;
core_param(refscale.linux_start, rs_linux_start, uint,
	   "0: readers start together at a barrier (default); 1: as Linux 6.1's refscale, each on its own after one untimed pass");
static unsigned int rs_verbose;
core_param(refscale.verbose, rs_verbose, uint,
	   "1: print each run's readers (start, after the first reader's, and time taken), as Linux's refscale prints its experiments");
static unsigned int rs_run_timeout_s = 300;
core_param(refscale.run_timeout, rs_run_timeout_s, uint,
	   "seconds one run may take before it is reported as hung");

#define RS_MAX_BATCHES 512

struct rs_reader {
	u64 start;		/* TSC at the timed loop's start */
	u64 cycles;		/* the timed loop, whole */
	long sections;		/* critical sections done */
	unsigned long gaps;
	u64 gap_cycles;		/* what the gaps took beyond a median batch */
	int pc_before, pc_after;	/* preempt_count around the loop */
	bool cut;		/* stopped at the time limit, short of loops */
	u32 batch[RS_MAX_BATCHES];	/* cycles per batch */
	u32 bsize[RS_MAX_BATCHES];	/* sections in each batch */
	int nbatch;
	u32 median_batch;	/* after rs_count_gaps(): cycles per section x16 */
};

struct rs_run {
	const struct rs_ops *ops;
	unsigned int cs_ns;
	long loops, per_batch;
	u64 limit_ns;		/* a reader quits between batches after this long */
	struct rs_reader r[NR_CPUS];
};

/*
 * Sections with work inside are counted by the work they add up to per
 * reader and run (0.5 ms quick, 20 ms full): under QEMU each TSC read in
 * ndelay() is slow with many vCPUs, and a run must still end in seconds.
 */
long refscale_loops(unsigned int cs_ns)
{
	if (rs_loops_param)
		return (long)rs_loops_param;
	if (!cs_ns)
		return scen_full() ? 1000000 : 20000;
	long work_ns = scen_full() ? 20000000 : 500000;

	return MAX(scen_full() ? 100l : 20l, work_ns / (long)cs_ns);
}

unsigned int refscale_run_ms(void)
{
	return rs_run_ms_param ? rs_run_ms_param : scen_full() ? 250 : 30;
}

int refscale_runs(void)
{
	return rs_runs_param ? (int)MIN(rs_runs_param, 100u) : scen_full() ? 10 : 3;
}

static void rs_reader_fn(struct scen_worker *w)
{
	struct rs_run *run = w->arg;
	struct rs_reader *r = &run->r[w->idx];
	const struct rs_ops *ops = run->ops;
	long left = run->loops;

	r->pc_before = preempt_count();
	if (rs_linux_start) {
		if (run->cs_ns)
			ops->read_delay(run->loops, run->cs_ns);
		else
			ops->read(run->loops);
	} else if (!scen_start_barrier(w)) {
		return;
	}
	u64 start = get_cycles_ordered();

	r->start = start;
	/* The time limit in TSC cycles, checked between batches against the
	 * batch's own end time: no clock read besides the batch's two. */
	u64 stop = start + scen_ns_to_cycles(run->limit_ns);
	/* Batches start at one section and double up to per_batch while
	 * they stay quick; one that takes an eighth of the time limit (a
	 * convoy formed after the probes) halves the next: so the limit,
	 * checked between batches, holds. */
	u64 slow = scen_ns_to_cycles(run->limit_ns / 8);
	long per_batch = 1;
	unsigned long loop_flags = 0;

	if (rs_irqs_off >= 2)
		local_irq_save(loop_flags);
	while (left > 0) {
		long n = MIN(left, per_batch);
		unsigned long flags = 0;

		if (rs_irqs_off == 1)
			local_irq_save(flags);
		u64 t0 = get_cycles();

		if (run->cs_ns)
			ops->read_delay(n, run->cs_ns);
		else
			ops->read(n);
		u64 t1 = get_cycles(), d = t1 - t0;

		if (rs_irqs_off == 1)
			local_irq_restore(flags);

		r->bsize[r->nbatch] = (u32)n;
		r->batch[r->nbatch++] = d > 0xffffffffu ? 0xffffffffu : (u32)d;
		r->sections += n;
		left -= n;
		if (d > slow && per_batch > 1)
			per_batch /= 2;
		else if (d < slow / 4 && per_batch < run->per_batch)
			per_batch = MIN(per_batch * 2, run->per_batch);
		if (left > 0 && (t1 >= stop || r->nbatch == RS_MAX_BATCHES)) {
			r->cut = true;
			break;
		}
	}
	r->cycles = get_cycles_ordered() - start;
	if (rs_irqs_off >= 2)
		local_irq_restore(loop_flags);
	r->pc_after = preempt_count();
}

/* A batch is a host gap when it took RS_GAP_NS longer than the reader's
 * median batch of its size; what it took beyond that median goes to
 * r->gap_cycles.  Batch sizes vary (halved when slow), so the median is
 * of the cost per section (x16, in cycles); the batch array is sorted in
 * place (outside the timed loop) into those costs. */
static unsigned long rs_count_gaps(struct rs_reader *r)
{
	u32 *v = r->batch;
	int n = r->nbatch;
	u64 gap = scen_ns_to_cycles(RS_GAP_NS);
	unsigned long gaps = 0;

	r->gap_cycles = 0;
	if (!n) {
		r->median_batch = 0;
		return 0;
	}
	for (int i = 0; i < n; i++)
		v[i] = (u32)MIN((u64)v[i] * 16 / MAX(r->bsize[i], 1u), 0xffffffffull);
	for (int i = 1; i < n; i++) {		/* sizes ride along */
		u32 x = v[i], s = r->bsize[i];
		int j = i - 1;

		for (; j >= 0 && v[j] > x; j--) {
			v[j + 1] = v[j];
			r->bsize[j + 1] = r->bsize[j];
		}
		v[j + 1] = x;
		r->bsize[j + 1] = s;
	}
	r->median_batch = v[n / 2];
	for (int i = 0; i < n; i++) {
		u64 med = (u64)v[n / 2] * r->bsize[i] / 16, got = (u64)v[i] * r->bsize[i] / 16;

		if (got > med + gap) {
			gaps++;
			r->gap_cycles += got - med;
		}
	}
	return gaps;
}

/* One run of `loops` sections per reader; adds what it measured to *cycles
 * (summed over readers; *gap_cycles what the host gaps took of it) and
 * res (host gaps, sections, cut runs).  0 or
 * -errno.  A reader stops early after limit_ns (a lock convoy on the
 * host): *done says how many sections were done in all, *cut whether
 * some reader was cut short. */
static int rs_one_run(const struct rs_ops *ops, const int *online, int cpus,
		      unsigned int cs_ns, long loops, struct rs_run *run,
		      struct scen_group *g, u64 *cycles, struct rs_result *res,
		      u64 limit_ns, long long *done, bool *cut, u64 *batch_ps,
		      u64 *gap_cycles)
{
	int ret;

	memset(run, 0, sizeof(*run));
	run->ops = ops;
	run->cs_ns = cs_ns;
	run->loops = loops;
	run->limit_ns = limit_ns;
	/* RS_BATCHES full batches (the rest of RS_MAX_BATCHES is for the
	 * ramp and for halvings), of a few sections at least, so that a
	 * batch's TSC reads (slow under TCG) do not weigh on the gross. */
	run->per_batch = MAX((loops + RS_BATCHES - 1) / RS_BATCHES, MIN(loops / 8, 32l));
	run->per_batch = MAX(run->per_batch, 1l);
	ret = scen_group_start(g, online, cpus, rs_reader_fn, run);
	if (!ret)
		ret = scen_group_wait(g, rs_run_timeout_s * 1000);
	if (!ret && g->failed)
		ret = -ETIMEDOUT;
	if (ret)
		return ret;
	long long sections = 0;
	u64 meds[NR_CPUS];

	*cycles = 0;
	*gap_cycles = 0;
	*cut = false;
	for (int c = 0; c < cpus; c++) {
		struct rs_reader *r = &run->r[c];

		/* Every reader did all its sections, or was cut short. */
		if (r->sections != loops && !r->cut) {
			pr_err("refscale: %s: reader %d did %ld critical sections of %ld\n",
			       ops->type, c, r->sections, loops);
			ret = -EIO;
		}
		*cut |= r->cut;
		if (r->pc_after != r->pc_before) {
			pr_err("refscale: %s: reader %d left preempt_count at %#x (was %#x)\n",
			       ops->type, c, r->pc_after, r->pc_before);
			ret = -EIO;
		}
		*cycles += r->cycles;
		sections += r->sections;
		unsigned long gaps = rs_count_gaps(r);

		r->gaps = gaps;

		*gap_cycles += MIN(r->gap_cycles, r->cycles);
		if (res)
			res->host_gaps += gaps;
		meds[c] = scen_cycles_to_ps(r->median_batch) / 16;
	}
	if (rs_verbose) {
		u64 first = run->r[0].start;

		for (int c = 1; c < cpus; c++)
			first = MIN(first, run->r[c].start);
		for (int c = 0; c < cpus; c++)
			ktap_log("refscale: %s x%d reader %d on CPU %d: start +%llu us, %llu us for %ld sections, %lu gaps, median batch %llu ps a section",
				 ops->type, cpus, c, online[c],
				 (unsigned long long)(scen_cycles_to_ps(run->r[c].start - first) / 1000000),
				 (unsigned long long)(scen_cycles_to_ps(run->r[c].cycles) / 1000000),
				 run->r[c].sections, run->r[c].gaps,
				 (unsigned long long)(scen_cycles_to_ps(run->r[c].median_batch) / 16));
	}
	/* The readers' median batches, per section: what a section costs
	 * when the host lets the vCPU run (a mean over the run also counts
	 * the time the host took it away). */
	struct scen_stats st;

	scen_stats(meds, cpus, &st);
	*batch_ps = st.median;
	*done = sections;
	if (!sections)
		ret = -EIO;	/* not one section in the time limit */
	if (res) {
		res->sections += sections;
		res->cut_runs += *cut;
	}
	return ret;
}

/*
 * The loop count that makes one run last about the run budget per
 * reader, at most `loops`.  Under QEMU TCG with more vCPUs than host
 * cores a contended FIFO lock (rwlock_fair's queue, or spinlocks with
 * spinlock.virt=0) hands over only when the host happens to run the next
 * waiter's vCPU, and even a test-and-set lock's holder may be
 * descheduled, so one section can cost milliseconds
 * instead of tens of ns: a fixed count would then run for minutes.  The
 * probe runs grow, as Go's testing.B's do, until one lasts an eighth of
 * the budget or shows that `loops` fits four times over; a probe stops
 * early at twice the budget (then its sections so far give the cost).
 * They are warm-up, not reported.
 */
static long rs_fit_loops(const struct rs_ops *ops, const int *online, int cpus,
			 unsigned int cs_ns, long loops, struct rs_run *run,
			 struct scen_group *g, int *ret)
{
	u64 budget_ns = (u64)refscale_run_ms() * 1000000;
	long probe = MIN(loops, 16l);

	*ret = 0;
	if (rs_loops_param || !budget_ns)
		return loops;	/* asked for exactly this many */
	long min_loops = scen_full() ? RS_MIN_LOOPS : RS_MIN_LOOPS_QUICK;

	for (;;) {
		u64 cycles, batch_ps, gap_cycles;
		long long done = 0;
		bool cut;

		*ret = rs_one_run(ops, online, cpus, cs_ns, probe, run, g, &cycles, NULL,
				  2 * budget_ns, &done, &cut, &batch_ps, &gap_cycles);
		if (*ret)
			return probe;
		/* The probe's time less its host gaps (rs_count_gaps()): a
		 * vCPU the host took away for milliseconds in a probe of a
		 * few sections (quick runs on a loaded host: loops=270 where
		 * 20000 fit) made the probe look like a convoy, and the count
		 * so small that the timing's own cost per batch dominated.
		 * A convoy slows every batch, not a few, so it stays in. */
		u64 busy = cycles - MIN(gap_cycles, cycles);
		u64 per_reader_ns = scen_cycles_to_ps(busy / (u64)cpus) / 1000;
		/* Sections one reader fits in the budget, from the median
		 * batch: one host gap in a short probe must not shrink the
		 * count.  Never more than the sections the probe itself did
		 * would suggest, ten times over. */
		u64 fit = budget_ns * 1000 / (batch_ps ? batch_ps : 1);
		u64 by_total = (u64)done * budget_ns / (u64)cpus / (per_reader_ns ? per_reader_ns : 1);

		fit = MIN(fit, 10 * by_total);

		if (probe >= loops && !cut)
			return loops;
		if (cut || per_reader_ns >= budget_ns / 8 || fit >= 4 * (u64)loops)
			return (long)MAX((u64)min_loops, MIN(fit, (u64)loops));
		probe = (long)MIN((u64)loops, (u64)probe * MAX(2ull, MIN(100ull, fit / (u64)probe / 2)));
	}
}

int refscale_measure(const struct rs_ops *ops, int cpus, unsigned int cs_ns,
		     long loops, int runs, struct rs_result *res)
{
	int online[NR_CPUS];
	int n = scen_online_cpus(online, NR_CPUS);
	u64 per_run_ps[100], batch_run_ps[100], less_gaps_run_ps[100], mcycles_sum = 0;
	int ret = 0;

	memset(res, 0, sizeof(*res));
	res->cpus = cpus;
	res->cs_ns = cs_ns;
	res->loops = loops;
	if (cpus < 1 || cpus > n || loops < 1 || runs < 1)
		return -EINVAL;
	runs = MIN(runs, (int)ARRAY_SIZE(per_run_ps));

	struct rs_run *run = kzalloc(sizeof(*run), GFP_KERNEL);
	struct scen_group *g = scen_group_alloc();

	if (!run || !g) {
		kfree(run);
		kfree(g);
		return -ENOMEM;
	}
	scen_convoy_begin(cpus);
	loops = rs_fit_loops(ops, online, cpus, cs_ns, loops, run, g, &ret);
	res->loops = loops;
	if (ret)
		pr_err("refscale: %s cpus=%d cs_ns=%u: probe run failed (%d)\n",
		       ops->type, cpus, cs_ns, ret);
	/* A run a convoy makes far longer than the probes said is cut short
	 * (and says so in the row) rather than left to run for minutes. */
	u64 limit_ns = MAX(20ull * refscale_run_ms(), 1000ull) * 1000000ull;

	if (rs_loops_param)
		limit_ns = (u64)rs_run_timeout_s * 1000000000ull;
	for (int i = 0; i < runs && !ret; i++) {
		u64 cycles, batch_ps, gap_cycles;
		long long done;
		bool cut;

		ret = rs_one_run(ops, online, cpus, cs_ns, loops, run, g, &cycles, res,
				 limit_ns, &done, &cut, &batch_ps, &gap_cycles);
		if (ret) {
			pr_err("refscale: %s cpus=%d cs_ns=%u: run %d failed (%d)\n",
			       ops->type, cpus, cs_ns, i, ret);
			break;
		}
		u64 ops_done = (u64)done;

		per_run_ps[i] = scen_cycles_to_ps(cycles) / ops_done;
		batch_run_ps[i] = batch_ps;
		less_gaps_run_ps[i] = scen_cycles_to_ps(cycles - gap_cycles) / ops_done;
		mcycles_sum += cycles * 1000 / ops_done;
		res->runs++;
	}
	scen_convoy_end(cpus);
	if (!ret && ops->idle && !ops->idle()) {
		pr_err("refscale: %s: not back to its idle state after the readers\n", ops->type);
		ret = -EIO;
	}
	if (res->runs) {
		struct scen_stats bst, lst;

		scen_stats(per_run_ps, res->runs, &res->ps);
		scen_stats(batch_run_ps, res->runs, &bst);
		res->batch_ps = bst.median;
		scen_stats(less_gaps_run_ps, res->runs, &lst);
		res->less_gaps_ps = lst.median;
		res->mean_mcycles = mcycles_sum / (u64)res->runs;
	}
	/* After a timeout a worker may still write its reader slot: leak. */
	if (ret != -ETIMEDOUT)
		kfree(run);
	scen_group_free(g, ret == -ETIMEDOUT ? ret : 0);
	return ret;
}

void refscale_print_row(const char *name, const struct rs_ops *ops,
			const struct rs_result *r, const struct rs_result *empty)
{
	char mean[SCEN_FMT_BUF], sd[SCEN_FMT_BUF], med[SCEN_FMT_BUF], cyc[SCEN_FMT_BUF];
	char bat[SCEN_FMT_BUF], lgap[SCEN_FMT_BUF];
	char net[SCEN_FMT_BUF + 8] = "";

	if (empty && empty->runs) {
		char b[SCEN_FMT_BUF];

		snprintf(net, sizeof(net), " net_ns=%s",
			 scen_fmt_ps(b, sizeof(b), (s64)r->ps.mean - (s64)empty->ps.mean));
	}
	/* millicycles print like picoseconds: three decimals. */
	ktap_log("bench name=%s type=%s cpus=%d vcpus=%d cs_ns=%u ns_per_op=%s stddev=%s runs=%d median_ns=%s cycles_per_op=%s host_gaps=%lu loops=%ld cut_runs=%d batch_ns=%s less_gaps_ns=%s%s%s%s",
		 name, ops->type, r->cpus, num_online_cpus(), r->cs_ns,
		 scen_fmt_ps(mean, sizeof(mean), (s64)r->ps.mean),
		 scen_fmt_ps(sd, sizeof(sd), (s64)r->ps.stddev), r->runs,
		 scen_fmt_ps(med, sizeof(med), (s64)r->ps.median),
		 scen_fmt_ps(cyc, sizeof(cyc), (s64)r->mean_mcycles),
		 r->host_gaps, r->loops, r->cut_runs,
		 scen_fmt_ps(bat, sizeof(bat), (s64)r->batch_ps),
		 scen_fmt_ps(lgap, sizeof(lgap), (s64)r->less_gaps_ps), net,
		 rs_irqs_off == 1 ? " irqs_off=1" : rs_irqs_off ? " irqs_off=2" : "",
		 rs_linux_start ? " linux_start=1" : "");
	if (r->cut_runs)
		ktap_log("%s cpus=%d cs_ns=%u: %d of %d runs cut short at their time limit (a lock convoy on the host): figures from the sections done",
			 ops->type, r->cpus, r->cs_ns, r->cut_runs, r->runs);
}

/* ---- the empty loop beside each row, for net_ns ---- */

/* Results at cs_ns=0 by type and CPU count, for net_ns and the goals. */
static struct rs_result rs_zero[16][NR_CPUS + 1];

static int ops_index(const struct rs_ops *ops)
{
	return (int)(ops - rs_ops_table);
}

struct rs_result *refscale_zero(const struct rs_ops *ops, int cpus)
{
	return &rs_zero[ops_index(ops)][cpus];
}

/* The empty loop at cs_ns > 0, measured once per point. */
static struct empty_at_cs {
	int cpus;
	unsigned int cs_ns;
	struct rs_result r;
} empty_cs[32];

void refscale_empty_keep(int cpus, unsigned int cs_ns, const struct rs_result *r)
{
	for (unsigned int i = 0; cs_ns && i < ARRAY_SIZE(empty_cs); i++)
		if (!empty_cs[i].r.runs) {
			empty_cs[i].cpus = cpus;
			empty_cs[i].cs_ns = cs_ns;
			empty_cs[i].r = *r;
			return;
		}
}

const struct rs_result *refscale_empty_at(int cpus, unsigned int cs_ns, struct rs_result *tmp)
{
	const struct rs_ops *e = rs_ops_find("empty");
	struct empty_at_cs *slot = NULL;

	if (cs_ns == 0 && rs_zero[ops_index(e)][cpus].runs)
		return &rs_zero[ops_index(e)][cpus];
	for (unsigned int i = 0; cs_ns && i < ARRAY_SIZE(empty_cs); i++) {
		if (empty_cs[i].r.runs && empty_cs[i].cpus == cpus && empty_cs[i].cs_ns == cs_ns)
			return &empty_cs[i].r;
		if (!slot && !empty_cs[i].r.runs)
			slot = &empty_cs[i];
	}
	if (refscale_measure(e, cpus, cs_ns, refscale_loops(cs_ns), refscale_runs(), tmp))
		return NULL;
	if (slot) {
		slot->cpus = cpus;
		slot->cs_ns = cs_ns;
		slot->r = *tmp;
	}
	return tmp;
}

bool refscale_case_ops(const struct rs_ops *ops, const char *type, const char *list,
		       const char *opt)
{
	if (!ops) {
		ktap_fail("no reader type %s", type);
		return false;
	}
	if (!scen_list_has(list, type)) {
		ktap_skip("not in %s=", opt);
		return false;
	}
	return true;
}
