/* tests/scenarios/paper_concurrent.c: "RCU Readers and Updaters Run
 * Concurrently", the article's timeline figure.
 *
 * Readers on every CPU but the updater's run short critical sections
 * (cs_ns of work each) that read one value; the updater changes it once:
 *  - rcu-sched: publish the new version (rcu_assign_pointer, time t1),
 *    then synchronize_sched() (returns at t2);
 *  - rwlock / rwlock-fair: write_lock (acquired at t1), write, unlock (t2).
 * t0 is when the update starts.  Each row says how soon readers saw the
 * new value (first_new_ns: the earliest start of a section that saw it,
 * from t0) and how long the old one was still seen (last_old_ns: the
 * latest end of a section that saw it).  The guarantees are checked,
 * from TSC stamps taken inside the sections (causality makes them hold
 * on any CPU whose TSC is synchronised):
 *  - RCU: a reader that begins after the updater completes (t2) sees the
 *    new value;
 *  - rwlock: a reader that saw the old value ended before the writer got
 *    the lock (t1), and one that saw the new value began after it let go
 *    (t2).
 * A few sections per reader around the update are printed as
 * `# bench name=timeline` rows for the report's figure.
 */
#include "tests/scenarios/scenario.h"
#include "kernel/cmdline.h"
#include "kernel/ktap.h"
#include "kernel/printk.h"
#include "kernel/rwlock.h"
#include "kernel/slab.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "kernel/trace.h"

static unsigned int cc_cs_ns = 2000;
core_param(concurrent.cs_ns, cc_cs_ns, uint, "work (ns) in each reader's section in paper_concurrent");
static unsigned int cc_timeline_readers = 8;
core_param(concurrent.timeline_readers, cc_timeline_readers, uint,
	   "readers whose sections paper_concurrent prints as timeline rows");

enum cc_type { CC_RCU, CC_RWLOCK, CC_RWLOCK_FAIR };
static const char *const cc_names[] = { "rcu-sched", "rwlock", "rwlock-fair" };

#define CC_BEFORE 8		/* sections kept from before the update */
#define CC_AFTER 56		/* ... and from its start on */
#define CC_RING (CC_BEFORE + CC_AFTER)
/* trace=rcu: the article's figure (tools/report/trace_events.py) needs
 * readers that were already reading when the update began (they may see
 * either value) and readers that began after it completed (guaranteed to
 * see the new one).  Readers trace their sections from just before the
 * update (the updater waits until each has begun one, twice: at most
 * CC_TRACE_BEFORE each per round, should one reader's vCPU not run), and
 * CC_TRACE_DONE begun once it is over (a reader that has its sections
 * for the rows stops after that one). */
#define CC_TRACE_BEFORE 32
#define CC_TRACE_DONE 1

struct cc_sec {
	u64 ts, te;		/* cycles: inside the section, first and last */
	bool saw_new;
};

struct cc_reader {
	struct cc_sec before[CC_BEFORE];	/* circular */
	unsigned int nbefore, bhead;
	struct cc_sec after[CC_AFTER];
	unsigned int nafter;
	unsigned long sections, saw_new, saw_old;
	u64 first_new_ts, last_new_ts;	/* min/max ts of sections that saw new */
	u64 last_old_ts, last_old_te;	/* max ts/te of sections that saw old */
	u64 first_new_te;
	int trace_round;	/* trace=rcu: the updater's round it last traced in */
	int ntraced_pre;	/* ... sections begun, traced, in that round */
	int ntraced_done;	/* ... and begun after it completed */
};

struct cc_value {
	long v;
};

struct cc_ctx {
	enum cc_type type;
	unsigned int cs_ns;
	int phase;		/* 0 before, 1 updating, 2 done (release/acquire) */
	int tracing;		/* trace=rcu: round of tracing before the update, 0: none */
	u64 t0, t1, t2;
	u64 t1_ns;		/* ktime_get_ns() at t1 */
	struct cc_reader r[NR_CPUS];
};

