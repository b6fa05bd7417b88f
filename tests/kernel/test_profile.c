/* tests/kernel/test_profile.c: the NMI profile buffer (kernel/profile.c)
 * under NMI load: samples arrive, buffers are never used after their grace
 * period, never overrun, and a broken grace period is caught. */
#include "kernel/ktap.h"
#include "kernel/profile_internal.h"
#include "kernel/sched.h"
#include "kernel/slab.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/kallsyms.h"
#include "kernel/string.h"
#include "rcu/rcupdate.h"
#include "asm/tick.h"
#include "asm/timer.h"
#include "tests/kernel/test_helpers.h"
#include "tests/scenarios/scenario.h"

#define HIGH_RATE 1000
#define CYCLES 100

static volatile bool hot_stop;
static atomic_t hot_running;

/* The function the profile must find on top. */
static __attribute__((noinline)) void profile_hot_loop(void)
{
	while (!READ_ONCE(hot_stop))
		cpu_relax();
}

static int hot_thread(void *arg)
{
	(void)arg;
	atomic_inc(&hot_running);
	profile_hot_loop();
	atomic_dec(&hot_running);
	return 0;
}

static int start_hot_threads(struct task **t)
{
	int cpu, n = 0;

	hot_stop = false;
	for_each_online_cpu(cpu) {
		if (cpu == 0)
			continue;
		t[cpu] = kthread_create(hot_thread, NULL, "profile-hot");
		if (!t[cpu])
			continue;
		kthread_bind(t[cpu], cpu);
		wake_up_process(t[cpu]);
		n++;
	}
	return n;
}

static void stop_hot_threads(void)
{
	WRITE_ONCE(hot_stop, true);
	for (int i = 0; i < 1000 && atomic_read(&hot_running); i++)
		msleep(1);
}

static int need_two_cpus(void)
{
	return num_online_cpus() < 2;
}

#define PROFILE_MIN_SAMPLES 50

static void samples_from_every_cpu(void)
{
	struct task *t[NR_CPUS] = { 0 };
	struct profile_stats st;
	unsigned long top_n;
	int cpu;

	start_hot_threads(t);
	profile_reset_stats();
	KTAP_ASSERT(profile_start(65536, 1000) == 0);
	/* Until every CPU has taken its share, not for a fixed time: on a
	 * loaded host a vCPU may go unrun for the whole of any such time.
	 * The bound only reports a CPU that never samples. */
	msleep(300);
	for (u64 end = ktime_get_ns() + 60000000000ull; ktime_get_ns() < end; msleep(10)) {
		bool all = true;

		profile_get_stats(&st);
		for_each_online_cpu(cpu)
			if (cpu != 0 && st.samples[cpu] < PROFILE_MIN_SAMPLES)
				all = false;
		if (all)
			break;
	}
	profile_stop(true);
	stop_hot_threads();

	profile_get_stats(&st);
	for_each_online_cpu(cpu) {
		if (cpu == 0)
			continue;
		if (!st.samples[cpu])
			ktap_fail("cpu%d was sent NMIs but took no samples", cpu);
	}
	const char *top = profile_top_function(&top_n);
	ktap_log("top function %s with %lu samples", top ? top : "(none)", top_n);
	KTAP_EXPECT(top && !strcmp(top, "profile_hot_loop"));
}

static void switch_sizes_within_bounds(void)
{
	struct task *t[NR_CPUS] = { 0 };
	struct profile_stats st;

	start_hot_threads(t);
	profile_reset_stats();
	KTAP_ASSERT(profile_start(65536, HIGH_RATE) == 0);
	for (int i = 0; i < 100; i++) {
		KTAP_EXPECT(profile_switch(i % 3 == 1 ? 16 : 65536) == 0);
		KTAP_EXPECT(profile_guards_ok());
	}
	profile_stop(false);
	stop_hot_threads();
	profile_get_stats(&st);
	KTAP_EXPECT(profile_guards_ok());
	/* the small buffers' own size check turned samples away */
	ktap_log("out of range %llu", (unsigned long long)st.out_of_range);
}

/* ---- the IPI sampler's pacing (kernel/profile_sampler.c) ---- */

