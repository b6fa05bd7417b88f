/* tests/kernel/test_smp.c: KTAP suite `smp`: the CPUs came up, tick, take
 * function-call IPIs and NMIs (also while spinning with irqs off), and
 * read TSCs that never go backwards along a causal chain.  Also prints
 * the IPI and NMI round-trip benchmark rows.  `smp.expect=N` on the
 * command line (tests/qemu-configs sets it from -smp) is the independent
 * count the online CPUs are checked against. */
#include "kernel/ktap.h"
#include "kernel/system.h"
#include "kernel/atomic.h"
#include "kernel/cmdline.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/printk.h"
#include "asm/irq.h"
#include "asm/irqflags.h"
#include "asm/nmi.h"
#include "asm/page.h"
#include "asm/smp.h"
#include "arch/x86_64/acpi.h"
#include "arch/x86_64/lapic.h"
#include "arch/x86_64/timer.h"
#include "kernel/math.h"
#include "tests/kernel/test_helpers.h"

static int expect_cpus = -1;
core_param(smp.expect, expect_cpus, int, "test: the number of CPUs that must come online");

static void smp_all_cpus_online(void)
{
	int cpu, n = 0;

	for_each_online_cpu(cpu) {
		n++;
		for (int other = 0; other < cpu; other++)
			if (cpu_online(other) && cpu_apic_id[other] == cpu_apic_id[cpu])
				ktap_fail("CPUs %d and %d share APIC id %u", other, cpu,
					  cpu_apic_id[cpu]);
	}
	ktap_log("%d CPUs online, %d wanted, %d failed to start", n,
		 smp_cpus_wanted, smp_cpus_failed);
	KTAP_EXPECT_EQ(n, num_online_cpus());
	/* ids are dense but for the numbers of CPUs that did not come up */
	for (cpu = NR_CPUS - 1; cpu > 0 && !cpu_online(cpu); cpu--)
		;
	KTAP_EXPECT_EQ(nr_cpu_ids, cpu + 1);
	KTAP_EXPECT(nr_cpu_ids <= n + smp_cpus_failed);
	KTAP_EXPECT_EQ(n, smp_cpus_wanted - smp_cpus_failed);
	if (expect_cpus >= 0)
		KTAP_EXPECT_EQ(n, expect_cpus);
}

struct whoami {
	int cpu;
	u32 apic_id;
};

static void read_whoami(void *p)
{
	struct whoami *w = p;

	w->cpu = raw_smp_processor_id();
	w->apic_id = lapic_id();
}

/* The APs start together and each picks its logical number, and with it
 * its stack and per-CPU area, by its own APIC id: every CPU must be the
 * one the MADT order gave that number, and the numbers follow that order. */
static void smp_each_cpu_took_its_own_slot(void)
{
	int cpu, prev = -1;

	for_each_online_cpu(cpu) {
		struct whoami w = { -1, ~0u };
		int order = -1;

		KTAP_ASSERT(smp_call_function_single(cpu, read_whoami, &w, 1) == 0);
		if (w.cpu != cpu || w.apic_id != cpu_apic_id[cpu])
			ktap_fail("CPU %d runs as CPU %d with APIC id %u; its slot is APIC id %u",
				  cpu, w.cpu, w.apic_id, cpu_apic_id[cpu]);
		for (int i = 0; i < acpi_info.nr_cpus; i++)
			if (acpi_info.cpus[i].apic_id == cpu_apic_id[cpu])
				order = i;
		if (cpu && acpi_info.have_madt && order <= prev)
			ktap_fail("CPU %d (APIC id %u) is MADT entry %d, after %d: out of order",
				  cpu, cpu_apic_id[cpu], order, prev);
		if (cpu)
			prev = order;
	}
}

/*
 * The APs' per-CPU areas are consecutive slots of one run (smpboot.c), so
 * that a scan of every CPU's per-CPU data touches consecutive pages: QEMU's
 * TCG TLB is direct-mapped by page number, and areas 17 or 18 pages apart
 * shared its slots at 64 CPUs (each remote read a miss: issue 30).
 */
