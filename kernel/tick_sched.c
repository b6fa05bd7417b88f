/* kernel/tick_sched.c: which CPU advances jiffies, and tickless idle
 * (Linux's kernel/time/tick-sched.c, NO_HZ_IDLE).
 *
 * The duty.  One CPU at a time holds it (tick_do_timer_cpu): each of its
 * ticks adds one to jiffies, so jiffies counts that CPU's ticks (a vCPU
 * the host does not run slows jiffies down with it, which keeps
 * jiffies-based timeouts load-proof).  Any CPU's tick takes the duty
 * when nobody holds it; and a CPU that takes TICK_DUTY_STALE_TICKS ticks
 * of its own while jiffies stands still takes it from the holder,
 * whatever stopped the holder's ticks (a long irqs-off stretch):
 * otherwise every sleep on every CPU would hang on that one CPU.  A CPU
 * going offline gives the duty up as it dies (Linux's
 * tick_handover_do_timer()), as a CPU stopping its tick in idle does:
 * a dead CPU never holds it, and the next CPU to tick takes it at once
 * rather than after TICK_DUTY_STALE_TICKS of standing jiffies.
 * jiffies_lock orders the holder's update against a takeover, so that
 * one tick never advances jiffies twice.  And a tick advances jiffies
 * only when the TSC says its period has come (Linux's
 * tick_do_update_jiffies64() refuses too): a host that delivers a
 * starved vCPU's missed ticks in a burst, as QEMU does when its timer
 * thread ran late, would otherwise make jiffies run ahead of time, and
 * a timer armed just before fire early.  Half a period of slack absorbs
 * interrupt latency; lag beyond a period is not made up.
 *
 * Tickless idle (on by default; nohz=off keeps the periodic tick).  An
 * idle CPU stops its periodic tick when nothing needs it: no RCU
 * callbacks of its own are queued (rcu_needs_cpu(), rcu/tree.c says
 * why), no timer of its base is due within a tick, no tick dependency is
 * set (tick_dep_set_cpu()), and the arch has no sub-tick user.  The
 * timer is then set to fire once at the next timer (at most
 * NOHZ_MAX_TICKS away).  A CPU that stops its tick gives the duty up;
 * any interrupt restarts the tick (tick_irq_enter()), and the first CPU
 * to restart or tick with the duty unheld takes it and adds to jiffies
 * the whole periods gone by since the duty was given up, less one that
 * its next tick adds.  Only those: jiffies that lagged before (a starved
 * holder) stay behind, since a timer armed from them would otherwise
 * fire early by the TSC.  A timer added for a tickless CPU wakes it
 * (wake_up_nohz_cpu()).  RCU sees the idle CPU in an extended quiescent
 * state (rcu_idle_enter()), so no grace period waits for or IPIs it.
 * The hard-lockup watchdog does not watch a tickless CPU (see
 * kernel/watchdog.c for what that leaves unwatched).
 */
#include "kernel/tick_sched.h"
#include "kernel/cmdline.h"
#include "kernel/percpu.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"
#include "kernel/trace.h"
#include "kernel/timer.h"
#include "rcu/rcupdate.h"
#include "asm/tick.h"

int tick_do_timer_cpu = TICK_DO_TIMER_NONE;
unsigned long tick_duty_takeovers;
static arch_spinlock_t jiffies_lock = __ARCH_SPIN_LOCK_UNLOCKED;
static u64 last_jiffies_update;	/* TSC of the last update, under the lock */

/* What this CPU last saw of jiffies, and its ticks since it moved. */
static DEFINE_PER_CPU(u64, tick_seen_jiffies);
static DEFINE_PER_CPU(unsigned int, tick_stale);

bool tick_nohz_enabled = true;
core_param(nohz, tick_nohz_enabled, bool,
	   "tickless idle: an idle CPU stops its tick until its next timer (on, the default; off)");
DEFINE_PER_CPU(bool, tick_stopped);
DEFINE_PER_CPU(u64, tick_nohz_stops);
static DEFINE_PER_CPU(int, tick_dep);	/* tick_dep_set_cpu() count */


static u64 tick_period_cycles(void)
{
	return tsc_khz * 1000 / hz;
}

/* Under jiffies_lock: count this tick, unless less than half a period
 * has gone by since the last one counted.  last_jiffies_update moves by
 * a whole period per tick counted, so K ticks counted take at least
 * K - 3 periods of TSC from any moment before the first (a late tick
 * may stand for the period before, and the anchor is kept at most one
 * period behind now). */
static void tick_do_update_jiffies(u64 now)
{
	u64 per = tick_period_cycles();

	if ((s64)(now - last_jiffies_update) < (s64)(per / 2))
		return;
	jiffies++;
	last_jiffies_update += per;
	if ((s64)(now - per - last_jiffies_update) > 0)
		last_jiffies_update = now - per;
}

/* Under jiffies_lock, the duty unheld: take it, and count the whole
 * periods since the last update but the one our next tick adds. */
static void tick_take_duty_catch_up(int cpu, u64 now)
{
	u64 per = tick_period_cycles(), n = (now - last_jiffies_update) / per;

	WRITE_ONCE(tick_do_timer_cpu, cpu);
	if (last_jiffies_update && n > 1) {
		jiffies += n - 1;
		last_jiffies_update += (n - 1) * per;
	}
}

/* Under jiffies_lock, by the holder: nobody holds the duty; the CPU
 * that takes it next counts the periods from here (not the lag a
 * starved holder left: jiffies read meanwhile are that far behind, and
 * timers armed from them would fire early if it were made up). */
