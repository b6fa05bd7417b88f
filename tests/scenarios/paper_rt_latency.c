/* tests/scenarios/paper_rt_latency.c: the article's "Realtime Latency".
 *
 * While an updater on the first CPU updates without pause, readers on the
 * other CPUs time how long each takes to *enter* its critical section
 * (TSC before the lock call to TSC inside).  An RCU reader never waits;
 * an rwlock reader waits behind the writer, and behind the 2007 rwlock's
 * or the fair rwlock's queue.  The updater changes a two-word record:
 * under the rwlock in place, under RCU by publishing a fresh copy and
 * freeing the old one after synchronize_sched() — so the checks that can
 * fail are that no reader ever sees the two words disagree or sees a
 * freed (poisoned) record.  Reported per type: entries timed, mean and
 * max entry latency, entries slower than 1 us and 10 us.
 *
 * However late the host runs their vCPUs, the updater owes RT_MIN_UPDATES
 * updates and every reader one entry before a run may end (scen_owe):
 * readers never keep an RCU updater out, so an updater short of them at
 * the end means the host did not run its vCPU, and the run says so.
 */
#include "tests/scenarios/scenario.h"
#include "kernel/cmdline.h"
#include "kernel/ktap.h"
#include "kernel/printk.h"
#include "kernel/rwlock.h"
#include "kernel/slab.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"

static unsigned int rt_ms;
core_param(rt_latency.ms, rt_ms, uint, "duration of each paper_rt_latency run in ms (default 200 quick, 2000 full)");
static unsigned int rt_update_ns = 1000;
core_param(rt_latency.update_ns, rt_update_ns, uint, "work (ns) inside each update of paper_rt_latency");

/* Updates the updater owes each run, however late the host runs it. */
#define RT_MIN_UPDATES 8

enum rt_type { RT_RCU, RT_RWLOCK, RT_RWLOCK_FAIR };
static const char *const rt_names[] = { "rcu-sched", "rwlock", "rwlock-fair" };

struct rec {
	long a, b;		/* always equal, to a reader that may look */
	unsigned long magic;
};
#define REC_MAGIC 0x7ea1ul

struct rt_ctx {
	enum rt_type type;
	struct rec *cur;	/* RCU form */
	struct rec inplace;	/* rwlock forms */
	rwlock_t rw;
	rwlock_fair_t rwf;
	spinlock_t ulock;
	u64 max[NR_CPUS], sum[NR_CPUS];
	unsigned long n[NR_CPUS], over1us[NR_CPUS], over10us[NR_CPUS], bad[NR_CPUS];
	unsigned long updates;
	unsigned long attempts;	/* updates begun (the updater ran) */
};

static void rt_reader(struct scen_worker *w, struct rt_ctx *x)
{
	u64 c1us = scen_ns_to_cycles(1000), c10us = scen_ns_to_cycles(10000);
	int i = w->idx;

	while (!scen_should_stop(w)) {
		long a, b;
		unsigned long m;
		u64 t0 = get_cycles_ordered(), d;

		switch (x->type) {
		case RT_RCU: {
			struct rec *p;

			rcu_read_lock_sched();
			d = get_cycles_ordered() - t0;
			p = rcu_dereference(x->cur);
			a = READ_ONCE(p->a);
			b = READ_ONCE(p->b);
			m = READ_ONCE(p->magic);
			rcu_read_unlock_sched();
			break;
		}
		case RT_RWLOCK:
			read_lock(&x->rw);
			d = get_cycles_ordered() - t0;
			a = READ_ONCE(x->inplace.a);
			b = READ_ONCE(x->inplace.b);
			m = READ_ONCE(x->inplace.magic);
			read_unlock(&x->rw);
			break;
		default:
			read_lock(&x->rwf);
			d = get_cycles_ordered() - t0;
			a = READ_ONCE(x->inplace.a);
			b = READ_ONCE(x->inplace.b);
			m = READ_ONCE(x->inplace.magic);
			read_unlock(&x->rwf);
			break;
		}
		x->n[i]++;
		x->sum[i] += d;
		if (d > x->max[i])
			x->max[i] = d;
		x->over1us[i] += d > c1us;
		x->over10us[i] += d > c10us;
		x->bad[i] += a != b || m != REC_MAGIC;
		scen_paid(w);
		scen_yield();
	}
}

static void rt_updater(struct scen_worker *w, struct rt_ctx *x)
{
	while (!scen_should_stop(w)) {
		long v = (long)x->updates + 1;

		WRITE_ONCE(x->attempts, x->attempts + 1);
		switch (x->type) {
		case RT_RCU: {
			struct rec *fresh = kmalloc(sizeof(*fresh), GFP_KERNEL), *old;

			if (!fresh)
				return;
			fresh->a = v;
			ndelay(rt_update_ns);	/* the update's own work, off the read path */
			fresh->b = v;
			fresh->magic = REC_MAGIC;
			spin_lock(&x->ulock);
			old = x->cur;
			rcu_assign_pointer(x->cur, fresh);
			spin_unlock(&x->ulock);
			synchronize_sched();
			kfree(old);
			break;
		}
		case RT_RWLOCK:
			write_lock(&x->rw);
			WRITE_ONCE(x->inplace.a, v);
			ndelay(rt_update_ns);
			WRITE_ONCE(x->inplace.b, v);
			write_unlock(&x->rw);
			break;
		default:
			write_lock(&x->rwf);
			WRITE_ONCE(x->inplace.a, v);
			ndelay(rt_update_ns);
			WRITE_ONCE(x->inplace.b, v);
			write_unlock(&x->rwf);
			break;
		}
		x->updates++;
		if (x->updates >= RT_MIN_UPDATES)
			scen_paid(w);
		else
			scen_progress(w);
		scen_yield();
	}
}