static void smp_percpu_areas_consecutive(void)
{
	size_t step = ALIGN_UP(percpu_area_size(), PAGE_SIZE);
	int cpu, checked = 0;

	if (num_online_cpus() < 3) {
		ktap_skip("needs 3 CPUs (two APs to compare)");
		return;
	}
	for_each_online_cpu(cpu) {
		long want = (long)((cpu - 1) * step), got;

		if (cpu < 2)
			continue;
		got = (long)(__per_cpu_offset[cpu] - __per_cpu_offset[1]);
		if (got != want)
			ktap_fail("CPU %d's per-CPU area is %ld bytes from CPU 1's, not %ld "
				  "(one run, %zu bytes a CPU)", cpu, got, want, step);
		checked++;
	}
	ktap_log("%d APs' per-CPU areas checked, %zu bytes apart", checked + 1, step);
}

static void smp_ticks_advance_at_hz(void)
{
	u64 before[NR_CPUS], t0, ns;
	int cpu, bad = 0;
	const unsigned int ms = 500;

	for_each_online_cpu(cpu)
		KTAP_EXPECT(test_keep_ticking(cpu, true));	/* idle ones too */
	for_each_online_cpu(cpu)
		before[cpu] = READ_ONCE(per_cpu(timer_ticks, cpu));
	t0 = ktime_get_ns();
	mdelay(ms);
	ns = ktime_get_ns() - t0;
	for_each_online_cpu(cpu) {
		u64 d = READ_ONCE(per_cpu(timer_ticks, cpu)) - before[cpu];

		/* Under a hypervisor a vCPU may not have run at all in the
		 * window: its tick must still come, however late. */
		if (d == 0 && arch_under_hypervisor()) {
			SPIN_UNTIL(READ_ONCE(per_cpu(timer_ticks, cpu)) != before[cpu], WAIT_MIN_MS);
			d = READ_ONCE(per_cpu(timer_ticks, cpu)) - before[cpu];
		}
		u64 rate = d * 1000000000ull / ns;

		/* Never faster than hz.  Under a hypervisor a vCPU the host
		 * does not run loses ticks (16 vCPUs on 2 busy host cores
		 * have seen 1 in 20), so there the rate is only printed and
		 * a tick must merely have come; on a PC it must be near hz. */
		u64 floor = arch_under_hypervisor() ? 1 : hz / 8;

		if (d == 0 || rate < floor || rate > hz * 2) {
			ktap_fail("CPU %d ticked at %llu Hz, hz=%u (%s mode, %llu early)", cpu,
				  (unsigned long long)rate, hz, per_cpu(timer_mode, cpu),
				  (unsigned long long)per_cpu(timer_early, cpu));
			bad++;
		} else if (cpu < 4 || cpu == nr_cpu_ids - 1) {
			ktap_log("CPU %d: %llu ticks in %llu ms (%llu Hz)", cpu,
				 (unsigned long long)d, (unsigned long long)(ns / 1000000),
				 (unsigned long long)rate);
		}
	}
	for_each_online_cpu(cpu)
		test_keep_ticking(cpu, false);
	u64 j0 = jiffies;

	mdelay(50);
	/* As above: the jiffies duty holder's vCPU may not have run in the
	 * window; jiffies must still move, however late. */
	if (jiffies == j0 && arch_under_hypervisor())
		SPIN_UNTIL(READ_ONCE(jiffies) != j0, WAIT_MIN_MS);
	KTAP_EXPECT(jiffies > j0);
}

struct call_result {
	int cpu;
	u64 value;
	bool irqs_off;
};

static void report_cpu(void *p)
{
	struct call_result *r = p;

	r->cpu = raw_smp_processor_id();
	r->value = (u64)r->cpu * 1000 + 7;
	r->irqs_off = irqs_disabled();
}

static void smp_call_single_every_cpu(void)
{
	int cpu;

	for_each_online_cpu(cpu) {
		struct call_result r = { -1, 0, false };
		int ret = smp_call_function_single(cpu, report_cpu, &r, 1);

		if (ret || r.cpu != cpu || r.value != (u64)cpu * 1000 + 7 || !r.irqs_off)
			ktap_fail("call to CPU %d: ret %d, ran on %d, value %llu, irqs_off %d",
				  cpu, ret, r.cpu, (unsigned long long)r.value, r.irqs_off);
	}
	KTAP_EXPECT(smp_call_function_single(NR_CPUS, report_cpu, NULL, 1) < 0);
	KTAP_EXPECT(smp_call_function_single(-1, report_cpu, NULL, 1) < 0);
}

