/*
 * rcu/kvfree.c - kfree_rcu(), kvfree_rcu_mightsleep() and
 * kvfree_rcu_barrier() (contract in rcu/rcupdate.h): Linux's
 * kfree_rcu_cpu batching, reduced to what this kernel needs.
 *
 * Each CPU's struct kfree_rcu_cpu collects kfree_rcu(ptr, rhf)'s objects
 * on a chain through their own rcu_head (the head's func holds the head's
 * offset in the object, as in Linux's fallback), so queueing allocates
 * nothing and costs no byte beyond the object.  Linux puts pointers in
 * pages first (8 bytes an object, a quarter of a 32-byte one, and a page
 * per CPU per batch) to free them with kfree_bulk() from a page walk; we
 * have no kfree_bulk() to gain from it.  Objects
 * without an rcu_head (kvfree_rcu_mightsleep()) go in pages of pointers
 * (struct kvfree_rcu_bulk_data, one physical page each), newest page
 * first; when no page can be had their caller waits in synchronize_rcu()
 * and frees them itself.
 *
 * Nothing waits per object, and a grace period serves every CPU's
 * objects at once.  The monitor, one timer for all CPUs armed by the
 * first object queued after a batch went, fires kfree_rcu.drain_ms
 * later and moves every CPU's queued pages and chains into the batch
 * (kfree_rcu_gp), which it hands to one grace period with one
 * call_rcu().  There is one batch: while it waits for its grace period
 * objects keep collecting, and its callback arms the monitor for them.
 * The callback deals the batch's pages and chains out among the kfree_rcu/N
 * kthreads (one per CPU online at boot, PRIO_HIGH as rcuc/N), which
 * free them a page or 256 chained objects at a time, yielding between
 * (Linux's kfree_rcu_work() in a workqueue), and keep up to
 * KFREE_CACHE_MAX pages for later.
 *
 * The pace: the next batch goes kfree_rcu.gp_gap times as long after a
 * batch's grace period ended as that batch waited for it (by default
 * three times: kfree_rcu() keeps grace periods busy a quarter of the
 * time at most).  Handing a batch over as soon as the last one's grace
 * period ends would run grace periods back to back under a steady
 * stream of kfree_rcu(), as many as a call_rcu() per object does.
 * kvfree_rcu_barrier() does not wait for the pace.
 *
 * The grace periods saved are paid in memory, whatever the batching:
 * an object queued after a grace period ended is freed at the end of a
 * later one at the earliest, so just before each GP end everything
 * queued since the last is in flight: with N GPs over a steady run of n
 * objects, the peak is at least n/N, for any design (polled cookies
 * riding a GP already in progress and freeing at its very end
 * included).  call_rcu()'s GPs run back to back, so it holds about two
 * GPs' worth, at its longest GPs: measured in rcuscale's kfree test
 * (paper_gc, kfree_rcu_mem rows, 2 and 4 CPUs), 3.4-16 times its n/N.
 * 3x fewer GPs than call_rcu() and less memory therefore needs
 * call_rcu()'s peak above 3n/N plus what kfree_rcu()'s own GP holds:
 * only where grace period lengths vary widely, so the goal is met in
 * some runs and not others (0-2 of 10-16 interleaved pairs a size).
 * With GPs all of one length G the arithmetic is plain: call_rcu()
 * peaks at about 2G of objects, kfree_rcu() at (gp_gap + 1)G, twice
 * as much at the default; both goals need call_rcu()'s longest GPs to
 * be over about twice its mean, and kfree_rcu()'s pace not stretched
 * by such a GP of its own.
 * gp_gap is the knob: 0 gave 1.7-2.7x fewer GPs at 1.11-1.13x
 * call_rcu()'s peak, 3 gives 3.7-5.1x fewer at 1.3-1.7x (3.4-7.5x
 * fewer at 1.9-2.0x on a host at load 40).  A running mean of the
 * waits as the pace cut the peak to 1.26-1.28x in one series; in
 * another its peak ratio was 0.85-1.09 times the last wait's; pairs
 * meeting both goals stayed at 0-2 of 12-16 a size: not taken.
 *
 * Where the time in flight goes (kfree_rcu_stats' wait_*, the kfree
 * bench's kfree_rcu_mem rows; 14 pairs a size, medians, jiffies): an
 * object waits 5.9 (2 CPUs) / 17.6 (4 CPUs) to be handed to a GP, 2.0
 * / 4.4 for it and 3.4 / 9.8 for its worker, where a call_rcu()
 * object waits 7.2 / 33.4 in all.  The peak is one batch in its GP:
 * the largest holds 58k of 160k / 178k of 320k objects.  It is that
 * big because a batch's GP can be long under a kfree_rcu() flood (42
 * ms of ktime for a 2-object batch in a 4-CPU debug boot, whose CPUs
 * ran the queueing threads, which switch at their cond_resched()) and
 * the pace multiplies it (the next batch went 73 ms later with 225k
 * objects).  Handing a batch at the first kfree_rcu() past
 * the pace instead of on the timer, or as soon as a CPU holds its
 * share of (gp_gap + 1) mean GPs' worth of objects, left the peak at
 * 1.9-2.4x call_rcu()'s, as the pace alone (10 pairs a size): not
 * taken either.
 *
 * How far each path is from n/N (the kfree bench's eff_x100, peak x
 * N / n; 62 runs a size at 2 / 4 CPUs, interleaved, medians):
 * kfree_rcu() is at 2.6 / 2.3, call_rcu() at 6.4 / 6.9, with 5.4 /
 * 4.8x fewer GPs and 2.0 / 1.8x the peak (both goals met in 8 / 3 of
 * the 62).  At kfree_rcu()'s peak 85 / 79% of the objects are the one
 * batch in its GP, 12 / 18% are on the CPUs and none wait for a
 * worker: the free phase (a third of the mean time in flight) ends
 * before the next batch's GP does, since a worker outranks the
 * queueing task on its CPU, so it costs no peak memory.  The largest
 * batch is 2.4 / 2.2x the mean one, nearly all of the distance from
 * 1: the batches are uneven.  gc.timeline shows why: GPs of 200 ms
 * and more when the host stalls a vCPU (call_rcu() too: 5 GPs in one
 * 1.26 s run), and after such a wait the pace holds the next batch
 * three times as long (no batch for 500 ms while 145k objects queued,
 * in one 4-CPU run).  At these efficiencies exactly 3x fewer GPs would
 * put kfree_rcu()'s peak at 3 x 2.6 / 6.4 = 1.2 of call_rcu()'s at 2
 * CPUs and 1.0 at 4: at 4 the pace saves more GPs than the goal asks,
 * at 2 the batches would have to be nearly even (efficiency under 2).
 * The closed loop (kfree_rcu() runs at 1.5x call_rcu()'s rate) is not
 * what hides it: at one offered rate for both (gc.kfree_paced=80, 31
 * pairs) the peak ratio is 2.2 / 1.9 at 4.9 / 4.8x fewer GPs.  Paces
 * that do not multiply the GP were tried, interleaved with the
 * default: a batch every 10 or 15 ms from the last hand-off once its
 * GP is over, and the default pace capped at 15 ms.  Each moved along
 * the same trade and never past it: 10 ms gave 4.4 / 2.4x fewer GPs at
 * 1.2 / 0.84 of call_rcu()'s peak (12-14 pairs), 15 ms 5.9 / 2.8x at
 * 1.8 / 1.0 (28), the cap 5.8 / 2.7x at 2.3 / 1.3 (22), kfree_rcu()'s
 * efficiency no better (2.0-3.5: a jiffies pace is as uneven in
 * objects as the host makes the tick), pairs meeting both goals 0-5
 * of 12-28: not taken.  Even batches would need a hand-off by count,
 * which the share bound above approximated.
 *
 * A hand-off by count was tried (a batch goes once the objects queued
 * reach 350% of the median queued during the last five GPs): the peak
 * went from 1.99 to 1.76x call_rcu()'s at 2 CPUs and from 1.81 to
 * 1.55x at 4, still above it, at 4.6 / 4.5x fewer GPs; but the
 * rcuscale-style row (bench-kfree-2) then took 1.5-1.7x as long per
 * object against call_rcu()'s in the same boots.  Not taken.  With one
 * batch in flight, handed over every P, GPs of length G, the peak is
 * r(P + G) for T/P GPs: efficiency 1 + G/P at best.  docs/design.md
 * ("kfree_rcu()'s memory against call_rcu()'s") shows any batching
 * with k times fewer GPs peaks at (k + W/G)/2 times call_rcu()'s at
 * least, with even GPs, and measures where both goals held: only in
 * pairs whose call_rcu() run drew a long stall (docs/kfree-model).
 *
 * call_rcu() grace periods wait for every RCU-sched reader and every
 * rcu_read_lock() reader (preemptible RCU's normal grace periods are
 * RCU-sched's, rcu/preempt.c), so one kind of batch serves both; with
 * PREEMPT_RCU=0 the names are RCU-sched's anyway.
 *
 * Memory pressure: kfree_rcu_shrink() (a shrinker, kernel/shrinker.h,
 * called by the page allocator before it fails) gives back every cached
 * page.  CPU hotplug: a CPU going offline hands what it has queued to
 * the CPU running the hook (cpuhp); a batch in flight finishes where
 * rcu_migrate_callbacks() moves its callback, the monitor timer moves
 * with that CPU's other timers, and its worker with its other tasks.
 *
 * Debugging (test build): every queued object is tracked as an rcu_head
 * at its own address by rcu/debug_head.c, so a second kfree_rcu() of an
 * object still queued, or one of freed memory, is an ODEBUG warning and
 * refused: the object is freed once.
 */
