/*
 * tests/kernel/test_rcu.c - KTAP suites for RCU-sched (rcu/tree.c,
 * expedited.c, stall.c, segcblist.c, rculist.h):
 *
 *   rcu         the API's promises checked against real readers on other
 *               CPUs (callbacks, synchronize, barrier, polled cookies,
 *               expedited), a callback flood, the article's list example
 *               with list and hlist forms, the stall detector, the misuse
 *               reports, and the grace-period / call_rcu benchmark rows;
 *   rcutorture  rcu/torture.c, the torture= flavour for torture.secs (kmain
 *               runs this suite alone when torture= is given; else SKIP);
 *   rcutorture_short  a 1 s run of each flavour, busted included, which
 *               must end in FAILURE.
 *
 * Every wait is bounded and says what it waited for.  Cases that need a
 * second CPU say SKIP at -smp 1.  The suite looks inside rcu/tree.h only
 * where the property is internal (which CPU a stall report named).
 */
#include "kernel/ktap.h"
#include "tests/kernel/test_helpers.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/cpu.h"
#include "kernel/time.h"
#include "kernel/slab.h"
#include "kernel/string.h"
#include "kernel/spinlock.h"
#include "kernel/printk.h"
#include "kernel/math.h"
#include "rcu/rcupdate.h"
#include "rcu/rculist.h"
#include "rcu/torture.h"
#include "rcu/tree.h"

/* ---- helpers ------------------------------------------------------------ */


static u32 rnd_next(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (u32)(*s >> 11);
}

/* The memory log, searched after a marker line this case printed. */
static char logbuf[128 * 1024 + 1];

static const char *find_str(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; *hay; hay++)
		if (*hay == *needle && !strncmp(hay, needle, n))
			return hay;
	return NULL;
}

/* The log from the last occurrence of marker on (NULL if it is gone). */
static const char *log_after(const char *marker)
{
	size_t n = printk_log_read(logbuf, sizeof(logbuf) - 1, 0);
	const char *p, *last = NULL;

	logbuf[n] = '\0';
	for (p = logbuf; (p = find_str(p, marker)); p++)
		last = p;
	return last;
}

static int count_str(const char *hay, const char *needle)
{
	int n = 0;

	for (; hay && (hay = find_str(hay, needle)); hay++)
		n++;
	return n;
}

/* The case said "# expected: ..." (ktap_expect_alarm()) before the first
 * `alarm` in log, for whoever reads the console. */
static bool announced(const char *log, const char *alarm)
{
	const char *said = find_str(log, "# expected: "), *a = find_str(log, alarm);

	return said && a && said < a;
}

static unsigned int marker_seq;

/* Prints a unique marker line and returns it (for log_after()). */
static const char *log_marker(char *buf, size_t size, const char *what)
{
	snprintf(buf, size, "rcu-test mark %u: %s", ++marker_seq, what);
	printk(KERN_INFO "%s\n", buf);
	return buf;
}

/* ---- a reader on another CPU ------------------------------------------- */

struct reader_ctl {
	int in;			/* the reader is inside its section */
	int release;		/* the test lets it go */
	int left;		/* set just before rcu_read_unlock_sched() */
	u64 left_ns;		/* when */
	unsigned int max_ms;	/* bound on the hold if nobody releases it */
	unsigned int hold_ms;	/* 0: until released; else leave on its own */
};

static int held_reader(void *arg)
{
	struct reader_ctl *c = arg;
	u64 t0, lim;

	rcu_read_lock_sched();
	__atomic_store_n(&c->in, 1, __ATOMIC_SEQ_CST);
	t0 = ktime_get_ns();
	lim = (u64)(c->hold_ms ? c->hold_ms : c->max_ms) * 1000000ull;
	while (!__atomic_load_n(&c->release, __ATOMIC_ACQUIRE) && ktime_get_ns() - t0 < lim)
		cpu_relax();
	c->left_ns = ktime_get_ns();
	__atomic_store_n(&c->left, 1, __ATOMIC_SEQ_CST);
	rcu_read_unlock_sched();
	return 0;
}

/* ---- callbacks wait for readers ----------------------------------------- */

struct cb_probe {
	struct rcu_head rh;
	struct reader_ctl *reader;
	int ran;
	int reader_left_when_run;
	u64 ran_ns;
};

static void cb_probe_fn(struct rcu_head *rh)
{
	struct cb_probe *p = container_of(rh, struct cb_probe, rh);

	p->reader_left_when_run = p->reader ? __atomic_load_n(&p->reader->left, __ATOMIC_SEQ_CST) : 1;
	p->ran_ns = ktime_get_ns();
	__atomic_store_n(&p->ran, 1, __ATOMIC_RELEASE);
}

static void rcu_callback_waits_for_reader(void)
{
	struct reader_ctl rc = { .max_ms = 5000 };
	struct cb_probe probe = { .reader = &rc };
	struct task *t;
	int cpu = farthest_cpu();

	if (cpu == raw_smp_processor_id()) {
		/* One CPU: the reader is this thread; its callback waits for it. */
		rcu_read_lock_sched();
		call_rcu_sched(&probe.rh, cb_probe_fn);
		mdelay(20);
		KTAP_EXPECT(!__atomic_load_n(&probe.ran, __ATOMIC_ACQUIRE));
		rc.left_ns = ktime_get_ns();
		__atomic_store_n(&rc.left, 1, __ATOMIC_SEQ_CST);
		rcu_read_unlock_sched();
	} else {
		t = start_on(held_reader, &rc, cpu, PRIO_NORMAL, "rcu_test_reader");
		KTAP_ASSERT(t);
		if (!WAIT_UNTIL(__atomic_load_n(&rc.in, __ATOMIC_SEQ_CST), 5000)) {
			ktap_fail("the reader thread on CPU %d never started", cpu);
			__atomic_store_n(&rc.release, 1, __ATOMIC_RELEASE);
			kthread_join(t);
			return;
		}
		call_rcu_sched(&probe.rh, cb_probe_fn);
		/* Many normal grace periods' worth of time: it must still wait. */
		msleep(100);
		KTAP_EXPECT(!__atomic_load_n(&probe.ran, __ATOMIC_ACQUIRE));
		__atomic_store_n(&rc.release, 1, __ATOMIC_RELEASE);
		kthread_join(t);
	}
	if (!WAIT_UNTIL(__atomic_load_n(&probe.ran, __ATOMIC_ACQUIRE), WAIT_MIN_MS)) {
		ktap_fail("call_rcu_sched() callback did not run within %d s of the reader leaving",
			  WAIT_MIN_MS / 1000);
		rcu_barrier_sched();	/* probe is on this stack */
		return;
	}
	KTAP_EXPECT(probe.reader_left_when_run);
	ktap_log("callback ran %llu us after the reader left",
		 (unsigned long long)((probe.ran_ns - rc.left_ns) / 1000));
}

/* ---- synchronize_sched() and _expedited() wait for readers --------------- */

static void sync_waits_for_reader(void (*sync)(void), const char *name)
{
	struct reader_ctl rc = { .hold_ms = 60, .max_ms = 60 };
	struct task *t;
	int cpu = farthest_cpu();
	u64 ret_ns;

	if (cpu == raw_smp_processor_id()) {
		ktap_skip("needs a second CPU for the reader");
		return;
	}
	t = start_on(held_reader, &rc, cpu, PRIO_NORMAL, "rcu_test_reader");
	KTAP_ASSERT(t);
	if (!WAIT_UNTIL(__atomic_load_n(&rc.in, __ATOMIC_SEQ_CST), 5000)) {
		ktap_fail("the reader thread on CPU %d never started", cpu);
		kthread_join(t);
		return;
	}
	sync();
	ret_ns = ktime_get_ns();
	KTAP_EXPECT(__atomic_load_n(&rc.left, __ATOMIC_SEQ_CST));
	kthread_join(t);
	if (rc.left)
		KTAP_EXPECT(ret_ns >= rc.left_ns);
	/* "Not forever": the figure below is how soon; the bound is a hang
	 * guard only, since a loaded host stretches it freely. */
	KTAP_EXPECT(ret_ns - rc.left_ns < WAIT_MIN_MS * 1000000ull);
	ktap_log("%s() returned %llu us after the reader left", name,
		 (unsigned long long)((ret_ns - rc.left_ns) / 1000));
}

static void rcu_synchronize_waits_for_reader(void)
{
	sync_waits_for_reader(synchronize_sched, "synchronize_sched");
}

static void rcu_expedited_waits_for_reader(void)
{
	unsigned long e0 = rcu_exp_batches_completed_sched();

	sync_waits_for_reader(synchronize_sched_expedited, "synchronize_sched_expedited");
	if (ktap_case_ok() && num_online_cpus() > 1)
		KTAP_EXPECT(rcu_exp_batches_completed_sched() != e0);
}

/* ---- rcu_barrier_sched() ------------------------------------------------- */

#define BARRIER_CBS 300

