/* tests/kernel/test_nohz.c: KTAP suite `nohz`: jiffies keep moving
 * whichever CPU stops ticking, and tickless idle (kernel/tick_sched.c,
 * nohz=on): an idle CPU stops its tick, and still runs its timers on
 * time (never early) and its RCU callbacks. */
#include "kernel/ktap.h"
#include "kernel/timer.h"
#include "rcu/rcupdate.h"
#include "kernel/smp.h"
#include "kernel/tick_sched.h"
#include "kernel/time.h"
#include "arch/x86_64/timer.h"
#include "asm/irqflags.h"
#include "tests/kernel/test_helpers.h"

#define OBSERVE_TICKS 50

static struct {
	int holder, observer;
	int spinning, stop, done;
	u64 moved;
} dh;

/* On the duty holder: no ticks (irqs off) until the observer is done. */
static int duty_holder_spin(void *arg)
{
	(void)arg;
	local_irq_disable();
	WRITE_ONCE(dh.spinning, 1);
	while (!READ_ONCE(dh.stop))
		cpu_relax();
	local_irq_enable();
	WRITE_ONCE(dh.done, dh.done + 1);
	return 0;
}

/* On another CPU: busy (so ticking), counts its own ticks while
 * watching jiffies. */
static int duty_observer(void *arg)
{
	u64 t0, j0;

	(void)arg;
	while (!READ_ONCE(dh.spinning))
		cpu_relax();
	j0 = jiffies;
	t0 = this_cpu_read(timer_ticks);
	while (this_cpu_read(timer_ticks) - t0 < OBSERVE_TICKS)
		cpu_relax();
	WRITE_ONCE(dh.moved, jiffies - j0);
	WRITE_ONCE(dh.stop, 1);
	WRITE_ONCE(dh.done, dh.done + 1);
	return 0;
}

/* The CPU whose tick advances jiffies stops ticking (here: irqs off on
 * purpose; a tickless idle CPU that kept the duty did the same): another
 * CPU must take the duty over, or every sleep in the kernel hangs on it. */
static void nohz_jiffies_move_without_duty_holder(void)
{
	int holder = READ_ONCE(tick_do_timer_cpu);

	if (num_online_cpus() < 2) {
		ktap_skip("needs 2 CPUs");
		return;
	}
	if (holder < 0)
		holder = 0;
	dh.holder = holder;
	dh.observer = holder == 0 ? 1 : 0;
	dh.spinning = dh.stop = dh.done = 0;
	dh.moved = 0;
	KTAP_ASSERT(start_on(duty_holder_spin, NULL, dh.holder, PRIO_NORMAL, "duty_holder") != NULL);
	KTAP_ASSERT(start_on(duty_observer, NULL, dh.observer, PRIO_NORMAL, "duty_observer") != NULL);
	/* Both threads end by the observer's ticks, not by this wait. */
	if (!WAIT_UNTIL(READ_ONCE(dh.done) == 2, 60000)) {
		WRITE_ONCE(dh.stop, 1);
		ktap_fail("the holder/observer pair did not finish");
		return;
	}
	ktap_log("CPU %d held the duty; jiffies moved %llu in %d ticks of CPU %d; %lu takeovers so far",
		 dh.holder, (unsigned long long)dh.moved, OBSERVE_TICKS, dh.observer,
		 tick_duty_takeovers);
	/* Half: a host that delivers the observer's missed ticks in a
	 * burst gets fewer of them counted (kernel/tick_sched.c); with no
	 * takeover jiffies would not move at all. */
	if (dh.moved < (OBSERVE_TICKS - 2 * TICK_DUTY_STALE_TICKS) / 2)
		ktap_fail("jiffies moved %llu in %d ticks", (unsigned long long)dh.moved,
			  OBSERVE_TICKS);
}

#define BURST_TICKS 100

/* A host that ran its timer thread late delivers a vCPU's missed ticks
 * in a burst (QEMU does).  jiffies must not run ahead of the TSC for
 * it, or a timer armed before the burst fires early: a burst of ticks
 * microseconds apart counts as the periods the TSC saw, and a few. */
static void nohz_tick_burst_counts_once(void)
{
	u64 per = tsc_khz * 1000 / hz, t0, periods;
	unsigned long j0, moved;
	unsigned long flags;
	int i;

	local_irq_save(flags);
	t0 = get_cycles();
	j0 = jiffies;
	for (i = 0; i < BURST_TICKS; i++)
		tick_sched_do_timer();	/* what each tick's interrupt runs */
	moved = jiffies - j0;
	periods = (get_cycles() - t0) / per;
	local_irq_restore(flags);
	ktap_log("%d ticks in %llu us moved jiffies %lu (%llu periods)", BURST_TICKS,
		 (unsigned long long)(cycles_to_ns(get_cycles() - t0) / 1000), moved,
		 (unsigned long long)periods);
	/* Another CPU may hold the duty and tick meanwhile: one a period. */
	if (moved > periods + 3)
		ktap_fail("a burst of %d ticks moved jiffies %lu in %llu periods of the TSC",
			  BURST_TICKS, moved, (unsigned long long)periods);
}

/* CPU 1 has nothing to run: with nohz=on its tick must stop. */
static bool nohz_ready(void)
{
	if (!tick_nohz_enabled) {
		ktap_skip("nohz=off");
		return false;
	}
	if (num_online_cpus() < 2) {
		ktap_skip("needs 2 CPUs");
		return false;
	}
	return true;
}