#include "rcu/tree.h"
#include "rcu/debug_head.h"
#include "rcu/kvfree.h"
#include "kernel/mutex.h"
#include "kernel/cmdline.h"
#include "kernel/cpu.h"
#include "kernel/test_gate.h"
#include "kernel/pmm.h"
#include "kernel/printk.h"
#include "kernel/shrinker.h"
#include "kernel/slab.h"
#include "kernel/timer.h"
#include "asm/page.h"

#define KFREE_CACHE_MAX		5	/* pages each CPU keeps for later batches */

struct kvfree_rcu_bulk_data {
	struct list_head list;
	unsigned long nr_records;
	void *records[];
};

#define KVFREE_BULK_MAX \
	((PAGE_SIZE - sizeof(struct kvfree_rcu_bulk_data)) / sizeof(void *))

/*
 * Objects chained through their own rcu_head, newest first: each head's
 * func holds its offset in the object (as Linux's fallback does).  last
 * is the oldest, so that chains join in O(1).
 */
struct kfree_chain {
	struct rcu_head *head, *last;
	long nr;
};

static void chain_push(struct kfree_chain *c, struct rcu_head *h)
{
	h->next = c->head;
	if (!c->head)
		c->last = h;
	c->head = h;
	c->nr++;
}

/* src's objects go in front of dst's; src is left empty. */
static void chain_join(struct kfree_chain *dst, struct kfree_chain *src)
{
	if (!src->head)
		return;
	src->last->next = dst->head;
	if (!dst->head)
		dst->last = src->last;
	dst->head = src->head;
	dst->nr += src->nr;
	*src = (struct kfree_chain){ 0 };
}

/* One CPU's objects not yet handed to a grace period. */
struct kfree_rcu_cpu {
	spinlock_t lock;			/* taken with irqs off */
	struct list_head bulk_head;		/* pages being filled, newest first */
	struct kfree_chain chain;		/* kfree_rcu(ptr, rhf)'s objects */
	unsigned long count;			/* objects queued, not in a batch */
	unsigned long queued_seq;		/* objects ever queued here */
	long nr_queued;				/* ...by kvfree_call_rcu() here */
	unsigned long submitted_seq;		/* of those, handed to a batch */
	unsigned long jsum;			/* jiffies at queueing, summed */
	bool monitor_asked;			/* since this CPU's last drain */
	struct list_head cache;			/* empty pages */
	int nr_cached;
	int cpu;
	bool ready;
};

static DEFINE_PER_CPU(struct kfree_rcu_cpu, krc);

