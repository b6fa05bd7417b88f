/*
 * kernel/lockdep.c - the lock validator, after Linux's
 * kernel/locking/lockdep.c (test build only: CONFIG_LOCKDEP).
 *
 * What it proves is about classes, not instances: if class A was ever
 * taken while B was held and B while A was held, two CPUs can deadlock,
 * whether or not this run did.  So a deadlock is reported the first time
 * both orders have been seen, on any path a test happens to take.
 *
 *  - A class is (key, subclass); the key is a struct lock_class_key at
 *    the init site, or the address of a statically allocated lock.
 *  - Each context keeps a stack of held locks: a task in its struct task
 *    (so a mutex held across a sleep stays with it), each CPU's hardirq
 *    and NMI contexts per CPU, and an AP's boot code before it has a task
 *    of its own (it still runs as kmain's task there) per CPU too.
 *  - An acquisition with locks held hashes the stack's classes into a
 *    chain key; a chain seen before costs a hash probe and nothing else.
 *    A new one adds an edge from each held class to the new one, and
 *    each new edge is checked by a breadth-first search from the new
 *    class back to the held one: found, the edge closes a cycle.
 *  - Each class records the first place it was taken in hardirq (or NMI)
 *    context and with irqs enabled outside it; having both is an irq
 *    deadlock waiting for its interrupt ("inconsistent lock state").
 *    So is an irq-safe class held while an irq-unsafe one is taken, or
 *    any class the unsafe one leads to in the graph: checked when a new
 *    chain adds edges and when a class first gets either usage.
 *  - All tables are static and bounded; filling one is reported once,
 *    and lockdep then turns itself off (never silently wrong).
 *
 * The graph is changed under one bare lock with irqs off; NMIs never
 * take it (they only use classes already known).  Lookups of classes and
 * chains are lock-free: entries are only ever added, with a release
 * store.  Everything lockdep itself does (its printk's locks included)
 * runs with the per-CPU recursion flag set, so it is not validated.
 */
#ifdef CONFIG_LOCKDEP

#include "kernel/lockdep.h"
#include "kernel/spinlock.h"
#include "kernel/sched.h"
#include "kernel/printk.h"
#include "kernel/kallsyms.h"
#include "kernel/percpu.h"
#include "kernel/string.h"
#include "rcu/rcupdate.h"
#include "asm/irqflags.h"

#define MAX_LOCKDEP_KEYS	1024
#define CLASS_HASH_SIZE		2048	/* power of 2, twice the classes */
#define MAX_LOCKDEP_EDGES	8192
#define CHAIN_HASH_SIZE		16384	/* power of 2 */
#define MAX_LOCKDEP_CHAINS	(CHAIN_HASH_SIZE / 2)
#define MAX_CYCLE		16	/* edges of a cycle printed */

/* Usage bits: irq-safety, after Linux's LOCK_USED_IN_HARDIRQ & co. */
enum {
	USED_IN_HARDIRQ,	/* taken (written) in hardirq or NMI context */
	USED_IN_HARDIRQ_READ,	/* read-taken there */
	ENABLED_HARDIRQ,	/* taken (written) with irqs on, outside irq */
	ENABLED_HARDIRQ_READ,
	NR_USAGE
};
static const char *const usage_name[NR_USAGE] = {
	"IN-HARDIRQ-W", "IN-HARDIRQ-R", "HARDIRQ-ON-W", "HARDIRQ-ON-R",
};
/* For each usage, the usages it must never meet in one class. */
static const unsigned int usage_conflicts[NR_USAGE] = {
	[USED_IN_HARDIRQ] = 1u << ENABLED_HARDIRQ | 1u << ENABLED_HARDIRQ_READ,
	[USED_IN_HARDIRQ_READ] = 1u << ENABLED_HARDIRQ,
	[ENABLED_HARDIRQ] = 1u << USED_IN_HARDIRQ | 1u << USED_IN_HARDIRQ_READ,
	[ENABLED_HARDIRQ_READ] = 1u << USED_IN_HARDIRQ,
};

struct lock_class {
	const void *key;
	unsigned int subclass;
	const char *name;		/* NULL: a static lock with no name */
	unsigned long first_ip;		/* where it was first taken */
	int first_edge;			/* index + 1 into edges[], 0: none */
	unsigned int usage;		/* bits of the enum above */
	unsigned long usage_ip[NR_USAGE];
	bool nmi_safe;			/* lockdep_set_nmi_safe() */
	bool usage_reported, nmi_reported, order_reported;
	unsigned int bfs_gen;		/* the search that last reached it */
	int bfs_edge;			/* edge index it was reached by */
};

