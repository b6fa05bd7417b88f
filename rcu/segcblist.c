/*
 * rcu/segcblist.c - the segmented callback list (see rcu/segcblist.h).
 *
 * Pure list surgery with no concurrency of its own: rcu/tree.c holds the
 * owning CPU's rcu_data lock around every call, so nothing here needs a
 * barrier.  In the test build each change ends with a check of the list's
 * shape (rcu_segcblist_ok()).  The host builds of rcu/ (tests/host/rcu.mk: the callback
 * flood and rcutorture, under ASan and TSan) check that every callback
 * runs once, after its grace period.
 */
#include "rcu/segcblist.h"
#include "rcu/rcu.h"

#ifdef CONFIG_SANITIZE
/* Callbacks the shape check walks at most: a flood is checked in its
 * first part only, so that the check stays cheap under callback floods. */
#define SEGCB_CHECK_MAX	1024

/*
 * The list's shape, checked where it changes (test build only): walking
 * from the head meets the tails in order (segment tails are monotone:
 * none points into another list or before its predecessor), the last one
 * ends the list, ->len is not below the callbacks on it (it also counts
 * the ones being invoked), and the waiting segments are in grace-period
 * order.
 */
static bool rcu_segcblist_ok(const struct rcu_segcblist *l)
{
	struct rcu_head *const *p = &l->head;
	unsigned long last = 0;
	bool tagged = false;
	long n = 0;
	int i;

	if (l->len < 0)
		return false;
	for (i = RCU_WAIT_TAIL; i < RCU_NEXT_TAIL; i++) {
		if (l->tails[i] == l->tails[i - 1])
			continue;
		if (tagged && ULONG_CMP_LT(l->gp_seq[i], last))
			return false;
		tagged = true;
		last = l->gp_seq[i];
	}
	for (i = 0;;) {
		while (i < RCU_CBLIST_NSEGS && l->tails[i] == p)
			i++;
		if (i == RCU_CBLIST_NSEGS)
			return !*p && n <= l->len;
		if (!*p)
			return false;	/* a tail not on the list, or out of order */
		if (++n > SEGCB_CHECK_MAX)
			return true;
		p = &(*p)->next;
	}
}
#define segcblist_check(l)	RCU_ASSERT(rcu_segcblist_ok(l))
#else
#define segcblist_check(l)	do { } while (0)
#endif

void rcu_segcblist_init(struct rcu_segcblist *l)
{
	int i;

	l->head = NULL;
	for (i = 0; i < RCU_CBLIST_NSEGS; i++) {
		l->tails[i] = &l->head;
		l->gp_seq[i] = 0;
	}
	l->len = 0;
}

void rcu_cblist_init(struct rcu_cblist *l)
{
	l->head = NULL;
	l->tail = &l->head;
	l->len = 0;
}

__fastpath void rcu_segcblist_enqueue(struct rcu_segcblist *l, struct rcu_head *rhp)
{
	rhp->next = NULL;
	*l->tails[RCU_NEXT_TAIL] = rhp;
	WRITE_ONCE(l->tails[RCU_NEXT_TAIL], &rhp->next);
	WRITE_ONCE(l->len, l->len + 1);	/* read locklessly: rcu_cbs_ready_lockless() */
}

/*
 * seq is the soonest grace period that covers a callback queued now (from
 * rcu_seq_snap()); it covers everything queued earlier too.  So NEXT, and
 * any waiting segment tagged with a GP at or after seq, can all wait for
 * seq: merge them into the segment after the newest one that needs an
 * earlier GP.  If NEXT_READY already holds callbacks for an earlier GP,
 * there is no segment left to tag and NEXT waits for a later call.
 */
__fastpath bool rcu_segcblist_accelerate(struct rcu_segcblist *l, unsigned long seq)
{
	int i;

	if (!rcu_segcblist_pend_cbs(l))
		return false;
	for (i = RCU_NEXT_READY_TAIL; i > RCU_DONE_TAIL; i--)
		if (l->tails[i] != l->tails[i - 1] &&
		    ULONG_CMP_LT(l->gp_seq[i], seq))
			break;
	/* Nothing after segment i, or NEXT_READY is taken by an earlier GP. */
	if (l->tails[i] == l->tails[RCU_NEXT_TAIL] || ++i >= RCU_NEXT_TAIL)
		return false;
	for (; i < RCU_NEXT_TAIL; i++) {
		WRITE_ONCE(l->tails[i], l->tails[RCU_NEXT_TAIL]);
		l->gp_seq[i] = seq;
	}
	segcblist_check(l);
	return true;
}

void rcu_segcblist_advance(struct rcu_segcblist *l, unsigned long seq)
{
	int i, j;

	for (i = RCU_WAIT_TAIL; i < RCU_NEXT_TAIL; i++) {
		if (l->tails[i] != l->tails[i - 1] && ULONG_CMP_LT(seq, l->gp_seq[i]))
			break;
		WRITE_ONCE(l->tails[RCU_DONE_TAIL], l->tails[i]);
	}
	if (i == RCU_WAIT_TAIL)
		return;
	/* Segments WAIT..i-1 joined DONE: slide the still-waiting ones down. */
	for (j = RCU_WAIT_TAIL; i < RCU_NEXT_TAIL; i++, j++) {
		WRITE_ONCE(l->tails[j], l->tails[i]);
		l->gp_seq[j] = l->gp_seq[i];
	}
	/* The slots left over are empty segments just before NEXT. */
	for (; j < RCU_NEXT_TAIL; j++)
		WRITE_ONCE(l->tails[j], l->tails[j - 1]);
	segcblist_check(l);
}