/*
 * The batch: every CPU's queued objects, handed to one grace period
 * with one call_rcu().  There is one, so a grace period serves one
 * batch and a batch one grace period; kfree_rcu_gp_lock is taken
 * before any CPU's krcp->lock.
 */
static struct {
	struct rcu_head rcu;
	struct list_head pages;			/* pages of pointers, all CPUs' */
	struct kfree_chain chain[NR_CPUS];	/* CPUs' chains, by worker */
	bool busy;				/* handed to call_rcu(), GP not over */
	long nr;				/* objects in it */
	bool forced;				/* by kvfree_rcu_barrier() */
	unsigned long handed_at;		/* jiffies of its call_rcu() */
	unsigned long next;			/* no batch before (jiffies) */
	struct timer_list monitor;
	bool ready;				/* kfree_rcu_init_late() ran */
} kfree_rcu_gp;

/*
 * The kfree_rcu/N kthreads, one on each CPU online at boot: a batch's
 * pages are dealt out among them, so each CPU frees its share as each
 * CPU's callbacks free call_rcu()'s objects.  One freeing CPU could not
 * keep up with the others queueing, and what it had not freed yet piled
 * up.  Lists and nr_handed under kfree_rcu_gp_lock.
 */
/*
 * When the grace periods of objects waiting to be freed ended, summed
 * over the objects (jiffies), for wait_free: a worker can be dealt
 * several batches before it runs, so one time would not do.
 */
struct kfree_ends {
	u64 jsum;
	long nr;
};

struct kfree_rcu_worker {
	struct list_head pages;			/* past their GP, to free */
	struct kfree_chain chain;		/* past their GP, to free */
	unsigned long nr_handed;		/* batches given to it */
	unsigned long nr_freed;			/* ...it has freed (release) */
	struct kfree_ends ends;			/* when their GPs ended */
	wait_queue_head_t wq;
	struct task *task;
};
static struct kfree_rcu_worker kfree_workers[NR_CPUS];
static int kfree_nr_workers;
static DECLARE_WAIT_QUEUE_HEAD(kfree_rcu_freed_wq);	/* barriers wait */
static DEFINE_SPINLOCK(kfree_rcu_gp_lock);

unsigned int kfree_rcu_drain_ms = 5;
core_param(kfree_rcu.drain_ms, kfree_rcu_drain_ms, uint,
	   "ms kfree_rcu()'s monitor waits after an object finds nothing queued");

/* The monitor's pace: after a batch's grace period, the next batch
 * waits gp_gap times as long as that one waited for its GP. */
unsigned int kfree_rcu_gp_gap = 3;
core_param(kfree_rcu.gp_gap, kfree_rcu_gp_gap, uint,
	   "kfree_rcu(): idle time between its grace periods, in units of the last one's wait");

struct kfree_rcu_stats kfree_rcu_stats;

static void stat_add(atomic_long_t *v, long n) { atomic_long_add(n, v); }
static int kfree_rcu_offline_hook(int cpu);

/* ---- pages ---- */

#ifdef CONFIG_SANITIZE
bool kfree_rcu_inject_nopage;
unsigned int kfree_rcu_inject;
core_param(kfree_rcu.inject, kfree_rcu_inject, uint,
	   "test build: faults to show the kfree_rcu tests catch them (rcu/kvfree.h KFREE_INJECT_*)");
#define kfree_inject(bit) unlikely(READ_ONCE(kfree_rcu_inject) & (bit))
#define kfree_nopage() READ_ONCE(kfree_rcu_inject_nopage)
#else
#define kfree_nopage() false
#define kfree_inject(bit) false
#endif

static struct kvfree_rcu_bulk_data *bnode_alloc(void)
{
	u64 phys;

	if (kfree_nopage())
		return NULL;
	/* The allocator never sleeps; from NMI it fails (never called). */
	phys = pmm_alloc_page();
	if (!phys)
		return NULL;
	stat_add(&kfree_rcu_stats.pages, 1);
	return phys_to_virt(phys);
}

static void bnode_free(struct kvfree_rcu_bulk_data *b)
{
	stat_add(&kfree_rcu_stats.pages, -1);
	pmm_free_page(virt_to_phys(b));
}

/* krcp->lock held. */
static struct kvfree_rcu_bulk_data *get_cached_bnode(struct kfree_rcu_cpu *krcp)
{
	struct kvfree_rcu_bulk_data *b;

	if (list_empty(&krcp->cache) || kfree_nopage())
		return NULL;
	b = list_first_entry(&krcp->cache, struct kvfree_rcu_bulk_data, list);
	list_del(&b->list);
	krcp->nr_cached--;
	return b;
}

/* krcp->lock held: false if the cache is full (the caller frees b). */
static bool put_cached_bnode(struct kfree_rcu_cpu *krcp, struct kvfree_rcu_bulk_data *b)
{
	if (krcp->nr_cached >= KFREE_CACHE_MAX)
		return false;
	list_add(&b->list, &krcp->cache);
	krcp->nr_cached++;
	return true;
}

/* ---- the batch ---- */

static unsigned long kfree_rcu_drain_jiffies(void)
{
	unsigned long j = msecs_to_jiffies(kfree_rcu_drain_ms);

	return j ? j : 1;
}

/* kfree_rcu_gp_lock held, no batch in flight: the monitor fires at
 * kfree_rcu_gp.next, or drain_ms from now if that is later. */
static void kfree_rcu_arm_monitor_locked(void)
{
	unsigned long when = jiffies + kfree_rcu_drain_jiffies();

	if (kfree_rcu_gp.busy || timer_pending(&kfree_rcu_gp.monitor))
		return;
	if (time_after(kfree_rcu_gp.next, when))
		when = kfree_rcu_gp.next;
	kfree_rcu_gp.monitor.expires = when;
	add_timer(&kfree_rcu_gp.monitor);
}

static bool kfree_rcu_anything_queued(void)
{
	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		if (READ_ONCE(per_cpu_ptr(&krc, cpu)->count))
			return true;
	return false;
}

/* A chain past its grace period, freed; may_resched: from a worker, a
 * preemption point every KFREE_CHAIN_CHUNK objects. */
#define KFREE_CHAIN_CHUNK	256