/* "to was taken at to_ip while from, taken at from_ip, was held". */
struct lock_edge {
	u16 from, to;
	int next;			/* from's next edge + 1, 0: last */
	unsigned long from_ip, to_ip;
};

static struct lock_class classes[MAX_LOCKDEP_KEYS];
static unsigned int nr_classes;
static struct lock_class *class_hash[CLASS_HASH_SIZE];
static struct lock_edge edges[MAX_LOCKDEP_EDGES];
static unsigned int nr_edges;
static u64 chain_hash[CHAIN_HASH_SIZE];
static unsigned int nr_chains;
static u16 bfs_queue[MAX_LOCKDEP_KEYS];
static unsigned int bfs_gen;

/* Not validated itself: taken only inside the recursion flag. */
static arch_spinlock_t graph_lock = __ARCH_SPIN_LOCK_UNLOCKED;
static bool ld_on;
static bool ld_full_said;
static unsigned long ld_untracked;	/* acquisitions of dynamic locks with no key */
atomic_t lockdep_reports = ATOMIC_INIT(0);
const char *lockdep_last_report;

static DEFINE_PER_CPU(int, ld_recursion);
static DEFINE_PER_CPU(struct lockdep_held, ld_hardirq_held);
static DEFINE_PER_CPU(struct lockdep_held, ld_nmi_held);
static DEFINE_PER_CPU(struct lockdep_held, ld_boot_held);

extern char __data_start[], __bss_end[];

bool lockdep_enabled(void)
{
	return READ_ONCE(ld_on);
}

/* A lock in the kernel image (not kmalloc'd, not an AP's per-CPU copy). */
static bool static_obj(const void *p)
{
	return (const char *)p >= __data_start && (const char *)p < __bss_end;
}

static struct lockdep_held *ctx_of(unsigned int pc)
{
	struct task *t;

	if (pc & NMI_MASK)
		return this_cpu_ptr(&ld_nmi_held);
	if (pc & HARDIRQ_MASK)
		return this_cpu_ptr(&ld_hardirq_held);
	t = current;
	/* An AP's boot code runs as kmain (CPU 0's task) until its idle
	 * task exists: its locks are its CPU's own. */
	if (!t || (!t->stack && t->cpu != raw_smp_processor_id()))
		return this_cpu_ptr(&ld_boot_held);
	return &t->lockdep;
}

static struct lockdep_held *ctx_now(void)
{
	return ctx_of(preempt_count());
}

/*
 * The way into lockdep's own work from a hook: irqs off and this CPU's
 * recursion flag set, so the locks lockdep itself takes (printk's) are
 * not validated.  False, with irqs as they were, if lockdep is already
 * at work on this CPU (a hook called from inside it).
 */
static bool ld_enter(unsigned long *flags)
{
	local_irq_save(*flags);
	if (this_cpu_read(ld_recursion)) {
		local_irq_restore(*flags);
		return false;
	}
	this_cpu_write(ld_recursion, 1);
	return true;
}

static void ld_exit(unsigned long flags)
{
	this_cpu_write(ld_recursion, 0);
	local_irq_restore(flags);
}

static void sym(char *buf, size_t n, unsigned long ip)
{
	if (ip)
		sprint_symbol(buf, n, ip);
	else
		snprintf(buf, n, "?");
}

static void class_name(char *buf, size_t n, const struct lock_class *c)
{
	char s[80];

	if (c->name)
		snprintf(buf, n, c->subclass ? "%s/%u" : "%s", c->name, c->subclass);
	else {
		sym(s, sizeof(s), c->first_ip);
		snprintf(buf, n, "lock@%p (first taken at %s)", c->key, s);
	}
}

/* ---- classes ---- */

static unsigned int ptr_hash(const void *p, unsigned int sub)
{
	u64 h = ((u64)(unsigned long)p ^ sub) * 0x9e3779b97f4a7c15ull;

	return (unsigned int)(h >> 40);
}

static struct lock_class *find_class(const void *key, unsigned int sub)
{
	for (unsigned int i = ptr_hash(key, sub);; i++) {
		struct lock_class *c = __atomic_load_n(&class_hash[i & (CLASS_HASH_SIZE - 1)],
						       __ATOMIC_ACQUIRE);
		if (!c || (c->key == key && c->subclass == sub))
			return c;
	}
}

static const char *full_what;	/* the table that filled, for the report */

