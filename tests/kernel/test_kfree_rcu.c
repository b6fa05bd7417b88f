/*
 * tests/kernel/test_kfree_rcu.c - the kfree_rcu suite: kfree_rcu(),
 * kvfree_rcu_mightsleep() and kvfree_rcu_barrier() (rcu/kvfree.c)
 * against the contract in rcu/rcupdate.h.
 *
 *   kfree_rcu_waits_for_reader  an object is not freed under a reader
 *                               on another CPU (RCU-sched, and
 *                               rcu_read_lock() in the preemptible
 *                               build), and is freed after it;
 *   kfree_rcu_batches           thousands of objects, a few call_rcu()s;
 *   kfree_rcu_null              kfree_rcu(NULL, rhf) does nothing;
 *   kfree_rcu_double            a second kfree_rcu() of a queued object
 *                               is an ODEBUG warning, freed once;
 *   kfree_rcu_mightsleep_atomic from atomic context: a WARN, no sleep;
 *   kfree_rcu_no_page           no page to be had: kfree_rcu() still
 *                               queues (its rcu_head chain needs none),
 *                               mightsleep waits in synchronize_rcu();
 *   kfree_rcu_barrier_all       the barrier frees all queued before it,
 *                               chained and in pages;
 *   kfree_rcu_shrinker          mightsleep's cached pages go back on
 *                               demand;
 *   kfree_rcu_hotplug           a CPU going down hands its queue over;
 *   kfree_rcu_barrier_hotplug   ...while a barrier runs, which still
 *                               waits for what it handed over.
 *
 * The test build's kfree_rcu.inject=MASK (rcu/kvfree.h) puts in the
 * fault each case must catch; those cases skip in the benchmark build.
 * The suite assumes nothing else uses kfree_rcu() while it runs (the
 * global counters are read as this suite's).
 */
#include "kernel/ktap.h"
#include "tests/kernel/test_helpers.h"
#include "kernel/cpu.h"
#include "kernel/sched.h"
#include "kernel/shrinker.h"
#include "kernel/slab.h"
#include "kernel/smp.h"
#include "rcu/debug_head.h"
#include "rcu/kvfree.h"
#include "rcu/rcupdate.h"

#define KT_MAGIC	0x6b667265ul	/* "kfre" */

struct kt_obj {
	unsigned long magic;
	unsigned long pad[3];
	struct rcu_head rh;
};

static struct kt_obj *kt_alloc(void)
{
	struct kt_obj *p = kmalloc(sizeof(*p), GFP_KERNEL);

	if (p)
		p->magic = KT_MAGIC;
	return p;
}

/* Objects queued and not yet freed, by the counters. */
static long kt_outstanding(void)
{
	return kfree_rcu_queued() - atomic_long_read(&kfree_rcu_stats.freed);
}

/* ---- a reader on another CPU ---- */

struct kt_reader {
	struct kt_obj *obj;
	int preempt;		/* rcu_read_lock(), else rcu_read_lock_sched() */
	int in, release, bad;
};

static int kt_reader_fn(void *arg)
{
	struct kt_reader *r = arg;

	if (r->preempt)
		rcu_read_lock();
	else
		rcu_read_lock_sched();
	__atomic_store_n(&r->in, 1, __ATOMIC_SEQ_CST);
	/* Watches its object until released (bounded: 20 s). */
	SPIN_UNTIL(__atomic_load_n(&r->release, __ATOMIC_ACQUIRE) ||
		   READ_ONCE(r->obj->magic) != KT_MAGIC, 20000);
	if (READ_ONCE(r->obj->magic) != KT_MAGIC)
		r->bad = 1;
	if (r->preempt)
		rcu_read_unlock();
	else
		rcu_read_unlock_sched();
	return 0;
}