static struct cc_value cc_vals[2] = { { 0 }, { 1 } };
static struct cc_value *cc_cur;
static long cc_rw_val;
static DEFINE_RWLOCK(cc_rw);
static DEFINE_RWLOCK_FAIR(cc_rw_fair);

static void cc_record(struct cc_ctx *x, struct cc_reader *r, u64 ts, u64 te, bool saw_new)
{
	int phase = smp_load_acquire(&x->phase);

	r->sections++;
	if (saw_new) {
		r->saw_new++;
		if (!r->first_new_ts || ts < r->first_new_ts)
			r->first_new_ts = ts;
		if (!r->first_new_te || te < r->first_new_te)
			r->first_new_te = te;
		if (ts > r->last_new_ts)
			r->last_new_ts = ts;
	} else {
		r->saw_old++;
		if (ts > r->last_old_ts)
			r->last_old_ts = ts;
		if (te > r->last_old_te)
			r->last_old_te = te;
	}
	/* The timeline: the last few sections before the update, then every
	 * one until the buffer is full. */
	struct cc_sec sec = { ts, te, saw_new };

	if (phase == 0 && !saw_new) {
		r->before[r->bhead] = sec;
		r->bhead = (r->bhead + 1) % CC_BEFORE;
		if (r->nbefore < CC_BEFORE)
			r->nbefore++;
	} else if (r->nafter < CC_AFTER) {
		r->after[r->nafter++] = sec;
	}
}

/* The reader's kept sections, oldest first; returns how many. */
static int cc_sections(struct cc_reader *r, struct cc_sec *out)
{
	int n = 0;
	unsigned int start = r->nbefore < CC_BEFORE ? 0 : r->bhead;

	for (unsigned int i = 0; i < r->nbefore; i++)
		out[n++] = r->before[(start + i) % CC_BEFORE];
	for (unsigned int i = 0; i < r->nafter; i++)
		out[n++] = r->after[i];
	return n;
}

/* A reader's section under either rwlock: stamped at its start and end,
 * cs_ns long; returns the value it saw. */
static long cc_rw_read_section(struct cc_ctx *x, u64 *ts, u64 *te)
{
	long v;

	*ts = get_cycles_ordered();
	v = READ_ONCE(cc_rw_val);
	ndelay(x->cs_ns);
	*te = get_cycles_ordered();
	return v;
}

/* The updater's section under either rwlock: the new value, held cs_ns. */
static void cc_rw_write_section(struct cc_ctx *x)
{
	x->t1 = get_cycles_ordered();
	x->t1_ns = ktime_get_ns();
	WRITE_ONCE(cc_rw_val, 1);
	ndelay(x->cs_ns);
	x->t2 = get_cycles_ordered();
}

/* Before the update: whether this reader traces its next section (its
 * first CC_TRACE_BEFORE of the updater's current round of tracing). */
static bool cc_trace_pre(struct cc_ctx *x, struct cc_reader *r)
{
	int round = smp_load_acquire(&x->tracing);

	if (!round)
		return false;
	if (round != r->trace_round) {
		r->ntraced_pre = 0;
		smp_store_release(&r->trace_round, round);
	}
	return r->ntraced_pre < CC_TRACE_BEFORE;
}

