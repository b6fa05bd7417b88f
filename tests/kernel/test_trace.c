/* tests/kernel/test_trace.c: KTAP suite `trace`: the trace buffers
 * (kernel/trace.c).  A writer into which an NMI that records too is
 * nested, between its slot's reservation and its writes, every time
 * (test build: trace_inject_hook): both records are there, whole, none
 * lost or doubled (the reservation is one atomic add, the publication
 * the sequence number written last; trace.inject_split_reserve puts
 * back a load-and-store reservation, which this must catch).  A buffer
 * filled one and a half times over keeps the newest records
 * (trace.mode=overwrite) or the oldest (=stop), whole; trace.rate= caps
 * what a CPU records per second.  And the cost of an
 * event site: `# bench name=trace_off` (subsystem off: one load and a
 * branch, what every build pays) and, with trace= on at boot,
 * `# bench name=trace_on` (one record written). */
#include "kernel/ktap.h"
#include "kernel/percpu.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/trace.h"
#include "tests/kernel/test_helpers.h"

static int trace_sync_fn(void *arg)
{
	(void)arg;
	return 0;
}

/*
 * Every subsystem's recording off (each saved in on[]; trace_resume()
 * puts them back), so that nothing overwrites the slots a case then
 * reads, and cpu's records in flight as the flags went off finished: a
 * writer's exit (its wake-up of the joiner, its switch away, with
 * trace=sched) or a tick there may be recording, into a slot among those
 * read next.  Such records are written with irqs off or in irq/NMI
 * context: once a thread of ours has run on cpu, they are whole and
 * counted in its head.
 */
static void trace_quiesce(int cpu, bool *on)
{
	struct task *t;

	for (int i = 0; i < TRACE_NR_SUBSYS; i++) {
		on[i] = READ_ONCE(trace_subsys_on[i]);
		WRITE_ONCE(trace_subsys_on[i], false);
	}
	t = start_on(trace_sync_fn, NULL, cpu, PRIO_HIGH, "trace_sync");
	KTAP_ASSERT(t);
	kthread_join(t);
}

static void trace_resume(const bool *on)
{
	for (int i = 0; i < TRACE_NR_SUBSYS; i++)
		WRITE_ONCE(trace_subsys_on[i], on[i]);
}

#ifdef CONFIG_SANITIZE
#define NEST_WRITES 200

static const char nest_thread[] = "trace_thread", nest_nmi[] = "trace_nmi";
static atomic_t nest_nmis_ran = ATOMIC_INIT(0);

static void nest_nmi_fn(void)
{
	trace_rcu_reader(nest_nmi, "nmi", raw_smp_processor_id(), 0);
	atomic_inc(&nest_nmis_ran);
}

/* Inside the writer's trace_record(), its slot reserved but not yet
 * written: an NMI to this CPU, which records, and waits for it to run. */
static void nest_hook(unsigned int id, u64 f0)
{
	int ran = atomic_read(&nest_nmis_ran);

	if (id != TE_RCU_READER || f0 != (unsigned long)nest_thread || in_nmi())
		return;
	if (smp_call_nmi(raw_smp_processor_id(), nest_nmi_fn))
		SPIN_UNTIL(atomic_read(&nest_nmis_ran) != ran, WAIT_MIN_MS);
}

static int nest_writer(void *arg)
{
	(void)arg;
	for (int i = 0; i < NEST_WRITES; i++)
		trace_rcu_reader(nest_thread, "begin", i, 0);
	return 0;
}
#endif

/* Each of the writer's records has an NMI's record nested between its
 * reservation and its writes: both must be there, whole. */
static void trace_nmi_nested_writes(void)
{
#ifdef CONFIG_SANITIZE
	unsigned long h0, h1, thread = 0, nmi = 0, other = 0, torn = 0;
	bool on = READ_ONCE(trace_subsys_on[TRACE_RCU]), was[TRACE_NR_SUBSYS];
	struct trace_entry e;
	struct task *t;
	int cpu = farthest_cpu();

	if (!trace_active() || trace_rate_cap()) {
		ktap_skip("needs trace= at boot, and no trace.rate=");
		return;
	}
	atomic_set(&nest_nmis_ran, 0);
	WRITE_ONCE(trace_subsys_on[TRACE_RCU], true);
	h0 = trace_cpu_head(cpu);
	WRITE_ONCE(trace_inject_hook, nest_hook);
	t = start_on(nest_writer, NULL, cpu, PRIO_HIGH, "trace_nest");
	KTAP_ASSERT(t);
	kthread_join(t);
	WRITE_ONCE(trace_inject_hook, NULL);
	trace_quiesce(cpu, was);
	was[TRACE_RCU] = on;
	h1 = trace_cpu_head(cpu);
	if (h1 - h0 > trace_cpu_size(cpu) || (trace_mode_stop() && h1 > trace_cpu_size(cpu))) {
		trace_resume(was);
		ktap_skip("CPU %d recorded %lu events meanwhile, up to %lu: more than its buffer holds",
			  cpu, h1 - h0, h1);
		return;
	}
	for (unsigned long i = h0; i < h1; i++) {
		if (!trace_peek(cpu, i, &e))
			torn++;
		else if (e.id == TE_RCU_READER && e.f[0] == (unsigned long)nest_thread)
			thread++;
		else if (e.id == TE_RCU_READER && e.f[0] == (unsigned long)nest_nmi)
			nmi++;
		else
			other++;	/* the rest of that CPU's RCU events */
	}
	trace_resume(was);
	ktap_log("CPU %d: %lu slots, %lu of %d thread records, %lu of %d NMI records, %lu others, %lu not whole",
		 cpu, h1 - h0, thread, NEST_WRITES, nmi, atomic_read(&nest_nmis_ran), other, torn);
	KTAP_EXPECT_EQ(atomic_read(&nest_nmis_ran), NEST_WRITES);
	KTAP_EXPECT_EQ(thread, NEST_WRITES);
	KTAP_EXPECT_EQ(nmi, NEST_WRITES);
	KTAP_EXPECT_EQ(torn, 0);
#else
	ktap_skip("needs the test build's trace_inject_hook");
#endif
}

