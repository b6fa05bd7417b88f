/* kernel/tick_sched.c: which CPU advances jiffies (Linux's
 * tick_do_timer_cpu in kernel/time/tick-sched.c).
 *
 * One CPU at a time holds the duty: each of its ticks adds one to
 * jiffies, so jiffies counts that CPU's ticks (a vCPU the host does not
 * run slows jiffies down with it, which keeps jiffies-based timeouts
 * load-proof).  Any CPU's tick takes the duty when nobody holds it; and
 * a CPU that takes TICK_DUTY_STALE_TICKS ticks of its own while jiffies
 * stands still takes it from the holder, whatever stopped the holder's
 * ticks (a long irqs-off stretch): otherwise every sleep on every CPU
 * would hang on that one CPU.  jiffies_lock orders the holder's update
 * against a takeover, so that one tick never advances jiffies twice.
 */
#include "kernel/tick_sched.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"

int tick_do_timer_cpu = TICK_DO_TIMER_NONE;
unsigned long tick_duty_takeovers;
static arch_spinlock_t jiffies_lock = __ARCH_SPIN_LOCK_UNLOCKED;

/* What this CPU last saw of jiffies, and its ticks since it moved. */
static DEFINE_PER_CPU(u64, tick_seen_jiffies);
static DEFINE_PER_CPU(unsigned int, tick_stale);

void tick_sched_do_timer(void)
{
	int cpu = smp_processor_id(), holder = READ_ONCE(tick_do_timer_cpu);
	u64 j = jiffies;

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
	if (holder != cpu) {
		/* The holder may have moved jiffies since we looked. */
		if (holder != TICK_DO_TIMER_NONE && jiffies != j) {
			arch_spin_unlock(&jiffies_lock);
			return;
		}
		if (holder != TICK_DO_TIMER_NONE)
			tick_duty_takeovers++;
		WRITE_ONCE(tick_do_timer_cpu, cpu);
	}
	jiffies++;
	arch_spin_unlock(&jiffies_lock);
	this_cpu_write(tick_seen_jiffies, jiffies);
	this_cpu_write(tick_stale, 0);
}