static void tick_give_up_duty(void)
{
	WRITE_ONCE(tick_do_timer_cpu, TICK_DO_TIMER_NONE);
	last_jiffies_update = get_cycles();
}

void tick_handover_do_timer(void)
{
	int cpu = smp_processor_id();

	lockdep_assert_irqs_disabled();
	if (READ_ONCE(tick_do_timer_cpu) != cpu)
		return;
	arch_spin_lock(&jiffies_lock);
	if (tick_do_timer_cpu == cpu)
		tick_give_up_duty();
	arch_spin_unlock(&jiffies_lock);
}

#ifdef CONFIG_SANITIZE
void tick_inject_do_timer_cpu(int cpu)
{
	unsigned long flags;

	local_irq_save(flags);
	arch_spin_lock(&jiffies_lock);
	WRITE_ONCE(tick_do_timer_cpu, cpu);
	arch_spin_unlock(&jiffies_lock);
	local_irq_restore(flags);
}
#endif

void tick_sched_do_timer(void)
{
	int cpu = smp_processor_id(), holder = READ_ONCE(tick_do_timer_cpu);
	u64 j = jiffies;

	lockdep_assert_irqs_disabled();
	if (holder != cpu && holder != TICK_DO_TIMER_NONE) {
		if (j != this_cpu_read(tick_seen_jiffies)) {
			this_cpu_write(tick_seen_jiffies, j);
			this_cpu_write(tick_stale, 0);
			return;
		}
		this_cpu_inc(tick_stale);
		if (this_cpu_read(tick_stale) < TICK_DUTY_STALE_TICKS)
			return;
	}
	arch_spin_lock(&jiffies_lock);
	holder = tick_do_timer_cpu;
	if (holder == TICK_DO_TIMER_NONE) {
		tick_take_duty_catch_up(cpu, get_cycles());
	} else if (holder != cpu) {
		/* The holder may have moved jiffies since we looked. */
		if (jiffies != j) {
			arch_spin_unlock(&jiffies_lock);
			return;
		}
		tick_duty_takeovers++;
		WRITE_ONCE(tick_do_timer_cpu, cpu);
	}
	tick_do_update_jiffies(get_cycles());
	arch_spin_unlock(&jiffies_lock);
	this_cpu_write(tick_seen_jiffies, jiffies);
	this_cpu_write(tick_stale, 0);
}

/* ---- tickless idle ---- */

static void tick_nohz_restart(void)
{
	arch_tick_restart();
	trace_tick_restart();
	__atomic_store_n(this_cpu_ptr(&tick_stopped), false, __ATOMIC_RELAXED);
	if (READ_ONCE(tick_do_timer_cpu) != TICK_DO_TIMER_NONE)
		return;
	arch_spin_lock(&jiffies_lock);
	if (tick_do_timer_cpu == TICK_DO_TIMER_NONE)
		tick_take_duty_catch_up(smp_processor_id(), get_cycles());
	arch_spin_unlock(&jiffies_lock);
}

void tick_nohz_idle_stop_tick(void)
{
	int cpu = smp_processor_id();
	unsigned long next, j, ticks = NOHZ_MAX_TICKS;

	lockdep_assert_irqs_disabled();
	if (!tick_nohz_enabled || !sched_running || this_cpu_read(tick_stopped) ||
	    !cpu_online(cpu) || !arch_tick_can_stop() || rcu_needs_cpu())
		return;
	/* Flag first, then read the timers (under their base lock) and the
	 * dependencies: an add_timer_on() or tick_dep_set_cpu() that our
	 * reads miss sees the flag and wakes us. */
	__atomic_store_n(this_cpu_ptr(&tick_stopped), true, __ATOMIC_RELAXED);
	smp_mb();
	j = jiffies;
	if (__atomic_load_n(this_cpu_ptr(&tick_dep), __ATOMIC_RELAXED) ||
	    (timer_next_expiry(&next) && (long)(next - j) <= 1)) {
		__atomic_store_n(this_cpu_ptr(&tick_stopped), false, __ATOMIC_RELAXED);
		return;
	}
	if (timer_next_expiry(&next))
		ticks = MIN(ticks, next - j);
	this_cpu_inc(tick_nohz_stops);
	tick_handover_do_timer();
	trace_tick_stop(ticks);
	arch_tick_stop(ticks);
}

void tick_nohz_idle_exit(void)
{
	if (this_cpu_read(tick_stopped))
		tick_nohz_restart();
}

void tick_irq_enter(void)
{
	if (this_cpu_read(tick_stopped))
		tick_nohz_restart();
}

void tick_dep_set_cpu(int cpu)
{
	__atomic_add_fetch(&per_cpu(tick_dep, cpu), 1, __ATOMIC_SEQ_CST);
	if (cpu == raw_smp_processor_id())
		return;		/* running, so ticking */
	if (tick_nohz_tick_stopped_cpu(cpu))
		smp_send_reschedule(cpu);
}

void tick_dep_clear_cpu(int cpu)
{
	__atomic_sub_fetch(&per_cpu(tick_dep, cpu), 1, __ATOMIC_SEQ_CST);
}

void wake_up_nohz_cpu(int cpu)
{
	smp_mb();	/* the caller's queueing before our read of the flag */
	if (cpu != smp_processor_id() && tick_nohz_tick_stopped_cpu(cpu))
		smp_send_reschedule(cpu);
}