/*
 * A worker's preemption point.  Workers run at PRIO_HIGH, so
 * cond_resched() would not let the grace-period kthread (PRIO_HIGH too)
 * in, which a wake-up at equal priority does not mark for preemption;
 * yield() goes to the back of the queue: it and other workers run, the
 * tasks queueing objects (lower priority) wait, as they wait for rcuc.
 */
static void kfree_rcu_yield(void)
{
	if (sched_nr_running(raw_smp_processor_id()))
		yield();
	else
		cond_resched();
}

/*
 * nr of the objects in e freed now: each waited from its GP's end, and
 * these nr take their share of e's sum (exact in total, whatever the
 * order the batches' objects are freed in).
 */
static void kfree_rcu_account_freed(long nr, struct kfree_ends *e)
{
	u64 part;

	if (nr <= 0 || e->nr <= 0)
		return;
	part = nr >= e->nr ? e->jsum : e->jsum / (u64)e->nr * (u64)nr +
				       e->jsum % (u64)e->nr * (u64)nr / (u64)e->nr;
	e->jsum -= part;
	e->nr -= nr;
	stat_add(&kfree_rcu_stats.freed, nr);
	stat_add(&kfree_rcu_stats.wait_free, (long)((u64)nr * jiffies - part));
}

static void kfree_rcu_free_chain(struct rcu_head *head, bool may_resched,
				 struct kfree_ends *e)
{
	struct rcu_head *next;
	long nr = 0;

	for (; head; head = next) {
		unsigned long offset = (unsigned long)head->func;
		void *ptr = (char *)head - offset;

		next = head->next;
		debug_rcu_head_unqueue((struct rcu_head *)ptr);
		kfree(ptr);
		if (++nr == KFREE_CHAIN_CHUNK && may_resched) {
			kfree_rcu_account_freed(nr, e);
			nr = 0;
			kfree_rcu_yield();
		}
	}
	kfree_rcu_account_freed(nr, e);
}

/* A page of pointers past its grace period: its objects, then the page
 * (back to this CPU's cache if there is room). */
static void kfree_rcu_free_page(struct kvfree_rcu_bulk_data *b, struct kfree_ends *e)
{
	struct kfree_rcu_cpu *krcp;
	unsigned long flags;
	bool cached;

	for (unsigned long i = 0; i < b->nr_records; i++) {
		debug_rcu_head_unqueue((struct rcu_head *)b->records[i]);
		kfree(b->records[i]);
	}
	kfree_rcu_account_freed((long)b->nr_records, e);
	local_irq_save(flags);
	krcp = this_cpu_ptr(&krc);
	spin_lock(&krcp->lock);
	cached = put_cached_bnode(krcp, b);
	spin_unlock(&krcp->lock);
	local_irq_restore(flags);
	if (!cached)
		bnode_free(b);
}

/*
 * A kfree_rcu/N kthread: frees the pages (and chain) dealt to it once
 * their grace period has ended, a page at a time with a preemption point
 * between pages, as Linux's kfree_rcu_work() does in a workqueue.
 * Freeing a batch of a hundred thousand objects in the callback itself
 * (no preemption there) kept its CPU from any quiescent state for as
 * long, so the next grace period, and the memory waiting for it, waited
 * for the whole free.
 */
static int kfree_rcu_kthread(void *arg)
{
	struct kfree_rcu_worker *w = arg;

	while (!kthread_should_stop()) {
		struct kvfree_rcu_bulk_data *b;
		struct kfree_chain chain = { 0 };
		struct kfree_ends ends;
		unsigned long flags, handed;
		LIST_HEAD(pages);

		wait_event(w->wq, READ_ONCE(w->nr_handed) != w->nr_freed ||
			   kthread_should_stop());
		spin_lock_irqsave(&kfree_rcu_gp_lock, flags);
		list_splice_init(&w->pages, &pages);
		chain_join(&chain, &w->chain);
		handed = w->nr_handed;
		ends = w->ends;
		w->ends = (struct kfree_ends){ 0 };
		spin_unlock_irqrestore(&kfree_rcu_gp_lock, flags);

		while (!list_empty(&pages)) {
			b = list_first_entry(&pages, struct kvfree_rcu_bulk_data, list);
			list_del(&b->list);
			kfree_rcu_free_page(b, &ends);
			kfree_rcu_yield();
		}
		kfree_rcu_free_chain(chain.head, true, &ends);
		smp_store_release(&w->nr_freed, handed);
		wake_up_all(&kfree_rcu_freed_wq);
	}
	return 0;
}

/* kfree_rcu_gp_lock held: the batch's pages dealt out among the
 * workers, a page each in turn, and each worker's chains to it. */
static void kfree_rcu_deal_locked(void)
{
	struct kvfree_rcu_bulk_data *b, *n;
	struct kfree_rcu_worker *w;
	unsigned long dealt = 0;
	u64 now = jiffies;
	int i = 0;

	list_for_each_entry_safe(b, n, &kfree_rcu_gp.pages, list) {
		w = &kfree_workers[i];
		list_move_tail(&b->list, &w->pages);
		w->ends.jsum += b->nr_records * now;
		w->ends.nr += (long)b->nr_records;
		dealt |= 1UL << i;
		i = (i + 1) % kfree_nr_workers;
	}
	for (i = 0; i < kfree_nr_workers; i++) {
		struct kfree_chain *c = &kfree_rcu_gp.chain[i];

		if (!c->head)
			continue;
		w = &kfree_workers[i];
		w->ends.jsum += (u64)c->nr * now;
		w->ends.nr += c->nr;
		chain_join(&w->chain, c);
		dealt |= 1UL << i;
	}
	for (i = 0; i < kfree_nr_workers; i++)
		if (dealt & (1UL << i))
			WRITE_ONCE(kfree_workers[i].nr_handed, kfree_workers[i].nr_handed + 1);
}

/*
 * The batch's grace period has ended: hand it to the workers (or, for
 * the test build's KFREE_INJECT_NO_GP, free it here and now, as fast as
 * the fault can be) and let the next batch go.
 */