static void kt_waits_for(int preempt)
{
	struct kt_reader r = { .preempt = preempt };
	int cpu = farthest_cpu();
	long f0 = atomic_long_read(&kfree_rcu_stats.freed);
	long b0 = atomic_long_read(&kfree_rcu_stats.batches);
	struct task *t;

	r.obj = kt_alloc();
	KTAP_ASSERT(r.obj);
	t = start_on(kt_reader_fn, &r, cpu, PRIO_NORMAL, "kfree_rcu_reader");
	KTAP_ASSERT(t);
	if (!WAIT_UNTIL(__atomic_load_n(&r.in, __ATOMIC_SEQ_CST), 5000)) {
		ktap_fail("the reader on CPU %d never started", cpu);
		__atomic_store_n(&r.release, 1, __ATOMIC_RELEASE);
		kthread_join(t);
		return;
	}
	kfree_rcu(r.obj, rh);
	/* Its batch goes to a grace period (the monitor), which the reader
	 * holds: however long we wait, the object stays. */
	if (!WAIT_UNTIL(atomic_long_read(&kfree_rcu_stats.batches) > b0, 10000))
		ktap_fail("the object's batch never went to a grace period");
	WAIT_WINDOW(READ_ONCE(r.obj->magic) != KT_MAGIC, 50);
	__atomic_store_n(&r.release, 1, __ATOMIC_RELEASE);
	kthread_join(t);
	if (r.bad)
		ktap_fail("kfree_rcu() freed the object under a %s reader",
			  preempt ? "rcu_read_lock()" : "RCU-sched");
	kvfree_rcu_barrier();
	KTAP_EXPECT(atomic_long_read(&kfree_rcu_stats.freed) - f0 >= 1);
	KTAP_EXPECT_EQ(kt_outstanding(), 0);
}

static void kfree_rcu_waits_for_reader(void)
{
	if (farthest_cpu() == raw_smp_processor_id()) {
		ktap_skip("needs a second CPU for the reader");
		return;
	}
	kt_waits_for(0);
#ifdef CONFIG_PREEMPT_RCU
	kt_waits_for(1);
#endif
}

/* ---- batching ---- */

#define KT_BATCH_OBJS 5000

static void kfree_rcu_batches(void)
{
	long f0 = atomic_long_read(&kfree_rcu_stats.freed);
	long b0 = atomic_long_read(&kfree_rcu_stats.batches);
	unsigned long gp0 = rcu_batches_completed();
	long n = 0, batches;

	for (int i = 0; i < KT_BATCH_OBJS; i++) {
		struct kt_obj *p = kt_alloc();

		if (!p)
			break;
		if (i & 1)
			kfree_rcu(p, rh);
		else
			kvfree_rcu_mightsleep(p);
		n++;
	}
	kvfree_rcu_barrier();
	batches = atomic_long_read(&kfree_rcu_stats.batches) - b0;
	ktap_log("%ld objects: %ld batches, %lu grace periods, %lu pointers a page", n, batches,
		 rcu_batches_completed() - gp0, kfree_rcu_bulk_max());
	KTAP_EXPECT_EQ(atomic_long_read(&kfree_rcu_stats.freed) - f0, n);
	KTAP_EXPECT(n == KT_BATCH_OBJS);
	/* One call_rcu() per batch: at least one batch, and (a batch takes
	 * at least a page or what the monitor found) far fewer than n. */
	KTAP_EXPECT(batches >= 1);
	if (batches * 20 > n)
		ktap_fail("%ld batches for %ld objects: not batched", batches, n);
}

static void kfree_rcu_null(void)
{
	long q0 = kfree_rcu_queued();
	struct kt_obj *p = NULL;

	kfree_rcu(p, rh);
	kvfree_rcu_mightsleep(NULL);
	KTAP_EXPECT_EQ(kfree_rcu_queued(), q0);
}

/* ---- misuse ---- */