static atomic_t barrier_ran;
/* Not kmalloc: 16 CPUs allocating at once measure the allocator's lock. */
static struct rcu_head barrier_heads[NR_CPUS][BARRIER_CBS];

static void barrier_cb_fn(struct rcu_head *rh)
{
	(void)rh;
	udelay(5);	/* slow callbacks: the barrier must really wait */
	atomic_inc(&barrier_ran);
}

static int barrier_queuer(void *arg)
{
	struct rcu_head *h = arg;

	for (int i = 0; i < BARRIER_CBS; i++)
		call_rcu_sched(&h[i], barrier_cb_fn);
	return 0;
}

static void rcu_barrier_waits_for_all(void)
{
	struct task *t[NR_CPUS] = { 0 };
	int cpu, queued = 0, got;

	atomic_set(&barrier_ran, 0);
	for_each_online_cpu(cpu) {
		t[cpu] = start_on(barrier_queuer, barrier_heads[cpu], cpu, PRIO_NORMAL, "rcu_test_barrier");
		KTAP_EXPECT(t[cpu]);
	}
	for_each_online_cpu(cpu)
		if (t[cpu] && kthread_join(t[cpu]) == 0)
			queued += BARRIER_CBS;
	rcu_barrier_sched();
	got = atomic_read(&barrier_ran);
	KTAP_EXPECT_EQ(got, queued);
	KTAP_EXPECT_EQ(queued, BARRIER_CBS * num_online_cpus());
	/* A second barrier with nothing queued returns too. */
	rcu_barrier_sched();
	KTAP_EXPECT_EQ(atomic_read(&barrier_ran), queued);
}

/* ---- polled grace periods ------------------------------------------------ */

static void rcu_polled_state(void)
{
	unsigned long c1, c2, c3;

	rcu_read_lock_sched();
	c1 = get_state_synchronize_sched();
	c2 = start_poll_synchronize_sched();
	/* Our own reader holds every grace period that started after c1. */
	KTAP_EXPECT(!poll_state_synchronize_sched(c1));
	KTAP_EXPECT(!poll_state_synchronize_sched(c2));
	rcu_read_unlock_sched();

	/* start_poll asked for the grace period: it comes without help. */
	if (!WAIT_UNTIL(poll_state_synchronize_sched(c2), 10000))
		ktap_fail("the grace period start_poll_synchronize_sched() asked for never ended");
	KTAP_EXPECT(poll_state_synchronize_sched(c1));

	if (num_online_cpus() > 1) {
		c3 = get_state_synchronize_sched();
		synchronize_sched();
		KTAP_EXPECT(poll_state_synchronize_sched(c3));
		c3 = get_state_synchronize_sched();
		cond_synchronize_sched(c3);
		KTAP_EXPECT(poll_state_synchronize_sched(c3));
	} else {
		/* One CPU: synchronize_sched() is the blocking-is-a-GP shortcut,
		 * which does not advance cookies; cond_ still must not return
		 * early, so check it through a callback's grace period. */
		c3 = get_state_synchronize_sched();
		cond_synchronize_sched(c3);	/* returns: blocking is the GP */
		start_poll_synchronize_sched();
		KTAP_EXPECT(WAIT_UNTIL(poll_state_synchronize_sched(c3), 10000));
	}
	/* An old cookie stays satisfied (no wrap confusion). */
	KTAP_EXPECT(poll_state_synchronize_sched(c1));
}

/* ---- full cookies: expedited grace periods count ------------------------ */

static int exp_sync_thread(void *arg)
{
	(void)arg;
	synchronize_sched_expedited();
	return 0;
}

/*
 * An expedited grace period satisfies a full cookie taken before it
 * started, never one taken while it ran.  The second half holds an
 * expedited grace period open with an RCU-sched reader on another CPU,
 * takes a cookie while it runs, lets it end: the cookie may then be
 * satisfied only by grace periods that ended since (two of either kind:
 * the first may have been running already).
 */
static void rcu_polled_full_expedited(void)
{
	struct reader_ctl rc = { .max_ms = 20000 };
	struct rcu_gp_oldstate c1, c2, c3;
	unsigned long n0, e0, dn, de;
	long p0;
	int cpu = farthest_cpu();
	struct task *r, *x;
	bool got;

	if (cpu == raw_smp_processor_id()) {
		ktap_skip("needs a second CPU (one CPU: synchronize is the GP shortcut)");
		return;
	}
	rcu_read_lock_sched();
	get_state_synchronize_sched_full(&c1);
	KTAP_EXPECT(!poll_state_synchronize_sched_full(&c1));	/* we hold it */
	rcu_read_unlock_sched();
	synchronize_sched_expedited();
	KTAP_EXPECT(poll_state_synchronize_sched_full(&c1));

	r = start_on(held_reader, &rc, cpu, PRIO_NORMAL, "rcu_test_reader");
	KTAP_ASSERT(r);
	if (!WAIT_UNTIL(__atomic_load_n(&rc.in, __ATOMIC_SEQ_CST), 5000)) {
		ktap_fail("the reader thread on CPU %d never started", cpu);
		__atomic_store_n(&rc.release, 1, __ATOMIC_RELEASE);
		kthread_join(r);
		return;
	}
	/* On this CPU: the reader's spins with preemption off. */
	x = start_on(exp_sync_thread, NULL, raw_smp_processor_id(), PRIO_NORMAL, "rcu_test_exp");
	KTAP_ASSERT(x);
	/* The expedited GP has started (the reader holds it open). */
	if (!WAIT_UNTIL(rcu_seq_state(READ_ONCE(rcu_sched_exp.expedited_sequence)), 10000))
		ktap_fail("the expedited grace period never started");
	get_state_synchronize_sched_full(&c2);
	n0 = rcu_batches_completed_sched();
	e0 = rcu_exp_batches_completed_sched();
	KTAP_EXPECT(!poll_state_synchronize_sched_full(&c2));
	__atomic_store_n(&rc.release, 1, __ATOMIC_RELEASE);
	kthread_join(r);
	kthread_join(x);
	got = poll_state_synchronize_sched_full(&c2);
	dn = rcu_batches_completed_sched() - n0;
	de = rcu_exp_batches_completed_sched() - e0;
	ktap_log("cookie taken mid-expedited-GP: satisfied=%d, %lu normal and %lu expedited GPs ended since",
		 got, dn, de);
	if (got && dn < 2 && de < 2)
		ktap_fail("a full cookie was satisfied by the expedited GP running when it was taken");
	KTAP_EXPECT(de >= 1);

	/* start_poll_..._expedited_full(): the kthread runs one for it. */
	p0 = atomic_long_read(&rcu_exp_poll_gps);
	start_poll_synchronize_sched_expedited_full(&c3);
	KTAP_EXPECT(WAIT_UNTIL(poll_state_synchronize_sched_full(&c3), 10000));
	KTAP_EXPECT(WAIT_UNTIL(atomic_long_read(&rcu_exp_poll_gps) > p0, 10000));

	/* The special values. */
	get_completed_synchronize_rcu_full(&c3);
	KTAP_EXPECT(poll_state_synchronize_sched_full(&c3));
	KTAP_EXPECT(poll_state_synchronize_sched(get_completed_synchronize_rcu()));
	get_never_synchronize_rcu_full(&c3);
	synchronize_sched();
	synchronize_sched_expedited();
	KTAP_EXPECT(!poll_state_synchronize_sched_full(&c3));
	KTAP_EXPECT(!poll_state_synchronize_sched(get_never_synchronize_rcu()));
}

#ifdef CONFIG_PREEMPT_RCU
/*
 * Preemptible RCU: an RCU-sched reader on another CPU holds every normal
 * grace period but not synchronize_rcu_expedited(), which waits for
 * rcu_read_lock() readers only.  So a full cookie taken after the reader
 * began can only be satisfied by the expedited grace period, and must be.
 */
static void rcu_polled_full_preempt_expedited(void)
{
	struct reader_ctl rc = { .max_ms = 20000 };
	struct rcu_gp_oldstate c, d;
	int cpu = farthest_cpu();
	struct task *r;

	if (cpu == raw_smp_processor_id()) {
		ktap_skip("needs a second CPU for the reader");
		return;
	}
	r = start_on(held_reader, &rc, cpu, PRIO_NORMAL, "rcu_test_reader");
	KTAP_ASSERT(r);
	if (!WAIT_UNTIL(__atomic_load_n(&rc.in, __ATOMIC_SEQ_CST), 5000)) {
		ktap_fail("the reader thread on CPU %d never started", cpu);
		__atomic_store_n(&rc.release, 1, __ATOMIC_RELEASE);
		kthread_join(r);
		return;
	}
	get_state_synchronize_rcu_full(&c);
	KTAP_EXPECT(!poll_state_synchronize_rcu_full(&c));
	synchronize_rcu_expedited();
	KTAP_EXPECT(poll_state_synchronize_rcu_full(&c));
	KTAP_EXPECT(!poll_state_synchronize_rcu(c.rgos_norm));	/* the reader holds it */
	/* The polled form, served by rcu_exp_poll, with the normal GP held. */
	start_poll_synchronize_rcu_expedited_full(&d);
	KTAP_EXPECT(WAIT_UNTIL(poll_state_synchronize_rcu_full(&d), 10000));
	KTAP_EXPECT(!poll_state_synchronize_rcu(d.rgos_norm));
	KTAP_EXPECT(!__atomic_load_n(&rc.left, __ATOMIC_SEQ_CST));
	__atomic_store_n(&rc.release, 1, __ATOMIC_RELEASE);
	kthread_join(r);
	cond_synchronize_rcu_full(&d);	/* satisfied: returns at once */
	get_state_synchronize_rcu_full(&c);
	cond_synchronize_rcu_full(&c);
	KTAP_EXPECT(poll_state_synchronize_rcu_full(&c));
}
#else
static void rcu_polled_full_preempt_expedited(void)
{
	ktap_skip("PREEMPT_RCU=0: the rcu names are RCU-sched's (rcu_polled_full_expedited)");
}
#endif

