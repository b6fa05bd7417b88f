/*
 * tests/kernel/test_rcu_preempt.c - KTAP suite `rcu_preempt`: preemptible
 * RCU (rcu/preempt.c).  A reader preempted in the middle of its section
 * holds up synchronize_rcu(), call_rcu() and synchronize_rcu_expedited()
 * until its outermost rcu_read_unlock(), and not much longer; a reader
 * running on another CPU holds up the expedited form; nesting and the
 * misuse report (the article's Quick Quiz 3 for
 * RCU, docs/article.md); priority boosting ends a forced
 * inversion (rcu.boost=1) or, with rcu.boost=0, visibly does not; and the
 * grace-period latency rows `# bench name=gp type=rcu|rcu-expedited`.
 *
 * Every wait is bounded.  The whole suite is SKIP in a PREEMPT_RCU=0
 * build, where rcu_read_lock() is RCU-sched's preempt_disable().
 */
#include "kernel/ktap.h"
#include "tests/kernel/test_helpers.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/math.h"
#include "kernel/printk.h"
#include "rcu/rcupdate.h"

#ifdef CONFIG_PREEMPT_RCU

/* A CPU other than the boot CPU (the case runner's) if there is one. */
static int other_cpu(void)
{
	return nr_cpu_ids > 1 ? 1 : 0;
}

static u64 now_ms(void)
{
	return ktime_get_ns() / 1000000ull;
}

/* ---- a reader that stays in its section until told ---------------------- */

struct reader {
	volatile bool in_section;
	volatile bool release;
	volatile u64 unlock_ns;		/* when its rcu_read_unlock() ran */
	volatile u64 work_ns;		/* boost case: CPU time it needs inside */
	volatile bool timed_out;
};

/* Preemptible all along: spins until released (at most 10 s). */
static int reader_fn(void *p)
{
	struct reader *r = p;
	u64 end = ktime_get_ns() + 10000000000ull;

	rcu_read_lock();
	r->in_section = true;
	while (!r->release) {
		if (ktime_get_ns() > end) {
			r->timed_out = true;
			break;
		}
		cpu_relax();
	}
	r->unlock_ns = ktime_get_ns();
	rcu_read_unlock();
	r->in_section = false;
	return 0;
}

struct updater {
	int kind;			/* 0 synchronize_rcu, 1 expedited, 2 call_rcu */
	volatile u64 done_ns;
	struct rcu_head head;
};

static void updater_cb(struct rcu_head *h)
{
	struct updater *u = container_of(h, struct updater, head);

	u->done_ns = ktime_get_ns();
}

static int updater_fn(void *p)
{
	struct updater *u = p;

	if (u->kind == 0)
		synchronize_rcu();
	else if (u->kind == 1)
		synchronize_rcu_expedited();
	else {
		call_rcu(&u->head, updater_cb);
		return 0;
	}
	u->done_ns = ktime_get_ns();
	return 0;
}

static const char *const kind_name[] = { "synchronize_rcu", "synchronize_rcu_expedited",
					 "call_rcu" };

/*
 * The reader enters its section, then the updater starts on the same CPU
 * at a higher priority, which preempts the reader mid-section.  The grace
 * period must not end while the reader is held (hold_ms), and must end
 * soon after it unlocks.
 */
static void __preempted_reader_blocks(int kind, bool same_cpu)
{
	static struct reader r;
	static struct updater u;
	int cpu = other_cpu(), ucpu = same_cpu ? cpu : 0;
	long blocked0 = atomic_long_read(&rcu_preempt_blocked_total);
	const unsigned int hold_ms = 300;
	struct task *rt, *ut;
	u64 after;

	if (!same_cpu && nr_cpu_ids < 2) {
		ktap_skip("needs 2 CPUs (a reader running beside the updater)");
		return;
	}
	r = (struct reader){ 0 };
	u = (struct updater){ .kind = kind };
	rt = start_on(reader_fn, &r, cpu, PRIO_LOW, "rcu-reader");
	KTAP_ASSERT(rt);
	if (!WAIT_UNTIL(r.in_section, 2000)) {
		r.release = true;
		kthread_join(rt);
		ktap_fail("the reader never entered its section");
		return;
	}
	ut = start_on(updater_fn, &u, ucpu, PRIO_HIGH, "rcu-updater");
	KTAP_ASSERT(ut);
	/* The reader must stay in its section, so the GP must not end. */
	WAIT_WINDOW(u.done_ns, hold_ms);
	KTAP_EXPECT(!u.done_ns);
	if (u.done_ns)
		ktap_log("%s ended while a pre-existing reader held its section", kind_name[kind]);
	if (same_cpu) {
		KTAP_EXPECT(atomic_long_read(&rcu_preempt_blocked_total) > blocked0);
		KTAP_EXPECT(rt->rcu_read_unlock_special & RCU_SPECIAL_BLOCKED);
	}
	r.release = true;
	KTAP_EXPECT(WAIT_UNTIL(u.done_ns, 5000));
	kthread_join(rt);
	if (kind == 2)
		rcu_barrier();
	kthread_join(ut);
	KTAP_EXPECT(!r.timed_out);
	KTAP_ASSERT(u.done_ns && r.unlock_ns);
	KTAP_EXPECT(u.done_ns >= r.unlock_ns);
	after = u.done_ns >= r.unlock_ns ? (u.done_ns - r.unlock_ns) / 1000 : 0;
	ktap_log("%s: reader %s, GP ended %lu us after its unlock", kind_name[kind],
		 same_cpu ? "preempted" : "running on another CPU", after);
	/* Not forever: the figure above is how soon; the bound is a hang
	 * guard only, since a loaded host stretches it freely. */
	KTAP_EXPECT(after < WAIT_MIN_MS * 1000ull);
}