static void nohz_idle_cpu_stops_tick(void)
{
	const int cpu = 1;
	u64 stops = READ_ONCE(per_cpu(tick_nohz_stops, cpu));

	if (!nohz_ready())
		return;
	if (!WAIT_UNTIL(tick_nohz_tick_stopped_cpu(cpu) &&
			READ_ONCE(per_cpu(tick_nohz_stops, cpu)) != stops, 30000))
		ktap_fail("idle CPU %d never stopped its tick (%llu stops)", cpu,
			  (unsigned long long)READ_ONCE(per_cpu(tick_nohz_stops, cpu)));
	ktap_log("CPU %d: %llu ticks, %llu tick stops", cpu,
		 (unsigned long long)READ_ONCE(per_cpu(timer_ticks, cpu)),
		 (unsigned long long)READ_ONCE(per_cpu(tick_nohz_stops, cpu)));
}

#define NOHZ_TIMER_TICKS 50

static struct {
	struct timer_list t;
	u64 armed_tsc, fired_tsc;
	unsigned long expires, fired_jiffies;
	int fired_cpu, fired;
} nt;

static void nohz_timer_fn(struct timer_list *t)
{
	(void)t;
	nt.fired_tsc = get_cycles();
	nt.fired_jiffies = jiffies;
	nt.fired_cpu = raw_smp_processor_id();
	WRITE_ONCE(nt.fired, 1);
}

/* A timer added for a CPU whose tick is stopped wakes it, fires there,
 * and no sooner than its expiry in jiffies or (tick by tick) the TSC. */
static void nohz_timer_on_tickless_cpu(void)
{
	const int cpu = 1;
	u64 min_cycles;

	if (!nohz_ready())
		return;
	if (!WAIT_UNTIL(tick_nohz_tick_stopped_cpu(cpu), 30000)) {
		ktap_fail("CPU %d never stopped its tick", cpu);
		return;
	}
	timer_setup(&nt.t, nohz_timer_fn, 0);
	nt.fired = 0;
	nt.armed_tsc = get_cycles();
	nt.expires = jiffies + NOHZ_TIMER_TICKS;
	nt.t.expires = nt.expires;
	add_timer_on(&nt.t, cpu);
	if (!WAIT_UNTIL(READ_ONCE(nt.fired), 30000)) {
		del_timer_sync(&nt.t);
		ktap_fail("timer for tickless CPU %d never fired", cpu);
		return;
	}
	/* jiffies may lag the TSC, never lead it: K ticks counted take
	 * at least K - 3 periods (kernel/tick_sched.c says why), however
	 * the host bunches them. */
	min_cycles = (NOHZ_TIMER_TICKS - 3) * (tsc_khz * 1000 / hz);
	ktap_log("fired on CPU %d at jiffies %+ld of its expiry, after %llu us",
		 nt.fired_cpu, (long)(nt.fired_jiffies - nt.expires),
		 (unsigned long long)(cycles_to_ns(nt.fired_tsc - nt.armed_tsc) / 1000));
	KTAP_EXPECT_EQ(nt.fired_cpu, cpu);
	KTAP_EXPECT(time_after_eq(nt.fired_jiffies, nt.expires));
	/* Late by the longest tickless sleep: nothing woke CPU 1 for it,
	 * it only came when that sleep ended.  (Half of it in jiffies,
	 * our ticks, is far more than a starved vCPU 1 lags.) */
	if (nt.fired_jiffies - nt.expires >= NOHZ_MAX_TICKS / 2)
		ktap_fail("fired %lu ticks late: CPU %d was not woken for it",
			  nt.fired_jiffies - nt.expires, cpu);
	if (nt.fired_tsc - nt.armed_tsc < min_cycles)
		ktap_fail("fired %llu us after arming, before its %d ticks",
			  (unsigned long long)(cycles_to_ns(nt.fired_tsc - nt.armed_tsc) / 1000),
			  NOHZ_TIMER_TICKS);
}

static struct rcu_head nohz_head;
static int nohz_cb_ran, nohz_queued;

static void nohz_rcu_cb(struct rcu_head *h)
{
	(void)h;
	WRITE_ONCE(nohz_cb_ran, 1);
}

static int nohz_queue_cb(void *arg)
{
	(void)arg;
	call_rcu_sched(&nohz_head, nohz_rcu_cb);
	WRITE_ONCE(nohz_queued, 1);
	return 0;	/* and CPU 1 goes idle with the callback queued */
}

/* A CPU that goes idle with a callback queued must still run it. */
static void nohz_rcu_callback_not_stranded(void)
{
	const int cpu = 1;

	if (!nohz_ready())
		return;
	nohz_cb_ran = nohz_queued = 0;
	KTAP_ASSERT(start_on(nohz_queue_cb, NULL, cpu, PRIO_NORMAL, "nohz_queue_cb") != NULL);
	if (!WAIT_UNTIL(READ_ONCE(nohz_cb_ran), 60000))
		ktap_fail("callback queued on CPU %d before it went idle never ran (queued: %d)",
			  cpu, READ_ONCE(nohz_queued));
}

KTAP_SUITE(nohz,
	   KTAP_CASE(nohz_jiffies_move_without_duty_holder),
	   KTAP_CASE(nohz_tick_burst_counts_once),
	   KTAP_CASE(nohz_idle_cpu_stops_tick),
	   KTAP_CASE(nohz_timer_on_tickless_cpu),
	   KTAP_CASE(nohz_rcu_callback_not_stranded));