/* Graph lock held.  NULL when the table is full (full_what says so). */
static struct lock_class *register_class(const void *key, unsigned int sub,
					 const char *name, unsigned long ip)
{
	struct lock_class *c = find_class(key, sub);
	unsigned int i;

	if (c)
		return c;
	if (nr_classes >= MAX_LOCKDEP_KEYS) {
		full_what = "MAX_LOCKDEP_KEYS";
		return NULL;
	}
	c = &classes[nr_classes++];
	c->key = key;
	c->subclass = sub;
	c->name = name;
	c->first_ip = ip;
	for (i = ptr_hash(key, sub); class_hash[i & (CLASS_HASH_SIZE - 1)]; i++)
		;
	__atomic_store_n(&class_hash[i & (CLASS_HASH_SIZE - 1)], c, __ATOMIC_RELEASE);
	return c;
}

static void graph_lock_irqs_off(void)
{
	__arch_spin_lock(&graph_lock);
}

static void graph_unlock(void)
{
	__arch_spin_unlock(&graph_lock);
}

static void report_full(void);

static const void *map_key(const struct lockdep_map *map)
{
	if (map->key)
		return map->key;
	return static_obj(map) ? map : NULL;
}

/* Irqs off, recursion flag set.  NULL: untracked, or no room. */
static struct lock_class *get_class(struct lockdep_map *map, unsigned int sub,
				    const char *name, bool may_register, unsigned long ip)
{
	const void *key = map_key(map);
	struct lock_class *c;

	if (!key) {
		ld_untracked++;
		return NULL;
	}
	if (!sub && (c = READ_ONCE(map->class_cache)))
		return c;
	c = find_class(key, sub);
	if (!c && may_register) {
		graph_lock_irqs_off();
		c = register_class(key, sub, map->name ? map->name : name, ip);
		graph_unlock();
		if (!c)
			report_full();
	}
	if (c && !sub)
		WRITE_ONCE(map->class_cache, c);
	return c;
}

/* ---- reports ---- */

static void report_full(void)
{
	WRITE_ONCE(ld_on, false);
	if (__atomic_exchange_n(&ld_full_said, true, __ATOMIC_RELAXED))
		return;
	atomic_inc(&lockdep_reports);
	printk(KERN_WARNING "lockdep: %s too low (%u classes, %u edges, %u chains); "
	       "lock validation turned off\n", full_what ? full_what : "a table",
	       nr_classes, nr_edges, nr_chains);
	WARN(1, "lockdep: table full (%s), lock validation off",
	     full_what ? full_what : "?");
}

static void print_held(const struct lockdep_held *h, const char *who)
{
	char n[96], s[80];

	printk(KERN_WARNING "%d lock%s held by %s/%d (%s):\n", h->depth,
	       h->depth == 1 ? "" : "s", current ? current->name : "?",
	       raw_smp_processor_id(), who);
	for (int i = 0; i < h->depth; i++) {
		class_name(n, sizeof(n), h->held[i].class);
		sym(s, sizeof(s), h->held[i].ip);
		printk(KERN_WARNING " #%d: (%s)%s, taken at %s\n", i, n,
		       h->held[i].read ? " read" : "", s);
	}
}

static const char *ctx_name(unsigned int pc)
{
	return pc & NMI_MASK ? "NMI" : pc & HARDIRQ_MASK ? "hardirq" : "task";
}

/*
 * The context of every report made outside lockdep's hooks (suspicious
 * RCU usage, a failed assertion, a sleep or synchronize_*() in atomic
 * context): what makes this context atomic or a reader, then its held
 * locks.  May run inside a hook's report too (the flag nests).
 */
void lockdep_print_context(void)
{
	unsigned long flags;
	unsigned int pc = preempt_count();
	struct task *t = current;

	printk(KERN_WARNING "%s/%d (%s context): preempt_count=%#x, irqs %s, "
	       "rcu_read_lock() nesting %d, RCU %s this CPU\n", t ? t->name : "?",
	       raw_smp_processor_id(), ctx_name(pc), pc, irqs_disabled() ? "off" : "on",
	       t ? t->rcu_read_lock_nesting : 0,
	       rcu_is_watching() ? "watches" : "does not watch");
	if (!READ_ONCE(ld_on))
		return;
	local_irq_save(flags);
	this_cpu_write(ld_recursion, this_cpu_read(ld_recursion) + 1);
	print_held(ctx_of(pc), ctx_name(pc));
	this_cpu_write(ld_recursion, this_cpu_read(ld_recursion) - 1);
	local_irq_restore(flags);
}

/* Held locks of this context that spin (all but mutexes), for might_sleep(). */
int lockdep_depth_spinning(void)
{
	const struct lockdep_held *h = ctx_now();
	int n = 0;

	for (int i = 0; i < h->depth; i++)
		n += !h->held[i].sleeping;
	return n;
}

int lockdep_depth(void)
{
	return ctx_now()->depth;
}

