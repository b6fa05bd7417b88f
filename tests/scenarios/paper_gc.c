/* tests/scenarios/paper_gc.c: "RCU is a Poor Man's Garbage Collector".
 *
 * Updaters replace a shared object as fast as they can and hand the old
 * one to the collector, never waiting; readers use whatever they find.
 * Collection happens by itself, after grace periods.  Two collectors, one
 * case each, at the same load: call_rcu_sched() with a callback per
 * object (the article's), and kfree_rcu(), which is what Linux code
 * writes today (rcu/kvfree.c: pages of pointers, one grace period per
 * batch).  The memory in flight (replaced, not yet freed: objects, plus
 * kfree_rcu's pages of pointers) is sampled; it must stay under
 * gc.max_in_flight, and after the collector's barrier every object ever
 * replaced must have been freed exactly once.  No reader may see a freed
 * (poisoned) object.  Each prints a `name=gc` row (collector=, updates per
 * second, peak bytes in flight, grace periods used).
 *
 * gc_kfree_bench is rcuscale's kfree test (kfree_rcu_test=1): threads
 * each allocate alloc_num objects and free them all through kfree_rcu(),
 * loops times; by_call_rcu=1 frees them through call_rcu() instead.  Its
 * `name=kfree_rcu` rows compare with Linux's (tools/peer).  It is
 * closed-loop, so each path runs at its own rate; gc.kfree_paced adds a
 * pair held to one rate, the same load for both.
 */
#include "tests/scenarios/scenario.h"
#include "kernel/cmdline.h"
#include "kernel/ktap.h"
#include "kernel/list.h"
#include "kernel/printk.h"
#include "kernel/slab.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "rcu/rculist.h"
#include "rcu/kvfree.h"
#include "kernel/sched.h"

static unsigned int gc_ms;
core_param(gc.ms, gc_ms, uint, "duration of each paper_gc run in ms (default 200 quick, 2000 full)");
/* Which cases run: 1 call_rcu_sched(), 2 kfree_rcu(), 4 rcuscale's kfree
 * test (the bench-kfree rows take 4 alone). */
static unsigned int gc_cases = 7;
core_param(gc.cases, gc_cases, uint, "paper_gc cases to run, a mask: 1 call_rcu, 2 kfree_rcu, 4 kfree bench");
static unsigned int gc_max_in_flight = 1000000;
core_param(gc.max_in_flight, gc_max_in_flight, uint,
	   "paper_gc fails if more replaced objects than this wait for collection at once");

#define GC_MAGIC 0x6cc0ffeeul


struct gc_obj {
	unsigned long magic;
	long gen;
	struct rcu_head rh;
};

static struct gc_obj *gc_head;
static DEFINE_SPINLOCK(gc_lock);
static atomic_long_t gc_allocated, gc_freed, gc_bad_frees;

static void gc_free_cb(struct rcu_head *rh)
{
	struct gc_obj *p = container_of(rh, struct gc_obj, rh);

	if (p->magic != GC_MAGIC)
		atomic_long_inc(&gc_bad_frees);	/* freed twice, or not ours */
	p->magic = 0;
	kfree(p);
	atomic_long_inc(&gc_freed);
}

/* The collectors. */
enum { GC_CALL_RCU, GC_KFREE_RCU };

/* Replaced objects not yet freed: kfree_rcu() frees without telling us,
 * so its own counters say how many of ours it still holds. */
static long gc_in_flight(int collector)
{
	if (collector == GC_KFREE_RCU)
		return kfree_rcu_queued() -
		       atomic_long_read(&kfree_rcu_stats.freed);
	return atomic_long_read(&gc_allocated) - atomic_long_read(&gc_freed) - 1;
}

/* The call_rcu case's updates per second, the kfree_rcu case's pace
 * (gc.rate overrides; 0 and no call_rcu run yet: unpaced). */
static unsigned long gc_call_rcu_rate;
static unsigned int gc_rate;
core_param(gc.rate, gc_rate, uint,
	   "paper_gc kfree_rcu case: updates per second (0: the call_rcu case's)");

