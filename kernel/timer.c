/*
 * kernel/timer.c - per-CPU timer lists (see kernel/timer.h).
 *
 * Each CPU keeps an unsorted list: the kernel has a handful of timers at a
 * time (one per sleeping task), so a scan per tick is cheaper than keeping
 * order.  Handlers run with the list unlocked, so they may re-arm or wake.
 *
 * Ownership, as Linux's: a timer belongs to one base at a time, t->base,
 * which changes only under that base's lock (and the new one's).  Its
 * handler runs on that base, named in base->running while it runs, and a
 * handler that re-arms its timer keeps it on its own base.  So one lock,
 * the base's, shows whether a timer is pending and whether its handler is
 * running, which is what del_timer_sync() needs to promise that on return
 * it is neither, even when the handler re-arms it.
 */
#include "kernel/timer.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/printk.h"
#include "kernel/cpu.h"
#include "kernel/tick_sched.h"

struct timer_base {
	arch_spinlock_t lock;
	struct list_head list;
	struct timer_list *running;
} ____cacheline_aligned;

static struct timer_base timer_bases[NR_CPUS];
static bool bases_ready;

#ifdef CONFIG_SANITIZE
void (*timer_inject_hook)(enum timer_inject_point where, struct timer_list *t);
#define timer_inject(where, t) do {					\
	void (*__hook)(enum timer_inject_point, struct timer_list *) =	\
		__atomic_load_n(&timer_inject_hook, __ATOMIC_ACQUIRE);	\
	if (__hook)							\
		__hook((where), (t));					\
} while (0)
#else
#define timer_inject(where, t) do { } while (0)
#endif

/*
 * Once, by the boot CPU before any other runs (kmain()): a base's lock
 * must never be re-initialised while a tick may hold it.
 */
void timers_init(void)
{
	for (int i = 0; i < NR_CPUS; i++) {
		arch_spin_lock_init(&timer_bases[i].lock);	/* one class */
		INIT_LIST_HEAD(&timer_bases[i].list);
		timer_bases[i].running = NULL;
	}
	smp_mb();
	bases_ready = true;
}

void timer_setup(struct timer_list *t, void (*fn)(struct timer_list *), unsigned flags)
{
	(void)flags;
	INIT_LIST_HEAD(&t->entry);
	t->function = fn;
	t->cpu = -1;
	t->base = -1;
}

bool timer_pending(const struct timer_list *t)
{
	return __atomic_load_n(&t->cpu, __ATOMIC_ACQUIRE) >= 0;
}

/* Lock t's base; NULL if it never had one.  Irqs off. */
static struct timer_base *lock_timer_base(struct timer_list *t, int *cpu)
{
	lockdep_assert_irqs_disabled();
	for (;;) {
		int c = __atomic_load_n(&t->base, __ATOMIC_RELAXED);

		if (c < 0)
			return NULL;
		arch_spin_lock(&timer_bases[c].lock);
		if (__atomic_load_n(&t->base, __ATOMIC_RELAXED) == c) {
			*cpu = c;
			return &timer_bases[c];
		}
		arch_spin_unlock(&timer_bases[c].lock);
	}
}

/* Base lock held: take t off its list if it is on one. */
static bool detach_timer(struct timer_list *t)
{
	if (t->cpu < 0)
		return false;
	lockdep_assert_held(&timer_bases[t->base].lock);
	list_del_init(&t->entry);
	__atomic_store_n(&t->cpu, -1, __ATOMIC_RELEASE);
	return true;
}

bool del_timer(struct timer_list *t)
{
	unsigned long flags;
	struct timer_base *b;
	bool was = false;
	int cpu;

	local_irq_save(flags);
	b = lock_timer_base(t, &cpu);
	if (b) {
		was = detach_timer(t);
		arch_spin_unlock(&b->lock);
	}
	local_irq_restore(flags);
	return was;
}

