/*
 * kernel/timer.c - per-CPU timer lists (see kernel/timer.h).
 *
 * Each CPU keeps an unsorted list: the kernel has a handful of timers at a
 * time (one per sleeping task), so a scan per tick is cheaper than keeping
 * order.  Handlers run with the list unlocked, so they may re-arm or wake;
 * base->running lets del_timer_sync() wait for one to finish elsewhere.
 */
#include "kernel/timer.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/printk.h"

struct timer_base {
	arch_spinlock_t lock;
	struct list_head list;
	struct timer_list *running;
} ____cacheline_aligned;

static struct timer_base timer_bases[NR_CPUS];
static bool bases_ready;

/*
 * Once, by the boot CPU before any other runs (kmain()).  It used to be
 * done by the first timer_setup(), which two CPUs could reach at once:
 * the second reset a base's lock under the tick that held it, leaving
 * owner one past next, and every later taker waited for ever (seen in
 * torture-exp-4: the raw spinlock watchdog reported owner/next 1/0).
 */
void timers_init(void)
{
	for (int i = 0; i < NR_CPUS; i++) {
		timer_bases[i].lock = (arch_spinlock_t)__ARCH_SPIN_LOCK_UNLOCKED;
		INIT_LIST_HEAD(&timer_bases[i].list);
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
}

bool timer_pending(const struct timer_list *t)
{
	return READ_ONCE(t->cpu) >= 0;
}

/* Lock the base t is on (it may move: a handler can re-add elsewhere). */
static struct timer_base *lock_timer_base(struct timer_list *t, int *cpu)
{
	for (;;) {
		int c = READ_ONCE(t->cpu);

		if (c < 0)
			return NULL;
		arch_spin_lock(&timer_bases[c].lock);
		if (READ_ONCE(t->cpu) == c) {
			*cpu = c;
			return &timer_bases[c];
		}
		arch_spin_unlock(&timer_bases[c].lock);
	}
}

bool del_timer(struct timer_list *t)
{
	unsigned long flags;
	struct timer_base *b;
	int cpu;

	local_irq_save(flags);
	b = lock_timer_base(t, &cpu);
	if (b) {
		list_del_init(&t->entry);
		WRITE_ONCE(t->cpu, -1);
		arch_spin_unlock(&b->lock);
	}
	local_irq_restore(flags);
	return b != NULL;
}

void add_timer_on(struct timer_list *t, int cpu)
{
	unsigned long flags;
	struct timer_base *b = &timer_bases[cpu];

	del_timer(t);
	local_irq_save(flags);
	arch_spin_lock(&b->lock);
	list_add_tail(&t->entry, &b->list);
	WRITE_ONCE(t->cpu, cpu);
	arch_spin_unlock(&b->lock);
	local_irq_restore(flags);
}

void add_timer(struct timer_list *t)
{
	unsigned long flags;

	local_irq_save(flags);	/* stay on one CPU while choosing it */
	add_timer_on(t, smp_processor_id());
	local_irq_restore(flags);
}

bool del_timer_sync(struct timer_list *t)
{
	bool was = del_timer(t);

	for (int cpu = 0; cpu < NR_CPUS; cpu++) {
		if (cpu == smp_processor_id() && in_irq())
			continue;
		while (__atomic_load_n(&timer_bases[cpu].running, __ATOMIC_ACQUIRE) == t)
			cpu_relax();
	}
	return was;
}

void run_local_timers(void)
{
	struct timer_base *b;
	unsigned long now = jiffies;

	if (!bases_ready)
		return;
	b = &timer_bases[smp_processor_id()];
	arch_spin_lock(&b->lock);
	for (;;) {
		struct timer_list *t, *found = NULL;

		list_for_each_entry(t, &b->list, entry) {
			if (time_after_eq(now, t->expires)) {
				found = t;
				break;
			}
		}
		if (!found)
			break;
		list_del_init(&found->entry);
		WRITE_ONCE(found->cpu, -1);
		__atomic_store_n(&b->running, found, __ATOMIC_RELAXED);
		arch_spin_unlock(&b->lock);
		found->function(found);
		arch_spin_lock(&b->lock);
		__atomic_store_n(&b->running, NULL, __ATOMIC_RELEASE);
	}
	arch_spin_unlock(&b->lock);
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