static void cc_reader_fn(struct scen_worker *w)
{
	struct cc_ctx *x = w->arg;
	struct cc_reader *r = &x->r[w->idx];

	/* RCU's updater always completes, so every reader owes one section
	 * begun after it did, however late the host runs the reader.  (Under
	 * an rwlock the writer may starve until the readers stop: there
	 * the run's end stands.) */
	if (x->type == CC_RCU)
		scen_owe(w);
	if (!scen_start_barrier(w))
		return;
	while (!scen_should_stop(w)) {
		/* Read before the section: if the update is over, the
		 * section begins after it and must see the new value. */
		bool after = smp_load_acquire(&x->phase) == 2;
		u64 ts, te;
		long v;

		switch (x->type) {
		case CC_RCU: {
			struct cc_value *p;
			/* trace=rcu: the sections from just before the update
			 * on, as the rows keep them, and a few begun after it
			 * completed, for the timeline (tools/trace.py). */
			int ph = smp_load_acquire(&x->phase);
			bool traced = (ph && r->nafter < CC_AFTER) ||
				      (!ph && cc_trace_pre(x, r)) ||
				      (after && r->ntraced_done < CC_TRACE_DONE);

			rcu_read_lock_sched();
			ts = get_cycles_ordered();
			if (traced)
				trace_rcu_reader("rcu-sched", "begin", w->idx, 0);
			if (traced && !ph)
				r->ntraced_pre++;
			p = rcu_dereference(cc_cur);
			v = READ_ONCE(p->v);
			ndelay(x->cs_ns);
			te = get_cycles_ordered();
			if (traced)
				trace_rcu_reader("rcu-sched", "end", w->idx, v == 1);
			rcu_read_unlock_sched();
			if (traced && after)
				r->ntraced_done++;
			break;
		}
		case CC_RWLOCK:
			read_lock(&cc_rw);
			v = cc_rw_read_section(x, &ts, &te);
			read_unlock(&cc_rw);
			break;
		default:
			read_lock(&cc_rw_fair);
			v = cc_rw_read_section(x, &ts, &te);
			read_unlock(&cc_rw_fair);
			break;
		}
		cc_record(x, r, ts, te, v == 1);
		if (after) {
			scen_paid(w);
			scen_progress(w);
			/* A few sections around the update suffice. */
			if (r->nafter >= CC_AFTER)
				break;
		}
		scen_yield();
	}
	scen_paid(w);
}

/*
 * trace=rcu: the readers trace their sections, and the update waits until
 * each has begun a traced section, so that the trace shows what each was
 * doing as the update began.  Twice: a reader whose vCPU the host ran late
 * makes the others use up their CC_TRACE_BEFORE sections in the first
 * round, long before the update; the second round, with every reader
 * running, is short.  Bounded: a reader the host does not run is drawn
 * without them.
 */
static void cc_trace_before(struct scen_worker *w, struct cc_ctx *x)
{
	u64 until = ktime_get_ns() + 200 * 1000000ull;

	for (int round = 1; round <= 2; round++) {
		int i;

		smp_store_release(&x->tracing, round);
		do {
			for (i = 1; i < w->g->n; i++)
				if (smp_load_acquire(&x->r[i].trace_round) != round)
					break;
			if (i == w->g->n)
				break;
			scen_yield();
		} while (ktime_get_ns() < until);
	}
}

static void cc_updater_fn(struct scen_worker *w)
{
	struct cc_ctx *x = w->arg;

	if (!scen_start_barrier(w))
		return;
	scen_sleep_ms(5);	/* readers in full swing first */
	if (x->type == CC_RCU && READ_ONCE(trace_subsys_on[TRACE_RCU]))
		cc_trace_before(w, x);
	x->t0 = get_cycles_ordered();
	smp_store_release(&x->phase, 1);
	switch (x->type) {
	case CC_RCU:
		trace_rcu_reader("rcu-sched", "update", w->idx, 0);
		rcu_assign_pointer(cc_cur, &cc_vals[1]);
		x->t1 = get_cycles_ordered();
		trace_rcu_reader("rcu-sched", "commit", w->idx, 1);
		synchronize_sched();
		x->t2 = get_cycles_ordered();
		trace_rcu_reader("rcu-sched", "updated", w->idx, 1);
		break;
	case CC_RWLOCK:
		write_lock(&cc_rw);
		cc_rw_write_section(x);
		write_unlock(&cc_rw);
		break;
	default:
		write_lock(&cc_rw_fair);
		cc_rw_write_section(x);
		write_unlock(&cc_rw_fair);
		break;
	}
	/* The readers end by themselves: each after a section begun once
	 * this was seen (not a time after it, which a reader the host does
	 * not run may miss entirely). */
	smp_store_release(&x->phase, 2);
}