static struct profile_sampler_counts sampler_now(void)
{
	struct profile_sampler_counts c;

	profile_sampler_counts(&c);
	return c;
}

/*
 * Rounds of NMIs per tick of the sampling CPU reach rate / hz, counted
 * against that CPU's own ticks (not time: a descheduled vCPU loses ticks
 * and subticks alike).  Also above one per tick, which a sampler that
 * sleeps between rounds cannot do, and below.  Its timer fires
 * ceil(rate / hz) times per tick, and ticks come no faster than hz.
 */
static void sampler_rounds_per_tick(void)
{
	static const unsigned int ratio[][2] = { { 4, 1 }, { 5, 2 }, { 1, 2 } };

	for (unsigned int i = 0; i < ARRAY_SIZE(ratio); i++) {
		unsigned int num = ratio[i][0], den = ratio[i][1];
		unsigned int subticks = (num + den - 1) / den;
		struct profile_sampler_counts a, b;

		profile_sample_until(0);
		KTAP_ASSERT(profile_start(4096, hz * num / den) == 0);
		if (!profile_sampler_counts(&a)) {
			profile_stop(false);
			ktap_skip("the PMU is the source: no IPI rounds to count");
			return;
		}
		WAIT_UNTIL(sampler_now().ticks >= 10, 0);
		a = sampler_now();
		u64 t0 = ktime_get_ns();
		WAIT_UNTIL(sampler_now().ticks >= a.ticks + 200, 0);
		b = sampler_now();
		u64 ns = ktime_get_ns() - t0;
		profile_stop(false);

		u64 ticks = b.ticks - a.ticks, rounds = b.rounds - a.rounds;
		u64 irqs = b.interrupts - a.interrupts;
		ktap_log("%u/%u rounds per tick asked: %llu rounds, %llu interrupts in %llu ticks",
			 num, den, (unsigned long long)rounds, (unsigned long long)irqs,
			 (unsigned long long)ticks);
		KTAP_EXPECT(ticks >= 200);
		/* the copies may be torn by a round and a tick each side */
		KTAP_EXPECT(rounds * den + 4 * num + 2 * den >= ticks * num);
		KTAP_EXPECT(rounds * den <= ticks * num + 4 * num + 2 * den);
		KTAP_EXPECT(irqs + 2 * subticks >= ticks * subticks);
		KTAP_EXPECT(irqs <= ticks * subticks + 2 * subticks);
		/* a lost tick only slows it; a subtick taken for a tick speeds it */
		KTAP_EXPECT(ticks <= ns * hz / 1000000000ull * 5 / 4 + 2);
	}
}

static void read_tick_can_stop(void *arg)
{
	*(bool *)arg = arch_tick_can_stop();
}

/*
 * profile=SECONDS: at the deadline the sampler sends no more rounds and
 * stops pacing itself, without waiting for profile_stop(): the sampling
 * CPU's timer is back at one interrupt per tick, and its tick may stop
 * again (tickless idle asks arch_tick_can_stop()).
 */
static void sampler_stops_at_deadline(void)
{
	struct profile_sampler_counts a, b;
	bool can_stop = true;

	profile_sample_until(0);
	KTAP_ASSERT(profile_start(4096, 4 * hz) == 0);
	if (!profile_sampler_counts(&a)) {
		profile_stop(false);
		ktap_skip("the PMU is the source: no IPI sampler");
		return;
	}
	KTAP_EXPECT(WAIT_UNTIL(sampler_now().rounds >= 20, 0));
	smp_call_function_single(0, read_tick_can_stop, &can_stop, 1);
	KTAP_EXPECT(!can_stop);		/* the subticks need the timer */
	profile_sample_until(ktime_get_ns() + 20000000ull);
	KTAP_EXPECT(WAIT_UNTIL(!sampler_now().active, 0));
	a = sampler_now();
	/* nothing more may come: the window is the point */
	KTAP_EXPECT(!WAIT_WINDOW(sampler_now().interrupts != a.interrupts, 50));
	b = sampler_now();
	smp_call_function_single(0, read_tick_can_stop, &can_stop, 1);
	KTAP_EXPECT(can_stop);
	KTAP_EXPECT(profile_running());	/* the buffer stays for the report */
	profile_stop(false);
	profile_sample_until(0);
	ktap_log("%llu rounds, then %llu more interrupts after the deadline",
		 (unsigned long long)a.rounds,
		 (unsigned long long)(b.interrupts - a.interrupts));
	KTAP_EXPECT_EQ(b.rounds, a.rounds);
}

