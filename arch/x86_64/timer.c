/* arch/x86_64/timer.c: every CPU's scheduling-clock tick, from its own
 * LAPIC timer.  TSC-deadline mode where the CPU has it and its microcode
 * is not one with the deadline erratum (arch/x86_64/errata.c; the deadline
 * is set in TSC cycles, so no calibration error accumulates); else
 * periodic mode, with the LAPIC's bus clock measured against the TSC at
 * boot.  On AMD CPUs with erratum 400, C1E is kept off so that the timer
 * keeps running while every core halts.  One CPU's tick also advances
 * jiffies (kernel/tick_sched.c).  A subtick user (asm/timer.h) makes one
 * CPU's timer fire n times per tick, every n-th interrupt being the tick. */
#include "arch/x86_64/timer.h"
#include "arch/x86_64/errata.h"
#include "arch/x86_64/lapic.h"
#include "asm/cpu.h"
#include "asm/cpufeature.h"
#include "asm/irq.h"
#include "asm/tick.h"
#include "asm/timer.h"
#include "kernel/cmdline.h"
#include "kernel/lockdep.h"
#include "kernel/cpu.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/tick_sched.h"
#include "kernel/time.h"
#include "kernel/watchdog.h"

DEFINE_PER_CPU(u64, timer_ticks);
DEFINE_PER_CPU(const char *, timer_mode);
DEFINE_PER_CPU(u64, timer_next_deadline);
DEFINE_PER_CPU(u64, timer_early);
DEFINE_PER_CPU(u64, timer_rearms);
DEFINE_PER_CPU(u64, timer_last_tick);	/* TSC of the last tick or restart */
static DEFINE_PER_CPU(bool, timer_oneshot);	/* tickless: arch_tick_stop() */
/* Between two interrupts: TSC cycles (deadline mode) or the LAPIC's
 * initial count (periodic); a tick's worth unless subticks are on. */
DEFINE_PER_CPU(u64, timer_period);
DEFINE_PER_CPU(timer_subtick_fn, timer_subtick_user);	/* NULL: no subticks */
DEFINE_PER_CPU(unsigned int, timer_subticks);	/* interrupts per tick */
DEFINE_PER_CPU(unsigned int, timer_subtick_index);	/* since the last tick */

static bool use_deadline;
static u32 lapic_ticks_per_tick;	/* periodic initial count */
static u64 tsc_per_tick;
static u64 lapic_khz;

static bool no_deadline;
core_param(timer.no_deadline, no_deadline, bool, "use the LAPIC timer's periodic mode even where TSC-deadline exists");