/* ---- a callback flood ---------------------------------------------------- */

/*
 * Callbacks come from kmalloc'd chunks (one allocation per FLOOD_CHUNK, the
 * last callback of a chunk frees it) so the flood measures RCU, not the
 * allocator's shared lists.  Counters are per CPU with one writer each: the
 * flood thread bound there, and that CPU's rcuc thread running the
 * callbacks it queued.
 */
#define FLOOD_TOTAL	1000000L
#define FLOOD_CHUNK	512
/* TCG on a shared host can be 50x slower than at one CPU: the flood stops
 * early (and says so) rather than outlive its case. */
#define FLOOD_MAX_NS	10000000000ull
/* What must be queued however slow the host: the flood goes on past
 * FLOOD_MAX_NS until each CPU has its share of it (a hang guard, ten
 * times as long, ends it anyway). */
#define FLOOD_MIN	50000L

struct flood_chunk;
struct flood_item {
	struct rcu_head rh;
	struct flood_chunk *chunk;
};
struct flood_chunk {
	atomic_t left;
	struct flood_item item[FLOOD_CHUNK];
};

static long flood_q[NR_CPUS], flood_f[NR_CPUS], flood_fail[NR_CPUS];
static atomic_long_t flood_peak, flood_stale_peak;
static u64 flood_first_cb_ns, flood_last_cb_ns, flood_end_ns;

static void flood_cb(struct rcu_head *rh)
{
	struct flood_item *it = container_of(rh, struct flood_item, rh);
	int cpu = raw_smp_processor_id();	/* rcuc/cpu, bh off: stays here */
	u64 now = ktime_get_ns();

	if (atomic_dec_and_test(&it->chunk->left))
		kfree(it->chunk);
	if (!flood_first_cb_ns)
		flood_first_cb_ns = now;	/* roughly: any CPU's first */
	WRITE_ONCE(flood_f[cpu], flood_f[cpu] + 1);
	WRITE_ONCE(flood_last_cb_ns, now);
}

static long flood_sum(const long *v)
{
	long sum = 0;
	int cpu;

	for_each_online_cpu(cpu)
		sum += READ_ONCE(v[cpu]);
	return sum;
}

static void flood_max(atomic_long_t *m, long v)
{
	long old;

	while ((old = atomic_long_read(m)) < v && atomic_long_cmpxchg(m, old, v) != old)
		;
}

#define FLOOD_RING 64

/*
 * After each chunk: the backlog in flight (all CPUs), and this CPU's
 * "stale" callbacks, whose grace period is known to be over (a polled
 * cookie taken after they were queued, seen done one chunk earlier) but
 * which have not run yet.  The
 * backlog depends on how long grace periods take on this host; the stale
 * count only on RCU getting ready callbacks invoked, during the flood.
 */
static long flood_min_per_cpu;

static bool flood_time_up(long queued_here)
{
	u64 now = ktime_get_ns();

	if (now > flood_end_ns + 9 * FLOOD_MAX_NS)
		return true;
	return now > flood_end_ns && queued_here >= flood_min_per_cpu;
}

static int flood_thread(void *arg)
{
	struct { unsigned long cookie; long queued; } ring[FLOOD_RING];
	long n = (long)arg, i = 0, j, head = 0, prev_ready = 0;
	int cpu = raw_smp_processor_id();

	while (i < n && !flood_time_up(i)) {
		long k = MIN(n - i, (long)FLOOD_CHUNK), ready = 0;
		struct flood_chunk *c = kmalloc(sizeof(*c), GFP_KERNEL);

		if (!c) {
			flood_fail[cpu]++;
			schedule_timeout_uninterruptible(1);
			continue;
		}
		atomic_set(&c->left, (int)k);
		for (j = 0; j < k; j++) {
			c->item[j].chunk = c;
			call_rcu_sched(&c->item[j].rh, flood_cb);
			WRITE_ONCE(flood_q[cpu], flood_q[cpu] + 1);
			if (!(j & 127)) {
				cond_resched();
				if (j && flood_time_up(i + j)) {
					j++;
					break;
				}
			}
		}
		/* Stopped early: the chunk holds fewer callbacks than counted. */
		if (j < k && atomic_sub_return((int)(k - j), &c->left) == 0)
			kfree(c);
		i += j;
		ring[head % FLOOD_RING].cookie = get_state_synchronize_sched();
		ring[head % FLOOD_RING].queued = flood_q[cpu];
		head++;
		for (long h = head - 1; h >= 0 && h >= head - FLOOD_RING; h--)
			if (poll_state_synchronize_sched(ring[h % FLOOD_RING].cookie)) {
				ready = ring[h % FLOOD_RING].queued;
				break;
			}
		/* Ready since the last chunk at least: rcuc (higher priority,
		 * woken at the GP's end or the next tick) had a chunk's time. */
		flood_max(&flood_stale_peak, prev_ready - READ_ONCE(flood_f[cpu]));
		prev_ready = ready;
		flood_max(&flood_peak, flood_sum(flood_q) - flood_sum(flood_f));
	}
	return 0;
}

static void rcu_callback_flood(void)
{
	struct task *t[NR_CPUS] = { 0 };
	int cpu, ncpus = num_online_cpus();
	long per = FLOOD_TOTAL / ncpus, queued, peak, stale;
	unsigned long gp0 = rcu_batches_completed_sched(), gps, j0 = jiffies, jf;
	u64 t0, t1, t2;

	memset(flood_q, 0, sizeof(flood_q));
	memset(flood_f, 0, sizeof(flood_f));
	memset(flood_fail, 0, sizeof(flood_fail));
	atomic_long_set(&flood_peak, 0);
	atomic_long_set(&flood_stale_peak, 0);
	flood_first_cb_ns = 0;
	t0 = ktime_get_ns();
	flood_end_ns = t0 + FLOOD_MAX_NS;
	flood_min_per_cpu = (FLOOD_MIN + ncpus - 1) / ncpus;
	for_each_online_cpu(cpu)
		t[cpu] = start_on(flood_thread, (void *)per, cpu, PRIO_NORMAL, "rcu_test_flood");
	for_each_online_cpu(cpu)
		if (t[cpu])
			kthread_join(t[cpu]);
	t1 = ktime_get_ns();
	gps = rcu_batches_completed_sched() - gp0;
	jf = jiffies - j0;	/* vs t1 - t0: ticks a starved host lost */
	rcu_barrier_sched();
	t2 = ktime_get_ns();
	queued = flood_sum(flood_q);
	peak = atomic_long_read(&flood_peak);
	stale = atomic_long_read(&flood_stale_peak);
	KTAP_EXPECT_EQ(flood_sum(flood_fail), 0);
	KTAP_EXPECT_EQ(flood_sum(flood_f), queued);
	if (queued < per * ncpus)
		ktap_log("flood: stopped after %llu s at %ld of %ld callbacks (slow TCG host)",
			 FLOOD_MAX_NS / 1000000000ull, queued, per * ncpus);
	KTAP_EXPECT(queued >= FLOOD_MIN);
	/* Bounded: what waits is what the last grace periods have not yet
	 * covered (that depends on the host), never callbacks whose grace
	 * period is over: those run during the flood, not after it. */
	KTAP_EXPECT(gps >= 1);
	/* rcuc is woken at a GP's end or by the tick: when the host ran this
	 * guest's ticks at under a tenth of their rate, what stayed ready says
	 * how the host scheduled, not how the kernel did (seen: 156 ticks in
	 * 10056 ms at -smp 16, peak stale 48128 of 411277). */
	if (jf * 10 >= msecs_to_jiffies((t1 - t0) / 1000000))
		KTAP_EXPECT(stale < queued / 10);
	else
		ktap_log("flood: the host ran %lu of %lu ticks: peak stale %ld not judged",
			 jf, msecs_to_jiffies((t1 - t0) / 1000000), stale);
	ktap_log("flood: %ld call_rcu_sched() from %d CPUs in %llu ms (%lu ticks, %lu grace periods), "
		 "all invoked %llu ms later, peak in flight %ld (%ld%%, %ld KiB), peak "
		 "ready-but-not-run on a CPU %ld", queued, ncpus,
		 (unsigned long long)((t1 - t0) / 1000000), jf, gps,
		 (unsigned long long)((t2 - t1) / 1000000), peak,
		 peak * 100 / (queued ? queued : 1),
		 (long)(peak * sizeof(struct flood_item) / 1024), stale);
	ktap_log("bench name=call_rcu_flood cpus=%d n=%ld ops_per_sec=%llu cb_per_sec=%llu "
		 "peak_in_flight=%ld peak_stale=%ld gps=%lu", ncpus, queued,
		 (unsigned long long)(queued * 1000000000ull / (t1 - t0 + 1)),
		 (unsigned long long)(queued * 1000000000ull /
				      (flood_last_cb_ns - flood_first_cb_ns + 1)), peak, stale, gps);
}