#ifdef CONFIG_SANITIZE
/* Many nmi_stop()/install cycles while NMIs come at a high rate: every
 * retired buffer is kept poisoned in quarantine, and any NMI that wrote
 * to one after its grace period shows as changed poison. */
static unsigned long restart_cycles(int cycles, unsigned int delay_ns)
{
	struct task *t[NR_CPUS] = { 0 };

	start_hot_threads(t);
	profile_reset_stats();
	profile_quarantine(true);
	profile_reader_delay_ns = delay_ns;
	if (profile_start(1024, HIGH_RATE)) {
		ktap_fail("profile_start failed");
		return 0;
	}
	for (int i = 0; i < cycles; i++) {
		profile_restart_buffer(i & 1 ? 256 : 1024);
		msleep(2);	/* let NMIs find the new buffer before it goes */
	}
	profile_stop(false);
	profile_reader_delay_ns = 0;
	stop_hot_threads();
	unsigned long dirty = profile_quarantine_check();
	profile_quarantine(false);
	return dirty;
}

static void stop_start_no_use_after_free(void)
{
	unsigned long poison_before = kmalloc_poison_errors();
	unsigned long dirty = restart_cycles(CYCLES, 2000);
	struct profile_stats st;

	profile_get_stats(&st);
	ktap_log("%d cycles, %llu samples, %llu dropped while no buffer", CYCLES,
		 (unsigned long long)st.samples[1], (unsigned long long)st.dropped);
	KTAP_EXPECT_EQ(dirty, 0);
	KTAP_EXPECT_EQ(kmalloc_poison_errors(), poison_before);
}

static void synchronize_busted(void)
{
	/* a grace period that returns at once */
}

/* The same check with the grace period broken must see the use after
 * free: this is what shows that the check above can fail. */
static void busted_gp_is_caught(void)
{
	unsigned long dirty = 0;

	profile_sync = synchronize_busted;
	for (int round = 0; round < 10 && !dirty; round++)
		dirty = restart_cycles(CYCLES, 200000);
	profile_sync = synchronize_sched;
	ktap_log("busted grace period: %lu retired buffers written after their free", dirty);
	KTAP_EXPECT(dirty > 0);
}

/* The article's Quick Quiz 6 (docs/article.md): preemptible samplers
 * (threads, not NMIs), one per CPU, below the updater's priority: the
 * updater preempts the one on its own CPU (inside its section or not)
 * each time it wakes, instead of waiting out that reader's time slice. */
static volatile bool qq6_stop;

static int qq6_reader(void *arg)
{
	unsigned long pc = (unsigned long)arg;
	while (!READ_ONCE(qq6_stop)) {
		nmi_profile_preemptible(pc);
		pc = (pc * 31 + 7) & 0xffff;
		cond_resched();
	}
	return 0;
}

/* Each cycle's grace period waits for every CPU's reader: CYCLES up to
 * 16 CPUs, then as many CPU-cycles as 16 CPUs get (25 cycles at 64). */
static int qq6_cycles(void)
{
	int n = num_online_cpus();

	return n <= 16 ? CYCLES : MAX(CYCLES * 16 / n, 10);
}

