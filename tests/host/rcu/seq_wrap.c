/*
 * tests/host/rcu/seq_wrap.c - the pure arithmetic of rcu/ at counter
 * wraps: rcu_seq_snap()/rcu_seq_done() cookies and the segmented
 * callback list's accelerate/advance/merge (rcu/segcblist.c), checked
 * against a reference that does not wrap (128-bit).
 *
 * The kernel starts every sequence 300 grace periods before the wrap, so
 * a plain `<` fails soon after boot; but a comparison that is wrong only
 * on one side of the wrap, or only half-way round (ULONG_MAX / 2), or only
 * with a segment tagged just before the wrap and advanced just after, can
 * pass a torture run.  Here each start point (0, the kernel's initial
 * value, a few GPs before the wrap, a few before half-way) runs random
 * steps (GP start/end, enqueue, accelerate, advance, extract, merge of a
 * second list as callback migration does) and checks, at every step:
 *  - no callback is extracted before the reference says its GP ended;
 *  - rcu_seq_done() of each cookie agrees with the reference;
 *  - once the sequence has moved two GPs past every tag with the list
 *    advanced, every callback has been extracted (none stranded).
 * Exit status 0 if all pass; a failure prints its start point and step.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rcu/rcu.h"
#include "rcu/segcblist.h"

typedef unsigned __int128 u128;

#define NCBS	64
#define STEPS	4000

struct tcb {
	struct rcu_head rh;	/* first: the list links rcu_heads */
	u128 need;		/* reference GP end value it waits for */
	unsigned long cookie;	/* rcu_seq_snap() when it was queued */
	int where;		/* 0 free, 1 list A, 2 list B, 3 done */
};

static struct tcb cbs[NCBS];
static int failures;
static unsigned long long rng = 88172645463325252ull;

static unsigned int rnd(unsigned int n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned int)(rng % n);
}

/*
 * The reference's rcu_seq_snap(), from what it means rather than from
 * its formula: the end of the first grace period that starts after now,
 * i.e. the next one's end when idle, the one after the running one's
 * otherwise.
 */
static u128 ref_snap(u128 s)
{
	u128 ctr = s & ~(u128)RCU_SEQ_STATE_MASK;

	return ctr + (RCU_SEQ_STATE_MASK + 1) * ((s & RCU_SEQ_STATE_MASK) ? 2 : 1);
}

static const char *what;
static unsigned long base;
static int step;

static void fail(const char *msg, int i)
{
	if (failures++ < 10)
		printf("not ok: %s: start %#lx step %d: %s (callback %d)\n", what, base, step, msg, i);
}

static void extract(struct rcu_segcblist *l, int where, u128 ref)
{
	struct rcu_cblist done;

	rcu_cblist_init(&done);
	rcu_segcblist_extract_done_cbs(l, &done, 1000);
	for (struct rcu_head *h = done.head; h; h = h->next) {
		struct tcb *c = (struct tcb *)h;
		int i = (int)(c - cbs);

		if (c->where != where)
			fail("extracted from the wrong list", i);
		if (ref < c->need)
			fail("invoked before its grace period ended", i);
		c->where = 3;
	}
	rcu_segcblist_add_len(l, -done.len);
}