struct cycle {
	unsigned int n;
	int edge[MAX_CYCLE];
};

static void report_cycle(const struct held_lock *prev, struct lock_class *next,
			 unsigned long ip, const struct cycle *cy,
			 const struct lockdep_held *h)
{
	char a[96], b[96], s1[80], s2[80];

	atomic_inc(&lockdep_reports);
	class_name(a, sizeof(a), next);
	class_name(b, sizeof(b), prev->class);
	sym(s1, sizeof(s1), ip);
	sym(s2, sizeof(s2), prev->ip);
	printk(KERN_WARNING "======================================================\n");
	printk(KERN_WARNING "WARNING: possible circular locking dependency detected\n");
	printk(KERN_WARNING "%s/%d is trying to acquire lock:\n", current->name,
	       raw_smp_processor_id());
	printk(KERN_WARNING "  (%s), at %s\n", a, s1);
	printk(KERN_WARNING "but it already holds lock:\n");
	printk(KERN_WARNING "  (%s), taken at %s\n", b, s2);
	printk(KERN_WARNING "which lock already depends on the new lock.\n");
	printk(KERN_WARNING "the existing dependency chain (in reverse order) is:\n");
	for (int i = (int)cy->n - 1; i >= 0; i--) {
		const struct lock_edge *e = &edges[cy->edge[i]];

		class_name(a, sizeof(a), &classes[e->to]);
		class_name(b, sizeof(b), &classes[e->from]);
		sym(s1, sizeof(s1), e->to_ip);
		sym(s2, sizeof(s2), e->from_ip);
		printk(KERN_WARNING "-> #%d (%s): taken at %s\n", i, a, s1);
		printk(KERN_WARNING "       while holding (%s), taken at %s\n", b, s2);
	}
	print_held(h, "task");
	lockdep_last_report = "possible circular locking dependency detected";
	WARN(1, "possible circular locking dependency detected");
}

static void report_recursion(const struct held_lock *prev, struct lock_class *next,
			     unsigned long ip, const struct lockdep_held *h)
{
	char a[96], s1[80], s2[80];

	atomic_inc(&lockdep_reports);
	class_name(a, sizeof(a), next);
	sym(s1, sizeof(s1), ip);
	sym(s2, sizeof(s2), prev->ip);
	printk(KERN_WARNING "WARNING: possible recursive locking detected\n");
	printk(KERN_WARNING "%s/%d is trying to acquire lock (%s) at %s\n"
	       "but already holds a lock of the same class, taken at %s;\n"
	       "two of one class at once need a subclass (arch_spin_lock_nested())\n",
	       current->name, raw_smp_processor_id(), a, s1, s2);
	print_held(h, "task");
	lockdep_last_report = "possible recursive locking detected";
	WARN(1, "possible recursive locking detected");
}

static void report_usage(struct lock_class *c, unsigned int now, unsigned int was,
			 unsigned long ip)
{
	char a[96], s1[80], s2[80];

	atomic_inc(&lockdep_reports);
	class_name(a, sizeof(a), c);
	sym(s1, sizeof(s1), ip);
	sym(s2, sizeof(s2), c->usage_ip[was]);
	printk(KERN_WARNING "WARNING: inconsistent lock state\n");
	printk(KERN_WARNING "inconsistent {%s} -> {%s} usage.\n", usage_name[was],
	       usage_name[now]);
	printk(KERN_WARNING "lock (%s): {%s} at %s\n", a, usage_name[was], s2);
	printk(KERN_WARNING "                 {%s} at %s\n", usage_name[now], s1);
	printk(KERN_WARNING "an interrupt taking it on a CPU that holds it with irqs "
	       "enabled deadlocks that CPU\n");
	lockdep_last_report = "inconsistent lock state";
	WARN(1, "inconsistent lock state: (%s) %s and %s", a, usage_name[was],
	     usage_name[now]);
}

static void report_nmi(struct lock_class *c, unsigned long ip)
{
	char a[96], s1[80];

	atomic_inc(&lockdep_reports);
	if (c)
		class_name(a, sizeof(a), c);
	else
		snprintf(a, sizeof(a), "a lock first taken here");
	sym(s1, sizeof(s1), ip);
	printk(KERN_WARNING "WARNING: lock (%s) taken in NMI context at %s, "
	       "and not declared NMI-safe (lockdep_set_nmi_safe())\n", a, s1);
	lockdep_last_report = "lock taken in NMI context";
	WARN(1, "lock taken in NMI context: (%s)", a);
}

/* ---- usage ---- */

static void check_irq_order_usage(struct lock_class *c, unsigned int bit);