struct gc_ctx {
	int collector;
	int updaters;
	unsigned long rate;		/* updates per second, 0: unpaced */
	u64 t0;				/* the run's start, for the pace */
	atomic_long_t done;		/* updates so far, all updaters */
	unsigned long reads[NR_CPUS], bad[NR_CPUS], updates[NR_CPUS];
	long max_in_flight;
	long max_pages;			/* kfree_rcu's pages at that peak */
	long max_bytes;			/* objects and pages in flight, peak */
	u64 in_flight_sum, samples;
};

/* However late the host runs them, the updaters replace this many
 * objects and every reader reads once before a run may end. */
#define GC_MIN_UPDATES 16

static void gc_worker(struct scen_worker *w)
{
	struct gc_ctx *x = w->arg;

	scen_owe(w);
	if (!scen_start_barrier(w))
		return;
	if (w->idx < x->updaters) {
		while (!scen_should_stop(w)) {
			struct gc_obj *fresh, *old;

			/* The same load as the call_rcu case: no faster. */
			if (x->rate && (u64)atomic_long_read(&x->done) * 1000000000ull >
				       (ktime_get_ns() - x->t0) * x->rate) {
				scen_sleep_ms(1);
				continue;
			}
			fresh = kmalloc(sizeof(*fresh), GFP_KERNEL);
			if (!fresh) {
				scen_sleep_ms(1);	/* collection will catch up */
				continue;
			}
			atomic_long_inc(&gc_allocated);
			fresh->magic = GC_MAGIC;
			fresh->gen = (long)x->updates[w->idx];
			spin_lock(&gc_lock);
			old = gc_head;
			rcu_assign_pointer(gc_head, fresh);
			spin_unlock(&gc_lock);
			if (x->collector == GC_KFREE_RCU) {
				kfree_rcu(old, rh);
			} else {
				call_rcu_sched(&old->rh, gc_free_cb);
			}
			atomic_long_inc(&x->done);
			if (++x->updates[w->idx] >= GC_MIN_UPDATES)
				scen_paid(w);
			if (w->idx == 0) {
				long f = gc_in_flight(x->collector);
				long pages = x->collector == GC_KFREE_RCU ?
					     atomic_long_read(&kfree_rcu_stats.pages) : 0;
				long bytes = (f > 0 ? f : 0) * (long)ksize(fresh) + pages * 4096;

				if (f > x->max_in_flight)
					x->max_in_flight = f;
				if (bytes > x->max_bytes) {
					x->max_bytes = bytes;
					x->max_pages = pages;
				}
				x->in_flight_sum += (u64)(f > 0 ? f : 0);
				x->samples++;
			}
			scen_yield();
		}
		return;
	}
	while (!scen_should_stop(w)) {
		for (int i = 0; i < 64; i++) {
			struct gc_obj *p;

			rcu_read_lock_sched();
			p = rcu_dereference(gc_head);
			long g = READ_ONCE(p->gen);

			ndelay(100);
			if (READ_ONCE(p->magic) != GC_MAGIC || READ_ONCE(p->gen) != g)
				x->bad[w->idx]++;
			rcu_read_unlock_sched();
			x->reads[w->idx]++;
		}
		scen_paid(w);
		scen_yield();
	}
}