/*
 * Boosting is off while the reader is held: raised above this thread on a
 * shared CPU (one CPU online), the spinning reader would never let it run
 * to release it.  Boosting has its own case.
 */
static void preempted_reader_blocks(int kind, bool same_cpu)
{
	bool boost = rcu_boost_enabled;

	rcu_boost_enabled = false;
	__preempted_reader_blocks(kind, same_cpu);
	rcu_boost_enabled = boost;
}

static void rcu_preempt_reader_blocks_synchronize_rcu(void)
{
	preempted_reader_blocks(0, true);
}

static void rcu_preempt_reader_blocks_call_rcu(void)
{
	preempted_reader_blocks(2, true);
}

static void rcu_preempt_reader_blocks_expedited(void)
{
	preempted_reader_blocks(1, true);
}

static void rcu_preempt_running_reader_blocks_expedited(void)
{
	preempted_reader_blocks(1, false);
}

/* ---- nesting and misuse ------------------------------------------------- */

static void rcu_preempt_nesting_and_misuse(void)
{
	int misuse0 = atomic_read(&rcu_misuse_reports);
	int pc = preempt_count();

	KTAP_EXPECT_EQ(rcu_preempt_depth(), 0);
	rcu_read_lock();
	rcu_read_lock();
	KTAP_EXPECT_EQ(rcu_preempt_depth(), 2);
	/* Preemptible: the read side does not touch preempt_count. */
	KTAP_EXPECT_EQ(preempt_count(), pc);
	rcu_read_unlock();
	KTAP_EXPECT_EQ(rcu_preempt_depth(), 1);
	/* Quick Quiz 3, RCU's form: each would wait for this very reader. */
	ktap_expect_warnings(3, "synchronize_rcu(), its expedited form and synchronize_sched() inside an RCU reader");
	synchronize_rcu();
	synchronize_rcu_expedited();
	synchronize_sched();	/* the same grace periods */
	rcu_read_unlock();
	KTAP_EXPECT_EQ(rcu_preempt_depth(), 0);
	KTAP_EXPECT_EQ(atomic_read(&rcu_misuse_reports) - misuse0, 3);
	/* And outside a reader nothing is reported. */
	synchronize_rcu();
	KTAP_EXPECT_EQ(atomic_read(&rcu_misuse_reports) - misuse0, 3);
}

/* ---- priority boosting -------------------------------------------------- */

struct hog {
	volatile bool stop;
	volatile bool running;
};

/* A CPU hog one priority above the reader, preemptible, at most 10 s. */
static int hog_fn(void *p)
{
	struct hog *h = p;
	u64 end = ktime_get_ns() + 10000000000ull;

	h->running = true;
	while (!h->stop && ktime_get_ns() < end)
		cpu_relax();
	h->running = false;
	return 0;
}

/* The reader needs work_ns of CPU time inside its section. */
static int boost_reader_fn(void *p)
{
	struct reader *r = p;
	u64 last = ktime_get_ns(), got = 0, end = last + 10000000000ull;

	rcu_read_lock();
	r->in_section = true;
	while (!r->release)		/* wait for the hog to be in place */
		cpu_relax();
	while (got < r->work_ns && ktime_get_ns() < end) {
		u64 t = ktime_get_ns();

		if (t - last < 1000000)	/* gaps of 1 ms or more: we were off the CPU */
			got += t - last;
		last = t;
		cpu_relax();
	}
	r->timed_out = got < r->work_ns;
	r->unlock_ns = ktime_get_ns();
	rcu_read_unlock();
	r->in_section = false;
	return 0;
}

/*
 * The article's "low-priority readers can block high-priority
 * reclaimers": a low-priority reader preempted in its section by a
 * normal-priority hog that never sleeps, on the same CPU, and a
 * high-priority synchronize_rcu().  Boosting must end the inversion within
 * rcu.boost_delay_ms (plus the reader's own 20 ms and scan slack); with
 * rcu.boost=0 the grace period must still be stuck after several delays,
 * and end only once the hog stops.
 */
