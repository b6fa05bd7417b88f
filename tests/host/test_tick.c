/* tests/host/test_tick.c: arch/x86_64/tick_check.c, when a CPU's tick
 * must be restarted.  QEMU's TCG has no TSC-deadline timer, so a lost
 * deadline interrupt (the CPU would halt and never wake) is only seen
 * here; also that no register is read while the deadline is ahead (each
 * read is a VM exit, before every idle halt).  Uses ktest.h. */
#include <stdio.h>
#include "arch/x86_64/timer.h"
#include "ktest.h"

static int reads;
static bool pending, counting;

static bool fake_pending(void) { reads++; return pending; }
static bool fake_counting(void) { reads++; return counting; }

#define TICK 1000000ull

static struct tick_state st(bool idle, bool deadline, u64 now, u64 last, u64 next)
{
	return (struct tick_state){ .idle = idle, .deadline = deadline, .now = now,
		.last_tick = last, .next_deadline = next, .per_tick = TICK,
		.irq_pending = fake_pending, .counting = fake_counting };
}

static void tick_deadline_lost_before_halt(void)
{
	struct tick_state s;

	/* Last tick at 10 TICK, next deadline 11 TICK. */
	reads = 0;
	s = st(true, true, 10 * TICK + TICK / 2, 10 * TICK, 11 * TICK);
	EXPECT(!tick_needs_restart(&s));	/* deadline ahead */
	EXPECT_EQ(reads, 0);
	/* Just past the deadline, interrupt pending: it comes. */
	pending = true;
	s = st(true, true, 11 * TICK + 10, 10 * TICK, 11 * TICK);
	EXPECT(!tick_needs_restart(&s));
	/* Just past, not pending: lost; halting now would be for good. */
	pending = false;
	EXPECT(tick_needs_restart(&s));
	/* Not idle: only the two-period rule. */
	s = st(false, true, 11 * TICK + 10, 10 * TICK, 11 * TICK);
	EXPECT(!tick_needs_restart(&s));
	s = st(false, true, 12 * TICK + 10, 10 * TICK, 11 * TICK);
	EXPECT(tick_needs_restart(&s));
	/* The TSC wrapping past 2^64 changes nothing. */
	reads = 0;
	s = st(true, true, 5, ~0ull - TICK / 2, TICK / 2 - 1);
	EXPECT(!tick_needs_restart(&s));
	EXPECT_EQ(reads, 0);
}

static void tick_periodic_stopped(void)
{
	struct tick_state s = st(true, false, 10 * TICK + 5, 10 * TICK, 0);

	counting = true;
	EXPECT(!tick_needs_restart(&s));
	counting = false;			/* TMICT 0: stopped */
	EXPECT(tick_needs_restart(&s));
	s.idle = false;
	EXPECT(!tick_needs_restart(&s));
	s.now = 13 * TICK;
	EXPECT(tick_needs_restart(&s));
}

/* Tickless: a one-shot far ahead, no tick for many periods; only a lost
 * one-shot restarts it, and only before a halt. */
static void tick_stopped_oneshot(void)
{
	struct tick_state s = st(true, true, 50 * TICK, 10 * TICK, 100 * TICK);

	s.stopped = true;
	reads = 0;
	EXPECT(!tick_needs_restart(&s));	/* one-shot ahead */
	EXPECT_EQ(reads, 0);
	s.now = 100 * TICK + 1;
	pending = true;
	EXPECT(!tick_needs_restart(&s));	/* fired: its irq comes */
	pending = false;
	EXPECT(tick_needs_restart(&s));		/* lost */
	s.idle = false;
	EXPECT(!tick_needs_restart(&s));	/* not before a halt */
	/* Periodic hardware, one-shot count. */
	s = st(true, false, 50 * TICK, 10 * TICK, 0);
	s.stopped = true;
	counting = true;
	EXPECT(!tick_needs_restart(&s));
	counting = false;
	pending = true;
	EXPECT(!tick_needs_restart(&s));
	pending = false;
	EXPECT(tick_needs_restart(&s));
}

int main(void)
{
	RUN(tick_deadline_lost_before_halt);
	RUN(tick_periodic_stopped);
	RUN(tick_stopped_oneshot);
	return ktest_summary();
}