static void kfree_rcu_double(void)
{
	int d0 = atomic_read(&rcu_debug_head_double);
	long f0 = atomic_long_read(&kfree_rcu_stats.freed);
	unsigned long bad0 = kmalloc_bad_frees();
	struct kt_obj *p;

	if (!RCU_DEBUG_HEAD) {
		ktap_skip("the queued-head tracker is in the test build only");
		return;
	}
	p = kt_alloc();
	KTAP_ASSERT(p);
	ktap_expect_warnings(1, "ODEBUG: a second kfree_rcu() of a queued object");
	kfree_rcu(p, rh);
	kfree_rcu(p, rh);	/* still queued: reported and refused */
	kvfree_rcu_barrier();
	KTAP_EXPECT_EQ(atomic_read(&rcu_debug_head_double) - d0, 1);
	KTAP_EXPECT_EQ(atomic_long_read(&kfree_rcu_stats.freed) - f0, 1);
	KTAP_EXPECT_EQ(kmalloc_bad_frees() - bad0, 0);
}

static void kfree_rcu_mightsleep_atomic(void)
{
	long r0 = atomic_long_read(&kfree_rcu_stats.atomic_reports);
	long s0 = atomic_long_read(&kfree_rcu_stats.by_sync);
	int m0 = atomic_read(&rcu_misuse_reports);
	struct kt_obj *p = kt_alloc();

	KTAP_ASSERT(p);
	ktap_expect_warnings(1, "kvfree_rcu_mightsleep() from atomic context");
	preempt_disable();
	kvfree_rcu_mightsleep(p);	/* a page has room: queued, reported */
	preempt_enable();
	KTAP_EXPECT_EQ(atomic_long_read(&kfree_rcu_stats.atomic_reports) - r0, 1);
	KTAP_EXPECT_EQ(atomic_long_read(&kfree_rcu_stats.by_sync) - s0, 0);
	KTAP_EXPECT_EQ(atomic_read(&rcu_misuse_reports) - m0, 0);	/* never slept */
	kvfree_rcu_barrier();
	KTAP_EXPECT_EQ(kt_outstanding(), 0);
}

/* ---- no page of pointers: the fallbacks ---- */

static void kfree_rcu_no_page(void)
{
#ifdef CONFIG_SANITIZE
	long h0 = atomic_long_read(&kfree_rcu_stats.by_head);
	long s0 = atomic_long_read(&kfree_rcu_stats.by_sync);
	long f0 = atomic_long_read(&kfree_rcu_stats.freed);
	int i, n = 100;

	kvfree_rcu_barrier();	/* every page back in the caches */
	WRITE_ONCE(kfree_rcu_inject_nopage, true);
	for (i = 0; i < n; i++) {
		struct kt_obj *p = kt_alloc();

		KTAP_ASSERT(p);
		kfree_rcu(p, rh);
	}
	for (i = 0; i < 3; i++) {
		struct kt_obj *p = kt_alloc();

		KTAP_ASSERT(p);
		kvfree_rcu_mightsleep(p);	/* waits here, then frees */
	}
	WRITE_ONCE(kfree_rcu_inject_nopage, false);
	KTAP_EXPECT_EQ(atomic_long_read(&kfree_rcu_stats.by_sync) - s0, 3);
	kvfree_rcu_barrier();
	/* Chained through their heads (counted as their batch goes). */
	KTAP_EXPECT_EQ(atomic_long_read(&kfree_rcu_stats.by_head) - h0, n);
	KTAP_EXPECT_EQ(atomic_long_read(&kfree_rcu_stats.freed) - f0, n);
	KTAP_EXPECT_EQ(kt_outstanding(), 0);
#else
	ktap_skip("the no-page switch is in the test build only");
#endif
}

/* ---- the barrier ---- */

static void kfree_rcu_barrier_all(void)
{
	long f0 = atomic_long_read(&kfree_rcu_stats.freed);
	int n = 6 * (int)kfree_rcu_bulk_max() + 7;

	for (int i = 0; i < n; i++) {
		struct kt_obj *p = kt_alloc();

		KTAP_ASSERT(p);
		if (i & 1)
			kfree_rcu(p, rh);		/* chained */
		else
			kvfree_rcu_mightsleep(p);	/* pages, some full */
	}
	kvfree_rcu_barrier();
	/* Nothing else queues: everything queued is freed. */
	KTAP_EXPECT_EQ(atomic_long_read(&kfree_rcu_stats.freed) - f0, n);
	KTAP_EXPECT_EQ(kt_outstanding(), 0);
	kvfree_rcu_barrier();	/* nothing queued: returns too */
}