static void gc_run(int collector)
{
	int cpus[NR_CPUS], n;
	unsigned int ms = scen_run_ms(gc_ms);
	struct scen_group *g;
	struct gc_ctx *x = scen_setup(cpus, &n, sizeof(*x), &g, "readers beside the updater");

	if (!x)
		return;
	struct gc_obj *first = kmalloc(sizeof(*first), GFP_KERNEL);

	if (!first) {
		scen_setup_undo(x, g);
		return;
	}
	atomic_long_set(&gc_allocated, 1);
	atomic_long_set(&gc_freed, 0);
	atomic_long_set(&gc_bad_frees, 0);
	first->magic = GC_MAGIC;
	first->gen = -1;
	rcu_assign_pointer(gc_head, first);
	x->updaters = n >= 4 ? 2 : 1;
	x->collector = collector;
	x->rate = collector == GC_KFREE_RCU ? (gc_rate ? gc_rate : gc_call_rcu_rate) : 0;
	x->t0 = ktime_get_ns();
	if (collector == GC_KFREE_RCU)
		kvfree_rcu_barrier();	/* nobody else's objects in its counters */
	unsigned long gps0 = rcu_batches_completed_sched();
	long kq0 = kfree_rcu_queued();
	long kb0 = atomic_long_read(&kfree_rcu_stats.batches);

	if (scen_run(g, cpus, n, gc_worker, x, ms, false, NULL))
		return;		/* left allocated: a worker may still use it */
	long in_flight_end = gc_in_flight(collector);
	u64 t0 = ktime_get_ns();

	if (collector == GC_KFREE_RCU)
		kvfree_rcu_barrier();	/* every object queued has been freed */
	else
		rcu_barrier_sched();	/* every queued callback has run */
	u64 barrier_ns = ktime_get_ns() - t0;
	unsigned long gps = rcu_batches_completed_sched() - gps0;
	unsigned long reads = 0, bad = 0, updates = 0;

	for (int i = 0; i < n; i++) {
		reads += x->reads[i];
		bad += x->bad[i];
		updates += x->updates[i];
	}
	long freed = collector == GC_KFREE_RCU ?
		     kfree_rcu_queued() - kq0 - gc_in_flight(collector) :
		     atomic_long_read(&gc_freed);
	long batches = collector == GC_KFREE_RCU ?
		       atomic_long_read(&kfree_rcu_stats.batches) - kb0 : (long)updates;

	/* batches: the call_rcu()s made, one per object for call_rcu. */
	if (collector == GC_CALL_RCU)
		gc_call_rcu_rate = updates * 1000 / (ms ? ms : 1);
	ktap_log("bench name=gc collector=%s paced=%lu cpus=%d updaters=%d ms=%u updates=%lu updates_per_s=%llu freed=%ld gps=%lu batches=%ld max_in_flight=%ld mean_in_flight=%llu in_flight_end=%ld bytes_in_flight_max=%ld pages_at_max=%ld barrier_ns=%llu reads=%lu bad=%lu",
		 collector == GC_KFREE_RCU ? "kfree_rcu" : "call_rcu", x->rate, n, x->updaters, ms,
		 updates, (unsigned long long)updates * 1000 / (ms ? ms : 1), freed, gps, batches,
		 x->max_in_flight,
		 (unsigned long long)(x->samples ? x->in_flight_sum / x->samples : 0),
		 in_flight_end, x->max_bytes, x->max_pages,
		 (unsigned long long)barrier_ns, reads, bad);
	if (bad)
		ktap_fail("%lu reads saw a freed or changed object", bad);
	/* Garbage is collected: every replaced object freed, once. */
	KTAP_EXPECT_EQ(freed, (long)updates);
	KTAP_EXPECT_EQ(atomic_long_read(&gc_bad_frees), 0);
	if (collector == GC_KFREE_RCU)
		KTAP_EXPECT_EQ(gc_in_flight(collector), 0);
	if (x->max_in_flight > (long)gc_max_in_flight)
		ktap_fail("%ld objects waited for collection at once (limit %u)",
			  x->max_in_flight, gc_max_in_flight);
	KTAP_EXPECT(updates >= GC_MIN_UPDATES);
	kfree(gc_head);
	gc_head = NULL;
	kfree(x);
	scen_group_free(g, 0);
}

static void gc_under_update_load(void)
{
	if (!(gc_cases & 1))
		ktap_skip("gc.cases");
	else
		gc_run(GC_CALL_RCU);
}

static void gc_kfree_rcu_under_update_load(void)
{
	if (!(gc_cases & 2))
		ktap_skip("gc.cases");
	else
		gc_run(GC_KFREE_RCU);
}

