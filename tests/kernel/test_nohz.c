/* tests/kernel/test_nohz.c: KTAP suite `nohz`: jiffies keep moving
 * whichever CPU stops ticking (kernel/tick_sched.c). */
#include "kernel/ktap.h"
#include "kernel/smp.h"
#include "kernel/tick_sched.h"
#include "kernel/time.h"
#include "arch/x86_64/timer.h"
#include "asm/irqflags.h"
#include "test_helpers.h"

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
	if (dh.moved < OBSERVE_TICKS - 2 * TICK_DUTY_STALE_TICKS)
		ktap_fail("jiffies moved %llu in %d ticks", (unsigned long long)dh.moved,
			  OBSERVE_TICKS);
}

KTAP_SUITE(nohz,
	   KTAP_CASE(nohz_jiffies_move_without_duty_holder));
