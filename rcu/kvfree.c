/*
 * rcu/kvfree.c - kfree_rcu(), kvfree_rcu_mightsleep() and
 * kvfree_rcu_barrier() (contract in rcu/rcupdate.h): Linux's
 * kfree_rcu_cpu batching, reduced to what this kernel needs.
 *
 * Each CPU's struct kfree_rcu_cpu collects pointers to free in pages of
 * pointers (struct kvfree_rcu_bulk_data, one physical page each), newest
 * page first.  When no page can be had, an object with an rcu_head is
 * chained through it instead (the head's func holds the head's offset in
 * the object, as Linux's); an object without one (kvfree_rcu_mightsleep())
 * is freed after synchronize_rcu() by its caller.
 *
 * Nothing waits per object.  The monitor, a timer armed by the first
 * object queued, after kfree_rcu.drain_ms (or at the next tick once a
 * page is full), moves everything queued into a free batch slot
 * (struct kfree_rcu_cpu_work; KFREE_N_BATCHES per CPU) and hands the
 * batch to one grace period with one call_rcu().  That callback frees
 * the batch's objects in bulk, keeps up to KFREE_CACHE_MAX of its pages
 * for the next batches, and frees the slot.  While every slot waits for
 * its grace period, objects keep collecting and the monitor tries again
 * at its next firing: a batch goes to one grace period at a time.
 *
 * call_rcu() grace periods wait for every RCU-sched reader and every
 * rcu_read_lock() reader (preemptible RCU's normal grace periods are
 * RCU-sched's, rcu/preempt.c), so one kind of batch serves both; with
 * PREEMPT_RCU=0 the names are RCU-sched's anyway.
 *
 * Memory pressure: kfree_rcu_shrink() (a shrinker, kernel/shrinker.h,
 * called by the page allocator before it fails) gives back every cached
 * page.  CPU hotplug: a CPU going offline hands what it has queued to
 * the CPU running the hook (cpuhp); its batches in flight finish where
 * rcu_migrate_callbacks() moves their callbacks, and its monitor timer
 * moves with its other timers.
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
#include "kernel/pmm.h"
#include "kernel/printk.h"
#include "kernel/shrinker.h"
#include "kernel/slab.h"
#include "kernel/timer.h"
#include "asm/page.h"

#define KFREE_N_BATCHES		2
#define KFREE_CACHE_MAX		5	/* pages each CPU keeps for later batches */

struct kvfree_rcu_bulk_data {
	struct list_head list;
	unsigned long nr_records;
	void *records[];
};

#define KVFREE_BULK_MAX \
	((PAGE_SIZE - sizeof(struct kvfree_rcu_bulk_data)) / sizeof(void *))

struct kfree_rcu_cpu;

/* A batch: the objects of one call_rcu(). */
struct kfree_rcu_cpu_work {
	struct rcu_head rcu_work;
	struct list_head bulk_head_free;	/* pages of pointers */
	struct rcu_head *head_free;		/* the fallback chain */
	unsigned long nr;			/* objects in the batch */
	unsigned long start_seq;		/* krcp->submitted_seq before it */
	bool busy;
	struct kfree_rcu_cpu *krcp;
};

struct kfree_rcu_cpu {
	spinlock_t lock;			/* taken with irqs off */
	struct list_head bulk_head;		/* pages being filled, newest first */
	struct rcu_head *head;			/* the fallback chain */
	unsigned long count;			/* objects queued, not in a batch */
	unsigned long queued_seq;		/* objects ever queued here */
	unsigned long submitted_seq;		/* of those, handed to a batch */
	struct kfree_rcu_cpu_work krw_arr[KFREE_N_BATCHES];
	struct timer_list monitor;
	struct list_head cache;			/* empty pages */
	int nr_cached;
	int cpu;
	bool ready;
};

static DEFINE_PER_CPU(struct kfree_rcu_cpu, krc);

unsigned int kfree_rcu_drain_ms = 5;
core_param(kfree_rcu.drain_ms, kfree_rcu_drain_ms, uint,
	   "ms before kfree_rcu()'s monitor hands a partial batch to a grace period");

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

/* ---- a batch ---- */

