/*
 * tests/host/rcu/cookies.c - the polled-cookie arithmetic of rcu/rcu.h
 * (rcu_seq_snap(), rcu_cookie_done(), RCU_GET_STATE_*) and of full
 * cookies (two sequences, either one completing) across the counter's
 * wrap, on sequences driven here by rcu_seq_start()/rcu_seq_end().
 *
 * Every check runs twice: with rcu_cookie_done(), where it must pass,
 * and with a mutant that accepts a cookie one grace period early (what
 * rcu.inject=poll_early does in the kernel), which it must catch.
 */
#include "ktest.h"
#include "rcu/rcu.h"

typedef bool (*done_fn)(unsigned long cur, unsigned long s);

static bool done_early(unsigned long cur, unsigned long s)
{
	if (!rcu_seq_state(s))
		s -= 1UL << RCU_SEQ_CTR_SHIFT;
	return rcu_cookie_done(cur, s);
}

static int fails;
#define CHECK(cond) do { if (!(cond)) fails++; } while (0)

static void gp(unsigned long *sp)
{
	rcu_seq_start(sp);
	rcu_seq_end(sp);
}

/*
 * From start, idle and mid-GP: a cookie is done exactly when the first
 * grace period that started after it has ended, and stays done for the
 * next 1000 grace periods (the wrap falls inside for the starts used).
 */
static void walk(done_fn done, unsigned long start)
{
	for (int mid = 0; mid < 2; mid++) {
		unsigned long seq = start, s;

		if (mid)
			rcu_seq_start(&seq);	/* a GP is running: it may predate us */
		s = rcu_seq_snap(&seq);
		CHECK(!rcu_seq_state(s));
		CHECK(!done(seq, s));
		if (mid) {
			rcu_seq_end(&seq);	/* the running one ends: not enough */
			CHECK(!done(seq, s));
		}
		rcu_seq_start(&seq);		/* the first GP after the cookie */
		CHECK(!done(seq, s));
		rcu_seq_end(&seq);
		CHECK(done(seq, s));
		for (int i = 0; i < 1000; i++) {
			gp(&seq);
			CHECK(done(seq, s));
		}
	}
}

static int run_walks(done_fn done)
{
	static const unsigned long starts[] = {
		RCU_SEQ_INITIAL_VAL, 0, 4, -4UL, -8UL, -12UL, ~0UL & ~RCU_SEQ_STATE_MASK,
		(1UL << 63) - 4, 1UL << 63, (1UL << 63) + 8,
	};

	fails = 0;
	for (unsigned int i = 0; i < sizeof(starts) / sizeof(starts[0]); i++)
		walk(done, starts[i]);
	/* Every start within 40 GPs of the wrap, one by one. */
	for (unsigned long k = 0; k < 40; k++)
		walk(done, (0UL - k) << RCU_SEQ_CTR_SHIFT);
	return fails;
}

static void cookie_exact_across_wrap(void)
{
	EXPECT_EQ(run_walks(rcu_cookie_done), 0);
}

static void cookie_mutant_early_caught(void)
{
	EXPECT(run_walks(done_early) > 0);
}

/* A cookie kept for longer than half the counter's range is still done. */
static void cookie_ancient_still_done(void)
{
	unsigned long seq = RCU_SEQ_INITIAL_VAL, s = rcu_seq_snap(&seq);

	gp(&seq);
	EXPECT(rcu_cookie_done(seq, s));
	seq += (1UL << 63) + 4 * 5;		/* far past, mod 2^64 "behind" */
	EXPECT(rcu_cookie_done(seq, s));
	seq = s - 8;				/* only [s-7, s) reads as "not yet" */
	EXPECT(rcu_cookie_done(seq, s));
	seq = s - 7;
	EXPECT(!rcu_cookie_done(seq, s));
	seq = s - 1;
	EXPECT(!rcu_cookie_done(seq, s));
}

static void cookie_special_values(void)
{
	static const unsigned long seqs[] = { 0, 1, 3, 4, RCU_SEQ_INITIAL_VAL, -4UL, -1UL, 1UL << 63 };

	for (unsigned int i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++) {
		EXPECT(rcu_cookie_done(seqs[i], get_completed_synchronize_rcu()));
		EXPECT(!rcu_cookie_done(seqs[i], get_never_synchronize_rcu()));
		EXPECT(!rcu_cookie_done(seqs[i], 3));	/* any state bits: never */
	}
	/* No snapshot is ever one of them. */
	for (unsigned long cur = -64UL; cur != 64; cur++) {
		unsigned long seq = cur, s = rcu_seq_snap(&seq);

		EXPECT(s != RCU_GET_STATE_COMPLETED && s != RCU_GET_STATE_NEVER);
	}
}

/* A full cookie: done when either sequence's half is. */
static bool full_done(done_fn done, unsigned long norm, unsigned long exp,
		      const struct rcu_gp_oldstate *c)
{
	return done(norm, c->rgos_norm) || done(exp, c->rgos_exp);
}

static int run_full(done_fn done)
{
	fails = 0;
	for (unsigned long k = 0; k < 24; k++) {
		unsigned long norm = (0UL - k) << RCU_SEQ_CTR_SHIFT;
		unsigned long exp = (0UL - 2 * k - 1) << RCU_SEQ_CTR_SHIFT;
		struct rcu_gp_oldstate c, after;

		/* An expedited GP already running when the cookie is taken. */
		rcu_seq_start(&exp);
		c.rgos_norm = rcu_seq_snap(&norm);
		c.rgos_exp = rcu_seq_snap(&exp);
		CHECK(!full_done(done, norm, exp, &c));
		rcu_seq_end(&exp);		/* ends: predates us, not enough */
		CHECK(!full_done(done, norm, exp, &c));
		/* The next expedited GP is taken as the cookie's: a cookie
		 * taken while it runs must wait for the one after. */
		rcu_seq_start(&exp);
		after.rgos_norm = rcu_seq_snap(&norm);
		after.rgos_exp = rcu_seq_snap(&exp);
		rcu_seq_end(&exp);
		CHECK(full_done(done, norm, exp, &c));
		CHECK(!full_done(done, norm, exp, &after));
		gp(&exp);
		CHECK(full_done(done, norm, exp, &after));
		/* The normal half alone completes a cookie too. */
		c.rgos_norm = rcu_seq_snap(&norm);
		c.rgos_exp = rcu_seq_snap(&exp);
		CHECK(!full_done(done, norm, exp, &c));
		gp(&norm);
		CHECK(full_done(done, norm, exp, &c));
		get_completed_synchronize_rcu_full(&c);
		CHECK(full_done(done, norm, exp, &c));
		get_never_synchronize_rcu_full(&c);
		CHECK(!full_done(done, norm, exp, &c));
	}
	return fails;
}

static void full_cookie_either_kind(void)
{
	EXPECT_EQ(run_full(rcu_cookie_done), 0);
}

static void full_cookie_mutant_early_caught(void)
{
	EXPECT(run_full(done_early) > 0);
}

int main(void)
{
	RUN(cookie_exact_across_wrap);
	RUN(cookie_mutant_early_caught);
	RUN(cookie_ancient_still_done);
	RUN(cookie_special_values);
	RUN(full_cookie_either_kind);
	RUN(full_cookie_mutant_early_caught);
	return ktest_summary();
}