/* Both bases in index order, so two CPUs moving timers cannot deadlock. */
static void lock_two_bases(int a, int b)
{
	if (a == b) {
		arch_spin_lock(&timer_bases[a].lock);
	} else {
		arch_spin_lock(&timer_bases[MIN(a, b)].lock);
		arch_spin_lock_nested(&timer_bases[MAX(a, b)].lock, 1);
	}
}

static void unlock_two_bases(int a, int b)
{
	arch_spin_unlock(&timer_bases[a].lock);
	if (a != b)
		arch_spin_unlock(&timer_bases[b].lock);
}

void add_timer_on(struct timer_list *t, int cpu)
{
	unsigned long flags;
	int old, to = cpu;

	local_irq_save(flags);
	for (;;) {
		old = __atomic_load_n(&t->base, __ATOMIC_RELAXED);
		lock_two_bases(old < 0 ? cpu : old, cpu);
		if (__atomic_load_n(&t->base, __ATOMIC_RELAXED) == old)
			break;
		unlock_two_bases(old < 0 ? cpu : old, cpu);
	}
	if (old >= 0) {
		detach_timer(t);
		/* Re-armed by its running handler: it stays where that runs. */
		if (timer_bases[old].running == t)
			to = old;
	}
	list_add_tail(&t->entry, &timer_bases[to].list);
	__atomic_store_n(&t->base, to, __ATOMIC_RELAXED);
	__atomic_store_n(&t->cpu, to, __ATOMIC_RELEASE);
	unlock_two_bases(old < 0 ? cpu : old, cpu);
	wake_up_nohz_cpu(to);
	local_irq_restore(flags);
}

void add_timer(struct timer_list *t)
{
	unsigned long flags;

	local_irq_save(flags);	/* stay on one CPU while choosing it */
	add_timer_on(t, smp_processor_id());
	local_irq_restore(flags);
}

/*
 * Under the base lock the timer is either pending on the base, or running
 * there, or neither; a handler that re-arms does so before its base marks
 * it finished, under this same lock.  From the handler itself (its CPU,
 * in irq context) there is nothing to wait for: only the re-arm is undone.
 */
bool del_timer_sync(struct timer_list *t)
{
	bool was = false;

	for (;;) {
		unsigned long flags;
		struct timer_base *b;
		bool running;
		int cpu;

		local_irq_save(flags);
		b = lock_timer_base(t, &cpu);
		if (!b) {
			local_irq_restore(flags);
			return was;
		}
		if (detach_timer(t))
			was = true;
		running = b->running == t && !(cpu == smp_processor_id() && in_irq());
		arch_spin_unlock(&b->lock);
		local_irq_restore(flags);
		if (!running)
			return was;
		timer_inject(TIMER_INJECT_SYNC_WAIT, t);
		cpu_relax();
	}
}

/*
 * The expired timers are moved off the list first, then run one by one:
 * a handler that re-arms for a time already due waits for the next tick
 * instead of being found again in this one.  While waiting on the local
 * list they are still pending on this base (del_timer() takes them off).
 */
void run_local_timers(void)
{
	struct timer_base *b;
	struct timer_list *t, *n;
	unsigned long now;
	LIST_HEAD(expired);

	if (!bases_ready)
		return;
	b = &timer_bases[smp_processor_id()];
	arch_spin_lock(&b->lock);
	now = jiffies;
	list_for_each_entry_safe(t, n, &b->list, entry)
		if (time_after_eq(now, t->expires))
			list_move_tail(&t->entry, &expired);
	while (!list_empty(&expired)) {
		t = list_first_entry(&expired, struct timer_list, entry);
		list_del_init(&t->entry);
		/* running first: a reader that sees it not pending sees it running */
		__atomic_store_n(&b->running, t, __ATOMIC_RELAXED);
		timer_inject(TIMER_INJECT_START, t);
		__atomic_store_n(&t->cpu, -1, __ATOMIC_RELEASE);
		arch_spin_unlock(&b->lock);
		t->function(t);
		arch_spin_lock(&b->lock);
		__atomic_store_n(&b->running, NULL, __ATOMIC_RELEASE);
	}
	arch_spin_unlock(&b->lock);
}