static atomic_t many_count;
static int many_seen[NR_CPUS];

static void count_cpu(void *unused)
{
	(void)unused;
	WRITE_ONCE(many_seen[raw_smp_processor_id()], 1);
	atomic_inc(&many_count);
}

static void smp_call_many_and_nowait(void)
{
	int cpu, n = num_online_cpus();

	for (int i = 0; i < NR_CPUS; i++)
		many_seen[i] = 0;
	atomic_set(&many_count, 0);
	KTAP_EXPECT_EQ(on_each_cpu(count_cpu, NULL, 1), 0);
	KTAP_EXPECT_EQ(atomic_read(&many_count), n);
	for_each_online_cpu(cpu)
		if (!many_seen[cpu])
			ktap_fail("CPU %d did not run on_each_cpu's function", cpu);

	/* Without waiting: the calls still all arrive. */
	atomic_set(&many_count, 0);
	KTAP_EXPECT_EQ(smp_call_function(count_cpu, NULL, 0), 0);
	if (!SPIN_UNTIL(atomic_read(&many_count) == n - 1, 10000))
		ktap_fail("only %d of %d no-wait calls ran", atomic_read(&many_count), n - 1);
}

/* Two CPUs, irqs off, each waiting for a call on the other. */
static atomic_t cross_done;

static void cross_inner(void *unused)
{
	(void)unused;
	atomic_inc(&cross_done);
}

static void cross_outer(void *unused)
{
	(void)unused;
	/* In CPU 1's IPI handler, irqs off: call back into CPU 0, which is
	 * itself waiting with irqs off for a call on us. */
	if (smp_call_function_single(0, cross_inner, NULL, 1) == 0)
		atomic_inc(&cross_done);
}

static void smp_call_crossing_irqs_off(void)
{
	unsigned long flags;
	int r1, r2;

	if (num_online_cpus() < 2) {
		ktap_skip("needs 2 CPUs");
		return;
	}
	atomic_set(&cross_done, 0);
	local_irq_save(flags);
	r1 = smp_call_function_single(1, cross_outer, NULL, 0);
	r2 = smp_call_function_single(1, cross_inner, NULL, 1);
	local_irq_restore(flags);
	KTAP_EXPECT_EQ(r1, 0);
	KTAP_EXPECT_EQ(r2, 0);
	KTAP_EXPECT(SPIN_UNTIL(atomic_read(&cross_done) == 3, 5000));
}

/* ---- NMIs ---- */

static u64 nmi_hits[NR_CPUS];
static bool nmi_armed[NR_CPUS];

static int test_nmi(struct pt_regs *regs, void *data)
{
	int me = raw_smp_processor_id();

	(void)regs;
	(void)data;
	if (!__atomic_load_n(&nmi_armed[me], __ATOMIC_ACQUIRE))
		return NMI_DONE;
	__atomic_store_n(&nmi_armed[me], false, __ATOMIC_RELAXED);
	__atomic_fetch_add(&nmi_hits[me], 1, __ATOMIC_RELEASE);
	return NMI_HANDLED;
}

static struct nmiaction test_nmi_action = { test_nmi, NULL, "test_smp" };

static volatile u64 sink_hits;

static int sink_nmi(struct pt_regs *regs, void *data)
{
	(void)regs;
	(void)data;
	if (raw_smp_processor_id() != 1)
		return NMI_DONE;
	sink_hits++;
	return NMI_HANDLED;
}

static struct nmiaction sink_nmi_action = { sink_nmi, NULL, "test_smp_sink" };

static volatile int spin_release;
static volatile int spin_started;
static u64 spin_saw;

/* Runs in the target's IPI handler: irqs are off throughout. */
static void spin_irqs_off(void *unused)
{
	int me = raw_smp_processor_id();
	u64 start = __atomic_load_n(&nmi_hits[me], __ATOMIC_ACQUIRE);

	(void)unused;
	spin_started = 1;
	SPIN_UNTIL(spin_release, 10000);
	spin_saw = __atomic_load_n(&nmi_hits[me], __ATOMIC_ACQUIRE) - start;
	spin_started = 2;
}