/* ---- a full buffer, and the rate cap ---- */

static const char fill_marker[] = "trace_fill";

struct fill_arg {
	unsigned long n;
};

static int fill_writer(void *arg)
{
	struct fill_arg *a = arg;

	for (unsigned long i = 0; i < a->n; i++)
		trace_rcu_reader(fill_marker, "fill", i, 0);
	return 0;
}

/* n marker events written on cpu by a thread there; the CPU's head
 * before and after (*h0, *h1), with every subsystem's recording off once
 * it is done (saved in on[]), so that nothing (a tick's irq events with
 * trace=all) overwrites what the caller then reads. */
static void fill_on(int cpu, unsigned long n, unsigned long *h0, unsigned long *h1,
		    bool *on)
{
	struct fill_arg a = { .n = n };
	struct task *t;

	*h0 = trace_cpu_head(cpu);
	t = start_on(fill_writer, &a, cpu, PRIO_HIGH, "trace_fill");
	KTAP_ASSERT(t);
	kthread_join(t);
	trace_quiesce(cpu, on);
	*h1 = trace_cpu_head(cpu);
}

/*
 * One and a half buffers of events on one CPU: trace.mode=overwrite
 * keeps the newest (the last marker, not the first), =stop the oldest
 * (slots past the size are never written: the first marker if the buffer
 * had room for it, never the last).  Either way each reservation counts
 * in the head (the dump's lost= is head - size) and every slot kept is
 * whole.
 */
static void trace_full_buffer(void)
{
	bool on = READ_ONCE(trace_subsys_on[TRACE_RCU]);
	int cpu = farthest_cpu();
	unsigned long size = trace_cpu_size(cpu), n = size + size / 2, h0, h1;
	unsigned long found = 0, first = ~0ul, last = 0, torn = 0, beyond = 0, lo, hi;
	bool stop = trace_mode_stop(), was[TRACE_NR_SUBSYS];
	struct trace_entry e;

	if (!trace_active() || !on || !size) {
		ktap_skip("needs trace=rcu at boot");
		return;
	}
	if (trace_rate_cap()) {
		ktap_skip("trace.rate= drops events on purpose");
		return;
	}
	fill_on(cpu, n, &h0, &h1, was);
	/* The slots that must still hold their records, whole. */
	lo = stop ? h0 : (h1 - h0 > size ? h1 - size : h0);
	hi = stop ? MIN(h1, size) : h1;
	for (unsigned long i = h0; i < h1; i++) {
		if (!trace_peek(cpu, i, &e)) {
			if (i >= lo && i < hi)
				torn++;
			continue;
		}
		if (i >= size && stop)
			beyond++;
		if (e.id == TE_RCU_READER && e.f[0] == (unsigned long)fill_marker) {
			found++;
			first = MIN(first, (unsigned long)e.f[2]);
			last = MAX(last, (unsigned long)e.f[2]);
		}
	}
	trace_resume(was);
	ktap_log("mode %s, CPU %d: %lu records each, %lu markers written at slots %lu..%lu; "
		 "%lu kept (first %ld, last %ld), %lu slots kept not whole, %lu past the size",
		 stop ? "stop" : "overwrite", cpu, size, n, h0, h1, found,
		 found ? (long)first : -1l, found ? (long)last : -1l, torn, beyond);
	KTAP_EXPECT(h1 - h0 >= n);
	KTAP_EXPECT_EQ(torn, 0);
	if (!stop) {
		KTAP_EXPECT(found && last == n - 1);
		KTAP_EXPECT(found && first > 0);
	} else {
		KTAP_EXPECT_EQ(beyond, 0);
		KTAP_EXPECT(!found || last < n - 1);
		if (h0 < size)
			KTAP_EXPECT(found && first == 0);
		else
			KTAP_EXPECT_EQ(found, 0);
	}
}