static void kfree_rcu_batch_done(bool now)
{
	struct kfree_chain chain = { 0 };
	struct kfree_ends ends = { 0 };
	unsigned long flags, waited;
	LIST_HEAD(pages);

	spin_lock_irqsave(&kfree_rcu_gp_lock, flags);
	if (now) {
		ends.nr = kfree_rcu_gp.nr;
		ends.jsum = (u64)ends.nr * jiffies;
		list_splice_init(&kfree_rcu_gp.pages, &pages);
		for (int i = 0; i < kfree_nr_workers; i++)
			chain_join(&chain, &kfree_rcu_gp.chain[i]);
	} else {
		kfree_rcu_deal_locked();
	}
	/*
	 * The next batch waits gp_gap times as long as this one waited for
	 * its grace period: with the default, kfree_rcu() keeps grace
	 * periods busy a quarter of the time at most, however long they take,
	 * and objects queued meanwhile share the next one.  A barrier's
	 * batch is its caller's demand, not the monitor's pace.
	 */
	waited = jiffies - kfree_rcu_gp.handed_at;
	stat_add(&kfree_rcu_stats.wait_gp, kfree_rcu_gp.nr * (long)waited);
	if (!kfree_rcu_gp.forced)
		kfree_rcu_gp.next = jiffies + MIN(READ_ONCE(kfree_rcu_gp_gap) * waited,
						  (unsigned long)HZ);
	WRITE_ONCE(kfree_rcu_gp.busy, false);
	WRITE_ONCE(kfree_rcu_gp.nr, 0);
	/* Objects queued while it was busy: the monitor takes them. */
	if (kfree_rcu_anything_queued())
		kfree_rcu_arm_monitor_locked();
	spin_unlock_irqrestore(&kfree_rcu_gp_lock, flags);
	if (!now) {
		for (int i = 0; i < kfree_nr_workers; i++)
			if (READ_ONCE(kfree_workers[i].nr_handed) != kfree_workers[i].nr_freed)
				wake_up(&kfree_workers[i].wq);
		return;
	}
	while (!list_empty(&pages)) {
		struct kvfree_rcu_bulk_data *b = list_first_entry(&pages,
				struct kvfree_rcu_bulk_data, list);

		list_del(&b->list);
		kfree_rcu_free_page(b, &ends);
	}
	kfree_rcu_free_chain(chain.head, false, &ends);
}

static void kfree_rcu_work(struct rcu_head *rh);

#ifdef CONFIG_SANITIZE
/* Test build: kvfree_rcu_barrier_window_arm() (rcu/kvfree.h). */
static struct {
	bool armed;		/* the next barrier stops after its snapshot */
	bool hold;		/* the batch in flight rides GP after GP */
	struct test_gate gate;	/* a barrier sleeps there in the window */
	int busy_at_check;	/* the batch at the first check; -1: none yet */
} kvfree_barrier_window = { .busy_at_check = -1 };

void kvfree_rcu_barrier_window_arm(void)
{
	test_gate_arm(&kvfree_barrier_window.gate);
	WRITE_ONCE(kvfree_barrier_window.busy_at_check, -1);
	WRITE_ONCE(kvfree_barrier_window.hold, true);
	smp_store_release(&kvfree_barrier_window.armed, true);
}

bool kvfree_rcu_barrier_window_waiting(void)
{
	return test_gate_waiting(&kvfree_barrier_window.gate);
}

void kvfree_rcu_barrier_window_release(void)
{
	test_gate_release(&kvfree_barrier_window.gate);
}

int kvfree_rcu_barrier_window_busy(void)
{
	return smp_load_acquire(&kvfree_barrier_window.busy_at_check);
}

void kvfree_rcu_barrier_window_close(void)
{
	unsigned long flags;

	WRITE_ONCE(kvfree_barrier_window.armed, false);
	spin_lock_irqsave(&kfree_rcu_gp_lock, flags);	/* see _holds_batch() */
	WRITE_ONCE(kvfree_barrier_window.hold, false);
	spin_unlock_irqrestore(&kfree_rcu_gp_lock, flags);
	kvfree_rcu_barrier_window_release();
}

/*
 * The batch's grace period has ended while held: it waits for another
 * (a batch still in flight, as a long grace period leaves it).  The test
 * and the call_rcu() are one step under kfree_rcu_gp_lock, under which
 * hold is cleared: otherwise a callback that saw hold set could queue
 * itself again after a kvfree_rcu_barrier() that had found the batch
 * busy and cleared hold had passed this CPU in its rcu_barrier(), which
 * would then return before the batch ended, and a pass that found every
 * object submitted would return with that batch not freed.
 */
static bool kvfree_barrier_window_holds_batch(void)
{
	unsigned long flags;
	bool hold;

	spin_lock_irqsave(&kfree_rcu_gp_lock, flags);
	hold = READ_ONCE(kvfree_barrier_window.hold);
	if (hold)
		call_rcu(&kfree_rcu_gp.rcu, kfree_rcu_work);
	spin_unlock_irqrestore(&kfree_rcu_gp_lock, flags);
	return hold;
}

/* kvfree_rcu_barrier(), snapshot taken: sleep here if armed (30 s at most). */
static void kvfree_barrier_window_wait(void)
{
	if (smp_load_acquire(&kvfree_barrier_window.armed))
		test_gate_wait(&kvfree_barrier_window.gate, 30000);
}

/* kvfree_rcu_barrier()'s first check, kfree_rcu_gp_lock held (busy: the
 * batch was in flight before its drain): the window closes, the batch
 * may end. */
static void kvfree_barrier_window_checked(bool busy)
{
	if (!READ_ONCE(kvfree_barrier_window.armed))
		return;
	WRITE_ONCE(kvfree_barrier_window.armed, false);
	smp_store_release(&kvfree_barrier_window.busy_at_check, busy);
	WRITE_ONCE(kvfree_barrier_window.hold, false);
}
#else
static inline bool kvfree_barrier_window_holds_batch(void) { return false; }
static inline void kvfree_barrier_window_wait(void) { }
static inline void kvfree_barrier_window_checked(bool busy) { (void)busy; }
#endif

/* After its grace period (call_rcu()'s callback). */
static void kfree_rcu_work(struct rcu_head *rh)
{
	(void)rh;
	if (kvfree_barrier_window_holds_batch())	/* test build only */
		return;
	kfree_rcu_batch_done(false);
}