/* ---- rcuscale's kfree test ---- */

/* 0: rcuscale's defaults (8000 objects, 10 loops) with bench=full, a
 * short run (2000, 1) otherwise. */
static unsigned int kfree_threads, kfree_alloc_num, kfree_loops;
core_param(gc.kfree_threads, kfree_threads, uint, "gc_kfree_bench threads (0: one per CPU)");
core_param(gc.kfree_alloc_num, kfree_alloc_num, uint,
	   "gc_kfree_bench objects per loop (0: 8000 with bench=full, else 2000)");
core_param(gc.kfree_loops, kfree_loops, uint,
	   "gc_kfree_bench loops per thread (0: 10 with bench=full, else 1)");

/* Linux's struct kfree_obj (rcuscale.c): 8 bytes and the rcu_head. */
struct kfree_obj {
	char kfree_obj[8];
	struct rcu_head rh;
};

#define KFREE_OBJ_SIZE 32	/* kmalloc's class for struct kfree_obj */

static atomic_long_t kfree_bench_cb_freed;
/* Jiffies in flight, summed, a line per CPU: no shared line per callback. */
static struct {
	atomic_long_t ticks;
} ____cacheline_aligned kfree_bench_cb_wait[NR_CPUS];

/* call_rcu()'s objects carry the jiffies they were queued at, for the
 * mean time in flight (kfree_rcu's is kfree_rcu_stats' wait_*). */
static void kfree_obj_cb(struct rcu_head *rh)
{
	struct kfree_obj *p = container_of(rh, struct kfree_obj, rh);
	unsigned long at;

	memcpy(&at, p->kfree_obj, sizeof(at));
	atomic_long_add((long)(jiffies - at), &kfree_bench_cb_wait[raw_smp_processor_id()].ticks);
	kfree(p);
	atomic_long_inc(&kfree_bench_cb_freed);
}

/*
 * Where the memory in flight waits, by grace-period age, the same for
 * both collectors: each sample takes the cookie an object queued now
 * would need (get_state_synchronize_rcu(): it moves on when a grace
 * period starts) and the count queued so far.  Objects queued under the
 * current cookie wait for a GP to start (to_start); those under older
 * cookies not yet satisfied wait for a GP in flight to end (to_end);
 * those under satisfied cookies and not yet freed wait for their
 * callback or bulk free (to_free).  Sample-grained: counts are within a
 * sample's worth of objects.
 */
#define KFREE_AGES 64

struct kfree_bench_mem {
	long objs, pages, bytes;
	long to_start, to_end, to_free;
	struct kfree_rcu_breakdown krc;		/* kfree_rcu's own view */
};

struct kfree_bench {
	int by_call_rcu;
	u64 rate;			/* objects per second per thread, 0: unpaced */
	atomic_t running;
	atomic_long_t queued;		/* objects handed to the collector */
	long kq0, kf0;			/* kfree_rcu's counters at the start */
	long max_bytes;			/* in flight, objects and pages: peak */
	long sum_bytes, nr_samples;	/* ...and their mean over the samples */
	struct kfree_bench_mem at_peak;	/* where the peak's memory waited */
	struct {
		unsigned long cookie;
		long queued;		/* queued up to the last sample under it */
	} age[KFREE_AGES];
	int nr_ages;
	u64 t0;				/* ktime at the start */
	unsigned long gps0;		/* rcu_batches_completed() then */
	struct kfree_bench_tl {		/* gc.timeline=1: every sample */
		u32 t_us, gps;
		s32 objs, on_cpus, in_gp, to_free;
	} *tl;
	int nr_tl;
	spinlock_t lock;
};

#define KFREE_TL_MAX	2048
static bool kfree_timeline;
core_param(gc.timeline, kfree_timeline, bool,
	   "gc_kfree_bench: print every memory sample (time, objects, where)");