long rcu_segcblist_extract_done_cbs(struct rcu_segcblist *l,
				    struct rcu_cblist *dst, long max)
{
	struct rcu_head **tail = &l->head;
	long n = 0;
	int i;

	while (n < max && tail != l->tails[RCU_DONE_TAIL]) {
		tail = &(*tail)->next;
		n++;
	}
	if (!n)
		return 0;
	dst->head = l->head;
	dst->tail = tail;
	dst->len = n;
	l->head = *tail;
	*tail = NULL;
	/* Segments that ended at the last callback taken are now empty. */
	for (i = 0; i < RCU_CBLIST_NSEGS; i++)
		if (l->tails[i] == tail)
			WRITE_ONCE(l->tails[i], &l->head);
	segcblist_check(l);
	return n;
}

__fastpath bool rcu_segcblist_nextgp(const struct rcu_segcblist *l, unsigned long *seq)
{
	int i;
	bool found = false;

	for (i = RCU_WAIT_TAIL; i < RCU_NEXT_TAIL; i++)
		if (l->tails[i] != l->tails[i - 1]) {
			*seq = l->gp_seq[i];
			found = true;
		}
	return found;
}

__fastpath bool rcu_segcblist_firstgp(const struct rcu_segcblist *l, unsigned long *seq)
{
	int i;

	for (i = RCU_WAIT_TAIL; i < RCU_NEXT_TAIL; i++)
		if (l->tails[i] != l->tails[i - 1]) {
			*seq = l->gp_seq[i];
			return true;
		}
	return false;
}

/* One segment taken out: its callbacks as a plain list, and its tag. */
struct rcu_seg {
	struct rcu_head *head, **tail;
	unsigned long seq;
};

/* Take segment i (after tails[i-1] up to tails[i]) of l out as a list. */
static bool seg_take(struct rcu_segcblist *l, int i, struct rcu_seg *s)
{
	struct rcu_head **from = i ? l->tails[i - 1] : &l->head;

	if (l->tails[i] == from)
		return false;
	s->head = *from;
	s->tail = l->tails[i];
	s->seq = l->gp_seq[i];
	return true;
}

void rcu_segcblist_merge(struct rcu_segcblist *dst, struct rcu_segcblist *src)
{
	struct rcu_seg done[2], wait[4], next[2];
	int nd = 0, nw = 0, nn = 0, i, j, k;
	long len = dst->len + src->len;

	/* Cut both lists into their segments (each a valid sublist). */
	for (k = 0; k < 2; k++) {
		struct rcu_segcblist *l = k ? src : dst;

		if (seg_take(l, RCU_DONE_TAIL, &done[nd]))
			nd++;
		for (i = RCU_WAIT_TAIL; i < RCU_NEXT_TAIL; i++)
			if (seg_take(l, i, &wait[nw]))
				nw++;
		if (seg_take(l, RCU_NEXT_TAIL, &next[nn]))
			nn++;
	}
	/*
	 * Order the waiting segments by tag, stably: dst's come before src's
	 * of the same tag, and each list's own are already in tag order, so
	 * each list's order is kept.  Equal tags then share one segment.
	 */
	for (i = 1; i < nw; i++)
		for (j = i; j > 0 && ULONG_CMP_LT(wait[j].seq, wait[j - 1].seq); j--) {
			struct rcu_seg t = wait[j];

			wait[j] = wait[j - 1];
			wait[j - 1] = t;
		}
	for (i = 0, j = 0; i < nw; i++) {
		if (j && wait[j - 1].seq == wait[i].seq) {
			*wait[j - 1].tail = wait[i].head;
			wait[j - 1].tail = wait[i].tail;
		} else {
			wait[j++] = wait[i];
		}
	}
	nw = j;
	/* Two tagged segments at most: the earliest ones wait for a later tag. */
	while (nw > RCU_NEXT_TAIL - RCU_WAIT_TAIL) {
		*wait[0].tail = wait[1].head;
		wait[1].head = wait[0].head;
		for (i = 0; i < nw - 1; i++)
			wait[i] = wait[i + 1];
		nw--;
	}

	/* Rebuild dst: DONE, the tagged segments, NEXT. */
	rcu_segcblist_init(src);
	dst->head = NULL;
	{
		struct rcu_head **tail = &dst->head;

		for (i = 0; i < nd; i++) {
			*tail = done[i].head;
			tail = done[i].tail;
		}
		WRITE_ONCE(dst->tails[RCU_DONE_TAIL], tail);
		for (i = 0; i < RCU_NEXT_TAIL - RCU_WAIT_TAIL; i++) {
			if (i < nw) {
				*tail = wait[i].head;
				tail = wait[i].tail;
				dst->gp_seq[RCU_WAIT_TAIL + i] = wait[i].seq;
			}
			WRITE_ONCE(dst->tails[RCU_WAIT_TAIL + i], tail);
		}
		for (i = 0; i < nn; i++) {
			*tail = next[i].head;
			tail = next[i].tail;
		}
		*tail = NULL;
		WRITE_ONCE(dst->tails[RCU_NEXT_TAIL], tail);
	}
	WRITE_ONCE(dst->len, len);
	segcblist_check(dst);
}