static void run(const char *name, unsigned long start)
{
	struct rcu_segcblist a, b;
	unsigned long s = start;
	u128 ref = (u128)start + ((u128)1 << 64) * 4;	/* far from 0 */
	u128 ref0 = ref;

	what = name;
	base = start;
	memset(cbs, 0, sizeof(cbs));
	rcu_segcblist_init(&a);
	rcu_segcblist_init(&b);
	for (step = 0; step < STEPS; step++) {
		int op = rnd(8), i;

		switch (op) {
		case 0:		/* GP start */
			if (!rcu_seq_state(s)) {
				s++;
				ref++;
			}
			break;
		case 1:		/* GP end */
			if (rcu_seq_state(s)) {
				unsigned long e = rcu_seq_endval(s);

				ref += e - s;
				s = e;
			}
			break;
		case 2:		/* call_rcu() on A or B */
		case 3:
			for (i = 0; i < NCBS && cbs[i].where; i++)
				;
			if (i == NCBS)
				break;
			cbs[i].cookie = rcu_seq_snap(&s);
			cbs[i].need = ref_snap(ref);
			cbs[i].where = 1 + (op == 3);
			rcu_segcblist_enqueue(op == 3 ? &b : &a, &cbs[i].rh);
			rcu_segcblist_accelerate(op == 3 ? &b : &a, rcu_seq_snap(&s));
			break;
		case 4:		/* advance and invoke */
			rcu_segcblist_advance(&a, s);
			extract(&a, 1, ref);
			rcu_segcblist_accelerate(&a, rcu_seq_snap(&s));
			break;
		case 5:
			rcu_segcblist_advance(&b, s);
			extract(&b, 2, ref);
			rcu_segcblist_accelerate(&b, rcu_seq_snap(&s));
			break;
		case 6:		/* B's CPU went offline: its callbacks move to A */
			if (rnd(8))
				break;
			for (i = 0; i < NCBS; i++)
				if (cbs[i].where == 2)
					cbs[i].where = 1;
			rcu_segcblist_merge(&a, &b);
			rcu_segcblist_accelerate(&a, rcu_seq_snap(&s));
			break;
		case 7:		/* a poll of every cookie */
			for (i = 0; i < NCBS; i++)
				if (cbs[i].where == 1 || cbs[i].where == 2) {
					bool done = rcu_seq_done(&s, cbs[i].cookie);

					if (done != (ref >= cbs[i].need))
						fail(done ? "cookie done too early" : "cookie never done", i);
				}
			break;
		}
	}
	/* Drain: two more full GPs, then everything must have run. */
	for (int k = 0; k < 3; k++) {
		if (!rcu_seq_state(s)) {
			s++;
			ref++;
		}
		rcu_segcblist_advance(&a, s);
		extract(&a, 1, ref);
		rcu_segcblist_accelerate(&a, rcu_seq_snap(&s));
		rcu_segcblist_advance(&b, s);
		extract(&b, 2, ref);
		rcu_segcblist_accelerate(&b, rcu_seq_snap(&s));
		ref += rcu_seq_endval(s) - s;
		s = rcu_seq_endval(s);
	}
	rcu_segcblist_advance(&a, s);
	extract(&a, 1, ref);
	rcu_segcblist_advance(&b, s);
	extract(&b, 2, ref);
	for (int i = 0; i < NCBS; i++)
		if (cbs[i].where == 1 || cbs[i].where == 2)
			fail("stranded: not invoked after the GPs that cover it", i);
	if ((u128)(s - start) != ref - ref0)
		fail("the sequence and the reference disagree", -1);
}

int main(void)
{
	int f0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	struct { const char *name; unsigned long start; } starts[] = {
		{ "zero", 0 },
		{ "kernel initial value", RCU_SEQ_INITIAL_VAL },
		{ "3 GPs before the wrap", (0UL - 3UL) << RCU_SEQ_CTR_SHIFT },
		{ "1 GP before the wrap, mid-GP", ((0UL - 1UL) << RCU_SEQ_CTR_SHIFT) | 1 },
		{ "3 GPs before half-way", (ULONG_MAX / 2 + 1) - (3UL << RCU_SEQ_CTR_SHIFT) },
	};
	for (unsigned int i = 0; i < sizeof(starts) / sizeof(starts[0]); i++) {
		for (int rep = 0; rep < 20; rep++) {
			f0 = failures;
			run(starts[i].name, starts[i].start);
			if (failures != f0)
				break;
		}
		printf("%s seq wrap: %s\n", failures ? "not ok" : "ok", starts[i].name);
	}
	return failures ? 1 : 0;
}
