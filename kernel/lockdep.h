/*
 * kernel/lockdep.h - the lock validator (Linux's lockdep), test build only.
 *
 * With CONFIG_LOCKDEP (the test build, SANITIZE=1) every lock carries a
 * struct lockdep_map naming its class: the place that defines or
 * initialises it (a DEFINE_SPINLOCK is its own class, keyed by its
 * address; each spin_lock_init()/arch_spin_lock_init()/mutex_init() call
 * site has a static key of its own; lockdep_set_class() picks one by
 * hand, e.g. one per rcu_node tree level).  kernel/lockdep.c keeps each
 * context's stack of held locks (a task's in its struct task, a CPU's
 * hardirq and NMI contexts per CPU), the dependency graph between classes
 * and the irq-context usage of each class, and reports through WARN():
 *  - "possible circular locking dependency detected" (a new edge closes
 *    a cycle: both chains and where each lock was taken);
 *  - "inconsistent lock state" (a class taken in hardirq/NMI context and
 *    with irqs enabled elsewhere);
 *  - "HARDIRQ-safe -> HARDIRQ-unsafe lock order detected" (a class taken
 *    in hardirq context is held, directly or down a chain, while one
 *    taken with irqs enabled is taken);
 *  - "lock held or RCU reader left open" when a kthread's function or an
 *    interrupt handler returns;
 *  - "lock taken in NMI context" unless lockdep_set_nmi_safe();
 *  - "bad unlock balance detected" (released but not held here);
 *  - "lockdep: table full" once, after which lockdep turns itself off.
 * Without CONFIG_LOCKDEP (the benchmark build) every hook below is an
 * empty inline and no lock grows: the compiled code is unchanged.
 *
 * This header holds types and hooks only (kernel/spinlock.h and
 * kernel/sched.h include it).
 */
#pragma once

#include "kernel/types.h"
#include "kernel/atomic.h"

#ifdef CONFIG_LOCKDEP

/* The identity of a class is the address of its key (and a subclass). */
struct lock_class_key {
	const char *name;
};

struct lock_class;

/* In every lock.  All zero is valid: a static lock is then keyed by the
 * map's own address, a dynamic one is left untracked (counted). */
struct lockdep_map {
	const struct lock_class_key *key;
	const char *name;
	struct lock_class *class_cache;	/* the subclass-0 class, once known */
	bool sleeping;			/* a mutex: may be held across a sleep */
};

#define MAX_LOCK_DEPTH	24

struct held_lock {
	struct lock_class *class;
	const struct lockdep_map *map;	/* the instance */
	unsigned long ip;		/* where it was taken */
	u64 chain_key;			/* hash of the classes up to here */
	u8 read;			/* shared (a reader): no graph edges */
	u8 sleeping;			/* its map's */
};

/* One context's held locks: a task's, or a CPU's hardirq/NMI context. */
struct lockdep_held {
	int depth;
	struct held_lock held[MAX_LOCK_DEPTH];
};

#define STATIC_LOCKDEP_MAP_INIT(n)	{ .key = 0, .name = (n), .class_cache = 0 }
#define STATIC_LOCKDEP_SLEEPING_MAP_INIT(n)				\
	{ .key = 0, .name = (n), .class_cache = 0, .sleeping = true }

void lock_acquire(struct lockdep_map *map, unsigned int subclass, bool trylock,
		  bool read, const char *name, unsigned long ip);
void lock_release(struct lockdep_map *map, unsigned long ip);
bool lock_is_held(const struct lockdep_map *map);
void lockdep_init_map(struct lockdep_map *map, const char *name,
		      const struct lock_class_key *key);
/* This lock's class is taken in NMI handlers on purpose. */
void lockdep_set_nmi_safe_map(struct lockdep_map *map);
/* kmain, once per-CPU data works: lockdep checks from then on. */
void lockdep_init(void);
/* kmain, once the consoles are up: say that lockdep is on, and its limits. */
void lockdep_info(void);
/* Print what makes the running context atomic or a reader, and its held
 * locks (might_sleep(), rcu_misuse_check(), RCU-lockdep's reports). */