/* b->lock held: the age split of m->objs, q objects queued so far. */
static void kfree_bench_ages(struct kfree_bench *b, long q, struct kfree_bench_mem *m)
{
	unsigned long cookie = get_state_synchronize_rcu();
	long ended = 0, before = 0;
	int i, n = b->nr_ages;

	if (!n || b->age[n - 1].cookie != cookie) {
		if (n == KFREE_AGES) {
			memmove(&b->age[0], &b->age[1], sizeof(b->age[0]) * (KFREE_AGES - 1));
			n--;
		}
		b->age[n].cookie = cookie;
		b->nr_ages = ++n;
	}
	b->age[n - 1].queued = q;
	for (i = n - 1; i >= 0; i--)
		if (poll_state_synchronize_rcu(b->age[i].cookie)) {
			ended = b->age[i].queued;
			break;
		}
	if (n >= 2)
		before = b->age[n - 2].queued;
	m->to_start = q - before;
	m->to_free = MIN(m->objs, MAX(0L, ended - (q - m->objs)));
	m->to_end = MAX(0L, m->objs - m->to_start - m->to_free);
}

/*
 * Memory in flight: objects queued and not yet freed (each a
 * kmalloc-32), plus kfree_rcu's pages of pointers.  Counted, not read
 * from the page allocator, whose free count never sees kmalloc's class
 * pages come back (rcuscale reads the system's free memory instead).
 */
static void kfree_bench_sample(struct kfree_bench *b)
{
	struct kfree_bench_mem m = { 0 };
	unsigned long flags;
	long q;

	q = atomic_long_read(&b->queued);
	if (b->by_call_rcu) {
		m.objs = q - atomic_long_read(&kfree_bench_cb_freed);
	} else {
		m.objs = (kfree_rcu_queued() - b->kq0) -
			 (atomic_long_read(&kfree_rcu_stats.freed) - b->kf0);
		m.pages = atomic_long_read(&kfree_rcu_stats.pages);
		kfree_rcu_breakdown(&m.krc);
	}
	m.bytes = m.objs * (long)KFREE_OBJ_SIZE + m.pages * 4096;
	spin_lock_irqsave(&b->lock, flags);
	kfree_bench_ages(b, q, &m);
	b->sum_bytes += m.bytes;
	b->nr_samples++;
	if (b->tl && b->nr_tl < KFREE_TL_MAX)
		b->tl[b->nr_tl++] = (struct kfree_bench_tl){
			.t_us = (u32)((ktime_get_ns() - b->t0) / 1000),
			.gps = (u32)(rcu_batches_completed() - b->gps0),
			.objs = (s32)m.objs, .on_cpus = (s32)m.krc.on_cpus,
			.in_gp = (s32)m.krc.in_gp, .to_free = (s32)m.krc.to_free };
	if (m.bytes > b->max_bytes) {
		b->max_bytes = m.bytes;
		b->at_peak = m;
	}
	spin_unlock_irqrestore(&b->lock, flags);
}

static int kfree_bench_thread(void *arg)
{
	struct kfree_bench *b = arg;
	u64 done = 0;

	for (unsigned int l = 0; l < kfree_loops; l++) {
		for (unsigned int i = 0; i < kfree_alloc_num; i++, done++) {
			struct kfree_obj *p;

			/* Paced: busy, as unpaced, but never ahead of the rate. */
			while (b->rate && !(done % 16) &&
			       done * 1000000000ull > (ktime_get_ns() - b->t0) * b->rate)
				cpu_relax();
			p = kmalloc(sizeof(*p), GFP_KERNEL);

			if (!p) {
				msleep(1);	/* the collector catches up */
				continue;
			}
			if (b->by_call_rcu) {
				unsigned long now = jiffies;

				memcpy(p->kfree_obj, &now, sizeof(now));
				call_rcu(&p->rh, kfree_obj_cb);
			}
			else
				kfree_rcu(p, rh);
			atomic_long_inc(&b->queued);
			if (!(i % 1024))
				kfree_bench_sample(b);
		}
		kfree_bench_sample(b);
		cond_resched();
	}
	atomic_dec(&b->running);
	return 0;
}