static bool nmi_one(int cpu)
{
	u64 before = __atomic_load_n(&nmi_hits[cpu], __ATOMIC_ACQUIRE);

	__atomic_store_n(&nmi_armed[cpu], true, __ATOMIC_RELEASE);
	if (!arch_send_nmi(cpu))
		return false;
	return SPIN_UNTIL(__atomic_load_n(&nmi_hits[cpu], __ATOMIC_ACQUIRE) != before, 2000);
}

static void nmi_reaches_every_cpu(void)
{
	int cpu, spinner = nr_cpu_ids - 1;
	u64 count0 = per_cpu(nmi_count, 0);

	KTAP_ASSERT(register_nmi_handler(&test_nmi_action) == 0);
	KTAP_EXPECT_EQ(register_nmi_handler(&test_nmi_action), -EBUSY);
	for_each_online_cpu(cpu)
		if (!nmi_one(cpu))
			ktap_fail("NMI IPI to CPU %d never arrived", cpu);
	KTAP_EXPECT(per_cpu(nmi_count, 0) > count0);

	/* All-but-self shorthand. */
	u64 before[NR_CPUS];

	for_each_online_cpu(cpu) {
		before[cpu] = __atomic_load_n(&nmi_hits[cpu], __ATOMIC_ACQUIRE);
		__atomic_store_n(&nmi_armed[cpu], cpu != raw_smp_processor_id(), __ATOMIC_RELEASE);
	}
	arch_send_nmi_allbutself();
	for_each_online_cpu(cpu) {
		if (cpu == raw_smp_processor_id())
			continue;
		if (!SPIN_UNTIL(__atomic_load_n(&nmi_hits[cpu], __ATOMIC_ACQUIRE) != before[cpu], 2000))
			ktap_fail("all-but-self NMI missed CPU %d", cpu);
	}
	__atomic_store_n(&nmi_armed[raw_smp_processor_id()], false, __ATOMIC_RELEASE);

	/* A CPU spinning with irqs off still takes NMIs. */
	if (spinner > 0) {
		spin_release = 0;
		spin_started = 0;
		KTAP_EXPECT_EQ(smp_call_function_single(spinner, spin_irqs_off, NULL, 0), 0);
		if (!SPIN_UNTIL(spin_started == 1, 5000)) {
			ktap_fail("CPU %d never started spinning", spinner);
		} else {
			if (!nmi_one(spinner))
				ktap_fail("CPU %d spinning with irqs off missed the NMI", spinner);
			bool bt = trigger_cpu_backtrace(spinner);

			if (!bt)
				ktap_fail("no backtrace from CPU %d spinning with irqs off", spinner);
		}
		spin_release = 1;
		KTAP_EXPECT(SPIN_UNTIL(spin_started == 2, 5000));
		KTAP_EXPECT(spin_saw >= 1);
	}
	unregister_nmi_handler(&test_nmi_action);

	/* Unregistered: an NMI no longer reaches it (a second action takes
	 * the NMI, so it is not reported as unknown). */
	if (nr_cpu_ids > 1 && register_nmi_handler(&sink_nmi_action) == 0) {
		u64 b = __atomic_load_n(&nmi_hits[1], __ATOMIC_ACQUIRE);
		u64 s0 = sink_hits;

		__atomic_store_n(&nmi_armed[1], true, __ATOMIC_RELEASE);
		arch_send_nmi(1);
		/* The NMI is seen once the sink counted it; nmi_count moves
		 * earlier, before the handlers run. */
		KTAP_EXPECT(SPIN_UNTIL(sink_hits != s0, 2000));
		KTAP_EXPECT_EQ(__atomic_load_n(&nmi_hits[1], __ATOMIC_ACQUIRE), b);
		__atomic_store_n(&nmi_armed[1], false, __ATOMIC_RELEASE);
		unregister_nmi_handler(&sink_nmi_action);
	}
}

/*
 * cpu_answers_nmi(), the lockup reports' "is the holder running at
 * all?": yes for a CPU spinning with irqs off (the stuck holder a lockup
 * report is for), no for one that takes no NMI (held here inside an NMI
 * handler, as a vCPU the host does not run would be), yes again once it
 * runs.  Asking this CPU cannot tell, so it says yes.
 */