/* Tickless idle: this CPU's earliest timer, irqs off; false if none. */
bool timer_next_expiry(unsigned long *next)
{
	struct timer_base *b;
	struct timer_list *t;
	bool any = false;

	lockdep_assert_irqs_disabled();
	if (!bases_ready)
		return false;
	b = &timer_bases[smp_processor_id()];
	arch_spin_lock(&b->lock);
	list_for_each_entry(t, &b->list, entry)
		if (!any || time_before(t->expires, *next)) {
			*next = t->expires;
			any = true;
		}
	arch_spin_unlock(&b->lock);
	return any;
}

/*
 * CPU hotplug: cpu is dead (no tick runs there, none of its handlers is
 * running), so its pending timers move to this CPU's base, under both
 * locks, which is what owning a timer means (see the top of this file).
 */
void timers_migrate_cpu(int cpu)
{
	struct timer_list *t, *n;
	unsigned long flags;
	int me;

	local_irq_save(flags);
	me = smp_processor_id();
	if (WARN_ON_ONCE(cpu == me)) {
		local_irq_restore(flags);
		return;
	}
	lock_two_bases(cpu, me);
	WARN_ON_ONCE(timer_bases[cpu].running);
	list_for_each_entry_safe(t, n, &timer_bases[cpu].list, entry) {
		list_move_tail(&t->entry, &timer_bases[me].list);
		__atomic_store_n(&t->base, me, __ATOMIC_RELAXED);
		__atomic_store_n(&t->cpu, me, __ATOMIC_RELEASE);
	}
#ifdef CONFIG_SANITIZE
	/* A dead CPU owns no timer: an add_timer_on() meanwhile is a bug. */
	WARN_ON_ONCE(!list_empty(&timer_bases[cpu].list));
#endif
	unlock_two_bases(cpu, me);
	local_irq_restore(flags);
}

/* ---- sleeping with a timeout ------------------------------------------- */

struct process_timer {
	struct timer_list timer;
	struct task *task;
};

static void process_timeout(struct timer_list *t)
{
	struct process_timer *pt = container_of(t, struct process_timer, timer);

	wake_up_process(pt->task);
}

/*
 * Linux's contract: the caller set its state first; returns the jiffies
 * left (0 if the whole timeout passed).
 */
long schedule_timeout(long timeout)
{
	struct process_timer pt;
	unsigned long expire;
	long left;

	if (timeout == MAX_SCHEDULE_TIMEOUT) {
		schedule();
		return timeout;
	}
	if (timeout < 0) {
		printk(KERN_ERR "schedule_timeout: negative timeout %ld\n", timeout);
		__set_current_state(TASK_RUNNING);
		return 0;
	}
	if (!sched_running) {	/* early boot: nobody else to run; spin it out */
		__set_current_state(TASK_RUNNING);
		mdelay((unsigned long)jiffies_to_msecs(timeout));
		return 0;
	}
	expire = jiffies + (unsigned long)timeout;
	timer_setup(&pt.timer, process_timeout, 0);
	pt.task = current;
	pt.timer.expires = expire;
	add_timer(&pt.timer);
	schedule();
	del_timer_sync(&pt.timer);
	left = (long)(expire - jiffies);
	return left < 0 ? 0 : left;
}

long schedule_timeout_uninterruptible(long timeout)
{
	__set_current_state(TASK_UNINTERRUPTIBLE);
	return schedule_timeout(timeout);
}

/*
 * At least ms by the TSC too, not only in jiffies: after the host held
 * CPU 0's vCPU back, its ticks come closer together until jiffies has
 * caught up, and a pure jiffies sleep then returns a little early.
 */
void msleep(unsigned int ms)
{
	u64 end = ktime_get_ns() + (u64)ms * 1000000ull, now;
	long timeout = (long)msecs_to_jiffies(ms) + 1;

	might_sleep();
	while (timeout)
		timeout = schedule_timeout_uninterruptible(timeout);
	while ((now = ktime_get_ns()) < end)
		schedule_timeout_uninterruptible(
			(long)msecs_to_jiffies((unsigned int)((end - now) / 1000000) + 1));
}