static void qq6_preemptible_reader(void)
{
	struct task *t[NR_CPUS] = { 0 };
	int cpu, cycles = qq6_cycles();

	profile_quarantine(true);
	qq6_stop = false;
	for_each_online_cpu(cpu) {
		t[cpu] = kthread_create(qq6_reader, (void *)(unsigned long)cpu, "qq6-reader");
		if (t[cpu]) {
			kthread_bind(t[cpu], cpu);
			set_task_prio(t[cpu], PRIO_LOW);
			wake_up_process(t[cpu]);
		}
	}
	KTAP_ASSERT(profile_start(1024, 100) == 0);
	for (int i = 0; i < cycles; i++) {
		nmi_stop_preemptible();
		KTAP_EXPECT(profile_restart_buffer(1024) == 0);
	}
	profile_stop(false);
	qq6_stop = true;
	msleep(20);
	ktap_log("%d cycles, a reader on each of %d CPUs", cycles, num_online_cpus());
	KTAP_EXPECT_EQ(profile_quarantine_check(), 0);
	profile_quarantine(false);
}

#else
/* The quarantine and the reader delay are the test build's (SANITIZE=1,
 * kernel/profile_test.c); the benchmark build's profiler has no hooks. */
static void needs_test_build(void)
{
	ktap_skip("needs the test build's profiler hooks (SANITIZE=1)");
}

static void stop_start_no_use_after_free(void) { needs_test_build(); }
static void busted_gp_is_caught(void) { needs_test_build(); }
static void qq6_preemptible_reader(void) { needs_test_build(); }
#endif /* CONFIG_SANITIZE */

static volatile unsigned long bench_sink;

#define BUSY_BATCHES 1024
#define BUSY_GAP_NS 500000
static u32 busy_batch[BUSY_BATCHES], busy_sorted[BUSY_BATCHES];

/*
 * Iterations of a busy loop per second of the time its vCPU ran: the loop
 * runs in BUSY_BATCHES timed batches, and a batch that took BUSY_GAP_NS
 * beyond the median batch counts as the median (the host ran something
 * else; an NMI handler costs far less).  Under a loaded host the
 * iterations in a fixed time would measure the host instead.
 */
static u64 busy_iterations(unsigned int ms)
{
	u64 n = 1, t, budget = ns_to_cycles((u64)ms * 1000000ull / BUSY_BATCHES);
	u64 total = 0, gap = ns_to_cycles(BUSY_GAP_NS);
	int nb = 0;

	do {		/* a batch of about ms / BUSY_BATCHES */
		n *= 2;
		t = get_cycles_ordered();
		for (u64 k = 0; k < n; k++)
			for (int i = 0; i < 100; i++)
				bench_sink++;
		t = get_cycles_ordered() - t;
	} while (t < budget / 2 && n < (1ull << 30));
	for (; nb < BUSY_BATCHES; nb++) {
		t = get_cycles_ordered();
		for (u64 k = 0; k < n; k++)
			for (int i = 0; i < 100; i++)
				bench_sink++;
		t = get_cycles_ordered() - t;
		busy_batch[nb] = (u32)MIN(t, 0xffffffffull);
	}
	for (int i = 0; i < nb; i++) {		/* insertion sort of a copy */
		u32 x = busy_batch[i];
		int j = i - 1;

		for (; j >= 0 && busy_sorted[j] > x; j--)
			busy_sorted[j + 1] = busy_sorted[j];
		busy_sorted[j + 1] = x;
	}
	u64 med = busy_sorted[nb / 2];

	for (int i = 0; i < nb; i++)
		total += busy_batch[i] > med + gap ? med : busy_batch[i];
	return total ? (u64)nb * n * 1000000000ull / cycles_to_ns(total) : 0;
}

static unsigned int busy_ms;

static int busy_thread(void *arg)
{
	u64 *out = arg;
	*out = busy_iterations(busy_ms);
	return 0;
}

/* busy_iterations() on CPU 1 (a sampled CPU). */
static u64 busy_on_cpu1(unsigned int ms)
{
	static u64 result;
	result = 0;
	busy_ms = ms;
	struct task *t = kthread_create(busy_thread, &result, "profile-busy");
	if (!t)
		return 0;
	kthread_bind(t, 1);
	wake_up_process(t);
	WAIT_UNTIL(READ_ONCE(result), 10 * ms);
	return result;
}

static u64 median3(u64 *v)
{
	u64 a = v[0], b = v[1], c = v[2];
	return a > b ? (b > c ? b : (a > c ? c : a)) : (a > c ? a : (b > c ? c : b));
}