/*
 * kfree_rcu_gp_lock held, no batch in flight: every CPU's queued
 * objects go to the batch.  True if it took any (the caller hands it
 * to a grace period).
 */
static bool kfree_rcu_fill_batch_locked(void)
{
	unsigned long nr = 0;

	for (int cpu = 0; cpu < NR_CPUS; cpu++) {
		struct kfree_rcu_cpu *krcp = per_cpu_ptr(&krc, cpu);

		if (!READ_ONCE(krcp->ready))
			continue;
		spin_lock(&krcp->lock);
		krcp->monitor_asked = false;
		/*
		 * Every CPU's, empty or not: the offline hook moves a CPU's
		 * objects to another under kfree_rcu_gp_lock, so whatever any
		 * CPU queued before this fill is in this batch, even objects
		 * numbered on one CPU and moved to another.
		 */
		krcp->submitted_seq = krcp->queued_seq;
		if (krcp->count) {
			list_splice_init(&krcp->bulk_head, &kfree_rcu_gp.pages);
			/* A CPU's chain goes to one worker, freed there. */
			stat_add(&kfree_rcu_stats.by_head, krcp->chain.nr);
			chain_join(&kfree_rcu_gp.chain[cpu % kfree_nr_workers], &krcp->chain);
			nr += krcp->count;
			kfree_rcu_gp.nr += krcp->count;
			stat_add(&kfree_rcu_stats.wait_hand,
				 (long)(krcp->count * jiffies - krcp->jsum));
			krcp->count = 0;
			krcp->jsum = 0;
		}
		spin_unlock(&krcp->lock);
	}
	if ((long)nr > atomic_long_read(&kfree_rcu_stats.batch_max))
		atomic_long_set(&kfree_rcu_stats.batch_max, (long)nr);
	return nr != 0;
}

/*
 * kfree_rcu_gp_lock held (irqs off): if no batch is in flight, hand
 * everything queued to one grace period.  *nogp: the test build's
 * KFREE_INJECT_NO_GP, the caller frees it at once, unlocked.
 */
static void kfree_rcu_drain_locked(bool forced, bool *nogp)
{
	if (kfree_rcu_gp.busy || !kfree_rcu_fill_batch_locked())
		return;
	/* It took everything: the next object queued sets the monitor. */
	del_timer(&kfree_rcu_gp.monitor);
	WRITE_ONCE(kfree_rcu_gp.busy, true);
	kfree_rcu_gp.forced = forced;
	kfree_rcu_gp.handed_at = jiffies;
	stat_add(&kfree_rcu_stats.batches, 1);
	if (kfree_inject(KFREE_INJECT_NO_GP))
		*nogp = true;
	else
		call_rcu(&kfree_rcu_gp.rcu, kfree_rcu_work);	/* one GP per batch */
}

/* The monitor (timer, irq context): hand what is queued to a grace period. */
static void kfree_rcu_monitor(struct timer_list *t)
{
	unsigned long flags;
	bool nogp = false;

	(void)t;
	spin_lock_irqsave(&kfree_rcu_gp_lock, flags);
	if (kfree_rcu_gp.busy)
		stat_add(&kfree_rcu_stats.slots_busy, 1);	/* its end re-arms us */
	kfree_rcu_drain_locked(false, &nogp);
	spin_unlock_irqrestore(&kfree_rcu_gp_lock, flags);
	if (nogp)
		kfree_rcu_batch_done(true);
}

/* Something was queued on a CPU that had not asked since its last drain
 * (irqs off, no krcp->lock): make sure the monitor will run. */
static void kfree_rcu_schedule_monitor(void)
{
	spin_lock(&kfree_rcu_gp_lock);
	kfree_rcu_arm_monitor_locked();
	spin_unlock(&kfree_rcu_gp_lock);
}

/* krcp->lock held: ptr into the newest page, if there is room or a
 * cached page. */
static bool add_ptr_to_bulk_locked(struct kfree_rcu_cpu *krcp, void *ptr)
{
	struct kvfree_rcu_bulk_data *b = list_first_entry_or_null(&krcp->bulk_head,
			struct kvfree_rcu_bulk_data, list);

	if (!b || b->nr_records == KVFREE_BULK_MAX) {
		b = get_cached_bnode(krcp);
		if (!b)
			return false;
		b->nr_records = 0;
		list_add(&b->list, &krcp->bulk_head);
	}
	b->records[b->nr_records++] = ptr;
	return true;
}

static bool kvfree_rcu_in_atomic(void)
{
	return preempt_count() || irqs_disabled() || rcu_preempt_depth();
}

/* The offset of head in ptr, in head->func, for the fallback chain. */
typedef void (*kvfree_offset_t)(struct rcu_head *);

/* What the debug tracker shows as a queued object's callback. */
static void kvfree_rcu_queued(struct rcu_head *head) { (void)head; }

