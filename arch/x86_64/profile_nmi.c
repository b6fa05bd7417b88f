/* arch/x86_64/profile_nmi.c: where the profiler's NMIs come from on x86.
 *
 * Two sources.  An NMI IPI from the sampler (kernel/profile_sampler.c),
 * which any x86 with a LAPIC delivers, QEMU TCG included: the sampler counts
 * the kick in the target's profile_pending first, so the NMI handler can
 * tell a sampling NMI from the other reasons an NMI may carry.  It is a
 * count, not a flag, and each NMI takes one: two kicks that land before the
 * first NMI's handler runs may still raise two NMIs (one latched behind the
 * other), and a flag would leave the second looking like an unknown NMI.
 * Or the
 * architectural PMU (Intel, CPUID leaf 0xa): general counter 0 counts
 * unhalted core cycles and its overflow is delivered as an NMI through the
 * LAPIC's performance-counter LVT entry, on every CPU at once. */
#include "kernel/profile.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "asm/cpu.h"
#include "asm/cpufeature.h"
#include "asm/nmi.h"
#include "asm/smp.h"
#include "lapic.h"
#include "pmu.h"

#define MSR_PERFEVTSEL0 0x186
#define MSR_IA32_PERF_CAPABILITIES 0x345
#define PERF_CAP_FW_WRITE (1ull << 13)
#define MSR_PERF_GLOBAL_STATUS 0x38e
#define MSR_PERF_GLOBAL_CTRL 0x38f
#define MSR_PERF_GLOBAL_OVF_CTRL 0x390
#define EVTSEL_CYCLES 0x3c		/* unhalted core cycles, umask 0 */
#define EVTSEL_OS (1u << 17)
#define EVTSEL_INT (1u << 20)
#define EVTSEL_EN (1u << 22)
#define LVT_DELIVERY_NMI APIC_DM_NMI

DEFINE_PER_CPU(int, profile_pending);

static bool pmu_active;
static unsigned int pmu_version, pmu_width;
static struct pmu_counter pmu_counter;	/* its MSR and period (pmu.h) */

static void pmu_reload(void)
{
	wrmsr(pmu_counter.msr, pmu_counter_value(&pmu_counter, pmu_width));
}

static bool pmu_overflowed(void)
{
	if (pmu_version >= 2)
		return rdmsr(MSR_PERF_GLOBAL_STATUS) & 1;
	/* v1 has no status register: the counter wrapped past zero */
	return rdmsr(MSR_PMC0) < pmu_counter.period;
}

/* One kick is consumed per NMI; false when none is outstanding. */
static bool profile_take_kick(int *pending)
{
	int n = __atomic_load_n(pending, __ATOMIC_ACQUIRE);

	while (n > 0)
		if (__atomic_compare_exchange_n(pending, &n, n - 1, false,
						__ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE))
			return true;
	return false;
}

static int profile_nmi(struct pt_regs *regs, void *data)
{
	int handled = NMI_DONE;

	(void)data;
	if (profile_take_kick(this_cpu_ptr(&profile_pending))) {
		profile_nmi_sample(regs->rip);
		handled = NMI_HANDLED;
	}
	if (pmu_active && pmu_overflowed()) {
		profile_nmi_sample(regs->rip);
		pmu_reload();
		if (pmu_version >= 2)
			wrmsr(MSR_PERF_GLOBAL_OVF_CTRL, 1);
		/* delivery masks the LVT entry on many CPUs: re-arm it */
		lapic_write(APIC_LVTPC, LVT_DELIVERY_NMI);
		handled = NMI_HANDLED;
	}
	return handled;
}

static struct nmiaction profile_action = {
	.handler = profile_nmi,
	.name = "profile",
};

int arch_profile_init(void)
{
	return register_nmi_handler(&profile_action);
}

bool arch_profile_kick(int cpu)
{
	int *pending = per_cpu_ptr(&profile_pending, cpu);

	__atomic_add_fetch(pending, 1, __ATOMIC_RELEASE);
	if (arch_send_nmi(cpu))
		return true;
	__atomic_sub_fetch(pending, 1, __ATOMIC_RELAXED);
	return false;
}

bool arch_profile_pmu_available(void)
{
	u32 a, b, c, d;

	cpuid(0, &a, &b, &c, &d);
	if (a < 0xa)
		return false;
	cpuid(0xa, &a, &b, &c, &d);
	pmu_version = a & 0xff;
	pmu_width = (a >> 16) & 0xff;
	/* at least one counter, and the cycles event not marked absent */
	return pmu_version >= 1 && ((a >> 8) & 0xff) >= 1 && ((a >> 24) & 0xff) >= 1 &&
	       !(b & 1) && pmu_width >= 32;
}

static void pmu_start_cpu(void *arg)
{
	(void)arg;
	wrmsr(MSR_PERFEVTSEL0, 0);
	pmu_reload();
	lapic_write(APIC_LVTPC, LVT_DELIVERY_NMI);
	wrmsr(MSR_PERFEVTSEL0, EVTSEL_CYCLES | EVTSEL_OS | EVTSEL_INT | EVTSEL_EN);
	if (pmu_version >= 2)
		wrmsr(MSR_PERF_GLOBAL_CTRL, rdmsr(MSR_PERF_GLOBAL_CTRL) | 1);
}

static void pmu_stop_cpu(void *arg)
{
	(void)arg;
	wrmsr(MSR_PERFEVTSEL0, 0);
	lapic_write(APIC_LVTPC, APIC_LVT_MASKED);
}

int arch_profile_pmu_start(unsigned int rate_hz)
{
	/* unhalted cycles run at about the TSC rate on the CPUs that have both */
	u64 period = tsc_khz * 1000 / rate_hz;

	if (period < 10000)
		period = 10000;
	pmu_choose_counter(period, pmu_width, boot_cpu_has(X86_FEATURE_PDCM) &&
			   (rdmsr(MSR_IA32_PERF_CAPABILITIES) & PERF_CAP_FW_WRITE),
			   &pmu_counter);
	pmu_active = true;
	if (on_each_cpu(pmu_start_cpu, NULL, 1)) {
		on_each_cpu(pmu_stop_cpu, NULL, 1);
		pmu_active = false;
		return -EIO;
	}
	printk(KERN_INFO "profile: PMU v%u, counter 0 overflows every %llu cycles into an NMI (%s writes)\n",
	       pmu_version, (unsigned long long)pmu_counter.period,
	       pmu_counter.msr == MSR_IA32_PMC0 ? "full-width" : "32-bit");
	return 0;
}

void arch_profile_pmu_stop(void)
{
	on_each_cpu(pmu_stop_cpu, NULL, 1);
	pmu_active = false;
}