/* nmi: the graph is not to be searched (its lock may be held below us). */
static void mark_usage(struct lock_class *c, unsigned int bit, unsigned long ip, bool nmi)
{
	unsigned int old = __atomic_load_n(&c->usage, __ATOMIC_RELAXED);
	unsigned int bad;

	if (old & (1u << bit))
		return;
	c->usage_ip[bit] = ip;
	old = __atomic_fetch_or(&c->usage, 1u << bit, __ATOMIC_ACQ_REL);
	if (!nmi)
		check_irq_order_usage(c, bit);
	bad = old & usage_conflicts[bit];
	if (!bad || __atomic_exchange_n(&c->usage_reported, true, __ATOMIC_RELAXED))
		return;
	report_usage(c, bit, __builtin_ctz(bad), ip);
}

/* ---- the graph ---- */

static u64 chain_mix(u64 key, const struct lock_class *c)
{
	u64 k = (key ^ ((u64)(c - classes) + 1)) * 0x9e3779b97f4a7c15ull;

	k ^= k >> 29;
	return k ? k : 1;
}

static bool chain_seen(u64 key)
{
	for (unsigned int i = (unsigned int)key;; i++) {
		u64 k = __atomic_load_n(&chain_hash[i & (CHAIN_HASH_SIZE - 1)], __ATOMIC_ACQUIRE);
		if (!k)
			return false;
		if (k == key)
			return true;
	}
}

/* Graph lock held. */
static bool chain_add(u64 key)
{
	unsigned int i;

	if (nr_chains >= MAX_LOCKDEP_CHAINS) {
		full_what = "MAX_LOCKDEP_CHAINS";
		return false;
	}
	for (i = (unsigned int)key; chain_hash[i & (CHAIN_HASH_SIZE - 1)]; i++)
		;
	nr_chains++;
	__atomic_store_n(&chain_hash[i & (CHAIN_HASH_SIZE - 1)], key, __ATOMIC_RELEASE);
	return true;
}

/* Graph lock held: is there a path from `from` to `to`?  Fills cy with it. */
static bool bfs_path(struct lock_class *from, struct lock_class *to, struct cycle *cy)
{
	unsigned int head = 0, tail = 0;
	u16 t = (u16)(to - classes);

	if (++bfs_gen == 0)
		bfs_gen = 1;
	from->bfs_gen = bfs_gen;
	from->bfs_edge = -1;
	bfs_queue[tail++] = (u16)(from - classes);
	while (head < tail) {
		struct lock_class *x = &classes[bfs_queue[head++]];

		for (int e = x->first_edge - 1; e >= 0; e = edges[e].next - 1) {
			struct lock_class *y = &classes[edges[e].to];

			if (y->bfs_gen == bfs_gen)
				continue;
			y->bfs_gen = bfs_gen;
			y->bfs_edge = e;
			if (edges[e].to == t) {
				cy->n = 0;
				for (int p = e; p >= 0 && cy->n < MAX_CYCLE;
				     p = classes[edges[p].from].bfs_edge)
					cy->edge[cy->n++] = p;
				return true;
			}
			bfs_queue[tail++] = edges[e].to;
		}
	}
	return false;
}

/* Graph lock held.  0: fine, 1: cycle (cy filled), -1: table full. */
static int add_edge(const struct held_lock *prev, struct lock_class *next,
		    unsigned long ip, struct cycle *cy)
{
	struct lock_class *p = prev->class;
	int found = 0;

	for (int e = p->first_edge - 1; e >= 0; e = edges[e].next - 1)
		if (&classes[edges[e].to] == next)
			return 0;
	if (bfs_path(next, p, cy))
		found = 1;	/* recorded all the same: reported once */
	if (nr_edges >= MAX_LOCKDEP_EDGES) {
		full_what = "MAX_LOCKDEP_EDGES";
		return -1;
	}
	edges[nr_edges] = (struct lock_edge){
		.from = (u16)(p - classes), .to = (u16)(next - classes),
		.next = p->first_edge, .from_ip = prev->ip, .to_ip = ip,
	};
	p->first_edge = (int)++nr_edges;
	return found;
}

/*
 * Graph lock held: a class with usage bit `bit` among c and the classes
 * reachable from it, forward (locks taken while c was held) or backward
 * (locks held when c was taken); self: whether c itself counts.  The
 * graph has tens to hundreds of edges, so going backward scans them all
 * for each class reached.
 */