/* Signed ns from t0 to t (cycles). */
static s64 rel_ps(u64 t, u64 t0)
{
	return t >= t0 ? (s64)scen_cycles_to_ps(t - t0) : -(s64)scen_cycles_to_ps(t0 - t);
}

static void cc_worker_fn(struct scen_worker *w);
static void cc_report(struct cc_ctx *x, int n, u64 readers_end_ns);

static void cc_run(enum cc_type type)
{
	int cpus[NR_CPUS], n;
	const char *name = cc_names[type];
	struct scen_group *g;
	struct cc_ctx *x = scen_setup(cpus, &n, sizeof(*x), &g, "a reader beside the updater");

	if (!x)
		return;
	x->type = type;
	x->cs_ns = cc_cs_ns;
	cc_cur = &cc_vals[0];
	cc_rw_val = 0;
	smp_mb();

	/* Worker 0 (the first CPU) updates; the rest read.  The readers end
	 * by themselves after 2 s (10 s full) should the updater starve. */
	if (scen_run(g, cpus, n, cc_worker_fn, x, scen_full() ? 10000 : 2000, true, name))
		return;		/* x and g stay: a worker may still use them */
	if (smp_load_acquire(&x->phase) != 2)
		ktap_fail("%s: the update never completed", name);
	else
		cc_report(x, n, g->end_ns);
	kfree(x);
	scen_group_free(g, 0);
}

/* scen_group_start() runs one function on every worker: this one picks
 * the role by index. */
static void cc_worker_fn(struct scen_worker *w)
{
	if (w->idx == 0)
		cc_updater_fn(w);
	else
		cc_reader_fn(w);
}