/* The objects per second of the last unpaced run of each path. */
static u64 kfree_bench_rate[2];
static unsigned int kfree_paced_pct;
core_param(gc.kfree_paced, kfree_paced_pct, uint,
	   "gc_kfree_bench: one more pair, both paced at this % of the slower path's unpaced rate (0: none)");

static void gc_kfree_bench_one(int by_call_rcu, u64 rate)
{
	int n = kfree_threads ? (int)kfree_threads : num_online_cpus(), k = 0, cpu;
	struct kfree_bench b = { .by_call_rcu = by_call_rcu, .rate = rate };
	unsigned long gps0;
	long batches0 = atomic_long_read(&kfree_rcu_stats.batches);
	long wh0 = atomic_long_read(&kfree_rcu_stats.wait_hand);
	long wg0 = atomic_long_read(&kfree_rcu_stats.wait_gp);
	long wf0 = atomic_long_read(&kfree_rcu_stats.wait_free);
	long freed, wh, wg, wf;
	struct task *t[NR_CPUS];
	u64 t0, ns;

	spin_lock_init(&b.lock);
	if (kfree_timeline)
		b.tl = kmalloc(sizeof(*b.tl) * KFREE_TL_MAX, GFP_KERNEL);
	if (by_call_rcu)
		rcu_barrier();
	else
		kvfree_rcu_barrier();	/* nobody else's objects in the counters */
	atomic_long_set(&kfree_bench_cb_freed, 0);
	for (int i = 0; i < NR_CPUS; i++)
		atomic_long_set(&kfree_bench_cb_wait[i].ticks, 0);
	atomic_long_set(&kfree_rcu_stats.batch_max, 0);
	b.kq0 = kfree_rcu_queued();
	b.kf0 = atomic_long_read(&kfree_rcu_stats.freed);
	atomic_set(&b.running, n);
	gps0 = rcu_batches_completed();
	t0 = ktime_get_ns();
	b.t0 = t0;
	b.gps0 = gps0;
	for (int i = 0; i < n; i++) {
		do
			cpu = k++ % NR_CPUS;
		while (!cpu_online(cpu));
		t[i] = kthread_create_on_cpu(kfree_bench_thread, &b, cpu, "kfree_bench");
		if (!t[i]) {
			atomic_sub(n - i, &b.running);
			n = i;
			break;
		}
		wake_up_process(t[i]);
	}
	for (int i = 0; i < n; i++)
		kthread_join(t[i]);
	/* Linux's total time ends when the last object is queued; the
	 * barrier after it is the memory's, not the rate's. */
	ns = ktime_get_ns() - t0;
	u64 nobj = (u64)n * kfree_alloc_num * kfree_loops;

	if (!rate && ns)
		kfree_bench_rate[by_call_rcu] = nobj * 1000000000ull / ns / (u64)n;

	unsigned long gps = rcu_batches_completed() - gps0;

	kfree_bench_sample(&b);
	if (by_call_rcu)
		rcu_barrier();
	else
		kvfree_rcu_barrier();
	ktap_log("bench name=kfree_rcu threads=%d alloc_num=%u loops=%u total_ns=%llu batches=%lu gps_drain=%lu footprint_kb=%lu by_call_rcu=%d call_rcus=%ld ns_per_obj=%llu paced=%llu",
		 n, kfree_alloc_num, kfree_loops, (unsigned long long)ns, gps,
		 rcu_batches_completed() - gps0 - gps, b.max_bytes / 1024, by_call_rcu,
		 by_call_rcu ? (long)nobj :
		 atomic_long_read(&kfree_rcu_stats.batches) - batches0,
		 (unsigned long long)(nobj ? ns / nobj : 0), (unsigned long long)rate * (u64)n);
	/*
	 * Where the peak's objects waited (objects; kb: the whole peak),
	 * and where an object's time in flight went on the mean, in us
	 * (jiffies-grained): for kfree_rcu(), queued -> handed to a GP
	 * (us_hand), -> GP end (us_gp), -> freed (us_free); for
	 * call_rcu(), queued -> its callback (us_total).
	 */
	if (by_call_rcu) {
		freed = atomic_long_read(&kfree_bench_cb_freed);
		wh = wg = wf = 0;
		for (int i = 0; i < NR_CPUS; i++)
			wf += atomic_long_read(&kfree_bench_cb_wait[i].ticks);
	} else {
		freed = atomic_long_read(&kfree_rcu_stats.freed) - b.kf0;
		wh = atomic_long_read(&kfree_rcu_stats.wait_hand) - wh0;
		wg = atomic_long_read(&kfree_rcu_stats.wait_gp) - wg0;
		wf = atomic_long_read(&kfree_rcu_stats.wait_free) - wf0;
	}
	if (freed <= 0)
		freed = 1;
	/* The sums are in jiffies: us per object at any hz= (1 ms at 1000). */
	freed *= HZ;
	ktap_log("bench name=kfree_rcu_mem by_call_rcu=%d peak_kb=%ld mean_kb=%ld objs=%ld to_start=%ld to_end=%ld to_free=%ld pages=%ld pages_cached=%ld krc_cpu=%ld krc_gp=%ld krc_free=%ld us_hand=%ld us_gp=%ld us_free=%ld us_total=%ld batch_max=%ld eff_x100=%lld",
		 by_call_rcu, b.max_bytes / 1024,
		 b.nr_samples ? b.sum_bytes / b.nr_samples / 1024 : 0, b.at_peak.objs,
		 b.at_peak.to_start, b.at_peak.to_end, b.at_peak.to_free, b.at_peak.pages,
		 b.at_peak.krc.pages_cached, b.at_peak.krc.on_cpus, b.at_peak.krc.in_gp,
		 b.at_peak.krc.to_free, wh * 1000000 / freed, wg * 1000000 / freed,
		 by_call_rcu ? 0 : wf * 1000000 / freed, (wh + wg + wf) * 1000000 / freed,
		 by_call_rcu ? 0 : atomic_long_read(&kfree_rcu_stats.batch_max),
		 nobj ? (long long)((u64)b.at_peak.objs * gps * 100 / nobj) : 0);
	if (b.tl) {
		for (int i = 0; i < b.nr_tl; i++)
			ktap_log("tl %d t_us=%u gps=%u objs=%d cpus=%d gp=%d free=%d", by_call_rcu,
				 b.tl[i].t_us, b.tl[i].gps, b.tl[i].objs, b.tl[i].on_cpus,
				 b.tl[i].in_gp, b.tl[i].to_free);
		kfree(b.tl);
	}
	KTAP_EXPECT_EQ(atomic_read(&b.running), 0);
}