/* After its grace period (call_rcu()'s callback, a kthread): free it all. */
static void kfree_rcu_work(struct rcu_head *rh)
{
	struct kfree_rcu_cpu_work *krwp = container_of(rh, struct kfree_rcu_cpu_work, rcu_work);
	struct kfree_rcu_cpu *krcp = krwp->krcp;
	struct kvfree_rcu_bulk_data *b, *n;
	struct rcu_head *head, *next;
	unsigned long flags, nr = 0;
	LIST_HEAD(pages);

	spin_lock_irqsave(&krcp->lock, flags);
	list_splice_init(&krwp->bulk_head_free, &pages);
	head = krwp->head_free;
	krwp->head_free = NULL;
	spin_unlock_irqrestore(&krcp->lock, flags);

	list_for_each_entry(b, &pages, list) {
		for (unsigned long i = 0; i < b->nr_records; i++) {
			debug_rcu_head_unqueue((struct rcu_head *)b->records[i]);
			kfree(b->records[i]);
		}
		nr += b->nr_records;
	}
	for (; head; head = next) {
		unsigned long offset = (unsigned long)head->func;
		void *ptr = (char *)head - offset;

		next = head->next;
		debug_rcu_head_unqueue((struct rcu_head *)ptr);
		kfree(ptr);
		nr++;
	}
	stat_add(&kfree_rcu_stats.freed, (long)nr);

	spin_lock_irqsave(&krcp->lock, flags);
	list_for_each_entry_safe(b, n, &pages, list) {
		list_del(&b->list);
		if (put_cached_bnode(krcp, b))
			b = NULL;
		if (b) {
			spin_unlock_irqrestore(&krcp->lock, flags);
			bnode_free(b);
			spin_lock_irqsave(&krcp->lock, flags);
		}
	}
	/* The slot is free once its objects are (kvfree_rcu_barrier()). */
	WRITE_ONCE(krwp->busy, false);
	/* Objects that found every slot busy: the monitor takes them. */
	if (krcp->count && !timer_pending(&krcp->monitor)) {
		/* Here: krcp's CPU may be going down. */
		krcp->monitor.expires = jiffies + 1;
		add_timer(&krcp->monitor);
	}
	spin_unlock_irqrestore(&krcp->lock, flags);
}

/*
 * krcp->lock held: everything queued goes to a free slot and its grace
 * period.  False if something stays queued (every slot was busy).
 */
static bool kfree_rcu_drain_locked(struct kfree_rcu_cpu *krcp, unsigned int *nogp)
{
	for (int i = 0; i < KFREE_N_BATCHES && krcp->count; i++) {
		struct kfree_rcu_cpu_work *krwp = &krcp->krw_arr[i];

		if (krwp->busy)
			continue;
		list_splice_init(&krcp->bulk_head, &krwp->bulk_head_free);
		krwp->head_free = krcp->head;
		krcp->head = NULL;
		krwp->nr = krcp->count;
		krwp->start_seq = krcp->submitted_seq;
		krcp->submitted_seq = krcp->queued_seq;
		krcp->count = 0;
		WRITE_ONCE(krwp->busy, true);
		stat_add(&kfree_rcu_stats.batches, 1);
		if (kfree_inject(KFREE_INJECT_NO_GP))
			*nogp |= 1u << i;	/* the caller frees it, unlocked */
		else
			call_rcu(&krwp->rcu_work, kfree_rcu_work);	/* one GP per batch */
	}
	return krcp->count == 0;
}

/* Test build, KFREE_INJECT_NO_GP: the batches just taken, freed now. */
static void kfree_rcu_nogp(struct kfree_rcu_cpu *krcp, unsigned int nogp)
{
	for (int i = 0; i < KFREE_N_BATCHES; i++)
		if (nogp & (1u << i))
			kfree_rcu_work(&krcp->krw_arr[i].rcu_work);
}

/* The monitor (timer, irq context): hand what is queued to a grace period. */
static void kfree_rcu_monitor(struct timer_list *t)
{
	struct kfree_rcu_cpu *krcp = container_of(t, struct kfree_rcu_cpu, monitor);
	unsigned int nogp = 0;
	unsigned long flags;

	spin_lock_irqsave(&krcp->lock, flags);
	if (!kfree_rcu_drain_locked(krcp, &nogp))
		stat_add(&kfree_rcu_stats.slots_busy, 1);
	/* If all slots were busy, the first batch to finish re-arms us. */
	spin_unlock_irqrestore(&krcp->lock, flags);
	kfree_rcu_nogp(krcp, nogp);
}

static unsigned long kfree_rcu_drain_jiffies(void)
{
	unsigned long j = msecs_to_jiffies(kfree_rcu_drain_ms);

	return j ? j : 1;
}

