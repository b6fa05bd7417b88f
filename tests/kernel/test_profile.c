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
 * (threads, not NMIs). */
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

static void qq6_preemptible_reader(void)
{
	struct task *t[NR_CPUS] = { 0 };
	int cpu;

	profile_quarantine(true);
	qq6_stop = false;
	for_each_online_cpu(cpu) {
		t[cpu] = kthread_create(qq6_reader, (void *)(unsigned long)cpu, "qq6-reader");
		if (t[cpu]) {
			kthread_bind(t[cpu], cpu);
			wake_up_process(t[cpu]);
		}
	}
	KTAP_ASSERT(profile_start(1024, 100) == 0);
	for (int i = 0; i < CYCLES; i++) {
		nmi_stop_preemptible();
		KTAP_EXPECT(profile_restart_buffer(1024) == 0);
	}
	profile_stop(false);
	qq6_stop = true;
	msleep(20);
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

static u64 busy_iterations(unsigned int ms)
{
	u64 end = ktime_get_ns() + ms * 1000000ull, n = 0;
	while (ktime_get_ns() < end) {
		for (int i = 0; i < 100; i++)
			bench_sink++;
		n++;
	}
	return n;
}

static int busy_thread(void *arg)
{
	u64 *out = arg;
	*out = busy_iterations(200);
	return 0;
}

static u64 busy_on_cpu1(void)
{
	static u64 result;
	result = 0;
	struct task *t = kthread_create(busy_thread, &result, "profile-busy");
	if (!t)
		return 0;
	kthread_bind(t, 1);
	wake_up_process(t);
	for (int i = 0; i < 2000 && !READ_ONCE(result); i++)
		msleep(1);
	return result;
}

static void nmi_profile_bench(void)
{
	/* cost of one nmi_profile() call, outside NMI, buffer installed */
	KTAP_ASSERT(profile_start(4096, 10) == 0);
	preempt_disable();
	u64 t0 = get_cycles_ordered();
	for (unsigned long i = 0; i < 100000; i++)
		nmi_profile((i * 64) & 0xffff);
	u64 cycles = get_cycles_ordered() - t0;
	preempt_enable();
	profile_stop(false);
	printk_raw("# bench name=nmi_profile_call cycles=%llu.%02llu ns=%llu.%02llu\n",
		   (unsigned long long)(cycles / 100000), (unsigned long long)(cycles % 100000) / 1000,
		   (unsigned long long)(cycles_to_ns(cycles) / 100000),
		   (unsigned long long)(cycles_to_ns(cycles) % 100000) / 1000);

	/* overhead on a busy loop at a high sampling rate, and the rate reached */
	u64 base = busy_on_cpu1();
	KTAP_ASSERT(profile_start(4096, HIGH_RATE) == 0);
	u64 prof = busy_on_cpu1();
	profile_stop(false);
	u64 rate = profile_achieved_rate_hz();
	u64 overhead_x100 = base && prof < base ? (base - prof) * 10000 / base : 0;

	/* nmi_stop() latency: one grace period, mostly */
	KTAP_ASSERT(profile_start(1024, 1000) == 0);
	u64 total = 0;
	for (int i = 0; i < 20; i++) {
		u64 s = ktime_get_ns();
		profile_restart_buffer(1024);
		total += ktime_get_ns() - s;
	}
	profile_stop(false);
	printk_raw("# bench name=nmi_profile cpus=%d rate_hz=%llu overhead_pct=%llu.%02llu stop_ns=%llu\n",
		   num_online_cpus(), (unsigned long long)rate,
		   (unsigned long long)(overhead_x100 / 100), (unsigned long long)(overhead_x100 % 100),
		   (unsigned long long)(total / 20));
	KTAP_EXPECT(base > 0);
}

static int profile_suite_init(void)
{
	return need_two_cpus();
}

KTAP_SUITE_FULL(profile, profile_suite_init, NULL,
		KTAP_CASE(samples_from_every_cpu),
		KTAP_CASE(stop_start_no_use_after_free),
		KTAP_CASE(switch_sizes_within_bounds),
		KTAP_CASE(busted_gp_is_caught),
		KTAP_CASE(qq6_preemptible_reader),
		KTAP_CASE(nmi_profile_bench));