/* batches= is what Linux's rcuscale prints under that name: grace
 * periods completed during the run (rcu_batches_completed()), up to the
 * last thread's end; gps_drain= those of the barrier after it, which
 * frees what is still queued. */
static void gc_kfree_bench(void)
{
	if (!(gc_cases & 4)) {
		ktap_skip("gc.cases");
		return;
	}
	if (!kfree_alloc_num)
		kfree_alloc_num = scen_full() ? 8000 : 2000;
	if (!kfree_loops)
		kfree_loops = scen_full() ? 10 : 1;
	gc_kfree_bench_one(0, 0);
	gc_kfree_bench_one(1, 0);
	if (scen_full()) {
		gc_kfree_bench_one(0, 0);
		gc_kfree_bench_one(1, 0);
	}
	if (kfree_paced_pct) {
		u64 r = MIN(kfree_bench_rate[0], kfree_bench_rate[1]) * kfree_paced_pct / 100;

		gc_kfree_bench_one(0, r ? r : 1);
		gc_kfree_bench_one(1, r ? r : 1);
	}
}

KTAP_SUITE(paper_gc, KTAP_CASE(gc_under_update_load),
	   KTAP_CASE(gc_kfree_rcu_under_update_load),
	   KTAP_CASE(gc_kfree_bench));
