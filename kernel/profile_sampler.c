/* kernel/profile_sampler.c: where the profiler's NMIs come from.
 *
 * Either each CPU's cycle counter overflows into an NMI, where the CPU has
 * an architectural PMU and profile.source=pmu|auto; or CPU 0 kicks every
 * other online CPU with an NMI IPI at the chosen rate (works everywhere,
 * QEMU TCG included).  The kicks are paced by CPU 0's own timer: for a
 * rate above hz it fires ceil(rate / hz) times per tick (subticks,
 * asm/timer.h), and each of its interrupts sends a round when one is due,
 * so the rounds per tick are rate / hz whatever the host does to the
 * vCPU, and nothing sleeps or wakes for them.  Called with profile_mutex
 * held.
 */
#include "kernel/profile_internal.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "asm/timer.h"

enum { SOURCE_AUTO, SOURCE_IPI, SOURCE_PMU };

#define SAMPLER_CPU 0

static char *profile_source_name;
core_param(profile.source, profile_source_name, charp,
	   "NMI source for profile=: auto (PMU if present, else IPIs), ipi, pmu");

static u64 sample_end_ns;	/* profile=: when sampling stops (0: never) */
static bool using_pmu;
static u64 run_start_ns, run_end_ns, run_ns;

/* The IPI sampler, written by SAMPLER_CPU's timer interrupt only (and by
 * the updaters while it is off). */
static bool sampler_on;		/* its subticks are set */
static unsigned int sampler_rate, sampler_subticks;
static unsigned int sampler_credit;	/* rate per subtick, accumulated */
static struct profile_sampler_counts counts;

static int source_choice(void)
{
	if (!profile_source_name)
		return SOURCE_AUTO;
	if (!strcmp(profile_source_name, "ipi"))
		return SOURCE_IPI;
	if (!strcmp(profile_source_name, "pmu"))
		return SOURCE_PMU;
	return SOURCE_AUTO;
}

static void sampler_off_here(void)
{
	if (sampler_on) {
		arch_timer_subticks(1, NULL);
		sampler_on = false;
	}
}

/* Each of SAMPLER_CPU's timer interrupts while sampling (hardirq, irqs
 * off).  rate / hz rounds per tick: a round whenever the credit reaches
 * one subtick's share of a second. */
static void sampler_subtick(bool tick)
{
	unsigned int per_round = sampler_subticks * hz;
	int cpu;

	counts.interrupts++;
	if (tick)
		counts.ticks++;
	if (sample_end_ns && ktime_get_ns() >= sample_end_ns) {
		run_end_ns = sample_end_ns;
		sampler_off_here();	/* done: back to one interrupt per tick */
		return;
	}
	sampler_credit += sampler_rate;
	if (sampler_credit < per_round)
		return;
	sampler_credit -= per_round;
	counts.rounds++;
	for_each_online_cpu(cpu) {
		if (cpu != SAMPLER_CPU && arch_profile_kick(cpu))
			counts.kicks++;
	}
}

static void sampler_start_fn(void *arg)
{
	int *err = arg;

	sampler_credit = 0;
	*err = arch_timer_subticks(sampler_subticks, sampler_subtick);
	sampler_on = !*err;
}

static void sampler_stop_fn(void *arg)
{
	(void)arg;
	sampler_off_here();
}

int profile_sources_start(unsigned int rate_hz)
{
	static bool inited;
	int source = source_choice(), err;

	if (!inited) {
		err = arch_profile_init();
		if (err)
			printk(KERN_ERR "profile: cannot register the NMI handler (%d)\n", err);
		inited = true;
	}
	run_start_ns = ktime_get_ns();
	run_end_ns = 0;
	memset(&counts, 0, sizeof(counts));
	using_pmu = false;
	if (source != SOURCE_IPI && arch_profile_pmu_available()) {
		if (!arch_profile_pmu_start(rate_hz)) {
			using_pmu = true;
			return 0;
		}
	}
	if (source == SOURCE_PMU)
		printk(KERN_WARNING "profile: no architectural PMU on this CPU; using NMI IPIs from CPU 0\n");
	sampler_subticks = (rate_hz + hz - 1) / hz;
	if (sampler_subticks > TIMER_SUBTICKS_MAX) {
		sampler_subticks = TIMER_SUBTICKS_MAX;
		rate_hz = TIMER_SUBTICKS_MAX * hz;
		printk(KERN_WARNING "profile: NMI IPIs at most %u Hz at hz=%u; sampling at that\n",
		       rate_hz, hz);
	}
	sampler_rate = rate_hz;
	if (smp_call_function_single(SAMPLER_CPU, sampler_start_fn, &err, 1))
		return -EIO;
	return err;
}

void profile_sources_stop(void)
{
	if (using_pmu)
		arch_profile_pmu_stop();
	else
		smp_call_function_single(SAMPLER_CPU, sampler_stop_fn, NULL, 1);
	if (!run_end_ns)
		run_end_ns = ktime_get_ns();
	run_ns = run_end_ns - run_start_ns;
}

void profile_sample_until(u64 end_ns)
{
	sample_end_ns = end_ns;
}

const char *profile_source_desc(void)
{
	return using_pmu ? "PMU cycle overflow" : "NMI IPIs from CPU 0's timer";
}

bool profile_sampler_counts(struct profile_sampler_counts *c)
{
	*c = counts;	/* a torn copy is off by a round or a tick */
	c->active = READ_ONCE(sampler_on);
	return !using_pmu;
}

u64 profile_run_ns(void)
{
	return run_ns;
}

u64 profile_achieved_rate_hz(void)
{
	int targets = num_online_cpus() - 1;
	if (using_pmu || !run_ns || targets <= 0)
		return 0;
	return counts.kicks * 1000000000ull / run_ns / targets;
}