/* ---- the article's list example, list and hlist forms -------------------- */

#define LE_KEYS		64
#define LE_BUCKETS	16
#define LE_LIVE		0x11feu
#define LE_POISON	0xdeadu
#define LE_MS		500

struct le {
	struct list_head list;
	struct hlist_node hnode;
	long key;
	long data;
	unsigned int magic;
	struct rcu_head rh;
};

static struct {
	struct list_head head;
	struct hlist_head hash[LE_BUCKETS];
	spinlock_t lock;		/* updaters only */
	int stop;
	atomic_long_t reads, found, poison_seen, bad_data, runaway;
	long reads_cpu[NR_CPUS];
	long adds, dels, dels_sync, replaces;
	atomic_long_t freed;
} le;

static long le_data(long key) { return key * 7 + 1; }

static struct le *le_alloc(long key)
{
	struct le *p = kmalloc(sizeof(*p), GFP_KERNEL);

	if (p) {
		p->key = key;
		p->data = le_data(key);
		p->magic = LE_LIVE;
	}
	return p;
}

/* After the grace period: poison, so a reader that still held it would see. */
static void le_poison_free(struct le *p)
{
	WRITE_ONCE(p->magic, LE_POISON);
	WRITE_ONCE(p->key, -1);
	WRITE_ONCE(p->data, -1);
	atomic_long_inc(&le.freed);
	kfree(p);
}

static void le_free_cb(struct rcu_head *rh)
{
	le_poison_free(container_of(rh, struct le, rh));
}

/* Look at an element a reader found: alive, and its own data. */
static void le_check(const struct le *p, long key)
{
	if (READ_ONCE(p->magic) != LE_LIVE)
		atomic_long_inc(&le.poison_seen);
	else if (READ_ONCE(p->key) == key && READ_ONCE(p->data) != le_data(key))
		atomic_long_inc(&le.bad_data);
}

static int le_reader(void *arg)
{
	u64 seed = 0x1234567ull + (long)arg;
	int cpu = raw_smp_processor_id();
	long n = 0;

	while (!READ_ONCE(le.stop)) {
		long key = rnd_next(&seed) % (2 * LE_KEYS), steps = 0;
		u32 r = rnd_next(&seed);
		struct le *p, *hit = NULL;

		rcu_read_lock_sched();
		list_for_each_entry_rcu(p, &le.head, list) {
			le_check(p, key);
			if (++steps > 100 * LE_KEYS) {
				atomic_long_inc(&le.runaway);
				break;
			}
			if (READ_ONCE(p->key) == key) {
				hit = p;
				break;
			}
		}
		hlist_for_each_entry_rcu(p, &le.hash[key % LE_BUCKETS], hnode) {
			le_check(p, key);
			if (READ_ONCE(p->key) == key) {
				hit = p;
				break;
			}
		}
		if (hit) {
			atomic_long_inc(&le.found);
			/* Dawdle holding it: an updater's grace period must wait. */
			if (!(r & 7))
				udelay(r % 50);
			le_check(hit, key);
		}
		rcu_read_unlock_sched();
		le.reads_cpu[cpu]++;
		if (!(++n & 255))
			schedule_timeout_uninterruptible(1);
		else if (!(n & 15))
			cond_resched();
	}
	atomic_long_add(n, &le.reads);
	return 0;
}

static struct le *le_find_locked(long key)
{
	struct le *p;

	list_for_each_entry(p, &le.head, list)
		if (p->key == key)
			return p;
	return NULL;
}

static void le_insert_locked(struct le *p, bool tail)
{
	if (tail)
		list_add_tail_rcu(&p->list, &le.head);
	else
		list_add_rcu(&p->list, &le.head);
	hlist_add_head_rcu(&p->hnode, &le.hash[p->key % LE_BUCKETS]);
}

/*
 * One update: the article's delete (both ways), a replace, or an add.
 * forced >= 0 (the first updates of a run) picks the op and a key that
 * makes it happen, so every kind runs however slow the machine is.
 */
static void le_update(u64 *seed, int forced)
{
	long key = rnd_next(seed) % (2 * LE_KEYS);
	u32 r = rnd_next(seed) % 16;
	/* 0: delete + synchronize_sched (slow: rare); 1: delete + call_rcu;
	 * 2: replace; 3: add at the head or tail, when the key is missing. */
	u32 op = r == 0 ? 0 : r < 6 ? 1 : r < 11 ? 2 : 3;
	bool tail = r & 1;

	if (forced >= 0) {
		op = forced % 4;
		/* Initial keys are even: delete/replace one, add an odd one. */
		key = op == 3 ? 2 * forced + 1 : 2 * forced;
	}
	struct le *p, *n = NULL;
	unsigned long flags;

	if (op == 2 || op == 3)
		n = le_alloc(key);
	spin_lock_irqsave(&le.lock, flags);
	p = le_find_locked(key);
	if (!p && n) {
		le_insert_locked(n, tail);
		le.adds++;
		n = NULL;
	} else if (p && op == 2 && n) {
		list_replace_rcu(&p->list, &n->list);
		hlist_replace_rcu(&p->hnode, &n->hnode);
		le.replaces++;
		n = NULL;
		spin_unlock_irqrestore(&le.lock, flags);
		call_rcu_sched(&p->rh, le_free_cb);
		return;
	} else if (p && op <= 1) {
		list_del_rcu(&p->list);
		hlist_del_rcu(&p->hnode);
		spin_unlock_irqrestore(&le.lock, flags);
		if (op == 0) {
			/* The article's form: unlock, synchronize, free. */
			synchronize_sched();
			le_poison_free(p);
			le.dels_sync++;
		} else {
			call_rcu_sched(&p->rh, le_free_cb);
		}
		le.dels++;
		return;
	}
	spin_unlock_irqrestore(&le.lock, flags);
	if (n)
		kfree(n);
}

static void rcu_list_example(void)
{
	struct task *t[NR_CPUS] = { 0 };
	u64 seed = 0xabcdefull, end;
	struct le *p, *nx;
	int cpu, i, count = 0, hcount = 0;
	long created = 0;

	memset(&le, 0, sizeof(le));
	INIT_LIST_HEAD(&le.head);
	for (i = 0; i < LE_BUCKETS; i++)
		INIT_HLIST_HEAD(&le.hash[i]);
	spin_lock_init(&le.lock);
	for (i = 0; i < LE_KEYS; i++) {
		p = le_alloc(2 * i);
		KTAP_ASSERT(p);
		le_insert_locked(p, true);
		created++;
	}
	for_each_online_cpu(cpu)
		t[cpu] = start_on(le_reader, (void *)(long)cpu, cpu, PRIO_NORMAL, "rcu_test_list");
	end = ktime_get_ns() + LE_MS * 1000000ull;
	for (i = 0; i < 8; i++)
		le_update(&seed, i);
	while (ktime_get_ns() < end) {
		le_update(&seed, -1);
		if (!(rnd_next(&seed) & 3))
			cond_resched();
	}
	WRITE_ONCE(le.stop, 1);
	for_each_online_cpu(cpu)
		if (t[cpu])
			kthread_join(t[cpu]);
	rcu_barrier_sched();

	/* The list ends whole: every element alive, list and hash agree. */
	list_for_each_entry(p, &le.head, list) {
		KTAP_EXPECT(p->magic == LE_LIVE);
		count++;
	}
	/* No reader: every updater has been joined (the condition says so). */
	for (i = 0; i < LE_BUCKETS; i++)
		hlist_for_each_entry_rcu(p, &le.hash[i], hnode, READ_ONCE(le.stop))
			hcount++;
	KTAP_EXPECT_EQ(count, hcount);
	KTAP_EXPECT_EQ(atomic_long_read(&le.poison_seen), 0);
	KTAP_EXPECT_EQ(atomic_long_read(&le.bad_data), 0);
	KTAP_EXPECT_EQ(atomic_long_read(&le.runaway), 0);
	KTAP_EXPECT(le.dels > 0 && le.dels_sync > 0 && le.replaces > 0 && le.adds > 0);
	for_each_online_cpu(cpu)
		if (!le.reads_cpu[cpu])
			ktap_fail("no reader ran on CPU %d", cpu);
	ktap_log("list: %ld reads (%ld found), %ld adds, %ld deletes (%ld by synchronize_sched), "
		 "%ld replaces, %ld freed after a grace period, %d left, 0 poisoned seen expected, "
		 "%ld seen", atomic_long_read(&le.reads), atomic_long_read(&le.found), le.adds,
		 le.dels, le.dels_sync, le.replaces, atomic_long_read(&le.freed), count,
		 atomic_long_read(&le.poison_seen));
	list_for_each_entry_safe(p, nx, &le.head, list)
		kfree(p);
}

