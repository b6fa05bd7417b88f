/*
 * rcu/debug_head.c - the queued-rcu_head tracker of rcu/debug_head.h (test
 * build only).  An open-addressing hash set of head addresses, split into
 * stripes of RCU_DH_STRIPE_SLOTS slots with a lock each, so that CPUs
 * queueing callbacks at once rarely share a lock; a head's slots stay in
 * its stripe (linear probing wraps inside it; deletion shifts back).  A
 * stripe keeps one slot free, so that every probe and every backward
 * shift ends at an empty slot; a head that finds its stripe that full is
 * left untracked (counted), never fails the call.
 */
#include "rcu/debug_head.h"
#include "kernel/printk.h"
#include "kernel/slab.h"
#include "kernel/spinlock.h"
#include "kernel/kallsyms.h"

atomic_t rcu_debug_head_double = ATOMIC_INIT(0);
atomic_t rcu_debug_head_freed = ATOMIC_INIT(0);

#ifdef CONFIG_SANITIZE

#define RCU_DH_STRIPES		128
#define RCU_DH_STRIPE_SLOTS	1024

static struct rcu_dh_stripe {
	spinlock_t lock;
	unsigned int used;	/* slots in use, at most RCU_DH_STRIPE_SLOTS - 1 */
	struct rcu_head *slot[RCU_DH_STRIPE_SLOTS];
} rcu_dh[RCU_DH_STRIPES] = {
	[0 ... RCU_DH_STRIPES - 1] = { .lock = __SPIN_LOCK_UNLOCKED(rcu_dh_stripe.lock) },
};
static atomic_long_t rcu_dh_untracked;

static u64 rcu_dh_hash(const struct rcu_head *head)
{
	return ((u64)(unsigned long)head >> 3) * 0x9e3779b97f4a7c15ull;
}

static struct rcu_dh_stripe *rcu_dh_stripe(u64 h)
{
	return &rcu_dh[h >> (64 - 7)];
}

bool debug_rcu_head_queue(struct rcu_head *head, rcu_callback_t func, const char *who)
{
	u64 h = rcu_dh_hash(head);
	struct rcu_dh_stripe *s;
	char fs[96], qs[96];
	unsigned long flags;
	bool tracked = false;
	unsigned int i, n;

	/* Freed memory: kmalloc poisons what it frees (and marks what it
	 * hands out otherwise in this build). */
	if ((unsigned long)READ_ONCE(head->next) == POISON_FREE_WORD &&
	    (unsigned long)READ_ONCE(head->func) == POISON_FREE_WORD) {
		atomic_inc(&rcu_debug_head_freed);
		sprint_symbol(fs, sizeof(fs), (unsigned long)func);
		WARN(1, "ODEBUG: %s() of an rcu_head in freed memory (%p, callback %s); "
		     "not queued", who, head, fs);
		return false;
	}
	s = rcu_dh_stripe(h);
	spin_lock_irqsave(&s->lock, flags);
	for (i = h & (RCU_DH_STRIPE_SLOTS - 1), n = 0; n < RCU_DH_STRIPE_SLOTS;
	     i = (i + 1) & (RCU_DH_STRIPE_SLOTS - 1), n++) {
		if (s->slot[i] == head) {
			rcu_callback_t queued = READ_ONCE(head->func);

			spin_unlock_irqrestore(&s->lock, flags);
			atomic_inc(&rcu_debug_head_double);
			sprint_symbol(qs, sizeof(qs), (unsigned long)queued);
			sprint_symbol(fs, sizeof(fs), (unsigned long)func);
			WARN(1, "ODEBUG: %s() of an rcu_head already queued (%p, queued callback "
			     "%s, new %s); not queued again", who, head, qs, fs);
			return false;
		}
		if (!s->slot[i]) {
			if (s->used < RCU_DH_STRIPE_SLOTS - 1) {
				s->slot[i] = head;
				s->used++;
				tracked = true;
			}
			break;
		}
	}
	spin_unlock_irqrestore(&s->lock, flags);
	if (!tracked)
		atomic_long_inc(&rcu_dh_untracked);
	return true;
}

void debug_rcu_head_unqueue(struct rcu_head *head)
{
	u64 h = rcu_dh_hash(head);
	struct rcu_dh_stripe *s = rcu_dh_stripe(h);
	unsigned int mask = RCU_DH_STRIPE_SLOTS - 1, i, j, k, n;
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	for (i = h & mask, n = 0; n < RCU_DH_STRIPE_SLOTS && s->slot[i] != head;
	     i = (i + 1) & mask, n++)
		if (!s->slot[i])
			goto out;	/* never tracked (a barrier's own head) */
	if (n == RCU_DH_STRIPE_SLOTS)
		goto out;
	/* Backward-shift deletion: keep every later entry reachable. */
	for (j = i;;) {
		j = (j + 1) & mask;
		if (!s->slot[j])
			break;
		k = rcu_dh_hash(s->slot[j]) & mask;
		if ((j > i && (k <= i || k > j)) || (j < i && k <= i && k > j)) {
			s->slot[i] = s->slot[j];
			i = j;
		}
	}
	s->slot[i] = NULL;
	s->used--;
out:
	spin_unlock_irqrestore(&s->lock, flags);
}

#endif /* CONFIG_SANITIZE */