static struct lock_class *find_usage(struct lock_class *c, bool forward,
				     unsigned int bit, bool self)
{
	unsigned int head = 0, tail = 0;

	if (++bfs_gen == 0)
		bfs_gen = 1;
	c->bfs_gen = bfs_gen;
	bfs_queue[tail++] = (u16)(c - classes);
	while (head < tail) {
		struct lock_class *x = &classes[bfs_queue[head++]];

		if ((x != c || self) && (__atomic_load_n(&x->usage, __ATOMIC_RELAXED) & (1u << bit)))
			return x;
		for (unsigned int e = 0; e < nr_edges; e++) {
			unsigned int near = forward ? edges[e].from : edges[e].to;
			struct lock_class *y = &classes[forward ? edges[e].to : edges[e].from];

			if (&classes[near] != x || y->bfs_gen == bfs_gen)
				continue;
			y->bfs_gen = bfs_gen;
			bfs_queue[tail++] = (u16)(y - classes);
		}
	}
	return NULL;
}

/*
 * Linux's "HARDIRQ-safe -> HARDIRQ-unsafe lock order": safe is taken in
 * hardirq context, unsafe with irqs on, and unsafe is taken (directly or
 * down a chain) while safe is held.  CPU 0 holds unsafe with irqs on;
 * CPU 1 takes safe, then waits for unsafe; CPU 0's interrupt waits for
 * safe: deadlock.  Reported once per safe class.
 */
static void report_irq_order(struct lock_class *safe, struct lock_class *unsafe,
			     unsigned long ip)
{
	char a[96], b[96], s1[80], s2[80], s3[80];

	if (__atomic_exchange_n(&safe->order_reported, true, __ATOMIC_RELAXED))
		return;
	atomic_inc(&lockdep_reports);
	class_name(a, sizeof(a), safe);
	class_name(b, sizeof(b), unsafe);
	sym(s1, sizeof(s1), safe->usage_ip[USED_IN_HARDIRQ]);
	sym(s2, sizeof(s2), unsafe->usage_ip[ENABLED_HARDIRQ]);
	sym(s3, sizeof(s3), ip);
	printk(KERN_WARNING "WARNING: HARDIRQ-safe -> HARDIRQ-unsafe lock order detected\n");
	printk(KERN_WARNING "(%s) is taken in hardirq context, at %s,\n", a, s1);
	printk(KERN_WARNING "(%s) with irqs on, at %s,\n", b, s2);
	printk(KERN_WARNING "and the second is taken (or a lock that leads to it) while the "
	       "first is held; found at %s\n", s3);
	printk(KERN_WARNING "a CPU holding (%s) with irqs on, interrupted by a handler that "
	       "waits for (%s), deadlocks with the CPU that holds it\n", b, a);
	lockdep_last_report = "HARDIRQ-safe -> HARDIRQ-unsafe lock order detected";
	WARN(1, "HARDIRQ-safe -> HARDIRQ-unsafe lock order: (%s) -> (%s)", a, b);
}

/* A class just gained usage bit: does the graph put it on the wrong side? */
static void check_irq_order_usage(struct lock_class *c, unsigned int bit)
{
	struct lock_class *other = NULL;

	if (bit != USED_IN_HARDIRQ && bit != ENABLED_HARDIRQ)
		return;
	graph_lock_irqs_off();
	if (bit == USED_IN_HARDIRQ)
		other = find_usage(c, true, ENABLED_HARDIRQ, false);
	else
		other = find_usage(c, false, USED_IN_HARDIRQ, false);
	graph_unlock();
	if (other && bit == USED_IN_HARDIRQ)
		report_irq_order(c, other, c->usage_ip[bit]);
	else if (other)
		report_irq_order(other, c, c->usage_ip[bit]);
}

/*
 * The new lock (h->held[depth - 1]) after the ones below it: each held
 * class gains an edge to it.  Irqs off, recursion flag set.
 */
static void check_chain(struct lockdep_held *h)
{
	struct held_lock *hl = &h->held[h->depth - 1];
	struct lock_class *safe = NULL, *unsafe = NULL;
	struct cycle cy;
	int bad = 0, bad_at = -1;

	if (chain_seen(hl->chain_key))
		return;
	graph_lock_irqs_off();
	if (chain_seen(hl->chain_key)) {
		graph_unlock();
		return;
	}
	for (int i = 0; i < h->depth - 1 && !bad; i++) {
		if (h->held[i].class == hl->class) {
			bad = 2;
		} else {
			bad = add_edge(&h->held[i], hl->class, hl->ip, &cy);
		}
		if (bad)
			bad_at = i;
	}
	if (bad >= 0 && !chain_add(hl->chain_key))
		bad = -1;
	/* The new edges may join an irq-safe lock to an irq-unsafe one. */
	if (!bad && (unsafe = find_usage(hl->class, true, ENABLED_HARDIRQ, true)))
		for (int i = 0; i < h->depth - 1 && !safe; i++)
			safe = find_usage(h->held[i].class, false, USED_IN_HARDIRQ, true);
	graph_unlock();
	if (safe)
		report_irq_order(safe, unsafe, hl->ip);
	if (bad < 0)
		report_full();
	else if (bad == 1)
		report_cycle(&h->held[bad_at], hl->class, hl->ip, &cy, h);
	else if (bad == 2)
		report_recursion(&h->held[bad_at], hl->class, hl->ip, h);
}