/* ---- the stall detector ------------------------------------------------- */

#define STALL_TIMEOUT_MS 300
#define STALL_HOLD_TRIES 200

struct stall_ctx {
	int reports0;
	bool irqs_off;		/* spin with irqs off, not only preemption */
	int held;		/* this CPU held a grace period */
	int seen;		/* a stall report named this CPU */
	u64 held_ms;
	int tries;		/* grace periods started to catch one held */
};

/* Spins with preemption off until a report names this CPU (+ a margin for
 * its backtrace NMI), or 20 stall timeouts of jiffies pass: the detector
 * counts jiffies, which a loaded host hands out slowly (120 s at most).
 * noinline: its caller must show up in the backtrace. */
static __attribute__((noinline)) void rcu_stall_spin(struct stall_ctx *c)
{
	unsigned long bit = 1UL << raw_smp_processor_id(), j0 = jiffies;
	u64 t0 = ktime_get_ns(), seen_at = 0, now = t0;

	while (jiffies - j0 < 20 * msecs_to_jiffies(STALL_TIMEOUT_MS) &&
	       (now = ktime_get_ns()) - t0 < 120000000000ull) {
		if (!seen_at && atomic_read(&rcu_stall_reports) != c->reports0 &&
		    (READ_ONCE(rcu_stall_last_mask) & bit))
			seen_at = now;
		if (seen_at && now - seen_at > 300000000ull)
			break;
		cpu_relax();
	}
	c->seen = seen_at != 0;
	c->held_ms = (now - t0) / 1000000;
}

static int rcu_stall_thread(void *arg)
{
	struct stall_ctx *c = arg;
	struct rcu_data *rdp;
	u64 t0 = ktime_get_ns(), now;

	/*
	 * A try fails when a tick on this CPU reports its QS before it looks;
	 * on a loaded host a vCPU often resumes with a tick pending, so tries
	 * fail more often and each takes longer.  Give up only after both
	 * STALL_HOLD_TRIES tries and 20 s, bounded by 240 s (the case has 600 s).
	 */
	while (!c->held &&
	       ((now = ktime_get_ns()) - t0 < 20000000000ull || c->tries < STALL_HOLD_TRIES) &&
	       now - t0 < 240000000000ull) {
		unsigned long s0 = __atomic_load_n(&rcu_state.gp_seq, __ATOMIC_ACQUIRE), g;
		u64 wend = ktime_get_ns() + 2000000000ull;

		c->tries++;
		start_poll_synchronize_sched();
		/* Stay runnable (no idle, no sleep) until a new GP is running. */
		while (!(rcu_seq_state(g = __atomic_load_n(&rcu_state.gp_seq, __ATOMIC_ACQUIRE)) &&
			 g != s0) && ktime_get_ns() < wend)
			cond_resched();
		preempt_disable();
		rdp = this_cpu_ptr(&rcu_data);
		g = __atomic_load_n(&rcu_state.gp_seq, __ATOMIC_ACQUIRE);
		/* Held iff the leaf still waits for us and no QS is pending here. */
		if (rcu_seq_state(g) && g != s0 &&
		    (READ_ONCE(rdp->mynode->qsmask) & rdp->grpmask) &&
		    (READ_ONCE(rdp->gp_seq) != READ_ONCE(rdp->mynode->gp_seq) ||
		     READ_ONCE(rdp->cpu_no_qs))) {
			unsigned long flags;

			c->held = 1;
			local_irq_save(flags);
			if (!c->irqs_off)
				local_irq_restore(flags);
			rcu_stall_spin(c);
			if (c->irqs_off)
				local_irq_restore(flags);
		}
		preempt_enable();
	}
	printk_nmi_flush();
	return 0;
}

static void rcu_stall_check(bool irqs_off)
{
	struct stall_ctx c = { .irqs_off = irqs_off };
	char mark[64], want[64];
	const char *log;
	int cpu = farthest_cpu();
	struct task *t;

	if (irqs_off && cpu == raw_smp_processor_id()) {
		ktap_skip("needs a second CPU: one with irqs off cannot see its own stall");
		return;
	}
	log_marker(mark, sizeof(mark), "stall detector");
	ktap_expect_alarm("an RCU stall report naming CPU %d, and its backtrace", cpu);
	WRITE_ONCE(rcu_cpu_stall_timeout_ms, STALL_TIMEOUT_MS);
	c.reports0 = atomic_read(&rcu_stall_reports);
	t = start_on(rcu_stall_thread, &c, cpu, PRIO_NORMAL, "rcu_stall_test");
	KTAP_ASSERT(t);
	kthread_join(t);
	WRITE_ONCE(rcu_cpu_stall_timeout_ms, 0);
	synchronize_sched();	/* let the held grace period end */
	if (!c.held) {
		ktap_fail("could not get CPU %d to hold a grace period in %d tries", cpu, c.tries);
		return;
	}
	KTAP_EXPECT(c.seen);
	KTAP_EXPECT(atomic_read(&rcu_stall_reports) > c.reports0);
	log = log_after(mark);
	KTAP_ASSERT(log);
	KTAP_EXPECT(find_str(log, "rcu: INFO: rcu_sched detected stalls on CPUs/tasks:"));
	KTAP_EXPECT(announced(log, "detected stalls"));
	snprintf(want, sizeof(want), "\t%d-...:", cpu);
	KTAP_EXPECT(find_str(log, want));
	/* Its backtrace: by NMI from the CPU that detected the stall, or its
	 * own dump when its own tick won the report. */
	snprintf(want, sizeof(want), "self-detected stall on CPU %d", cpu);
	if (!find_str(log, want)) {
		snprintf(want, sizeof(want), "NMI backtrace for cpu %d", cpu);
		KTAP_EXPECT(find_str(log, want));
	}
	KTAP_EXPECT(find_str(log, "Call Trace:"));
	KTAP_EXPECT(find_str(log, "rcu_stall_thread+"));
	ktap_log("CPU %d held a grace period with %s off for %llu ms; stall timeout %u ms",
		 cpu, irqs_off ? "irqs" : "preemption", (unsigned long long)c.held_ms,
		 STALL_TIMEOUT_MS);
}

static void rcu_stall_detected(void)
{
	rcu_stall_check(false);
}

/*
 * The same with irqs off: the stalled CPU's own tick cannot report it, and
 * the others are idle and tickless (this CPU waits in kthread_join()), so
 * only their rare wake-ups (and the jiffies duty moving to one of them,
 * should the spinner hold it) can see the stall.  A stall must still be
 * reported, with the spinner's backtrace by NMI.
 */
static void rcu_stall_detected_irqs_off(void)
{
	rcu_stall_check(true);
}

/*
 * A grace period every CPU has reported but that the GP kthread does not
 * end, because it does not get a CPU: rcu_gp_hold_arm(RCU_GP_HOLD_FQS)
 * (test build) keeps it off the CPU between two of its scans.  The stall report then
 * names no CPU; it must say that the kthread is starved (Linux's
 * rcu_check_gp_kthread_starvation()), or whoever reads it has nothing to
 * go on.
 */
static void rcu_stall_gp_kthread_starved(void)
{
#ifdef CONFIG_SANITIZE
	char mark[64];
	const char *log;
	unsigned long cookie;
	int reports0;
	bool held, reported;

	log_marker(mark, sizeof(mark), "starved GP kthread");
	ktap_expect_alarm("an RCU stall report naming no CPU: rcu_sched kthread starved");
	WRITE_ONCE(rcu_cpu_stall_timeout_ms, STALL_TIMEOUT_MS);
	reports0 = atomic_read(&rcu_stall_reports);
	rcu_gp_hold_arm(RCU_GP_HOLD_FQS);
	cookie = start_poll_synchronize_sched();
	held = WAIT_UNTIL(rcu_gp_hold_held(RCU_GP_HOLD_FQS), 30000);
	reported = held && WAIT_UNTIL(atomic_read(&rcu_stall_reports) != reports0, 30000);
	WRITE_ONCE(rcu_cpu_stall_timeout_ms, 0);
	rcu_gp_hold_release(RCU_GP_HOLD_FQS);
	KTAP_EXPECT(WAIT_UNTIL(poll_state_synchronize_sched(cookie), 30000));
	if (!held) {
		ktap_fail("the GP kthread never came to its held scan within 30 s");
		return;
	}
	if (!reported) {
		ktap_fail("no stall report within 30 s of a grace period the starved GP "
			  "kthread held");
		return;
	}
	log = log_after(mark);
	KTAP_ASSERT(log);
	KTAP_EXPECT(find_str(log, "rcu: INFO: rcu_sched detected stalls on CPUs/tasks:"));
	KTAP_EXPECT(announced(log, "detected stalls"));
	if (!find_str(log, "rcu: rcu_sched kthread starved for "))
		ktap_fail("the stall report does not say the GP kthread is starved");
	else
		KTAP_EXPECT(find_str(log, "Unless rcu_sched kthread gets sufficient CPU time"));
#else
	ktap_skip("needs the test build (rcu_gp_hold_arm)");
#endif
}

