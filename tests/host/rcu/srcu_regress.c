/*
 * tests/host/rcu/srcu_regress.c - SRCU callback bugs that need the
 * callback kthread held off at an exact point, on the host shim.  This
 * program includes rcu/srcu.c itself (the build leaves it out of the
 * library) so it can hold srcu_list_lock, which keeps the kthread's pass
 * from looking at any srcu_struct, while it walks the grace-period state
 * machine by hand with srcu_gp_advance().
 *
 *  stranded  call_srcu() arrives while NEXT_READY holds callbacks for
 *            the GP in progress and WAIT those of the GP just ended, which
 *            no pass has advanced yet: it cannot be tagged.  The next pass
 *            must tag it (re-accelerate) or nothing ever runs it.
 *  two       two srcu_structs have ready callbacks in the same pass: both
 *            lists must run (the pass must not overwrite one with the
 *            other).
 *
 * Each step checks that the state it forced is the one intended, so the
 * window cannot be missed silently.  Built with CONFIG_SANITIZE and run
 * with "rcu.inject=srcu_accel" as its second argument, `stranded` must
 * fail (rcu/inject.h).  Waits for callbacks are bounded
 * (10 s) and say what they waited for.  Exit status 0 if all pass.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rcu/srcu.c"
#include "shim/shim.h"

static int failures;

/*
 *   srcu_regress [NCPUS [KERNEL-COMMAND-LINE]]
 */

#define CHECK(cond, ...) do {						\
		if (!(cond)) {						\
			printf("# %s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
			printf(__VA_ARGS__);				\
			printf("\n");					\
			failures++;					\
			return false;					\
		}							\
	} while (0)

struct probe {
	struct rcu_head rh;
	int ran;
};

static void probe_fn(struct rcu_head *rh)
{
	__atomic_add_fetch(&container_of(rh, struct probe, rh)->ran, 1, __ATOMIC_SEQ_CST);
}

static bool wait_ran(struct probe *p, unsigned int ms)
{
	u64 end = shim_now_ns() + (u64)ms * 1000000ull;

	while (!__atomic_load_n(&p->ran, __ATOMIC_SEQ_CST) && shim_now_ns() < end)
		msleep(1);
	return __atomic_load_n(&p->ran, __ATOMIC_SEQ_CST);
}

/* Puts ss on the kthread's list and lets it go idle with no callbacks. */
static bool settle(struct srcu_struct *ss)
{
	struct probe p0 = { 0 };

	call_srcu(ss, &p0.rh, probe_fn);
	srcu_barrier(ss);
	CHECK(p0.ran == 1, "the settling callback ran %d times", p0.ran);
	CHECK(rcu_segcblist_empty(&ss->cblist), "callbacks left after srcu_barrier()");
	CHECK(!rcu_seq_state(ss->srcu_gp_seq), "a GP still running after srcu_barrier()");
	return true;
}

static void advance_locked(struct srcu_struct *ss)
{
	spin_lock(&ss->lock);
	srcu_gp_advance(ss);
	spin_unlock(&ss->lock);
}

static struct srcu_struct ss_a, ss_b;
static struct probe p1, p2, p3, pa, pb;

static bool test_stranded(void)
{
	unsigned long flags, g;
	int r1, r2;

	if (!settle(&ss_a))
		return false;
	/* From here until the unlock, no pass of the kthread sees ss_a. */
	spin_lock_irqsave(&srcu_list_lock, flags);
	g = ss_a.srcu_gp_seq;
	call_srcu(&ss_a, &p1.rh, probe_fn);		/* WAIT: g+4 */
	r1 = srcu_read_lock(&ss_a);
	advance_locked(&ss_a);				/* GP g+4 waits for r1 */
	CHECK(ss_a.srcu_gp_seq == g + 2, "gp_seq %#lx, wanted g+2 = %#lx", ss_a.srcu_gp_seq, g + 2);
	call_srcu(&ss_a, &p2.rh, probe_fn);		/* NEXT_READY: g+8 */
	srcu_read_unlock(&ss_a, r1);
	r2 = srcu_read_lock(&ss_a);			/* the new index */
	/* As synchronize_srcu()'s poll would: g+4 ends, g+8 starts and waits for r2. */
	advance_locked(&ss_a);
	CHECK(ss_a.srcu_gp_seq == g + 6, "gp_seq %#lx, wanted g+6 = %#lx", ss_a.srcu_gp_seq, g + 6);
	call_srcu(&ss_a, &p3.rh, probe_fn);		/* wants g+12: no segment left */
	CHECK(ss_a.cblist.tails[RCU_NEXT_READY_TAIL] != ss_a.cblist.tails[RCU_NEXT_TAIL],
	      "the last callback was tagged: the window was not forced");
	srcu_read_unlock(&ss_a, r2);
	spin_unlock_irqrestore(&srcu_list_lock, flags);

	CHECK(wait_ran(&p1, 10000) && wait_ran(&p2, 10000),
	      "the tagged callbacks did not run within 10 s (p1 %d, p2 %d)", p1.ran, p2.ran);
	CHECK(wait_ran(&p3, 10000),
	      "call_srcu() callback stranded: not run 10 s after its grace period "
	      "(gp_seq %#lx, needed %#lx, still queued %d)", ss_a.srcu_gp_seq,
	      ss_a.srcu_gp_seq_needed, !rcu_segcblist_empty(&ss_a.cblist));
	return true;
}

static bool test_two_structs(void)
{
	unsigned long flags;

	if (!settle(&ss_a) || !settle(&ss_b))
		return false;
	spin_lock_irqsave(&srcu_list_lock, flags);
	call_srcu(&ss_a, &pa.rh, probe_fn);
	call_srcu(&ss_b, &pb.rh, probe_fn);
	advance_locked(&ss_a);	/* no readers: each GP runs to its end */
	advance_locked(&ss_b);
	CHECK(!rcu_seq_state(ss_a.srcu_gp_seq) && !rcu_seq_state(ss_b.srcu_gp_seq) &&
	      ss_a.srcu_gp_seq == ss_a.srcu_gp_seq_needed &&
	      ss_b.srcu_gp_seq == ss_b.srcu_gp_seq_needed,
	      "both grace periods should be over before the pass");
	spin_unlock_irqrestore(&srcu_list_lock, flags);
	/* The next pass finds both ready. */
	CHECK(wait_ran(&pa, 10000) && wait_ran(&pb, 10000),
	      "a callback ready in the same pass as another struct's was lost "
	      "(first struct's ran %d, second's ran %d)", pa.ran, pb.ran);
	return true;
}

int main(int argc, char **argv)
{
	struct shim_opts o = { .ncpus = 2, .idle_tick_every = 1 };
	long errs;
	bool ok1, ok2;

	if (argc > 1)
		o.ncpus = atoi(argv[1]);
	if (argc > 2)
		o.cmdline = argv[2];	/* e.g. rcu.inject=srcu_accel (built with CONFIG_SANITIZE) */
	setvbuf(stdout, NULL, _IOLBF, 0);
	shim_boot(&o);
	init_srcu_struct(&ss_a);
	init_srcu_struct(&ss_b);
	ok1 = test_stranded();
	printf("%s srcu stranded callback re-accelerated\n", ok1 ? "ok" : "not ok");
	ok2 = test_two_structs();
	printf("%s srcu two structs ready in one pass\n", ok2 ? "ok" : "not ok");
	errs = shim_shutdown();
	if (errs) {
		printf("not ok: %ld shim errors (warnings, BUGs)\n", errs);
		failures++;
	}
	return failures ? 1 : 0;
}