static volatile int nmi_hold_release, nmi_hold_started;

static void hold_in_nmi(void)
{
	u64 t0 = get_cycles();

	nmi_hold_started = 1;
	while (!nmi_hold_release && get_cycles() - t0 < ns_to_cycles(10000000000ull))
		cpu_relax();
	nmi_hold_started = 2;
}

static void cpu_answers_nmi_only_running(void)
{
	int cpu = nr_cpu_ids - 1;

	if (cpu <= 0 || !cpu_online(cpu)) {
		ktap_skip("needs a second CPU");
		return;
	}
	KTAP_EXPECT(cpu_answers_nmi(raw_smp_processor_id()));
	spin_release = 0;
	spin_started = 0;
	KTAP_EXPECT_EQ(smp_call_function_single(cpu, spin_irqs_off, NULL, 0), 0);
	/* Each ask waits 1 s of TSC time; a vCPU the host does not run for
	 * longer (64 vCPUs on a loaded 2-core host) is asked again. */
	if (SPIN_UNTIL(spin_started == 1, 5000))
		KTAP_EXPECT(SPIN_UNTIL(cpu_answers_nmi(cpu), 5000));
	else
		ktap_fail("CPU %d never started spinning", cpu);
	spin_release = 1;
	KTAP_EXPECT(SPIN_UNTIL(spin_started == 2, 5000));

	nmi_hold_release = 0;
	nmi_hold_started = 0;
	KTAP_ASSERT(smp_call_nmi(cpu, hold_in_nmi));
	if (SPIN_UNTIL(nmi_hold_started == 1, 5000))
		KTAP_EXPECT(!cpu_answers_nmi(cpu));
	else
		ktap_fail("CPU %d never ran the NMI function", cpu);
	nmi_hold_release = 1;
	KTAP_EXPECT(SPIN_UNTIL(nmi_hold_started == 2, 5000));
	KTAP_EXPECT(SPIN_UNTIL(cpu_answers_nmi(cpu), 5000));
}

/* ---- a nested NMI ----
 * An exception inside an NMI handler ends in iretq, which lets the next
 * NMI in before the handler is done.  The outer handler here takes a page
 * fault on purpose (probe_fault) and then waits inside the NMI while
 * another NMI is sent: the nested one must run on its own part of the NMI
 * stack and both must return to where they came from. */

static volatile int nest_state;	/* 1 armed, 2 outer waiting, 3 nested ran, 4 outer done */
static volatile int nest_fault;

/* The lower half is unmapped (paging.h): a fault, but not a null pointer,
 * which UBSan would report before the CPU could fault. */
static void read_unmapped(void *unused)
{
	volatile int *p = (volatile int *)0x100000;

	(void)unused;
	__asm__("" : "+r"(p));
	(void)*p;
}

static int nest_nmi(struct pt_regs *regs, void *data)
{
	(void)regs;
	(void)data;
	if (raw_smp_processor_id() != 1)
		return NMI_DONE;
	if (this_cpu_read(nmi_depth) >= 2) {
		if (nest_state == 2)
			nest_state = 3;
		return NMI_HANDLED;
	}
	if (nest_state != 1)
		return NMI_DONE;
	nest_fault = probe_fault(read_unmapped, NULL);	/* iretq: NMIs unblocked */
	nest_state = 2;
	SPIN_UNTIL(nest_state == 3, 3000);
	nest_state = 4;
	return NMI_HANDLED;
}

static struct nmiaction nest_nmi_action = { nest_nmi, NULL, "test_smp_nest" };