void kvfree_call_rcu(struct rcu_head *head, void *ptr)
{
	struct kvfree_rcu_bulk_data *fresh = NULL;
	struct kfree_rcu_cpu *krcp;
	unsigned long flags;
	bool queued, might_sleep_ok = true, ask = false;

	if (!ptr)
		return;
	if (!head && kvfree_rcu_in_atomic() && !kfree_inject(KFREE_INJECT_ATOMIC)) {
		/* Reported, never slept in: queued if a page has room, else
		 * leaked (freeing it now could be a use after free). */
		might_sleep_ok = false;
		atomic_long_inc(&kfree_rcu_stats.atomic_reports);
		WARN(1, "kvfree_rcu_mightsleep() called from atomic context "
		     "(preempt_count=%#x, irqs %s, rcu nesting %d)", preempt_count(),
		     irqs_disabled() ? "off" : "on", rcu_preempt_depth());
	}
	if (!kfree_inject(KFREE_INJECT_ODEBUG) &&
	    !debug_rcu_head_queue((struct rcu_head *)ptr, kvfree_rcu_queued,
				  head ? "kfree_rcu" : "kvfree_rcu_mightsleep"))
		return;		/* already queued, or freed: reported */

	if (unlikely(!smp_load_acquire(&kfree_rcu_gp.ready) ||
		     !READ_ONCE(this_cpu_ptr(&krc)->ready)))
		goto sync;	/* early boot: one CPU, blocking is a grace period */
	if (head) {
		/*
		 * Chained through its own rcu_head: no page, no allocation,
		 * no extra byte per object.  Pages of pointers cost 8 bytes
		 * for each pointer (a quarter of a 32-byte object) and a
		 * page for each CPU's partial batch.
		 */
		local_irq_save(flags);
		krcp = this_cpu_ptr(&krc);
		spin_lock(&krcp->lock);
		head->func = (kvfree_offset_t)((char *)head - (char *)ptr);
		chain_push(&krcp->chain, head);
		queued = true;
		goto queued;
	}
	for (int tries = 0;; tries++) {
		local_irq_save(flags);
		krcp = this_cpu_ptr(&krc);
		spin_lock(&krcp->lock);
		if (fresh && !put_cached_bnode(krcp, fresh)) {
			spin_unlock(&krcp->lock);
			local_irq_restore(flags);
			bnode_free(fresh);
			fresh = NULL;
			continue;
		}
		fresh = NULL;
		queued = add_ptr_to_bulk_locked(krcp, ptr);
		if (!queued && tries == 0) {
			/* Allocate outside the lock, which the shrinker takes. */
			spin_unlock(&krcp->lock);
			local_irq_restore(flags);
			fresh = bnode_alloc();
			if (fresh)
				continue;
			local_irq_save(flags);
			krcp = this_cpu_ptr(&krc);
			spin_lock(&krcp->lock);
			queued = add_ptr_to_bulk_locked(krcp, ptr);
		}
		break;
	}
queued:
	if (queued) {
		krcp->count++;
		krcp->jsum += jiffies;
		krcp->queued_seq++;
		WRITE_ONCE(krcp->nr_queued, krcp->nr_queued + 1);
		/* One look at the shared monitor per CPU per batch: the
		 * drain that takes this object clears it. */
		ask = !krcp->monitor_asked;
		krcp->monitor_asked = true;
	}
	spin_unlock(&krcp->lock);
	if (ask)
		kfree_rcu_schedule_monitor();
	local_irq_restore(flags);
	if (queued)
		return;
	/* kvfree_rcu_mightsleep() with no page to be had: wait here. */
	if (!might_sleep_ok) {
		atomic_long_inc(&kfree_rcu_stats.leaked);
		return;
	}
sync:
	stat_add(&kfree_rcu_stats.by_sync, 1);
	synchronize_rcu();
	debug_rcu_head_unqueue((struct rcu_head *)ptr);
	kfree(ptr);
}

/*
 * Every object queued before the call is freed on return.  Each CPU's
 * objects are numbered as they are queued (queued_seq), and a batch takes
 * all a CPU has (submitted_seq), so once every CPU's submitted_seq has
 * passed the snapshot, the rcu_barrier() after it runs the batch holding
 * the last of them (a call_rcu() callback) to its end.  A pass that
 * finds the batch busy waits for it in that rcu_barrier() and tries
 * again.
 */
void kvfree_rcu_barrier(void)
{
	static unsigned long target[NR_CPUS];
	static DEFINE_MUTEX(barrier_lock);
	unsigned long flags, nr_handed;
	int cpu;

	might_sleep();
	if (kfree_inject(KFREE_INJECT_BARRIER))
		return;
	mutex_lock(&barrier_lock);
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		struct kfree_rcu_cpu *krcp = per_cpu_ptr(&krc, cpu);

		if (!READ_ONCE(krcp->ready))
			continue;
		spin_lock_irqsave(&krcp->lock, flags);
		target[cpu] = krcp->queued_seq;
		spin_unlock_irqrestore(&krcp->lock, flags);
	}
	kvfree_barrier_window_wait();	/* test build only */
	for (;;) {
		bool nogp = false, done = true, busy;

		spin_lock_irqsave(&kfree_rcu_gp_lock, flags);
		busy = kfree_rcu_gp.busy;
		kfree_rcu_drain_locked(true, &nogp);
		for (cpu = 0; cpu < NR_CPUS; cpu++) {
			struct kfree_rcu_cpu *krcp = per_cpu_ptr(&krc, cpu);

			if (!READ_ONCE(krcp->ready))
				continue;
			spin_lock(&krcp->lock);
			if (ULONG_CMP_LT(krcp->submitted_seq, target[cpu]))
				done = false;
			spin_unlock(&krcp->lock);
		}
		kvfree_barrier_window_checked(busy);	/* test build only */
		spin_unlock_irqrestore(&kfree_rcu_gp_lock, flags);
		if (nogp)
			kfree_rcu_batch_done(true);
		rcu_barrier();
		if (done)
			break;
	}
	/* rcu_barrier() ran the last batch's callback: the workers have it. */
	for (int i = 0; i < kfree_nr_workers; i++) {
		struct kfree_rcu_worker *w = &kfree_workers[i];

		spin_lock_irqsave(&kfree_rcu_gp_lock, flags);
		nr_handed = w->nr_handed;
		spin_unlock_irqrestore(&kfree_rcu_gp_lock, flags);
		wait_event(kfree_rcu_freed_wq,
			   ULONG_CMP_GE(smp_load_acquire(&w->nr_freed), nr_handed));
	}
	mutex_unlock(&barrier_lock);
}

/* ---- memory pressure and hotplug ---- */

/* Cached pages every CPU could give back now. */
static unsigned long kfree_rcu_shrink_count(void)
{
	unsigned long n = 0;
	int cpu;

	for (cpu = 0; cpu < NR_CPUS; cpu++)
		n += READ_ONCE(per_cpu_ptr(&krc, cpu)->nr_cached);
	return n;
}

/* Gives back up to nr cached pages; returns how many it freed. */
static unsigned long kfree_rcu_shrink_scan(unsigned long nr)
{
	unsigned long freed = 0;
	int cpu;

	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		struct kfree_rcu_cpu *krcp = per_cpu_ptr(&krc, cpu);

		while (freed < nr && READ_ONCE(krcp->ready)) {
			struct kvfree_rcu_bulk_data *b;
			unsigned long flags;

			spin_lock_irqsave(&krcp->lock, flags);
			b = get_cached_bnode(krcp);
			spin_unlock_irqrestore(&krcp->lock, flags);
			if (!b)
				break;
			bnode_free(b);
			freed++;
		}
	}
	stat_add(&kfree_rcu_stats.shrunk, (long)freed);
	return freed;
}

