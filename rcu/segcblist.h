/*
 * rcu/segcblist.h - a CPU's RCU callbacks: one singly linked list cut into
 * four segments by tail pointers, as Linux's rcu_segcblist:
 *
 *   head -> [DONE: GP over, may run] [WAIT: waiting for gp_seq[WAIT]]
 *           [NEXT_READY: waiting for gp_seq[NEXT_READY]] [NEXT: no GP yet]
 *
 * Segment i is the callbacks after tails[i-1] up to and including the one
 * whose ->next is *tails[i]; an empty segment has tails[i] == tails[i-1].
 * New callbacks go at the end of NEXT; "accelerate" tags NEXT with the GP
 * that will cover it; "advance" moves segments whose GP has ended to DONE.
 * Order is kept end to end, which is what rcu_barrier_sched() relies on.
 *
 * Not thread-safe: the owner (rcu_data's lock) serialises every call.  The
 * stores to ->len and ->tails[] are WRITE_ONCE: tree.c peeks at them
 * without the lock (rcu_cbs_ready_lockless()).
 */
#pragma once

#include "rcu/rcupdate.h"
#include "kernel/printk.h"

#define RCU_DONE_TAIL		0
#define RCU_WAIT_TAIL		1
#define RCU_NEXT_READY_TAIL	2
#define RCU_NEXT_TAIL		3
#define RCU_CBLIST_NSEGS	4

/* Wrap-safe comparisons of sequence numbers (Linux's). */
#define ULONG_CMP_GE(a, b)	(ULONG_MAX / 2 >= (a) - (b))
#define ULONG_CMP_LT(a, b)	(ULONG_MAX / 2 < (a) - (b))
#ifndef ULONG_MAX
#define ULONG_MAX (~0UL)
#endif

struct rcu_segcblist {
	struct rcu_head *head;
	struct rcu_head **tails[RCU_CBLIST_NSEGS];
	unsigned long gp_seq[RCU_CBLIST_NSEGS];
	long len;
};

/* A plain list of callbacks taken out of a segcblist (to invoke them). */
struct rcu_cblist {
	struct rcu_head *head;
	struct rcu_head **tail;
	long len;
};

void rcu_segcblist_init(struct rcu_segcblist *l);
void rcu_cblist_init(struct rcu_cblist *l);

static inline long rcu_segcblist_n_cbs(const struct rcu_segcblist *l)
{
	return l->len;
}

static inline bool rcu_segcblist_empty(const struct rcu_segcblist *l)
{
	return !l->head;
}

/* Callbacks whose grace period is over. */
static inline bool rcu_segcblist_ready_cbs(const struct rcu_segcblist *l)
{
	return l->tails[RCU_DONE_TAIL] != &l->head;
}

/* Callbacks still waiting (or not yet assigned) a grace period. */
static inline bool rcu_segcblist_pend_cbs(const struct rcu_segcblist *l)
{
	return l->tails[RCU_DONE_TAIL] != l->tails[RCU_NEXT_TAIL];
}

/* No callbacks after segment seg (Linux's rcu_segcblist_restempty()):
 * with RCU_NEXT_READY_TAIL, none waits untagged for a grace period. */
static inline bool rcu_segcblist_restempty(const struct rcu_segcblist *l, int seg)
{
	return l->tails[seg] == l->tails[RCU_NEXT_TAIL];
}

void rcu_segcblist_enqueue(struct rcu_segcblist *l, struct rcu_head *rhp);
/* Tag the untagged callbacks with seq; true if that GP must be requested. */
bool rcu_segcblist_accelerate(struct rcu_segcblist *l, unsigned long seq);
/* Move every segment whose gp_seq is <= seq (completed) into DONE. */
void rcu_segcblist_advance(struct rcu_segcblist *l, unsigned long seq);
/*
 * Take up to max DONE callbacks from the front into dst.  They stay
 * counted in ->len until the caller, having invoked them, gives the count
 * back with rcu_segcblist_add_len(l, -n): rcu_barrier_sched() reads ->len
 * to decide whether a CPU has callbacks it must wait for, and callbacks
 * that are being invoked are still callbacks that have not run.
 */
long rcu_segcblist_extract_done_cbs(struct rcu_segcblist *l,
				    struct rcu_cblist *dst, long max);

/* Move every callback of src to the end of dst; src is left empty. */
static inline void rcu_cblist_splice(struct rcu_cblist *dst, struct rcu_cblist *src)
{
	if (!src->head)
		return;
	*dst->tail = src->head;
	dst->tail = src->tail;
	dst->len += src->len;
	rcu_cblist_init(src);
}

static inline void rcu_segcblist_add_len(struct rcu_segcblist *l, long v)
{
	WRITE_ONCE(l->len, l->len + v);	/* read locklessly: rcu_cbs_ready_lockless() */
#ifdef CONFIG_SANITIZE
	WARN_ON_ONCE(l->len < 0);	/* more callbacks done than were queued */
#endif
}
/*
 * Move every callback of src into dst (CPU hotplug: a departed CPU's
 * callbacks), src left empty.  Both advanced to the same gp_seq first.
 * src's DONE callbacks join the end of dst's DONE; its waiting segments
 * keep their gp_seq tags, merged with dst's by tag (a segment never waits
 * for a later GP than its tag, except when more distinct tags arrive than
 * dst has segments: then the earliest wait for the next tag, never less);
 * its untagged NEXT joins the end of dst's NEXT.  The order of each list
 * is kept, so a barrier callback still follows everything queued before
 * it on its list.  The caller holds both lists' locks and must not have
 * callbacks of src extracted and not yet invoked.
 */
void rcu_segcblist_merge(struct rcu_segcblist *dst, struct rcu_segcblist *src);
/* The latest gp_seq any pending callback waits for (false if none). */
bool rcu_segcblist_nextgp(const struct rcu_segcblist *l, unsigned long *seq);
/* The earliest one: when it ends, some callback is ready (false if none). */
bool rcu_segcblist_firstgp(const struct rcu_segcblist *l, unsigned long *seq);