/*
 * One rate: the NMIs per second each target CPU took, the rounds per tick
 * of the sampling CPU and its ticks per second (under TCG a vCPU the host
 * does not run loses ticks, and the rounds with them), the busy loop's
 * slowdown (median of `pairs` runs with and without), and nmi_stop()'s
 * latency (one grace period, mostly) while sampling.
 */
static void bench_rate(unsigned int rate, unsigned int ms, int pairs)
{
	struct profile_sampler_counts c = { 0 };
	u64 base[3], prof[3], rate_hz = 0, run_ns = 0;

	for (int i = 0; i < pairs; i++) {
		base[i] = busy_on_cpu1(ms);
		KTAP_ASSERT(profile_start(4096, rate) == 0);
		prof[i] = busy_on_cpu1(ms);
		profile_sampler_counts(&c);
		profile_stop(false);
		rate_hz = profile_achieved_rate_hz();
		run_ns = profile_run_ns();
	}
	u64 b = pairs == 3 ? median3(base) : base[0], p = pairs == 3 ? median3(prof) : prof[0];
	u64 overhead_x100 = b && p < b ? (b - p) * 10000 / b : 0;
	u64 per_tick_x100 = c.ticks ? c.rounds * 100 / c.ticks : 0;
	u64 ticks_per_s = run_ns ? c.ticks * 1000000000ull / run_ns : 0;

	KTAP_ASSERT(profile_start(1024, rate) == 0);
	u64 total = 0;
	for (int i = 0; i < 20; i++) {
		u64 s = ktime_get_ns();
		profile_restart_buffer(1024);
		total += ktime_get_ns() - s;
	}
	profile_stop(false);
	ktap_log("bench name=nmi_profile cpus=%d asked_hz=%u rate_hz=%llu rounds_per_tick=%llu.%02llu ticks_per_s=%llu overhead_pct=%llu.%02llu stop_ns=%llu",
		 num_online_cpus(), rate, (unsigned long long)rate_hz,
		 (unsigned long long)(per_tick_x100 / 100), (unsigned long long)(per_tick_x100 % 100),
		 (unsigned long long)ticks_per_s,
		 (unsigned long long)(overhead_x100 / 100), (unsigned long long)(overhead_x100 % 100),
		 (unsigned long long)(total / 20));
	KTAP_EXPECT(b > 0);
}

static void nmi_profile_bench(void)
{
	static const unsigned int full[] = { 500, 1000, 4000 }, quick[] = { HIGH_RATE };

	/* cost of one nmi_profile() call, outside NMI, buffer installed */
	KTAP_ASSERT(profile_start(4096, 10) == 0);
	preempt_disable();
	u64 t0 = get_cycles_ordered();
	for (unsigned long i = 0; i < 100000; i++)
		nmi_profile((i * 64) & 0xffff);
	u64 cycles = get_cycles_ordered() - t0;
	preempt_enable();
	profile_stop(false);
	ktap_log("bench name=nmi_profile_call cycles=%llu.%02llu ns=%llu.%02llu",
		 (unsigned long long)(cycles / 100000), (unsigned long long)(cycles % 100000) / 1000,
		 (unsigned long long)(cycles_to_ns(cycles) / 100000),
		 (unsigned long long)(cycles_to_ns(cycles) % 100000) / 1000);

	/* bench=full: perf's default rate and two below it */
	profile_sample_until(0);
	if (scen_full())
		for (unsigned int i = 0; i < ARRAY_SIZE(full); i++)
			bench_rate(full[i], 1000, 3);
	else
		bench_rate(quick[0], 200, 1);
}

static int profile_suite_init(void)
{
	return need_two_cpus();
}

KTAP_SUITE_FULL(profile, profile_suite_init, NULL,
		KTAP_CASE(samples_from_every_cpu),
		KTAP_CASE(stop_start_no_use_after_free),
		KTAP_CASE(switch_sizes_within_bounds),
		KTAP_CASE(sampler_rounds_per_tick),
		KTAP_CASE(sampler_stops_at_deadline),
		KTAP_CASE(busted_gp_is_caught),
		KTAP_CASE(qq6_preemptible_reader),
		KTAP_CASE(nmi_profile_bench));
