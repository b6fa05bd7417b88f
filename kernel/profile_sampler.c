/* kernel/profile_sampler.c: where the profiler's NMIs come from.
 *
 * Either each CPU's cycle counter overflows into an NMI, where the CPU has
 * an architectural PMU and profile.source=pmu|auto; or a thread bound to
 * CPU 0 kicks every other online CPU with an NMI IPI at the chosen rate
 * (works everywhere, QEMU TCG included).  Called with profile_mutex held.
 */
#include "kernel/profile_internal.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "kernel/time.h"

enum { SOURCE_AUTO, SOURCE_IPI, SOURCE_PMU };

static char *profile_source_name;
core_param(profile.source, profile_source_name, charp,
	   "NMI source for profile=: auto (PMU if present, else IPIs), ipi, pmu");

static u64 sample_end_ns;	/* profile=: when sampling stops (0: never) */
static struct task *sampler;
static unsigned int sampler_rate;
static bool using_pmu;
static u64 run_start_ns, run_kicks, run_ns;

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

/* One round of NMIs per period; periods shorter than a tick are not
 * offered (the sampler sleeps between rounds, so CPU 0 stays usable). */
static int sampler_fn(void *arg)
{
	unsigned int period_ms = MAX(1000 / sampler_rate, 1u);

	(void)arg;
	while (!kthread_should_stop()) {
		int cpu;
		if (!sample_end_ns || ktime_get_ns() < sample_end_ns) {
			for_each_online_cpu(cpu) {
				if (cpu != smp_processor_id() && arch_profile_kick(cpu))
					run_kicks++;
			}
		}
		msleep(period_ms);
	}
	return 0;
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
	run_kicks = 0;
	using_pmu = false;
	if (source != SOURCE_IPI && arch_profile_pmu_available()) {
		if (!arch_profile_pmu_start(rate_hz)) {
			using_pmu = true;
			return 0;
		}
	}
	if (source == SOURCE_PMU)
		printk(KERN_WARNING "profile: no architectural PMU on this CPU; using NMI IPIs from CPU 0\n");
	sampler_rate = rate_hz;
	sampler = kthread_create(sampler_fn, NULL, "profile-sampler");
	if (!sampler)
		return -ENOMEM;
	kthread_bind(sampler, 0);
	wake_up_process(sampler);
	return 0;
}

void profile_sources_stop(void)
{
	if (using_pmu)
		arch_profile_pmu_stop();
	if (sampler) {
		kthread_stop(sampler);
		sampler = NULL;
	}
	run_ns = ktime_get_ns() - run_start_ns;
}

void profile_sample_until(u64 end_ns)
{
	sample_end_ns = end_ns;
}

const char *profile_source_desc(void)
{
	return using_pmu ? "PMU cycle overflow" : "NMI IPIs from CPU 0";
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
	return run_kicks * 1000000000ull / run_ns / targets;
}