static void arm_deadline(void)
{
	u64 period = this_cpu_read(timer_period);
	u64 now = rdtsc(), next = this_cpu_read(timer_next_deadline) + period;

	/* Fell behind (a long irqs-off stretch): restart from now, do not
	 * fire a burst of catch-up ticks. */
	if ((s64)(next - now) <= 0)
		next = now + period;
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

/* Subticks are on: call their user; true if this interrupt is the tick. */
static bool timer_subtick(void)
{
	unsigned int i = this_cpu_read(timer_subtick_index) + 1;
	bool tick = i >= this_cpu_read(timer_subticks);

	this_cpu_write(timer_subtick_index, tick ? 0 : i);
	this_cpu_read(timer_subtick_user)(tick);
	return tick;
}

static void timer_interrupt(struct pt_regs *regs)
{
	(void)regs;
	if (use_deadline) {
		if (!deadline_due())
			return;
		arm_deadline();
	}
	if (this_cpu_read(timer_subtick_user) && !timer_subtick())
		return;
	this_cpu_inc(timer_ticks);
	this_cpu_write(timer_last_tick, rdtsc());
	tick_sched_do_timer();	/* jiffies, on the CPU that holds the duty */
	/* What NMI handlers printed on this CPU reaches the console here. */
	printk_nmi_flush();
	watchdog_tick();	/* counts this tick, watches the next CPU's */
	sched_tick();
}

/* Interrupts from now on come n times per tick (n == 1: at hz). */
static void set_period(unsigned int n)
{
	if (use_deadline) {
		this_cpu_write(timer_period, tsc_per_tick / n);
		this_cpu_write(timer_next_deadline, rdtsc());
		arm_deadline();
	} else {
		this_cpu_write(timer_period, lapic_ticks_per_tick / n);
		lapic_write(APIC_TMICT, this_cpu_read(timer_period));	/* restarts the count */
	}
}

int arch_timer_subticks(unsigned int n, timer_subtick_fn fn)
{
	timer_subtick_fn cur = this_cpu_read(timer_subtick_user);

	if (!this_cpu_read(timer_mode))
		return -ENODEV;
	if (fn && (n < 1 || n > TIMER_SUBTICKS_MAX))
		return -EINVAL;
	if (fn && cur && cur != fn)
		return -EBUSY;
	if (!fn)
		n = 1;
	this_cpu_write(timer_subtick_user, fn);
	this_cpu_write(timer_subticks, n);
	this_cpu_write(timer_subtick_index, 0);
	set_period(n);
	return 0;
}

static void start_this_cpu(void)
{
	this_cpu_write(timer_last_tick, rdtsc());
	this_cpu_write(timer_subtick_user, NULL);
	this_cpu_write(timer_subticks, 1);
	this_cpu_write(timer_period, use_deadline ? tsc_per_tick : lapic_ticks_per_tick);
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

/* ---- AMD erratum 400: C1E stops the LAPIC timer ---- */

#define MSR_K8_INT_PENDING_MSG   0xc0010055
#define K8_INTP_C1E_ACTIVE_MASK  0x18000000	/* SmiOnCmpHalt, C1eOnCmpHalt */
#define MSR_AMD64_OSVW_ID_LENGTH 0xc0010140
#define MSR_AMD64_OSVW_STATUS    0xc0010141
#define OSVW_ID_E400 1

bool amd_c1e_clear_on_halt;

/* Irqs off (the idle loop's halt, or bring-up).  One MSR read when C1E
 * is already off. */
void amd_c1e_clear(void)
{
	u64 v = rdmsr(MSR_K8_INT_PENDING_MSG);

	lockdep_assert_irqs_disabled();
	if (v & K8_INTP_C1E_ACTIVE_MASK)
		wrmsr(MSR_K8_INT_PENDING_MSG, v & ~(u64)K8_INTP_C1E_ACTIVE_MASK);
}

/* Linux marks such CPUs X86_BUG_AMD_APIC_C1E and moves their tick to a
 * broadcast timer around each halt; with no broadcast timer here, C1E is
 * turned off instead (as FreeBSD's cpu_idle_amdc1e() does). */
static void amd_c1e_setup(void)
{
	bool osvw_valid = false, osvw_bit = false;

	if (boot_cpu_data.x86_vendor != X86_VENDOR_AMD)
		return;
	if (boot_cpu_has(X86_FEATURE_OSVW) &&
	    rdmsr(MSR_AMD64_OSVW_ID_LENGTH) > OSVW_ID_E400) {
		osvw_valid = true;
		osvw_bit = rdmsr(MSR_AMD64_OSVW_STATUS) & (1u << OSVW_ID_E400);
	}
	if (!amd_erratum_400(&boot_cpu_data, osvw_valid, osvw_bit))
		return;
	if (!(rdmsr(MSR_K8_INT_PENDING_MSG) & K8_INTP_C1E_ACTIVE_MASK)) {
		pr_info("timer: AMD erratum 400 CPU, C1E off\n");
		return;
	}
	amd_c1e_clear_on_halt = true;
	amd_c1e_clear();
	pr_warn("timer: AMD C1E was on (erratum 400: it stops the LAPIC timer); turned off before every halt\n");
}

/* Whether the TSC-deadline timer may be used; if not, says why. */
static bool deadline_ok(void)
{
	bool has = boot_cpu_has(X86_FEATURE_TSC_DEADLINE_TIMER);
	u32 rev = tsc_deadline_min_microcode(&boot_cpu_data);

	if (!has || no_deadline)
		return false;
	if (tsc_deadline_usable(&boot_cpu_data, has, boot_cpu_has(X86_FEATURE_HYPERVISOR)))
		return true;
	pr_warn("timer: TSC-deadline disabled: microcode 0x%x has the TSC_DEADLINE erratum, please update to 0x%x or later; periodic mode\n",
		boot_cpu_data.microcode, rev);
	return false;
}

void timer_init(void)
{
	if (hz < 10 || hz > 10000) {
		pr_warn("timer: hz=%u out of range, using 1000\n", hz);
		hz = 1000;
	}
	amd_c1e_setup();
	use_deadline = deadline_ok();
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

void timer_test_lose_tick(void)
{
	if (use_deadline)
		wrmsr(MSR_IA32_TSC_DEADLINE, 0);
	else
		lapic_write(APIC_TMICT, 0);
}

/* CPU hotplug: this CPU is going down; its tick stops for good (until
 * timer_init_ap() when it comes back), and timer_check_tick() leaves it
 * stopped. */
void arch_cpu_stop_timer(void)
{
	this_cpu_write(timer_mode, NULL);
	this_cpu_write(timer_oneshot, false);
	this_cpu_write(timer_subtick_user, NULL);
	lapic_write(APIC_LVTT, APIC_LVT_MASKED);
	if (use_deadline)
		wrmsr(MSR_IA32_TSC_DEADLINE, 0);
	else
		lapic_write(APIC_TMICT, 0);
}

static bool timer_irq_pending(void)
{
	u32 irr = lapic_read(APIC_IRR + (LOCAL_TIMER_VECTOR / 32) * 0x10);

	return irr & (1u << (LOCAL_TIMER_VECTOR % 32));
}

static bool timer_counting(void)
{
	return lapic_read(APIC_TMCCT) != 0;
}

void timer_check_tick(bool idle)
{
	struct tick_state st;

	if (!this_cpu_read(timer_mode))
		return;			/* not ticking on this CPU yet */
	st = (struct tick_state){
		.idle = idle, .stopped = this_cpu_read(timer_oneshot),
		.deadline = use_deadline, .now = rdtsc(),
		.last_tick = this_cpu_read(timer_last_tick),
		.next_deadline = this_cpu_read(timer_next_deadline),
		.per_tick = tsc_per_tick,
		.irq_pending = timer_irq_pending, .counting = timer_counting,
	};
	if (!tick_needs_restart(&st))
		return;
	if (st.stopped) {
		this_cpu_inc(timer_rearms);
		arch_tick_restart();	/* the one-shot was lost */
		return;
	}
	/* A deadline already past fires at once (if its interrupt was only
	 * late, the two are one in the IRR); periodic mode restarts its
	 * count. */
	this_cpu_inc(timer_rearms);
	this_cpu_write(timer_last_tick, st.now);
	if (use_deadline)
		wrmsr(MSR_IA32_TSC_DEADLINE, st.next_deadline);
	else
		lapic_write(APIC_TMICT, this_cpu_read(timer_period));
}

/* ---- tickless idle (asm/tick.h) ---- */

bool arch_tick_can_stop(void)
{
	return this_cpu_read(timer_mode) && !this_cpu_read(timer_oneshot) &&
	       !this_cpu_read(timer_subtick_user);
}

void arch_tick_stop(unsigned long ticks)
{
	u64 now = rdtsc();

	this_cpu_write(timer_oneshot, true);
	if (use_deadline) {
		/* deadline_due() takes its interrupt for a tick. */
		this_cpu_write(timer_next_deadline, now + ticks * tsc_per_tick);
		wrmsr(MSR_IA32_TSC_DEADLINE, now + ticks * tsc_per_tick);
	} else {
		u64 count = (u64)ticks * lapic_ticks_per_tick;

		lapic_write(APIC_LVTT, LOCAL_TIMER_VECTOR);	/* one-shot */
		lapic_write(APIC_TMICT, count > 0xffffffffu ? 0xffffffffu : (u32)count);
	}
}

/*
 * From irq entry (any interrupt ends tickless idle) or the idle loop.  A
 * deadline one-shot that is due is left as it is: its interrupt, pending
 * or being taken, is then this restart's first tick and arms the next.
 */
void arch_tick_restart(void)
{
	u64 now = rdtsc();

	if (!this_cpu_read(timer_oneshot))
		return;
	this_cpu_write(timer_oneshot, false);
	this_cpu_write(timer_last_tick, now);
	if (use_deadline) {
		if ((s64)(now - this_cpu_read(timer_next_deadline)) < 0) {
			this_cpu_write(timer_next_deadline, now);
			arm_deadline();
		}
	} else {
		lapic_write(APIC_LVTT, LOCAL_TIMER_VECTOR | APIC_LVT_TIMER_PERIODIC);
		lapic_write(APIC_TMICT, this_cpu_read(timer_period));
	}
}

void timer_init_ap(void)
{
	if (amd_c1e_clear_on_halt)
		amd_c1e_clear();
	if (use_deadline || lapic_ticks_per_tick)
		start_this_cpu();
}