/* krcp->lock held, something queued: make sure the monitor will run. */
static void kfree_rcu_schedule_monitor(struct kfree_rcu_cpu *krcp)
{
	/* A full page goes at the next tick; a partial one waits a little
	 * for company. */
	unsigned long delay = krcp->count >= KVFREE_BULK_MAX ? 1 : kfree_rcu_drain_jiffies();

	if (timer_pending(&krcp->monitor)) {
		if (delay == 1 && time_after(krcp->monitor.expires, jiffies + 1)) {
			del_timer(&krcp->monitor);
			krcp->monitor.expires = jiffies + 1;
			add_timer_on(&krcp->monitor, krcp->cpu);
		}
		return;
	}
	krcp->monitor.expires = jiffies + delay;
	add_timer_on(&krcp->monitor, krcp->cpu);
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
	bool queued, might_sleep_ok = true;

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

	if (unlikely(!READ_ONCE(this_cpu_ptr(&krc)->ready)))
		goto sync;	/* early boot: one CPU, blocking is a grace period */
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
	if (!queued && head) {
		head->func = (kvfree_offset_t)((char *)head - (char *)ptr);
		head->next = krcp->head;
		krcp->head = head;
		queued = true;
		stat_add(&kfree_rcu_stats.by_head, 1);
	}
	if (queued) {
		krcp->count++;
		krcp->queued_seq++;
		kfree_rcu_schedule_monitor(krcp);
	}
	spin_unlock(&krcp->lock);
	local_irq_restore(flags);
	if (queued) {
		stat_add(&kfree_rcu_stats.queued, 1);
		return;
	}
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
 * objects are numbered as they are queued (queued_seq); a batch takes a
 * contiguous run of them.  So a CPU is done once the objects up to the
 * snapshot have all gone to batches and no batch holding any of them is
 * still in flight.  Each pass hands queued objects to free slots; the
 * rcu_barrier() between passes runs every batch in flight to its end
 * (they are call_rcu() callbacks).
 */
void kvfree_rcu_barrier(void)
{
	static unsigned long target[NR_CPUS];
	static DEFINE_MUTEX(barrier_lock);
	int cpu;

	might_sleep();
	if (kfree_inject(KFREE_INJECT_BARRIER))
		return;
	mutex_lock(&barrier_lock);
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		struct kfree_rcu_cpu *krcp = per_cpu_ptr(&krc, cpu);
		unsigned long flags;

		if (!READ_ONCE(krcp->ready))
			continue;
		spin_lock_irqsave(&krcp->lock, flags);
		target[cpu] = krcp->queued_seq;
		spin_unlock_irqrestore(&krcp->lock, flags);
	}
	for (;;) {
		bool done = true;

		for (cpu = 0; cpu < NR_CPUS; cpu++) {
			struct kfree_rcu_cpu *krcp = per_cpu_ptr(&krc, cpu);
			unsigned int nogp = 0;
			unsigned long flags;

			if (!READ_ONCE(krcp->ready))
				continue;
			spin_lock_irqsave(&krcp->lock, flags);
			kfree_rcu_drain_locked(krcp, &nogp);
			if (ULONG_CMP_LT(krcp->submitted_seq, target[cpu]))
				done = false;
			for (int i = 0; i < KFREE_N_BATCHES; i++)
				if (krcp->krw_arr[i].busy &&
				    ULONG_CMP_LT(krcp->krw_arr[i].start_seq, target[cpu]))
					done = false;
			spin_unlock_irqrestore(&krcp->lock, flags);
			kfree_rcu_nogp(krcp, nogp);
		}
		if (done)
			break;
		rcu_barrier();
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

/* cpu is about to go down: what it has queued moves to this CPU. */
static int kfree_rcu_offline_hook(int cpu)
{
	struct kfree_rcu_cpu *from = per_cpu_ptr(&krc, cpu), *to;
	struct rcu_head *chain, *last;
	unsigned long flags, count;
	LIST_HEAD(pages);

	if (kfree_inject(KFREE_INJECT_HANDOVER))
		return 0;
	local_irq_save(flags);
	to = this_cpu_ptr(&krc);
	if (to == from || !from->ready) {
		local_irq_restore(flags);
		return 0;
	}
	spin_lock(&from->lock);
	list_splice_init(&from->bulk_head, &pages);
	chain = from->head;
	from->head = NULL;
	count = from->count;
	from->count = 0;
	/* Counted as handed over, for kvfree_rcu_barrier()'s snapshot. */
	from->submitted_seq = from->queued_seq;
	spin_unlock(&from->lock);
	if (count) {
		spin_lock(&to->lock);
		/* Partial pages stay partial: only the head page is filled. */
		list_splice_tail(&pages, &to->bulk_head);
		for (last = chain; last && last->next; last = last->next)
			;
		if (last) {
			last->next = to->head;
			to->head = chain;
		}
		to->count += count;
		to->queued_seq += count;
		kfree_rcu_schedule_monitor(to);
		spin_unlock(&to->lock);
		stat_add(&kfree_rcu_stats.handed_over, (long)count);
	}
	local_irq_restore(flags);
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
	for (int i = 0; i < KFREE_N_BATCHES; i++) {
		INIT_LIST_HEAD(&krcp->krw_arr[i].bulk_head_free);
		krcp->krw_arr[i].krcp = krcp;
	}
	timer_setup(&krcp->monitor, kfree_rcu_monitor, 0);
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

	for_each_online_cpu(cpu)
		kfree_rcu_init_percpu(cpu);
	cpuhp_setup_state("kfree_rcu", kfree_rcu_online_hook, kfree_rcu_offline_hook);
	register_shrinker(&kfree_rcu_shrinker);
}

unsigned long kfree_rcu_bulk_max(void)
{
	return KVFREE_BULK_MAX;
}