/* ---- memory pressure ---- */

static void kfree_rcu_shrinker(void)
{
	unsigned long runs0 = shrinker_runs();
	long sh0 = atomic_long_read(&kfree_rcu_stats.shrunk);

	for (int i = 0; i < 2 * (int)kfree_rcu_bulk_max(); i++) {
		struct kt_obj *p = kt_alloc();

		KTAP_ASSERT(p);
		kvfree_rcu_mightsleep(p);	/* no rcu_head: a page of pointers */
	}
	kvfree_rcu_barrier();	/* its pages are cached now */
	KTAP_EXPECT(atomic_long_read(&kfree_rcu_stats.pages) > 0);
	shrink_all_caches(~0UL);	/* what the page allocator does when out */
	KTAP_EXPECT(shrinker_runs() > runs0);
	KTAP_EXPECT(atomic_long_read(&kfree_rcu_stats.shrunk) > sh0);
	KTAP_EXPECT_EQ(atomic_long_read(&kfree_rcu_stats.pages), 0);
}

/* ---- hotplug ---- */

struct kt_queue {
	int n;
	int done;
};

static int kt_queue_fn(void *arg)
{
	struct kt_queue *q = arg;

	for (int i = 0; i < q->n; i++) {
		struct kt_obj *p = kt_alloc();

		if (p)
			kfree_rcu(p, rh);
	}
	__atomic_store_n(&q->done, 1, __ATOMIC_RELEASE);
	return 0;
}

static void kfree_rcu_hotplug(void)
{
	unsigned int drain0 = kfree_rcu_drain_ms;
	struct kt_queue q = { .n = 50 };
	long h0 = atomic_long_read(&kfree_rcu_stats.handed_over);
	int cpu = farthest_cpu();
	struct task *t;

	if (cpu == 0 || cpu == raw_smp_processor_id()) {
		ktap_skip("needs a second CPU that can go down");
		return;
	}
	kvfree_rcu_barrier();
	/* The monitor waits long: the queue is still there at cpu_down(). */
	WRITE_ONCE(kfree_rcu_drain_ms, 60000);
	t = start_on(kt_queue_fn, &q, cpu, PRIO_NORMAL, "kfree_rcu_queue");
	KTAP_ASSERT(t);
	kthread_join(t);
	KTAP_EXPECT(q.done);
	if (cpu_down(cpu)) {
		WRITE_ONCE(kfree_rcu_drain_ms, drain0);
		ktap_fail("cpu_down(%d) failed", cpu);
		kvfree_rcu_barrier();
		return;
	}
	KTAP_EXPECT_EQ(atomic_long_read(&kfree_rcu_stats.handed_over) - h0, q.n);
	WRITE_ONCE(kfree_rcu_drain_ms, drain0);
	kvfree_rcu_barrier();
	KTAP_EXPECT_EQ(kt_outstanding(), 0);
	KTAP_EXPECT_EQ(cpu_up(cpu), 0);
}

/*
 * A CPU going down while a kvfree_rcu_barrier() runs: its queued objects
 * move to another CPU, and the barrier must still wait for them.  The
 * window (the bug 417455c fixed): the barrier has taken its snapshot, a
 * batch is in flight, and the dying CPU's objects are not in it.  Had
 * the hand-over counted them as submitted without their reaching a
 * batch, the barrier's first check would see every CPU's objects
 * handed over and return after the batch in flight only.
 * kvfree_rcu_barrier_window_arm() (test build) holds the batch in
 * flight and the barrier between its snapshot and its first check while
 * the CPU goes down.
 */
#ifdef CONFIG_SANITIZE
struct kt_barrier {
	long left;		/* objects queued and not freed at its return */
	int done;
};

static int kt_barrier_fn(void *arg)
{
	struct kt_barrier *b = arg;

	kvfree_rcu_barrier();
	b->left = kt_outstanding();	/* before any monitor (60 s off) */
	__atomic_store_n(&b->done, 1, __ATOMIC_RELEASE);
	return 0;
}
#endif