static void nmi_nested_inside_nmi(void)
{
	struct call_result r = { -1, 0, false };
	u64 nested0;

	if (num_online_cpus() < 2) {
		ktap_skip("needs 2 CPUs");
		return;
	}
	nested0 = per_cpu(nmi_nested, 1);
	nest_state = 1;
	nest_fault = 0;
	KTAP_ASSERT(register_nmi_handler(&nest_nmi_action) == 0);
	arch_send_nmi(1);
	if (!SPIN_UNTIL(nest_state >= 2, 3000)) {
		ktap_fail("the outer NMI never got past its page fault (state %d)", nest_state);
	} else {
		arch_send_nmi(1);
		if (!SPIN_UNTIL(nest_state == 4, 5000))
			ktap_fail("nested NMI: state %d", nest_state);
	}
	unregister_nmi_handler(&nest_nmi_action);
	KTAP_EXPECT_EQ(nest_fault, 14);
	KTAP_EXPECT(per_cpu(nmi_nested, 1) > nested0);
	/* CPU 1 came back from both NMIs to what it was doing. */
	KTAP_EXPECT_EQ(smp_call_function_single(1, report_cpu, &r, 1), 0);
	KTAP_EXPECT_EQ(r.cpu, 1);
}

/* ---- TSC along a causal chain ---- */

#define CHAIN_ROUNDS 20

static volatile int chain_token;
static u64 chain_last;
static atomic_t chain_backwards, chain_done, chain_timeouts;
static s64 chain_worst;

/*
 * Wait for the token to reach `want`.  A hang guard, not a speed test: it
 * gives up only when no CPU has passed the token on for 60 s.  Each turn
 * needs the next vCPU to be run by the host, so at 16 vCPUs on a loaded
 * 2-core host one CPU can wait many seconds for its turn while the chain
 * still moves.
 */
static bool chain_wait_turn(int want)
{
	for (;;) {
		int seen = __atomic_load_n(&chain_token, __ATOMIC_ACQUIRE);

		if (seen == want)
			return true;
		if (!SPIN_UNTIL(__atomic_load_n(&chain_token, __ATOMIC_ACQUIRE) != seen, 60000))
			return false;
	}
}

static void chain_turns(int me, int n)
{
	for (int r = 0; r < CHAIN_ROUNDS; r++) {
		int want = r * n + me;

		if (!chain_wait_turn(want)) {
			atomic_inc(&chain_timeouts);
			return;
		}
		u64 now = get_cycles_ordered();

		if (now < chain_last) {
			atomic_inc(&chain_backwards);
			if ((s64)(chain_last - now) > chain_worst)
				chain_worst = chain_last - now;
		}
		chain_last = now;
		/* Release: the next CPU's read of the token orders its TSC
		 * read after ours. */
		__atomic_store_n(&chain_token, want + 1, __ATOMIC_RELEASE);
	}
}

/* The turn of a CPU is its place among the online ones: a CPU that did
 * not come up (or went down) leaves a hole in the numbers. */
static int online_rank(int me)
{
	int rank = 0;

	for (int cpu = 0; cpu < me; cpu++)
		rank += cpu_online(cpu);
	return rank;
}

static void chain_remote(void *unused)
{
	(void)unused;
	chain_turns(online_rank(raw_smp_processor_id()), num_online_cpus());
	atomic_inc(&chain_done);
}

static void tsc_never_backwards_across_cpus(void)
{
	int n = num_online_cpus();
	unsigned long flags;

	if (n < 2) {
		ktap_skip("needs 2 CPUs");
		return;
	}
	chain_token = 0;
	chain_last = 0;
	chain_worst = 0;
	atomic_set(&chain_backwards, 0);
	atomic_set(&chain_done, 0);
	atomic_set(&chain_timeouts, 0);
	smp_mb();
	KTAP_EXPECT_EQ(smp_call_function(chain_remote, NULL, 0), 0);
	local_irq_save(flags);
	chain_turns(0, n);
	local_irq_restore(flags);
	KTAP_EXPECT(SPIN_UNTIL(atomic_read(&chain_done) == n - 1, 120000));
	KTAP_EXPECT_EQ(atomic_read(&chain_timeouts), 0);
	ktap_log("%d hand-offs over %d CPUs, %d backwards (worst %lld cycles)",
		 CHAIN_ROUNDS * n, n, atomic_read(&chain_backwards), (long long)chain_worst);
	KTAP_EXPECT_EQ(atomic_read(&chain_backwards), 0);
}

/* ---- benchmarks ---- */

#define BENCH_RUNS 200

static void noop(void *unused) { (void)unused; }

struct row_stats { u64 mean_milli, sd_milli, median; };

/* Mean and standard deviation in thousandths (kernel/math.h), so the row
 * has three decimals; sorts v. */