static void cc_report(struct cc_ctx *x, int n, u64 readers_end_ns)
{
	/* The writer got in only once the readers had quit: the 2007
	 * rwlock prefers readers, and a steady stream of them starves it.
	 * Known from the clock, or (below) because every reader section
	 * ended before the writer held the lock. */
	bool starved = x->type != CC_RCU && x->t1_ns + 1000000 >= readers_end_ns;
	const char *name = cc_names[x->type];
	u64 first_new = 0, last_old = 0, last_old_ts = 0, first_new_ts = 0;
	unsigned long sections = 0, saw_new = 0, saw_old = 0;
	/* TSC stamps on different CPUs: allow a little skew (none is seen
	 * under QEMU; a PC's sync check bounds it far below this). */
	u64 slack = scen_ns_to_cycles(1000);
	char b1[SCEN_FMT_BUF], b2[SCEN_FMT_BUF], b3[SCEN_FMT_BUF], b4[SCEN_FMT_BUF];

	for (int i = 1; i < n; i++) {
		struct cc_reader *r = &x->r[i];

		sections += r->sections;
		saw_new += r->saw_new;
		saw_old += r->saw_old;
		if (r->saw_new && (!first_new || r->first_new_ts < first_new))
			first_new = r->first_new_ts;
		if (r->saw_old && r->last_old_te > last_old)
			last_old = r->last_old_te;
		if (r->saw_old && r->last_old_ts > last_old_ts)
			last_old_ts = r->last_old_ts;
		if (r->saw_new && (!first_new_ts || r->first_new_ts < first_new_ts))
			first_new_ts = r->first_new_ts;
	}
	if (x->type != CC_RCU && !saw_new && saw_old && last_old <= x->t1 + slack)
		starved = true;
	ktap_log("bench name=concurrent type=%s cpus=%d readers=%d cs_ns=%u update_ns=%s commit_ns=%s first_new_ns=%s last_old_ns=%s sections=%lu saw_new=%lu saw_old=%lu writer_starved=%d",
		 name, n, n - 1, x->cs_ns,
		 scen_fmt_ps(b1, sizeof(b1), rel_ps(x->t2, x->t0)),
		 scen_fmt_ps(b2, sizeof(b2), rel_ps(x->t1, x->t0)),
		 saw_new ? scen_fmt_ps(b3, sizeof(b3), rel_ps(first_new, x->t0)) : "na",
		 saw_old ? scen_fmt_ps(b4, sizeof(b4), rel_ps(last_old, x->t0)) : "na",
		 sections, saw_new, saw_old, starved);

	if (starved)
		ktap_log("%s: writer starved: it got the lock only when the readers stopped, %s ns after asking",
			 name, scen_fmt_ps(b1, sizeof(b1), rel_ps(x->t1, x->t0)));
	else if (!saw_new)
		ktap_fail("%s: no reader ever saw the new value", name);
	if (!saw_old)
		ktap_log("%s: no reader saw the old value (the update came before any section)", name);
	if (x->type == CC_RCU) {
		/* Began after the updater completed, yet saw the old value. */
		if (saw_old && last_old_ts > x->t2 + slack)
			ktap_fail("rcu-sched: a reader that began %s ns after synchronize_sched() returned saw the old value",
				  scen_fmt_ps(b1, sizeof(b1), rel_ps(last_old_ts, x->t2)));
	} else {
		if (saw_old && last_old > x->t1 + slack)
			ktap_fail("%s: a reader saw the old value but ended %s ns after the writer got the lock",
				  name, scen_fmt_ps(b1, sizeof(b1), rel_ps(last_old, x->t1)));
		if (saw_new && first_new_ts + slack < x->t2)
			ktap_fail("%s: a reader saw the new value but began %s ns before the writer let go",
				  name, scen_fmt_ps(b1, sizeof(b1), rel_ps(x->t2, first_new_ts)));
	}

	/* The timeline: per reader, the sections that overlap the update
	 * (and the one just before and after it). */
	ktap_log("bench name=timeline type=%s who=updater start_ns=0.000 commit_ns=%s end_ns=%s saw=update",
		 name, scen_fmt_ps(b1, sizeof(b1), rel_ps(x->t1, x->t0)),
		 scen_fmt_ps(b2, sizeof(b2), rel_ps(x->t2, x->t0)));
	int shown = 0;

	for (int i = 1; i < n && shown < (int)cc_timeline_readers; i++, shown++) {
		struct cc_sec sec[CC_RING];
		int ns = cc_sections(&x->r[i], sec), first = -1, last = -1;

		for (int k = 0; k < ns; k++) {
			if (sec[k].te < x->t0)
				first = k;	/* the last one entirely before t0 */
			if (sec[k].ts > x->t2 && last < 0)
				last = k;	/* the first one entirely after t2 */
		}
		int from = first < 0 ? 0 : first, to = last < 0 ? ns - 1 : last;

		/* At most 12 rows per reader: a long grace period spans many
		 * sections; keep both ends. */
		for (int k = from; k <= to; k++) {
			if (to - from > 12 && k > from + 5 && k < to - 5)
				continue;
			ktap_log("bench name=timeline type=%s who=reader%d start_ns=%s end_ns=%s saw=%s",
				 name, i, scen_fmt_ps(b1, sizeof(b1), rel_ps(sec[k].ts, x->t0)),
				 scen_fmt_ps(b2, sizeof(b2), rel_ps(sec[k].te, x->t0)),
				 sec[k].saw_new ? "new" : "old");
		}
	}
}

static void concurrent_rcu_sched(void) { cc_run(CC_RCU); }
static void concurrent_rwlock(void) { cc_run(CC_RWLOCK); }
static void concurrent_rwlock_fair(void) { cc_run(CC_RWLOCK_FAIR); }

KTAP_SUITE(paper_concurrent,
	   KTAP_CASE(concurrent_rcu_sched),
	   KTAP_CASE(concurrent_rwlock_fair),
	   KTAP_CASE(concurrent_rwlock));
