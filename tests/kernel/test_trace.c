/* tests/kernel/test_trace.c: KTAP suite `trace`: the trace buffers
 * (kernel/trace.c).  A writer into which an NMI that records too is
 * nested, between its slot's reservation and its writes, every time
 * (test build: trace_inject_hook): both records are there, whole, none
 * lost or doubled (the reservation is one atomic add, the publication
 * the sequence number written last; trace.inject_split_reserve puts
 * back a load-and-store reservation, which this must catch).  And the cost of an
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
	bool on = READ_ONCE(trace_subsys_on[TRACE_RCU]);
	struct trace_entry e;
	struct task *t;
	int cpu = farthest_cpu();

	if (!trace_active()) {
		ktap_skip("needs trace= at boot");
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
	h1 = trace_cpu_head(cpu);
	WRITE_ONCE(trace_subsys_on[TRACE_RCU], on);
	if (h1 - h0 > 4000) {
		ktap_skip("CPU %d recorded %lu events meanwhile: more than its buffer holds", cpu, h1 - h0);
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
	if (!trace_active())
		return;
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
	   KTAP_CASE(trace_bench));