void lockdep_print_context(void);
/* Locks held by this context. */
int lockdep_depth(void);
/* ... of them spinning locks (not mutexes): none may be held in a sleep. */
int lockdep_depth_spinning(void);
/* The running context ends (what: how): it must hold no lock, and a task
 * must have closed its rcu_read_lock() sections. */
void lockdep_check_context_end(const char *what);
/* Lockdep is on (no table filled up). */
bool lockdep_enabled(void);
/* Classes, edges and chains in use (lockdep selftest logs them). */
void lockdep_stats(unsigned int *classes, unsigned int *edges, unsigned int *chains);
/* Reports so far, and what the last one was (tests read them). */
extern atomic_t lockdep_reports;
extern const char *lockdep_last_report;

#define lockdep_set_class(lock, key)					\
	lockdep_init_map(&(lock)->dep_map, #key, (key))
#define lockdep_set_class_and_name(lock, key, n)			\
	lockdep_init_map(&(lock)->dep_map, (n), (key))
#define lockdep_set_nmi_safe(lock)	lockdep_set_nmi_safe_map(&(lock)->dep_map)

/*
 * A held lock's check: WARN when this context does not hold it.  The
 * "caller holds" of a comment made checkable (test build only).
 */
void lockdep_assert_held_map(const struct lockdep_map *map, const char *what,
			     const char *file, int line);
#define lockdep_assert_held(l)						\
	lockdep_assert_held_map(&(l)->dep_map, #l, __FILE__, __LINE__)
void lockdep_assert_irqs_disabled_at(const char *file, int line);
#define lockdep_assert_irqs_disabled()					\
	lockdep_assert_irqs_disabled_at(__FILE__, __LINE__)
/*
 * Linux's names.  Disabled: preemption or irqs are off, so this task
 * stays on this CPU (a per-CPU structure picked by this_cpu_ptr() is
 * still this CPU's).  Enabled: preempt_count 0 and irqs on (a kthread's
 * function starts and returns so).
 */
void lockdep_assert_preemption_at(bool disabled, const char *file, int line);
#define lockdep_assert_preemption_disabled()				\
	lockdep_assert_preemption_at(true, __FILE__, __LINE__)
#define lockdep_assert_preemption_enabled()				\
	lockdep_assert_preemption_at(false, __FILE__, __LINE__)

/* For rcu_dereference_check()'s and rcu_dereference_protected()'s c. */
#define lockdep_is_held(l)	lock_is_held(&(l)->dep_map)

#define _THIS_IP_	({ __label__ __here; __here: (unsigned long)&&__here; })
#define _RET_IP_	((unsigned long)__builtin_return_address(0))

#else /* !CONFIG_LOCKDEP */

struct lock_class_key { };

#define lockdep_set_class(lock, key)		do { (void)(lock); (void)(key); } while (0)
#define lockdep_set_class_and_name(lock, key, n) do { (void)(lock); (void)(key); } while (0)
#define lockdep_set_nmi_safe(lock)		do { (void)(lock); } while (0)
#define lockdep_assert_held(l)			do { (void)(l); } while (0)
#define lockdep_assert_irqs_disabled()		do { } while (0)
#define lockdep_assert_preemption_disabled()	do { } while (0)
#define lockdep_assert_preemption_enabled()	do { } while (0)
/* Only ever inside sizeof() (RCU_LOCKDEP_WARN): never evaluated. */
#define lockdep_is_held(l)			(sizeof(l) > 0)
static inline void lockdep_init(void) { }
static inline void lockdep_info(void) { }
static inline void lockdep_print_context(void) { }
static inline int lockdep_depth_spinning(void) { return 0; }
static inline void lockdep_check_context_end(const char *what) { (void)what; }

#endif /* CONFIG_LOCKDEP */