/* ---- the hooks ---- */

void lock_acquire(struct lockdep_map *map, unsigned int subclass, bool trylock,
		  bool read, const char *name, unsigned long ip)
{
	unsigned long flags;
	unsigned int pc;
	struct lockdep_held *h;
	struct lock_class *c;
	struct held_lock *hl;
	bool nmi;

	if (!READ_ONCE(ld_on))
		return;
	if (!ip)
		ip = _RET_IP_;
	if (!ld_enter(&flags))
		return;
	pc = preempt_count();
	nmi = pc & NMI_MASK;
	c = get_class(map, subclass, name, !nmi, ip);
	if (nmi && (!c || !c->nmi_safe)) {
		if (!c || !__atomic_exchange_n(&c->nmi_reported, true, __ATOMIC_RELAXED))
			report_nmi(c, ip);
	}
	if (!c)
		goto out;
	if (pc & (HARDIRQ_MASK | NMI_MASK))
		mark_usage(c, read ? USED_IN_HARDIRQ_READ : USED_IN_HARDIRQ, ip, nmi);
	else if (!irqs_disabled_flags(flags))
		mark_usage(c, read ? ENABLED_HARDIRQ_READ : ENABLED_HARDIRQ, ip, nmi);
	h = ctx_of(pc);
	if (h->depth >= MAX_LOCK_DEPTH) {
		full_what = "MAX_LOCK_DEPTH";
		report_full();
		goto out;
	}
	hl = &h->held[h->depth];
	hl->class = c;
	hl->map = map;
	hl->ip = ip;
	hl->read = read;
	hl->sleeping = map->sleeping;
	hl->chain_key = chain_mix(h->depth ? h->held[h->depth - 1].chain_key : 0, c);
	h->depth++;
	/* A trylock cannot wait, a reader shares: no edge into either. */
	if (h->depth > 1 && !nmi && !trylock && !read)
		check_chain(h);
out:
	ld_exit(flags);
}

static int find_held(const struct lockdep_held *h, const struct lockdep_map *map)
{
	for (int i = h->depth - 1; i >= 0; i--)
		if (h->held[i].map == map)
			return i;
	return -1;
}

void lock_release(struct lockdep_map *map, unsigned long ip)
{
	unsigned long flags;
	unsigned int pc;
	struct lockdep_held *h;
	int i;

	if (!READ_ONCE(ld_on) || !map_key(map))
		return;
	if (!ip)
		ip = _RET_IP_;
	if (!ld_enter(&flags))
		return;
	pc = preempt_count();
	h = ctx_of(pc);
	i = find_held(h, map);
	if (i < 0) {
		char s[80];

		atomic_inc(&lockdep_reports);
		sym(s, sizeof(s), ip);
		printk(KERN_WARNING "WARNING: bad unlock balance detected!\n");
		printk(KERN_WARNING "%s/%d (%s context) is trying to release lock (%s) "
		       "at %s, but it does not hold it: not taken, or taken by another "
		       "task or context\n", current ? current->name : "?",
		       raw_smp_processor_id(), ctx_name(pc), map->name ? map->name : "?", s);
		print_held(h, ctx_name(pc));
		lockdep_last_report = "bad unlock balance detected";
		WARN(1, "bad unlock balance detected");
		goto out;
	}
	/* Out of order is legal: the ones above move down, rehashed. */
	for (int j = i; j < h->depth - 1; j++) {
		h->held[j] = h->held[j + 1];
		h->held[j].chain_key = chain_mix(j ? h->held[j - 1].chain_key : 0,
						 h->held[j].class);
	}
	h->depth--;
out:
	ld_exit(flags);
}

bool lock_is_held(const struct lockdep_map *map)
{
	unsigned int pc = preempt_count();

	if (find_held(ctx_of(pc), map) >= 0)
		return true;
	/* An interrupt runs on top of what it interrupted, on this CPU. */
	if ((pc & HARDIRQ_MASK) && !(pc & NMI_MASK))
		return find_held(ctx_of(0), map) >= 0;
	return false;
}

void lockdep_init_map(struct lockdep_map *map, const char *name,
		      const struct lock_class_key *key)
{
	map->key = key;
	map->name = name;
	WRITE_ONCE(map->class_cache, NULL);
}