static struct shrinker kfree_rcu_shrinker = {
	.name = "kfree_rcu",
	.count_objects = kfree_rcu_shrink_count,
	.scan_objects = kfree_rcu_shrink_scan,
};

unsigned long kfree_rcu_shrink(void)
{
	return kfree_rcu_shrink_scan(~0UL);
}

/*
 * cpu is about to go down: what it has queued moves to this CPU.  Under
 * kfree_rcu_gp_lock, so that no batch fill or kvfree_rcu_barrier() check
 * sees the objects in transit; from's submitted_seq is left alone, and
 * the next fill (which takes the moved objects from this CPU) is what
 * counts them as handed over for the barrier's snapshot.
 */
static int kfree_rcu_offline_hook(int cpu)
{
	struct kfree_rcu_cpu *from = per_cpu_ptr(&krc, cpu), *to;
	struct kfree_chain chain = { 0 };
	unsigned long flags, count, jsum;
	LIST_HEAD(pages);

	if (kfree_inject(KFREE_INJECT_HANDOVER))
		return 0;
	spin_lock_irqsave(&kfree_rcu_gp_lock, flags);
	to = this_cpu_ptr(&krc);
	if (to == from || !from->ready) {
		spin_unlock_irqrestore(&kfree_rcu_gp_lock, flags);
		return 0;
	}
	spin_lock(&from->lock);
	list_splice_init(&from->bulk_head, &pages);
	chain_join(&chain, &from->chain);
	count = from->count;
	jsum = from->jsum;
	from->count = 0;
	from->jsum = 0;
	spin_unlock(&from->lock);
	if (count) {
		spin_lock(&to->lock);
		/* Partial pages stay partial: only the head page is filled. */
		list_splice_tail(&pages, &to->bulk_head);
		chain_join(&to->chain, &chain);
		to->count += count;
		to->jsum += jsum;
		to->queued_seq += count;
		spin_unlock(&to->lock);
		kfree_rcu_arm_monitor_locked();
	}
	spin_unlock_irqrestore(&kfree_rcu_gp_lock, flags);
	if (count)
		stat_add(&kfree_rcu_stats.handed_over, (long)count);
	return 0;
}

void kfree_rcu_init_percpu(int cpu)
{
	struct kfree_rcu_cpu *krcp = per_cpu_ptr(&krc, cpu);

	if (krcp->ready)
		return;
	spin_lock_init(&krcp->lock);
	INIT_LIST_HEAD(&krcp->bulk_head);
	INIT_LIST_HEAD(&krcp->cache);
	krcp->cpu = cpu;
	smp_store_release(&krcp->ready, true);
}

static int kfree_rcu_online_hook(int cpu)
{
	kfree_rcu_init_percpu(cpu);
	return 0;
}

void kfree_rcu_init_late(void)
{
	int cpu;

	INIT_LIST_HEAD(&kfree_rcu_gp.pages);
	timer_setup(&kfree_rcu_gp.monitor, kfree_rcu_monitor, 0);
	/* Workers on the CPUs up now (one at least: this one); a CPU that
	 * comes up later frees through them, and a worker whose CPU goes
	 * down moves with its other tasks. */
	for_each_online_cpu(cpu) {
		struct kfree_rcu_worker *w = &kfree_workers[kfree_nr_workers];
		char name[16];

		if (kfree_nr_workers >= (int)(8 * sizeof(unsigned long)))
			break;		/* kfree_rcu_deal_locked()'s mask */
		INIT_LIST_HEAD(&w->pages);
		init_waitqueue_head(&w->wq);
		snprintf(name, sizeof(name), "kfree_rcu/%d", cpu);
		w->task = kthread_create_on_cpu(kfree_rcu_kthread, w, cpu, name);
		BUG_ON(!w->task);
		/*
		 * PRIO_HIGH, as the rcuc/N kthreads that free call_rcu()'s
		 * objects: at PRIO_NORMAL a worker got half its CPU at best
		 * beside a task queueing objects, and objects past their
		 * grace period were most of kfree_rcu()'s peak memory
		 * (paper_gc's kfree_rcu_mem rows: krc_free 45k-110k of 75k-
		 * 190k objects).  It yields between chunks (kfree_rcu_yield()),
		 * so the grace-period kthread, PRIO_HIGH too, is not held off.
		 */
		set_task_prio(w->task, PRIO_HIGH);
		kfree_nr_workers++;
		wake_up_process(w->task);
	}
	smp_store_release(&kfree_rcu_gp.ready, true);
	for_each_online_cpu(cpu)
		kfree_rcu_init_percpu(cpu);
	cpuhp_setup_state("kfree_rcu", kfree_rcu_online_hook, kfree_rcu_offline_hook);
	register_shrinker(&kfree_rcu_shrinker);
}

long kfree_rcu_queued(void)
{
	long n = 0;

	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		n += READ_ONCE(per_cpu_ptr(&krc, cpu)->nr_queued);
	return n;
}

void kfree_rcu_breakdown(struct kfree_rcu_breakdown *kb)
{
	long cached = 0, on_cpus = 0, in_gp;

	for (int cpu = 0; cpu < NR_CPUS; cpu++) {
		struct kfree_rcu_cpu *krcp = per_cpu_ptr(&krc, cpu);

		on_cpus += (long)READ_ONCE(krcp->count);
		cached += READ_ONCE(krcp->nr_cached);
	}
	in_gp = READ_ONCE(kfree_rcu_gp.nr);
	kb->on_cpus = on_cpus;
	kb->in_gp = in_gp;
	kb->to_free = kfree_rcu_queued() -
		      atomic_long_read(&kfree_rcu_stats.freed) - on_cpus - in_gp;
	kb->pages_cached = cached;
}

unsigned long kfree_rcu_bulk_max(void)
{
	return KVFREE_BULK_MAX;
}