static void kfree_rcu_barrier_hotplug(void)
{
#ifdef CONFIG_SANITIZE
	unsigned int drain0 = kfree_rcu_drain_ms;
	struct kt_queue q = { .n = 50 };
	struct kt_barrier bar = { .left = -1 };
	int cpu = farthest_cpu(), busy, down;
	long b0, h0;
	struct kt_obj *p;
	struct task *t;

	if (cpu == 0 || cpu == raw_smp_processor_id()) {
		ktap_skip("needs a second CPU that can go down");
		return;
	}
	kvfree_rcu_barrier();
	kvfree_rcu_barrier_window_arm();
	/* A batch in flight, held there: one object, the monitor's batch. */
	b0 = atomic_long_read(&kfree_rcu_stats.batches);
	p = kt_alloc();
	KTAP_ASSERT(p);
	kfree_rcu(p, rh);
	if (!WAIT_UNTIL(atomic_long_read(&kfree_rcu_stats.batches) > b0, 10000)) {
		ktap_fail("the first object's batch never went to a grace period");
		kvfree_rcu_barrier_window_close();
		kvfree_rcu_barrier();
		return;
	}
	/* The monitor waits long: what follows stays queued but for a barrier. */
	WRITE_ONCE(kfree_rcu_drain_ms, 60000);
	t = start_on(kt_queue_fn, &q, cpu, PRIO_NORMAL, "kfree_rcu_queue");
	KTAP_ASSERT(t);
	kthread_join(t);
	KTAP_EXPECT(q.done);
	t = kthread_create(kt_barrier_fn, &bar, "kfree_rcu_barrier");
	KTAP_ASSERT(t);
	wake_up_process(t);
	if (!WAIT_UNTIL(kvfree_rcu_barrier_window_waiting(), 30000))
		ktap_fail("the barrier never came to its window");
	h0 = atomic_long_read(&kfree_rcu_stats.handed_over);
	down = cpu_down(cpu);
	KTAP_EXPECT_EQ(down, 0);
	KTAP_EXPECT_EQ(atomic_long_read(&kfree_rcu_stats.handed_over) - h0, q.n);
	kvfree_rcu_barrier_window_release();
	kthread_join(t);
	busy = kvfree_rcu_barrier_window_busy();
	kvfree_rcu_barrier_window_close();
	WRITE_ONCE(kfree_rcu_drain_ms, drain0);
	KTAP_EXPECT(__atomic_load_n(&bar.done, __ATOMIC_ACQUIRE));
	/* The window was open: a batch in flight at the barrier's first check. */
	if (busy != 1)
		ktap_fail("the batch was %s at the barrier's first check",
			  busy ? "never checked" : "not in flight");
	if (bar.left)
		ktap_fail("kvfree_rcu_barrier() returned with %ld objects queued before it "
			  "not freed (%d moved off CPU %d while it ran)", bar.left, q.n, cpu);
	kvfree_rcu_barrier();
	KTAP_EXPECT_EQ(kt_outstanding(), 0);
	if (!down)
		KTAP_EXPECT_EQ(cpu_up(cpu), 0);
#else
	ktap_skip("needs the test build (kvfree_rcu_barrier_window_arm)");
#endif
}

KTAP_SUITE(kfree_rcu,
	   KTAP_CASE(kfree_rcu_waits_for_reader),
	   KTAP_CASE(kfree_rcu_batches),
	   KTAP_CASE(kfree_rcu_null),
	   KTAP_CASE(kfree_rcu_double),
	   KTAP_CASE(kfree_rcu_mightsleep_atomic),
	   KTAP_CASE(kfree_rcu_no_page),
	   KTAP_CASE(kfree_rcu_barrier_all),
	   KTAP_CASE(kfree_rcu_shrinker),
	   KTAP_CASE(kfree_rcu_hotplug),
	   KTAP_CASE(kfree_rcu_barrier_hotplug));