void lockdep_set_nmi_safe_map(struct lockdep_map *map)
{
	unsigned long flags;
	struct lock_class *c;

	local_irq_save(flags);
	this_cpu_write(ld_recursion, this_cpu_read(ld_recursion) + 1);
	c = get_class(map, 0, NULL, true, _RET_IP_);
	if (c)
		c->nmi_safe = true;
	this_cpu_write(ld_recursion, this_cpu_read(ld_recursion) - 1);
	local_irq_restore(flags);
}

void lockdep_assert_held_map(const struct lockdep_map *map, const char *what,
			     const char *file, int line)
{
	if (!READ_ONCE(ld_on) || !map_key(map) || lock_is_held(map))
		return;
	atomic_inc(&lockdep_reports);
	lockdep_print_context();
	lockdep_last_report = "lockdep_assert_held";
	warn_slowpath(file, line, "lockdep_assert_held(%s): not held here", what);
}

/*
 * A context ends holding locks, or (a task) inside rcu_read_lock(): a
 * kthread's function returned, an interrupt handler did.  Linux's "lock
 * held when returning to user space!".  Reported once: a lock a handler
 * leaks would otherwise be reported at every interrupt after it.
 */
void lockdep_check_context_end(const char *what)
{
	static bool said;
	struct task *t = current;
	bool task = !(preempt_count() & (HARDIRQ_MASK | NMI_MASK));
	int nest = task && t ? t->rcu_read_lock_nesting : 0;

	if (!READ_ONCE(ld_on) || (!ctx_now()->depth && !nest) ||
	    __atomic_exchange_n(&said, true, __ATOMIC_RELAXED))
		return;
	atomic_inc(&lockdep_reports);
	printk(KERN_WARNING "WARNING: lock held or RCU reader left open when %s!\n", what);
	lockdep_print_context();
	lockdep_last_report = "lock held when a context ends";
	WARN(1, "lock held or RCU reader left open when %s", what);
}

void lockdep_assert_irqs_disabled_at(const char *file, int line)
{
	if (!irqs_disabled())
		warn_slowpath(file, line, "lockdep_assert_irqs_disabled(): irqs are on");
}

void lockdep_assert_preemption_at(bool disabled, const char *file, int line)
{
	unsigned int pc = preempt_count();
	bool off = pc != 0 || irqs_disabled();

	if (off == disabled || !READ_ONCE(ld_on))
		return;
	atomic_inc(&lockdep_reports);
	lockdep_print_context();
	lockdep_last_report = disabled ? "lockdep_assert_preemption_disabled" :
					 "lockdep_assert_preemption_enabled";
	warn_slowpath(file, line, "%s(): preempt_count=%#x, irqs %s", lockdep_last_report,
		      pc, irqs_disabled() ? "off" : "on");
}

/*
 * RCU-lockdep's report (rcu/rcupdate.h RCU_LOCKDEP_WARN: once per site):
 * an RCU-protected pointer used outside the reader and without the lock
 * its condition names, or RCU used where it does not watch this CPU.
 */
void lockdep_rcu_suspicious(const char *file, int line, const char *s)
{
	atomic_inc(&lockdep_reports);
	printk(KERN_WARNING "=============================\n");
	printk(KERN_WARNING "WARNING: suspicious RCU usage\n");
	printk(KERN_WARNING "%s:%d %s!\n", file, line, s);
	if (!rcu_is_watching())
		printk(KERN_WARNING "RCU used illegally from extended quiescent state!\n");
	lockdep_print_context();
	lockdep_last_report = "suspicious RCU usage";
	warn_slowpath(file, line, "suspicious RCU usage: %s", s);
}

void lockdep_stats(unsigned int *cl, unsigned int *ed, unsigned int *ch)
{
	*cl = READ_ONCE(nr_classes);
	*ed = READ_ONCE(nr_edges);
	*ch = READ_ONCE(nr_chains);
}

void lockdep_init(void)
{
	WRITE_ONCE(ld_on, true);
}

/*
 * Not from lockdep_init(): that runs before the serial port is up, so the
 * line would reach the memory log and the screen (which replays it) but
 * not the serial console, and the two would no longer agree.
 */
void lockdep_info(void)
{
	printk(KERN_INFO "lockdep: lock validator on: %u classes, %u edges, %u chains, "
	       "%u held locks per context at most\n", MAX_LOCKDEP_KEYS,
	       MAX_LOCKDEP_EDGES, MAX_LOCKDEP_CHAINS, MAX_LOCK_DEPTH);
}

#endif /* CONFIG_LOCKDEP */
