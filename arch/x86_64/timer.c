/* arch/x86_64/timer.c: every CPU's scheduling-clock tick, from its own
 * LAPIC timer.  TSC-deadline mode where the CPU has it (the deadline is
 * set in TSC cycles, so no calibration error accumulates); else periodic
 * mode, with the LAPIC's bus clock measured against the TSC at boot.
 * CPU 0's tick also advances jiffies. */
#include "arch/x86_64/timer.h"
#include "arch/x86_64/lapic.h"
#include "asm/cpu.h"
#include "asm/cpufeature.h"
#include "asm/irq.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/time.h"

DEFINE_PER_CPU(u64, timer_ticks);
DEFINE_PER_CPU(const char *, timer_mode);
DEFINE_PER_CPU(u64, timer_next_deadline);
DEFINE_PER_CPU(u64, timer_early);

static bool use_deadline;
static u32 lapic_ticks_per_tick;	/* periodic initial count */
static u64 tsc_per_tick;
static u64 lapic_khz;

static bool no_deadline;
core_param(timer.no_deadline, no_deadline, bool, "use the LAPIC timer's periodic mode even where TSC-deadline exists");

static void arm_deadline(void)
{
	u64 now = rdtsc(), next = this_cpu_read(timer_next_deadline) + tsc_per_tick;

	/* Fell behind (a long irqs-off stretch): restart from now, do not
	 * fire a burst of catch-up ticks. */
	if ((s64)(next - now) <= 0)
		next = now + tsc_per_tick;
	this_cpu_write(timer_next_deadline, next);
	wrmsr(MSR_IA32_TSC_DEADLINE, next);
}

/* A deadline interrupt before its deadline (a hypervisor may deliver
 * one early) is not a tick: re-arm the same deadline, or the next ones would be set
 * from an early base and ticks would come in bursts, faster than hz. */
static bool deadline_due(void)
{
	u64 due = this_cpu_read(timer_next_deadline);

	if ((s64)(rdtsc() - due) < 0) {
		this_cpu_inc(timer_early);
		wrmsr(MSR_IA32_TSC_DEADLINE, due);
		return false;
	}
	return true;
}

static void timer_interrupt(struct pt_regs *regs)
{
	(void)regs;
	if (use_deadline) {
		if (!deadline_due())
			return;
		arm_deadline();
	}
	this_cpu_inc(timer_ticks);
	if (smp_processor_id() == 0)
		jiffies++;	/* the only writer */
	/* What NMI handlers printed on this CPU reaches the console here. */
	printk_nmi_flush();
	sched_tick();
}

static void start_this_cpu(void)
{
	if (use_deadline) {
		lapic_write(APIC_LVTT, LOCAL_TIMER_VECTOR | APIC_LVT_TIMER_TSCDEADLINE);
		/* SDM 10.5.4.1: order the LVT write before the deadline write. */
		__asm__ __volatile__("mfence" ::: "memory");
		this_cpu_write(timer_next_deadline, rdtsc());
		arm_deadline();
		this_cpu_write(timer_mode, "tsc-deadline");
	} else {
		lapic_write(APIC_TDCR, 0x3);		/* divide by 16 */
		lapic_write(APIC_LVTT, LOCAL_TIMER_VECTOR | APIC_LVT_TIMER_PERIODIC);
		lapic_write(APIC_TMICT, lapic_ticks_per_tick);
		this_cpu_write(timer_mode, "periodic");
	}
}

/* Reads the LAPIC count between two TSC reads; retries (a few times)
 * while the two are far apart, which means an SMI or, under QEMU, the
 * host ran something else in between.  *tsc is the midpoint. */
static u32 read_count_tsc(u64 *tsc)
{
	u64 a, b, tight = ns_to_cycles(20000);	/* 20 us */
	u32 c;

	for (int i = 0;; i++) {
		a = rdtsc_ordered();
		c = lapic_read(APIC_TMCCT);
		b = rdtsc_ordered();
		if (b - a < tight || i == 50)
			break;
	}
	*tsc = a + (b - a) / 2;
	return c;
}

/* LAPIC timer counts per ms at divide-by-16, measured against the TSC:
 * the median of five 10 ms runs. */
static u64 calibrate_lapic(void)
{
	u64 v[5];

	lapic_write(APIC_TDCR, 0x3);
	for (int run = 0; run < 5; run++) {
		u64 t0, t1, want = ns_to_cycles(10000000ull);
		u32 c0, c1;

		lapic_write(APIC_LVTT, APIC_LVT_MASKED);
		lapic_write(APIC_TMICT, 0xffffffff);
		c0 = read_count_tsc(&t0);
		while (rdtsc_ordered() - t0 < want)
			arch_cpu_relax();
		c1 = read_count_tsc(&t1);
		v[run] = (u64)(c0 - c1) * ns_to_cycles(1000000ull) / (t1 - t0);
	}
	lapic_write(APIC_TMICT, 0);
	for (int i = 1; i < 5; i++)
		for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
			u64 t = v[j]; v[j] = v[j - 1]; v[j - 1] = t;
		}
	return v[2];
}

void timer_init(void)
{
	if (hz < 10 || hz > 10000) {
		pr_warn("timer: hz=%u out of range, using 1000\n", hz);
		hz = 1000;
	}
	use_deadline = boot_cpu_has(X86_FEATURE_TSC_DEADLINE_TIMER) && !no_deadline;
	tsc_per_tick = tsc_khz * 1000 / hz;
	if (!use_deadline) {
		lapic_khz = calibrate_lapic();
		lapic_ticks_per_tick = lapic_khz * 1000 / hz;
		if (lapic_ticks_per_tick == 0) {
			pr_err("timer: LAPIC timer does not count; no ticks on this machine\n");
			return;
		}
	}
	irq_register(LOCAL_TIMER_VECTOR, timer_interrupt);
	start_this_cpu();
	if (use_deadline)
		pr_info("timer: TSC-deadline mode, %u Hz, %llu cycles per tick\n", hz,
			(unsigned long long)tsc_per_tick);
	else
		pr_info("timer: periodic mode, %u Hz, LAPIC timer %llu kHz (/16), count %u\n",
			hz, (unsigned long long)lapic_khz, lapic_ticks_per_tick);
}

void timer_init_ap(void)
{
	if (use_deadline || lapic_ticks_per_tick)
		start_this_cpu();
}