/* ---- the expedited stall check ------------------------------------------ */

struct exp_stall_ctx {
	bool preempt;		/* rcu_read_lock(), synchronize_rcu_expedited() */
	const char *header;	/* the report's first words */
	const char *mark;	/* the case's log marker */
	int in;			/* the reader is in its section */
	int seen;		/* a report with the header came */
	u64 held_ms;
};

/* A stall report was counted: is it the expedited one?  The count moves
 * only once the report and its backtraces are in the log. */
static bool exp_stall_reported(struct exp_stall_ctx *c)
{
	const char *log = log_after(c->mark);

	return log && find_str(log, c->header);
}

/* Stays in the reader until the expedited report is in the log (or 20 s,
 * a hang guard).  noinline: its caller must show up in the backtrace. */
static __attribute__((noinline)) void rcu_exp_stall_spin(struct exp_stall_ctx *c)
{
	int reports = atomic_read(&rcu_stall_reports);
	u64 t0 = ktime_get_ns(), now;

	WRITE_ONCE(c->in, 1);
	while ((now = ktime_get_ns()) - t0 < 20000000000ull) {
		if (atomic_read(&rcu_stall_reports) != reports) {
			reports = atomic_read(&rcu_stall_reports);
			if (exp_stall_reported(c)) {
				c->seen = 1;
				break;
			}
		}
		cpu_relax();
	}
	c->held_ms = (now - t0) / 1000000;
}

static int rcu_exp_stall_thread(void *arg)
{
	struct exp_stall_ctx *c = arg;

	if (c->preempt)
		rcu_read_lock();
	else
		preempt_disable();
	rcu_exp_stall_spin(c);
	if (c->preempt)
		rcu_read_unlock();
	else
		preempt_enable();
	return 0;
}

/* The report's "{ ... }" names CPU cpu, or the task called task. */
static bool exp_stall_names(const char *p, int cpu, const char *task)
{
	char want[40];
	const char *end = p ? find_str(p, " } ") : NULL;
	const char *q;

	if (!end)
		return false;
	snprintf(want, sizeof(want), " %d ", cpu);
	q = find_str(p, want);
	if (q && q < end + 1)
		return true;
	snprintf(want, sizeof(want), " P%s ", task);
	q = find_str(p, want);
	return q && q < end + 1;
}

/*
 * A reader on another CPU holds an expedited grace period past a short
 * stall timeout: the flavour's report must come, in the one format, name
 * that CPU (or, preemptible RCU, the reader's task if it was switched
 * out), and carry the CPU's backtrace; the grace period then ends.
 */
static void exp_stall_one(bool preempt)
{
	const char *name = preempt ? "rcu_preempt" : "rcu_sched";
	struct exp_stall_ctx c = { .preempt = preempt };
	char mark[64], header[96], want[64];
	const char *log, *p;
	int cpu = farthest_cpu(), reports0;
	struct task *t;

	snprintf(header, sizeof(header), "rcu: INFO: %s detected expedited stalls on CPUs/tasks: {",
		 name);
	c.header = header;
	c.mark = log_marker(mark, sizeof(mark), preempt ? "expedited stall, rcu" :
			    "expedited stall, sched");
	ktap_expect_alarm("an expedited %s stall report naming CPU %d, and its backtrace",
			  name, cpu);
	reports0 = atomic_read(&rcu_stall_reports);
	WRITE_ONCE(rcu_cpu_stall_timeout_ms, STALL_TIMEOUT_MS);
	t = start_on(rcu_exp_stall_thread, &c, cpu, PRIO_NORMAL, "rcu_exp_stall");
	KTAP_ASSERT(t);
	if (WAIT_UNTIL(READ_ONCE(c.in), 2000)) {
		if (preempt)
			synchronize_rcu_expedited();
		else
			synchronize_sched_expedited();
	}
	kthread_join(t);
	WRITE_ONCE(rcu_cpu_stall_timeout_ms, 0);
	if (!c.in) {
		ktap_fail("the reader never entered its section on CPU %d", cpu);
		return;
	}
	KTAP_EXPECT(c.seen);
	KTAP_EXPECT(atomic_read(&rcu_stall_reports) > reports0);
	log = log_after(mark);
	KTAP_ASSERT(log);
	p = find_str(log, header);
	KTAP_EXPECT(p);
	if (!p) {
		ktap_log("no \"%s\" after the marker: the expedited stall check never reported", header);
		return;
	}
	KTAP_EXPECT(announced(log, header));
	KTAP_EXPECT(exp_stall_names(p + strlen(header) - 1, cpu, "rcu_exp_stall"));
	snprintf(want, sizeof(want), " P%s ", "rcu_exp_stall");
	if (preempt && find_str(p, want))
		return;		/* switched out: named as a task, no CPU to trace */
	snprintf(want, sizeof(want), "NMI backtrace for cpu %d", cpu);
	p = find_str(p, want);
	KTAP_EXPECT(p);
	KTAP_EXPECT(p && find_str(p, "Call Trace:"));
	KTAP_EXPECT(p && find_str(p, "rcu_exp_stall_thread+"));
	ktap_log("%s: CPU %d held an expedited grace period for %llu ms; stall timeout %u ms",
		 name, cpu, (unsigned long long)c.held_ms, STALL_TIMEOUT_MS);
}

static void rcu_exp_stall_detected(void)
{
	if (num_online_cpus() < 2) {
		ktap_skip("needs 2 CPUs (one holds the grace period, one waits)");
		return;
	}
	exp_stall_one(false);
#ifdef CONFIG_PREEMPT_RCU
	exp_stall_one(true);
#endif
}

/* ---- misuse ------------------------------------------------------------- */

static void rcu_misuse_reported(void)
{
	char mark[64];
	const char *log;
	int r0 = atomic_read(&rcu_misuse_reports);
	unsigned long flags;

	log_marker(mark, sizeof(mark), "misuse");
	ktap_expect_warnings(4, "synchronize_sched() twice, its expedited form and rcu_barrier_sched() inside an RCU-sched reader");
	rcu_read_lock_sched();
	synchronize_sched();
	synchronize_sched_expedited();
	rcu_barrier_sched();
	rcu_read_unlock_sched();
	local_irq_save(flags);		/* irqs off is a reader too */
	synchronize_sched();
	local_irq_restore(flags);
	KTAP_EXPECT_EQ(atomic_read(&rcu_misuse_reports), r0 + 4);
	log = log_after(mark);
	KTAP_ASSERT(log);
	KTAP_EXPECT_EQ(count_str(log, "rcu: synchronize_sched() called inside an RCU-sched "
				      "read-side critical section"), 2);
	KTAP_EXPECT(find_str(log, "rcu: synchronize_sched_expedited() called inside"));
	KTAP_EXPECT(find_str(log, "rcu: rcu_barrier_sched() called inside"));
	KTAP_EXPECT(count_str(log, "Call Trace:") >= 4);
	KTAP_EXPECT(announced(log, "WARNING: CPU"));
	KTAP_EXPECT(find_str(log, "rcu_misuse_reported+"));
	/* Outside a reader they work (at one CPU they return at once). */
	synchronize_sched();
	rcu_barrier_sched();
	KTAP_EXPECT_EQ(atomic_read(&rcu_misuse_reports), r0 + 4);
}

static int *deref_target;

static void rcu_deref_outside_reader_warns_once(void)
{
	static int x = 42;
	int d0 = atomic_read(&rcu_deref_warnings), *p;
	char mark[64];

	log_marker(mark, sizeof(mark), "deref");
	rcu_assign_pointer(deref_target, &x);
	rcu_read_lock_sched();
	p = rcu_dereference_sched(deref_target);
	rcu_read_unlock_sched();
	KTAP_EXPECT_EQ(atomic_read(&rcu_deref_warnings), d0);
	KTAP_EXPECT_EQ(*p, 42);
	if (d0 == 0)
		ktap_expect_alarm("a WARNING for rcu_dereference_sched() outside a reader, "
				  "printed once since boot");
	p = rcu_dereference_sched(deref_target);	/* outside: warns */
	p = rcu_dereference_sched(deref_target);	/* again: counted, not printed */
	KTAP_EXPECT_EQ(*p, 42);
	KTAP_EXPECT_EQ(atomic_read(&rcu_deref_warnings), d0 + 2);
	/* Printed once since boot: here if nothing before us warned. */
	KTAP_EXPECT_EQ(count_str(log_after(mark), "WARNING: rcu_dereference_sched() outside an "
				 "RCU-sched read-side critical section"), d0 == 0 ? 1 : 0);
}