/*
 * trace.rate=R: at most R events per CPU per second of jiffies.  The
 * writer makes 20 R of them; whatever the host's speed, the CPU's head
 * may grow by at most R per second-window the burst touched (other
 * events of that CPU count against the cap too), and every event is
 * either recorded or counted as capped.
 */
static void trace_rate_capped(void)
{
	bool on = READ_ONCE(trace_subsys_on[TRACE_RCU]);
	unsigned int rate = trace_rate_cap();
	int cpu = farthest_cpu();
	unsigned long n = 20ul * rate, h0, h1, c0, c1, j0, j1, windows;
	bool was[TRACE_NR_SUBSYS];

	if (!trace_active() || !on || !rate) {
		ktap_skip("needs trace=rcu and trace.rate= at boot");
		return;
	}
	j0 = jiffies;
	c0 = trace_cpu_capped(cpu);
	fill_on(cpu, n, &h0, &h1, was);
	c1 = trace_cpu_capped(cpu);
	j1 = jiffies;
	trace_resume(was);
	windows = (j1 - j0) / HZ + 2;
	ktap_log("trace.rate=%u, CPU %d: %lu events in %lu jiffies: %lu recorded, %lu capped "
		 "(at most %lu may be recorded in %lu windows)",
		 rate, cpu, n, j1 - j0, h1 - h0, c1 - c0, rate * windows, windows);
	KTAP_EXPECT(h1 - h0 <= rate * windows);
	KTAP_EXPECT(h1 - h0 + (c1 - c0) >= n);
}

#define BENCH_N 1000000

/* One event site, its subsystem as it is; the loop's own cost is
 * measured alike without the site and taken off. */
static u64 bench_loop(bool site)
{
	u64 c0 = get_cycles_ordered();

	for (unsigned long i = 0; i < BENCH_N; i++) {
		if (site)
			trace_rcu_callback("rcu_bench", i, 0, i);
		barrier();
	}
	return get_cycles_ordered() - c0;
}

static void trace_bench(void)
{
	bool on = READ_ONCE(trace_subsys_on[TRACE_RCU]);
	u64 base = -1ull, off = -1ull, rec = -1ull;

	/* Off: what each site costs in every build (the benchmark build
	 * keeps them).  Best of 3: TCG on a loaded host has long outliers. */
	WRITE_ONCE(trace_subsys_on[TRACE_RCU], false);
	for (int r = 0; r < 3; r++) {
		base = MIN(base, bench_loop(false));
		off = MIN(off, bench_loop(true));
	}
	WRITE_ONCE(trace_subsys_on[TRACE_RCU], on);
	off = off > base ? off - base : 0;
	ktap_log("bench name=trace_off cpus=%d n=%d ns_per_site=%llu.%03llu cycles_per_site=%llu.%03llu",
		 num_online_cpus(), BENCH_N,
		 (unsigned long long)(cycles_to_ns(off) / BENCH_N),
		 (unsigned long long)(cycles_to_ns(off) * 1000 / BENCH_N % 1000),
		 (unsigned long long)(off / BENCH_N), (unsigned long long)(off * 1000 / BENCH_N % 1000));
	if (!trace_active() || trace_rate_cap())
		return;		/* under trace.rate= most sites record nothing */
	/* On: one record written (the buffer overwritten meanwhile). */
	WRITE_ONCE(trace_subsys_on[TRACE_RCU], true);
	for (int r = 0; r < 3; r++)
		rec = MIN(rec, bench_loop(true));
	WRITE_ONCE(trace_subsys_on[TRACE_RCU], on);
	rec = rec > base ? rec - base : 0;
	ktap_log("bench name=trace_on cpus=%d n=%d ns_per_event=%llu.%03llu cycles_per_event=%llu",
		 num_online_cpus(), BENCH_N,
		 (unsigned long long)(cycles_to_ns(rec) / BENCH_N),
		 (unsigned long long)(cycles_to_ns(rec) * 1000 / BENCH_N % 1000),
		 (unsigned long long)(rec / BENCH_N));
}

KTAP_SUITE(trace,
	   KTAP_CASE(trace_nmi_nested_writes),
	   KTAP_CASE(trace_full_buffer),
	   KTAP_CASE(trace_rate_capped),
	   KTAP_CASE(trace_bench));

/*
 * selftest_trace_timeout (not in test=all): a case that outlives its
 * time limit (boot with ktap.timeout= below its 10 s sleep), so that
 * the runner sees the trace dumped on a case's timeout, as on a panic.
 * The abandoned case wakes later and ends by itself.
 */
static void case_outlives_its_timeout(void)
{
	trace_rcu_reader("selftest", "timeout", 0, 0);	/* one event at least */
	msleep(10000);
}

KTAP_SUITE(selftest_trace_timeout, KTAP_CASE(case_outlives_its_timeout));