static struct row_stats stats_of(u64 *v, int n)
{
	static u64 milli[BENCH_RUNS];
	struct stats st;

	for (int i = 0; i < n; i++)
		milli[i] = v[i] * 1000;
	stats_compute(milli, n, &st);
	return (struct row_stats){ st.mean, st.stddev, st.median / 1000 };
}

static void print_row(const char *type, u64 *cyc, int n)
{
	static u64 ns[BENCH_RUNS];
	struct row_stats c, t;

	for (int i = 0; i < n; i++)
		ns[i] = cycles_to_ns(cyc[i]);
	t = stats_of(ns, n);
	c = stats_of(cyc, n);
	ktap_log("bench name=ipi type=%s cpus=%d mean_ns=%llu.%03llu stddev=%llu.%03llu "
		 "median_ns=%llu mean_cycles=%llu.%03llu stddev_cycles=%llu.%03llu runs=%d",
		 type, num_online_cpus(),
		 (unsigned long long)(t.mean_milli / 1000), (unsigned long long)(t.mean_milli % 1000),
		 (unsigned long long)(t.sd_milli / 1000), (unsigned long long)(t.sd_milli % 1000),
		 (unsigned long long)t.median,
		 (unsigned long long)(c.mean_milli / 1000), (unsigned long long)(c.mean_milli % 1000),
		 (unsigned long long)(c.sd_milli / 1000), (unsigned long long)(c.sd_milli % 1000), n);
}

static volatile u64 bench_ack;
static u64 bench_seq;

static int bench_nmi(struct pt_regs *regs, void *data)
{
	(void)regs;
	(void)data;
	if (raw_smp_processor_id() != 1 || READ_ONCE(bench_ack) == bench_seq)
		return NMI_DONE;
	WRITE_ONCE(bench_ack, READ_ONCE(bench_seq));
	return NMI_HANDLED;
}

static struct nmiaction bench_nmi_action = { bench_nmi, NULL, "bench_nmi" };

static void bench_ipi_and_nmi_round_trip(void)
{
	static u64 cyc[BENCH_RUNS];
	unsigned long flags;
	int n = 0;

	if (num_online_cpus() < 2) {
		ktap_skip("needs 2 CPUs");
		return;
	}
	for (int i = 0; i < BENCH_RUNS; i++) {
		u64 t0 = get_cycles_ordered();

		if (smp_call_function_single(1, noop, NULL, 1))
			break;
		cyc[n++] = get_cycles_ordered() - t0;
	}
	KTAP_EXPECT_EQ(n, BENCH_RUNS);
	if (n)
		print_row("call", cyc, n);

	KTAP_ASSERT(register_nmi_handler(&bench_nmi_action) == 0);
	n = 0;
	local_irq_save(flags);
	for (int i = 0; i < BENCH_RUNS; i++) {
		WRITE_ONCE(bench_seq, bench_seq + 1);
		smp_mb();
		u64 t0 = get_cycles_ordered();

		arch_send_nmi(1);
		if (!SPIN_UNTIL(READ_ONCE(bench_ack) == bench_seq, 2000))
			break;
		cyc[n++] = get_cycles_ordered() - t0;
	}
	local_irq_restore(flags);
	unregister_nmi_handler(&bench_nmi_action);
	KTAP_EXPECT_EQ(n, BENCH_RUNS);
	if (n)
		print_row("nmi", cyc, n);
}

KTAP_SUITE(smp,
	   KTAP_CASE(smp_all_cpus_online),
	   KTAP_CASE(smp_each_cpu_took_its_own_slot),
	   KTAP_CASE(smp_percpu_areas_consecutive),
	   KTAP_CASE(smp_ticks_advance_at_hz),
	   KTAP_CASE(smp_call_single_every_cpu),
	   KTAP_CASE(smp_call_many_and_nowait),
	   KTAP_CASE(smp_call_crossing_irqs_off),
	   KTAP_CASE(nmi_reaches_every_cpu),
	   KTAP_CASE(cpu_answers_nmi_only_running),
	   KTAP_CASE(nmi_nested_inside_nmi),
	   KTAP_CASE(tsc_never_backwards_across_cpus),
	   KTAP_CASE(bench_ipi_and_nmi_round_trip));