static void rcu_preempt_boost_ends_inversion(void)
{
	static struct reader r;
	static struct updater u;
	static struct hog h;
	int cpu = other_cpu(), boosts0 = atomic_read(&rcu_boosts);
	unsigned int delay = READ_ONCE(rcu_boost_delay_ms);
	bool boost = READ_ONCE(rcu_boost_enabled);
	unsigned int window = MAX(1000u, 5 * delay);
	struct task *rt, *ht, *ut;
	u64 t0, gp_ms, stop_ns = 0, boost_ms = 0;

	r = (struct reader){ .work_ns = 20000000 };
	u = (struct updater){ .kind = 0 };
	h = (struct hog){ 0 };
	rt = start_on(boost_reader_fn, &r, cpu, PRIO_LOW, "boost-reader");
	KTAP_ASSERT(rt);
	KTAP_ASSERT(WAIT_UNTIL(r.in_section, 2000));
	ht = start_on(hog_fn, &h, cpu, PRIO_NORMAL, "boost-hog");
	KTAP_ASSERT(ht);
	WAIT_UNTIL(h.running, 2000);
	r.release = true;		/* the reader's work starts, if it ever runs */
	t0 = now_ms();
	ut = start_on(updater_fn, &u, nr_cpu_ids > 2 ? 2 : 0, PRIO_HIGH, "boost-updater");
	KTAP_ASSERT(ut);
	{
		/* Boosted, the grace period must end: waited for (a hang
		 * guard bounds it).  Unboosted, it must not within window. */
		u64 end = t0 + (boost ? delay + WAIT_MIN_MS : window);

		while (!u.done_ns && now_ms() < end) {
			if (!boost_ms && atomic_read(&rcu_boosts) != boosts0)
				boost_ms = now_ms() - t0;
			msleep(1);
		}
	}
	if (!u.done_ns) {
		stop_ns = ktime_get_ns();
		h.stop = true;		/* end the inversion by hand */
	}
	KTAP_EXPECT(WAIT_UNTIL(u.done_ns, 5000));
	h.stop = true;
	kthread_join(ht);
	kthread_join(rt);
	kthread_join(ut);
	gp_ms = u.done_ns ? u.done_ns / 1000000ull - t0 : 0;
	ktap_log("rcu.boost=%d boost_delay_ms=%u: grace period took %lu ms, %d readers "
		 "boosted (first at %lu ms)%s", boost, delay, gp_ms,
		 atomic_read(&rcu_boosts) - boosts0, boost_ms,
		 stop_ns ? ", ended by stopping the hog" : "");
	ktap_log("bench name=rcu_boost cpus=%d boost=%d delay_ms=%u gp_ms=%lu",
		 num_online_cpus(), boost, delay, gp_ms);
	if (boost) {
		KTAP_EXPECT(!stop_ns);
		KTAP_EXPECT(atomic_read(&rcu_boosts) > boosts0);
		KTAP_EXPECT(gp_ms >= delay * 9 / 10);	/* the inversion was real */
		KTAP_EXPECT(gp_ms < delay + WAIT_MIN_MS);
		KTAP_EXPECT(!r.timed_out);
	} else {
		KTAP_EXPECT(stop_ns != 0);	/* still inverted after the window */
		KTAP_EXPECT(stop_ns && u.done_ns >= stop_ns);
		KTAP_EXPECT_EQ(atomic_read(&rcu_boosts), boosts0);
	}
}

/* ---- grace-period latency ----------------------------------------------- */

static void gp_bench(const char *type, void (*fn)(void), int n)
{
	u64 v[32];
	struct stats st;

	for (int i = 0; i < n; i++) {
		u64 t = ktime_get_ns();

		fn();
		v[i] = ktime_get_ns() - t;
	}
	stats_compute(v, n, &st);
	ktap_log("bench name=gp type=%s cpus=%d n=%d min_ns=%lu mean_ns=%lu "
		 "max_ns=%lu median_ns=%lu", type, num_online_cpus(), n,
		 st.min, st.mean, st.max, st.median);
}

static void rcu_preempt_bench_gp(void)
{
	gp_bench("rcu", synchronize_rcu, 16);
	gp_bench("rcu-expedited", synchronize_rcu_expedited, 32);
	/* One CPU: blocking is itself a grace period, no expedited one runs. */
	if (num_online_cpus() > 1)
		KTAP_EXPECT(rcu_exp_batches_completed() >= 32);
}

static int rcu_preempt_init(void)
{
	return 0;
}

KTAP_SUITE_FULL(rcu_preempt, rcu_preempt_init, NULL,
	KTAP_CASE(rcu_preempt_nesting_and_misuse),
	KTAP_CASE(rcu_preempt_reader_blocks_synchronize_rcu),
	KTAP_CASE(rcu_preempt_reader_blocks_call_rcu),
	KTAP_CASE(rcu_preempt_reader_blocks_expedited),
	KTAP_CASE(rcu_preempt_running_reader_blocks_expedited),
	KTAP_CASE_TIMEOUT(rcu_preempt_boost_ends_inversion, 30000),
	KTAP_CASE(rcu_preempt_bench_gp));

#else /* !CONFIG_PREEMPT_RCU */

static void rcu_preempt_not_built(void)
{
	ktap_skip("not built (CONFIG_PREEMPT_RCU=n: rcu_read_lock() is preempt_disable())");
}

KTAP_SUITE(rcu_preempt, KTAP_CASE(rcu_preempt_not_built));

#endif
