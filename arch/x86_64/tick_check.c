/* arch/x86_64/tick_check.c: whether a CPU's tick must be restarted, as
 * pure code for the host test (tests/host/test_tick.c), since QEMU's TCG
 * has no TSC-deadline timer to lose an interrupt of.  timer.c supplies
 * the state and the two register reads, which are made only when the
 * answer depends on them: each is a VM exit under a hypervisor, and the
 * idle loop asks before every halt. */
#include "arch/x86_64/timer.h"

bool tick_needs_restart(const struct tick_state *s)
{
	/* Stopped on purpose (tickless idle): a one-shot is set for the next
	 * timer, and ticks stay away for as long as it is ahead. */
	if (s->stopped) {
		if (!s->idle)
			return false;
		if (s->deadline)
			return (s64)(s->now - s->next_deadline) >= 0 && !s->irq_pending();
		/* One-shot count run out: fired (then pending, or its irq
		 * has restarted the tick already) or lost. */
		return !s->counting() && !s->irq_pending();
	}
	/* Two periods without a tick: it stopped, whatever the registers say. */
	if (s->now - s->last_tick > 2 * s->per_tick)
		return true;
	if (!s->idle)
		return false;
	/* About to halt: only the timer can wake this CPU for sure. */
	if (s->deadline) {
		/* Ahead of the TSC: it will fire.  Past: only if its interrupt
		 * is pending; a lost one never comes. */
		if ((s64)(s->now - s->next_deadline) < 0)
			return false;
		return !s->irq_pending();
	}
	return !s->counting();		/* periodic: stopped if the count is 0 */
}