/* ---- benchmarks --------------------------------------------------------- */

#define GP_MAX_RUNS 100

struct samples {
	u64 v[GP_MAX_RUNS];
	int n;
};

/* Sorts s; the row has the docs/design.md shape, then optional keys. */
static void samples_print(const char *name, const char *type, struct samples *s,
			  const char *extra)
{
	struct stats st;

	stats_compute(s->v, s->n, &st);
	ktap_log("bench name=%s type=%s cpus=%d n=%d min_ns=%llu mean_ns=%llu max_ns=%llu "
		 "median_ns=%llu stddev_ns=%llu%s", name, type, num_online_cpus(), s->n,
		 (unsigned long long)st.min, (unsigned long long)st.mean,
		 (unsigned long long)st.max, (unsigned long long)st.median,
		 (unsigned long long)st.stddev, extra);
}

static void gp_cb_fn(struct rcu_head *rh)
{
	struct cb_probe *p = container_of(rh, struct cb_probe, rh);

	p->ran_ns = ktime_get_ns();
	__atomic_store_n(&p->ran, 1, __ATOMIC_RELEASE);
}

static int bench_busy_stop;

/* Load for the busy rows: preemptible spinning, never idle, never a reader. */
static int bench_busy(void *arg)
{
	(void)arg;
	while (!READ_ONCE(bench_busy_stop)) {
		for (int i = 0; i < 1000; i++)
			cpu_relax();
		cond_resched();
	}
	return 0;
}

/*
 * One synchronize_sched(), timed three ways: ns; the guest's ticks
 * (jiffies, which count the duty holder's ticks, so a vCPU the host does
 * not run does not add to them); and the ticks taken meanwhile by the
 * other CPU that took the fewest.  A busy CPU reports its QS at a tick
 * (rcu_sched_clock_irq()), so under load=busy no grace period ends
 * before every other CPU has taken one: a fewest of 1 says it ended at
 * the slowest vCPU's first tick, and the rest of its length is the host
 * not running that vCPU (cpu_ticks(): test_helpers.h).
 */
static void bench_gp_normal(struct samples *sn, struct samples *sj, struct samples *sk)
{
	static u64 tk[NR_CPUS];
	int cpu, me = raw_smp_processor_id();
	u64 t0, j0, fewest = ~0ull;

	for_each_online_cpu(cpu)
		tk[cpu] = cpu_ticks(cpu);
	j0 = jiffies;
	t0 = ktime_get_ns();
	synchronize_sched();
	sn->v[sn->n++] = ktime_get_ns() - t0;
	sj->v[sj->n++] = jiffies - j0;
	for_each_online_cpu(cpu) {
		u64 n = cpu_ticks(cpu) - tk[cpu];

		if (cpu != me && n < fewest)
			fewest = n;
	}
	sk->v[sk->n++] = fewest == ~0ull ? 0 : fewest;
}

static void bench_gp_round(const char *load, int nn, int ne)
{
	static struct samples sn, se, sc, sj, sk;
	char extra[64], extra_n[160];
	struct stats stj, stk;
	u64 t0, mn, me, ratio10, min10;
	int i;

	sn.n = se.n = sc.n = sj.n = sk.n = 0;
	for (i = 0; i < nn; i++)
		bench_gp_normal(&sn, &sj, &sk);
	for (i = 0; i < ne; i++) {
		t0 = ktime_get_ns();
		synchronize_sched_expedited();
		se.v[se.n++] = ktime_get_ns() - t0;
	}
	/* call_rcu_sched() to its callback: a normal GP even at one CPU. */
	for (i = 0; i < nn; i++) {
		struct cb_probe p = { 0 };

		t0 = ktime_get_ns();
		call_rcu_sched(&p.rh, gp_cb_fn);
		if (!WAIT_UNTIL(__atomic_load_n(&p.ran, __ATOMIC_ACQUIRE), WAIT_MIN_MS)) {
			ktap_fail("a callback did not run within %d s", WAIT_MIN_MS / 1000);
			rcu_barrier_sched();
			return;
		}
		sc.v[sc.n++] = p.ran_ns - t0;
	}
	snprintf(extra, sizeof(extra), " load=%s%s", load,
		 num_online_cpus() == 1 ? " shortcut=blocking-is-gp" : "");
	stats_compute(sj.v, sj.n, &stj);
	stats_compute(sk.v, sk.n, &stk);
	snprintf(extra_n, sizeof(extra_n), " gp_ticks=%llu gp_ticks_max=%llu fewest_cpu_ticks=%llu%s",
		 (unsigned long long)stj.median, (unsigned long long)stj.max,
		 (unsigned long long)stk.median, extra);
	samples_print("gp", "normal", &sn, extra_n);
	samples_print("gp", "expedited", &se, extra);
	samples_print("gp_cb", "normal", &sc, extra);
	/* Medians (TCG on a loaded host has long outliers), and the minima:
	 * each path's own cost with the host out of the way.  Sorted above. */
	mn = sn.v[sn.n / 2];
	me = se.v[se.n / 2];
	ratio10 = me ? mn * 10 / me : 0;
	min10 = se.v[0] ? sn.v[0] * 10 / se.v[0] : 0;
	/* A figure, not a verdict: the report states the goal beside it
	 * (tools/report/gp_latency.py); under load=busy it is not expected. */
	ktap_log("bench name=gp_ratio cpus=%d normal_over_expedited=%llu.%llu of=median "
		 "min_ratio=%llu.%llu%s", num_online_cpus(),
		 (unsigned long long)(ratio10 / 10), (unsigned long long)(ratio10 % 10),
		 (unsigned long long)(min10 / 10), (unsigned long long)(min10 % 10), extra);
}

static void rcu_bench_gp(void)
{
	struct task *t[NR_CPUS] = { 0 };
	int ncpus = num_online_cpus(), me = raw_smp_processor_id(), cpu;
	int nn = ncpus >= 16 ? 15 : 30, ne = ncpus >= 16 ? 40 : 100;

	bench_gp_round("idle", nn, ne);
	if (ncpus == 1)
		return;
	/* Every other CPU busy: no idle shortcut, expedited must IPI them. */
	WRITE_ONCE(bench_busy_stop, 0);
	for_each_online_cpu(cpu)
		if (cpu != me)
			t[cpu] = start_on(bench_busy, NULL, cpu, PRIO_NORMAL, "rcu_bench_busy");
	msleep(5);
	/* 16 spinning vCPUs on a small host: fewer runs, each is slow. */
	bench_gp_round("busy", ncpus >= 8 ? 8 : nn, ncpus >= 8 ? 16 : ne);
	WRITE_ONCE(bench_busy_stop, 1);
	for_each_online_cpu(cpu)
		if (t[cpu])
			kthread_join(t[cpu]);
}

#define CR_N 100000
#define CR_CHUNK 100			/* calls per timed chunk */
#define CR_NCHUNK (CR_N / CR_CHUNK)

static atomic_long_t cr_ran;
static u64 cr_first_ns, cr_last_ns;
static u64 cr_chunk_ns[CR_NCHUNK];

static void cr_cb(struct rcu_head *rh)
{
	u64 now = ktime_get_ns();

	(void)rh;
	if (atomic_long_inc_return(&cr_ran) == 1)
		cr_first_ns = now;
	WRITE_ONCE(cr_last_ns, now);
}

/*
 * One thread queues CR_N callbacks.  ns_per_call (the whole loop over
 * CR_N) is the row older ISOs print, and on a loaded TCG host it measures
 * the host: single boots of one ISO spread 250-6700 ns, and the loop's
 * ticks fall to a third of its milliseconds when the host takes the vCPU
 * away.  So the loop is also timed in chunks of CR_CHUNK calls:
 * chunk_ns_per_call, the median chunk's, is the call's own cost, which a
 * chunk that a tick, rcuc or the host broke into does not move.  What the
 * loop shares its CPU with is counted, not guessed: gps (grace periods
 * that ended during the loop), cbs_in_loop (callbacks this CPU's rcuc ran
 * inside it) and ticks (jiffies against loop_us).  us_total is the first
 * call to the last callback, after rcu_barrier_sched(): the whole work,
 * comparable between kernels whose grace periods differ in length
 * (docs/design.md, Measurement).
 */