static void rt_worker(struct scen_worker *w)
{
	struct rt_ctx *x = w->arg;

	scen_owe(w);
	if (!scen_start_barrier(w))
		return;
	if (w->idx == 0)
		rt_updater(w, x);
	else
		rt_reader(w, x);
}

static void rt_run(enum rt_type type)
{
	int cpus[NR_CPUS], n;
	unsigned int ms = scen_run_ms(rt_ms);
	const char *name = rt_names[type];
	struct scen_group *g;
	struct rt_ctx *x = scen_setup(cpus, &n, sizeof(*x), &g, "readers beside the updater");

	if (!x)
		return;
	struct rec *first = kmalloc(sizeof(*first), GFP_KERNEL);

	if (!first) {
		scen_setup_undo(x, g);
		return;
	}
	x->type = type;
	*first = (struct rec){ 0, 0, REC_MAGIC };
	x->cur = first;
	x->inplace = (struct rec){ 0, 0, REC_MAGIC };
	rwlock_init(&x->rw);
	rwlock_fair_init(&x->rwf);
	spin_lock_init(&x->ulock);
	if (scen_run(g, cpus, n, rt_worker, x, ms, true, name))
		return;		/* left allocated: a worker may still use it */
	u64 max = 0, sum = 0;
	unsigned long entries = 0, o1 = 0, o10 = 0, bad = 0;

	for (int i = 1; i < n; i++) {
		if (x->max[i] > max)
			max = x->max[i];
		sum += x->sum[i];
		entries += x->n[i];
		o1 += x->over1us[i];
		o10 += x->over10us[i];
		bad += x->bad[i];
	}
	char b1[SCEN_FMT_BUF], b2[SCEN_FMT_BUF];

	ktap_log("bench name=rt_latency type=%s cpus=%d readers=%d ms=%u updates=%lu entries=%lu mean_ns=%s max_ns=%s over_1us=%lu over_10us=%lu bad=%lu",
		 name, n, n - 1, ms, x->updates, entries,
		 scen_fmt_ps(b1, sizeof(b1), entries ? (s64)(scen_cycles_to_ps(sum) / entries) : 0),
		 scen_fmt_ps(b2, sizeof(b2), (s64)scen_cycles_to_ps(max)), o1, o10, bad);
	if (bad)
		ktap_fail("%s: %lu reads saw a torn or freed record", name, bad);
	KTAP_EXPECT(entries > 0);
	/*
	 * Short of its minimum only once the run is over and then no update
	 * ended for scen_owe_grace_ns().  Say which: never run at all is
	 * the host's doing; waiting the whole time inside an update is an
	 * rwlock writer kept out by readers, or, for RCU, a grace period that
	 * did not end (which the stall detector names).
	 */
	if (x->updates < RT_MIN_UPDATES) {
		unsigned long grace_s = (unsigned long)(scen_owe_grace_ns() / 1000000000ull);

		if (!x->attempts)
			ktap_log("%s: updates=%lu of the %d owed: the updater's thread (CPU %d) "
				 "never ran in %u ms + %lu s: the host did not run that vCPU",
				 name, x->updates, RT_MIN_UPDATES, cpus[0], ms, grace_s);
		else if (type == RT_RCU)
			ktap_fail("%s: updates=%lu of the %d owed: a synchronize_sched() did not "
				  "return in %lu s (run %u ms)", name, x->updates, RT_MIN_UPDATES,
				  grace_s, ms);
		else
			ktap_log("%s: updates=%lu of the %d owed: the writer (CPU %d) ran but "
				 "waited for the lock for %lu s (run %u ms; the readers, or the "
				 "host not running a lock holder's vCPU)", name, x->updates,
				 RT_MIN_UPDATES, cpus[0], grace_s, ms);
	}
	kfree(x->cur);
	kfree(x);
	scen_group_free(g, 0);
}

static void rt_latency_rcu_sched(void) { rt_run(RT_RCU); }
static void rt_latency_rwlock(void) { rt_run(RT_RWLOCK); }
static void rt_latency_rwlock_fair(void) { rt_run(RT_RWLOCK_FAIR); }

KTAP_SUITE(paper_rt_latency,
	   KTAP_CASE(rt_latency_rcu_sched),
	   KTAP_CASE(rt_latency_rwlock),
	   KTAP_CASE(rt_latency_rwlock_fair));
