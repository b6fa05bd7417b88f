/*
 * rcu/rculist.h - the RCU forms of the kernel/list.h lists.
 *
 * Contract: updaters serialise among themselves (a lock); readers walk
 * inside rcu_read_lock_sched() with no lock at all.  An added element is
 * published by a release store of the pointer that makes it reachable, so
 * a reader that finds it sees it initialised.  A deleted element keeps its
 * ->next, so a reader standing on it can still walk on; it may be freed
 * only after a grace period (synchronize_sched() or call_rcu_sched()).
 * Deletion poisons only ->prev (readers never follow ->prev).
 */
#pragma once

#include "kernel/list.h"
#include "rcu/rcupdate.h"

#define LIST_POISON_PREV ((struct list_head *)0x122)

/* The one pointer a reader may follow. */
#define list_next_rcu(list) (*((struct list_head **)(&(list)->next)))

static inline void __list_add_rcu(struct list_head *new,
				  struct list_head *prev, struct list_head *next)
{
	new->next = next;
	new->prev = prev;
	/* Publish: new's fields are visible before prev->next points at it. */
	rcu_assign_pointer(list_next_rcu(prev), new);
	next->prev = new;
}

static inline void list_add_rcu(struct list_head *new, struct list_head *head)
{
	__list_add_rcu(new, head, head->next);
}

static inline void list_add_tail_rcu(struct list_head *new, struct list_head *head)
{
	__list_add_rcu(new, head->prev, head);
}

/* ->next stays valid for readers standing on entry. */
static inline void list_del_rcu(struct list_head *entry)
{
	struct list_head *prev = entry->prev, *next = entry->next;

	next->prev = prev;
	WRITE_ONCE(prev->next, next);
	entry->prev = LIST_POISON_PREV;
}

static inline void list_replace_rcu(struct list_head *old, struct list_head *new)
{
	new->next = old->next;
	new->prev = old->prev;
	rcu_assign_pointer(list_next_rcu(new->prev), new);
	new->next->prev = new;
	old->prev = LIST_POISON_PREV;
}

#define list_entry_rcu(ptr, type, member) \
	container_of(rcu_dereference_raw(ptr), type, member)

/*
 * Walk inside a reader, or under the update-side lock that the optional
 * cond names (Linux's lockdep condition, e.g. lockdep_is_held(&lock)):
 * checked once at the start in the test build (RCU-lockdep), nothing
 * at all in the benchmark build.
 */
#define __list_check_rcu(dummy, cond, extra...) ({			\
	RCU_LOCKDEP_WARN(!(cond) && !rcu_read_lock_any_held(),		\
			 "RCU-list traversed in non-reader section"); })
#define list_for_each_entry_rcu(pos, head, member, cond...)			\
	for (__list_check_rcu(dummy, ## cond, 0),				\
	     pos = list_entry_rcu((head)->next, __typeof__(*pos), member);	\
	     !list_entry_is_head(pos, head, member);				\
	     pos = list_entry_rcu(pos->member.next, __typeof__(*pos), member))

#define list_first_or_null_rcu(ptr, type, member) ({			\
	struct list_head *__head = (ptr);				\
	struct list_head *__next = rcu_dereference_raw(__head->next);	\
	__next != __head ? container_of(__next, type, member) : NULL; })

/* ---- hlist ---- */

#define hlist_first_rcu(head) (*((struct hlist_node **)(&(head)->first)))
#define hlist_next_rcu(node) (*((struct hlist_node **)(&(node)->next)))

static inline void hlist_add_head_rcu(struct hlist_node *n, struct hlist_head *h)
{
	struct hlist_node *first = h->first;

	n->next = first;
	n->pprev = &h->first;
	rcu_assign_pointer(hlist_first_rcu(h), n);
	if (first)
		first->pprev = &n->next;
}

static inline void hlist_add_before_rcu(struct hlist_node *n, struct hlist_node *next)
{
	n->pprev = next->pprev;
	n->next = next;
	rcu_assign_pointer(*(struct hlist_node **)n->pprev, n);
	next->pprev = &n->next;
}

static inline void hlist_add_behind_rcu(struct hlist_node *n, struct hlist_node *prev)
{
	n->next = prev->next;
	n->pprev = &prev->next;
	rcu_assign_pointer(hlist_next_rcu(prev), n);
	if (n->next)
		n->next->pprev = &n->next;
}

static inline void hlist_del_rcu(struct hlist_node *n)
{
	struct hlist_node *next = n->next;
	struct hlist_node **pprev = n->pprev;

	WRITE_ONCE(*pprev, next);
	if (next)
		next->pprev = pprev;
	n->pprev = (struct hlist_node **)LIST_POISON_PREV;
}

static inline void hlist_replace_rcu(struct hlist_node *old, struct hlist_node *new)
{
	struct hlist_node *next = old->next;

	new->next = next;
	new->pprev = old->pprev;
	rcu_assign_pointer(*(struct hlist_node **)new->pprev, new);
	if (next)
		next->pprev = &new->next;
	old->pprev = (struct hlist_node **)LIST_POISON_PREV;
}

#define hlist_entry_safe_rcu(ptr, type, member) ({			\
	struct hlist_node *____p = rcu_dereference_raw(ptr);		\
	____p ? container_of(____p, type, member) : NULL; })

#define hlist_for_each_entry_rcu(pos, head, member, cond...)		\
	for (__list_check_rcu(dummy, ## cond, 0),				\
	     pos = hlist_entry_safe_rcu(hlist_first_rcu(head), __typeof__(*pos), member); \
	     pos;								\
	     pos = hlist_entry_safe_rcu(hlist_next_rcu(&(pos)->member), __typeof__(*pos), member))