static void rcu_bench_call_rcu(void)
{
	struct rcu_head *heads = kmalloc(CR_N * sizeof(*heads), GFP_KERNEL);
	unsigned long gp0, gps, j0, ticks;
	long ran_in_loop;
	struct stats st;
	u64 t0, t1, tc;

	KTAP_ASSERT(heads);
	atomic_long_set(&cr_ran, 0);
	gp0 = rcu_batches_completed_sched();
	j0 = jiffies;
	t0 = tc = ktime_get_ns();
	for (int c = 0; c < CR_NCHUNK; c++) {
		for (long i = (long)c * CR_CHUNK; i < (long)(c + 1) * CR_CHUNK; i++)
			call_rcu_sched(&heads[i], cr_cb);
		t1 = ktime_get_ns();
		cr_chunk_ns[c] = t1 - tc;
		tc = t1;
	}
	ran_in_loop = atomic_long_read(&cr_ran);
	gps = rcu_batches_completed_sched() - gp0;
	ticks = jiffies - j0;
	rcu_barrier_sched();
	KTAP_EXPECT_EQ(atomic_long_read(&cr_ran), CR_N);
	stats_compute(cr_chunk_ns, CR_NCHUNK, &st);
	ktap_log("bench name=call_rcu cpus=%d n=%d ops_per_sec=%llu cb_per_sec=%llu "
		 "ns_per_call=%llu chunk_ns_per_call=%llu loop_us=%llu ticks=%lu gps=%lu "
		 "cbs_in_loop=%ld us_total=%llu", num_online_cpus(), CR_N,
		 (unsigned long long)(CR_N * 1000000000ull / (t1 - t0 + 1)),
		 (unsigned long long)(CR_N * 1000000000ull / (cr_last_ns - cr_first_ns + 1)),
		 (unsigned long long)((t1 - t0) / CR_N),
		 (unsigned long long)(st.median / CR_CHUNK),
		 (unsigned long long)((t1 - t0) / 1000), ticks, gps, ran_in_loop,
		 (unsigned long long)((cr_last_ns - t0) / 1000));
	kfree(heads);
}

/*
 * The rcu_node tree is built for the possible CPUs (num_possible_cpus(),
 * from the MADT before rcu_init()), as Linux's for nr_cpu_ids: each CPU
 * that is or was online, and so may come back through cpu_up(), has a
 * leaf whose range holds it; and the tree is no larger, so that
 * rcu_gp_init() walks no node for CPUs that cannot exist.  Fails under
 * rcu.geometry_cpus= below the CPUs there are (a CPU without a leaf) or
 * above them (NR_CPUS's tree, as before).
 */
static void rcu_tree_covers_possible_cpus(void)
{
	int possible = num_possible_cpus(), cpu;

	ktap_log("rcu_node tree: %d levels, %d nodes for %d CPUs; %d possible, %d online",
		 rcu_state.num_levels, rcu_state.num_nodes, rcu_state.ncpus, possible,
		 num_online_cpus());
	KTAP_EXPECT_EQ(rcu_state.ncpus, possible);
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		struct rcu_node *rnp;

		if (!cpu_present(cpu))
			continue;
		if (cpu >= possible)
			ktap_fail("CPU %d came up, but only %d CPUs are possible", cpu, possible);
		rnp = per_cpu_ptr(&rcu_data, cpu)->mynode;
		if (cpu >= rcu_state.ncpus || !rnp || cpu < rnp->grplo || cpu > rnp->grphi)
			ktap_fail("CPU %d has no leaf of its own in the rcu_node tree", cpu);
	}
}

KTAP_SUITE(rcu,
	   KTAP_CASE(rcu_tree_covers_possible_cpus),
	   KTAP_CASE(rcu_callback_waits_for_reader),
	   KTAP_CASE(rcu_synchronize_waits_for_reader),
	   KTAP_CASE(rcu_expedited_waits_for_reader),
	   KTAP_CASE(rcu_barrier_waits_for_all),
	   KTAP_CASE(rcu_polled_state),
	   KTAP_CASE(rcu_polled_full_expedited),
	   KTAP_CASE(rcu_polled_full_preempt_expedited),
	   KTAP_CASE(rcu_callback_flood),
	   KTAP_CASE(rcu_list_example),
	   KTAP_CASE_TIMEOUT(rcu_stall_detected, 600000),
	   KTAP_CASE_TIMEOUT(rcu_stall_detected_irqs_off, 600000),
	   KTAP_CASE(rcu_stall_gp_kthread_starved),
	   KTAP_CASE(rcu_exp_stall_detected),
	   KTAP_CASE(rcu_misuse_reported),
	   KTAP_CASE(rcu_deref_outside_reader_warns_once),
	   KTAP_CASE(rcu_bench_gp),
	   KTAP_CASE(rcu_bench_call_rcu));

/* ---- rcutorture --------------------------------------------------------- */

#define TORTURE_SHORT_MS 1000
#define TORTURE_MAX_SECS 3600

static void torture_report(const char *type, unsigned int ms, int ret,
			   const struct rcu_torture_result *r)
{
	ktap_log("bench name=torture type=%s cpus=%d ms=%u gps=%lu exp_gps=%lu gps_per_sec=%lu "
		 "updates=%lu reads=%ld errors=%ld pipe_errors=%ld mberrors=%ld result=%s "
		 "setup_ms=%lu run_ms=%lu settle_ms=%lu stop_ms=%lu",
		 type, num_online_cpus(), ms, r->gps, r->exp_gps,
		 (r->gps + r->exp_gps) * 1000 / (ms ? ms : 1), r->versions, r->reads,
		 r->errors, r->pipe_errors, r->mberrors, ret == 0 ? "SUCCESS" : "FAILURE",
		 r->setup_ms, r->run_ms, r->settle_ms, r->stop_ms);
}

static void torture_one(const char *type, unsigned int ms, bool must_fail)
{
	struct rcu_torture_result r;
	int ret;

	ktap_expect_warnings(rcu_torture_expected_warnings(),
			     "torture.object_debug: a double call and one on freed memory");
	ret = rcu_torture_run(type, ms, &r);

	torture_report(type, ms, ret, &r);
	if (ret < 0) {
		ktap_fail("no torture flavour '%s'", type);
	} else if (must_fail) {
		/* The busted flavour frees under readers: torture must see it. */
		if (ret == 0 || !(r.errors || r.pipe_errors || r.mberrors))
			ktap_fail("torture_type=%s reported SUCCESS: the torture test "
				  "cannot see a broken grace period", type);
	} else {
		KTAP_EXPECT_EQ(ret, 0);
		KTAP_EXPECT(r.versions > 0);
	}
}

/* torture= and torture.secs=: that flavour, its result the case's. */
static void rcutorture_cmdline(void)
{
	const char *type = rcu_torture_cmdline_type();
	unsigned int secs = rcu_torture_cmdline_secs();

	if (!type) {
		ktap_skip("no torture= on the command line");
		return;
	}
	if (secs > TORTURE_MAX_SECS) {
		ktap_fail("torture.secs=%u is more than this case's limit of %u s", secs,
			  TORTURE_MAX_SECS);
		return;
	}
	torture_one(type, secs * 1000, false);
}

static void rcutorture_sched(void)
{
	torture_one("sched", TORTURE_SHORT_MS, false);
}

static void rcutorture_sched_expedited(void)
{
	torture_one("sched-expedited", TORTURE_SHORT_MS, false);
}

static void rcutorture_sched_async(void)
{
	torture_one("sched-async", TORTURE_SHORT_MS, false);
}

static void rcutorture_sched_polled(void)
{
	torture_one("sched-polled", TORTURE_SHORT_MS, false);
}

static void rcutorture_busted_fails(void)
{
	/* The writer cannot run while a reader holds the only CPU with
	 * preemption off: a missing grace period is invisible there. */
	if (num_online_cpus() == 1) {
		ktap_skip("one CPU: no reader can overlap the busted writer");
		return;
	}
	torture_one("busted", TORTURE_SHORT_MS, true);
}

KTAP_SUITE(rcutorture,
	   KTAP_CASE_TIMEOUT(rcutorture_cmdline, (TORTURE_MAX_SECS + 300) * 1000u));

KTAP_SUITE(rcutorture_short,
	   KTAP_CASE(rcutorture_sched),
	   KTAP_CASE(rcutorture_sched_expedited),
	   KTAP_CASE(rcutorture_sched_async),
	   KTAP_CASE(rcutorture_sched_polled),
	   KTAP_CASE(rcutorture_busted_fails));

/* ---- selftest_rcu: a misuse nobody announced fails its case ------------- */

/* Run by the rcu-misuse-fails configuration, which requires this case's
 * "not ok" and the report: the case must fail, and go on (not hang). */
static void rcu_unexpected_misuse_fails_case(void)
{
	int r0 = atomic_read(&rcu_misuse_reports);

	rcu_read_lock_sched();
	synchronize_sched();
	rcu_read_unlock_sched();
	KTAP_EXPECT_EQ(atomic_read(&rcu_misuse_reports), r0 + 1);
	if (!ktap_case_ok())
		ktap_log("rcu: the unannounced misuse failed this case, as it must");
}

KTAP_SUITE(selftest_rcu, KTAP_CASE(rcu_unexpected_misuse_fails_case));
