/* tests/kernel/test_timer.c: KTAP suite `timer`: the LAPIC tick of every
 * CPU survives a lost timer interrupt.  A CPU whose timer is disarmed
 * (timer_test_lose_tick(): what a lost TSC-deadline interrupt leaves
 * behind) must tick again by itself, from its idle loop or its next
 * interrupt; the duty holder's tick is the one jiffies and every sleep
 * hang on. */
#include "kernel/ktap.h"
#include "kernel/atomic.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "arch/x86_64/timer.h"
#include "tests/kernel/test_helpers.h"

static void lose_tick(void *unused)
{
	(void)unused;
	timer_test_lose_tick();
}

/* CPU 1 (idle, as nothing else runs there) loses its tick; it must take
 * ticks again.  Bounded by 2 s of TSC time: never a hang. */
static void timer_lost_tick_restarts(void)
{
	const int cpu = 1;
	u64 t0, lim = ns_to_cycles(2000ull * 1000000), before, rearms;

	if (num_online_cpus() < 2) {
		ktap_skip("needs 2 CPUs");
		return;
	}
	KTAP_ASSERT(test_keep_ticking(cpu, true));	/* idle, it must tick */
	rearms = READ_ONCE(per_cpu(timer_rearms, cpu));
	KTAP_ASSERT(smp_call_function_single(cpu, lose_tick, NULL, 1) == 0);
	before = READ_ONCE(per_cpu(timer_ticks, cpu));
	t0 = get_cycles();
	while (READ_ONCE(per_cpu(timer_ticks, cpu)) - before < 3 &&
	       get_cycles() - t0 < lim)
		cpu_relax();
	u64 got = READ_ONCE(per_cpu(timer_ticks, cpu)) - before;

	if (got < 3)
		ktap_fail("CPU %d took %llu ticks in 2 s after its timer interrupt was lost (%s mode)",
			  cpu, (unsigned long long)got, per_cpu(timer_mode, cpu));
	KTAP_EXPECT(READ_ONCE(per_cpu(timer_rearms, cpu)) > rearms);
	test_keep_ticking(cpu, false);
	ktap_log("CPU %d: %llu restarts so far", cpu,
		 (unsigned long long)READ_ONCE(per_cpu(timer_rearms, cpu)));
}

KTAP_SUITE(timer,
	   KTAP_CASE(timer_lost_tick_restarts));
