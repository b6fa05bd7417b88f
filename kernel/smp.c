/* kernel/smp.c: generic SMP: the online mask, the end of each AP's
 * bring-up, cross-CPU function calls and NMI backtraces, over the arch's
 * IPIs (asm/smp.h).
 *
 * Function calls: each CPU has a lock-free stack of pending calls.  A
 * sender fills one of its own call slots (one per target CPU, so a call
 * that times out leaves its slot locked rather than a dangling pointer to
 * the sender's stack), pushes it, and sends the IPI only if the stack was
 * empty (otherwise one is already on its way).  The target takes the whole
 * stack at once, runs the calls oldest first, and unlocks each slot after
 * its function returns, which is what a waiting sender waits for. */
#include "rcu/kvfree.h"
#include "kernel/smp.h"
#include "kernel/cpu.h"
#include "kernel/atomic.h"
#include "kernel/preempt.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/time.h"
#include "asm/cpu.h"
#include "asm/irq.h"
#include "asm/irqflags.h"
#include "asm/smp.h"
#include "rcu/rcupdate.h"

int nr_cpu_ids = 1;
struct cpumask cpu_online_mask;

static unsigned int call_timeout_ms = 10000;

struct call_single_data {
	struct call_single_data *next;
	smp_call_func_t fn;
	void *info;
	int locked;
};

/* call_slots[sender][target] */
static struct call_single_data call_slots[NR_CPUS][NR_CPUS] ____cacheline_aligned;
static struct call_single_data *call_queue[NR_CPUS] ____cacheline_aligned;

/* CPUs that came up once (and may be brought back by cpu_up()). */
static struct cpumask cpu_present_mask;

static int nr_cpu_possible = NR_CPUS;

int num_possible_cpus(void)
{
	return nr_cpu_possible;
}

void init_cpu_possible(int n)
{
	nr_cpu_possible = n < 1 ? 1 : n > NR_CPUS ? NR_CPUS : n;
}

bool cpu_present(int cpu)
{
	return cpumask_test_cpu(cpu, &cpu_present_mask);
}

void smp_prepare_boot_cpu(void)
{
	cpumask_set_cpu(0, &cpu_online_mask);
	cpumask_set_cpu(0, &cpu_present_mask);
	nr_cpu_ids = 1;
}

void smp_ap_main(int cpu)
{
	bool again = cpu_present(cpu);	/* cpu_up(), not boot */

	rcu_init_percpu(cpu);
	kfree_rcu_init_percpu(cpu);	/* before anything here can kfree_rcu() */
	rcu_cpu_starting(cpu);	/* before any reader can run here */
	sched_cpu_starting(cpu);	/* before a thread can be bound here */
	/* Publish the CPU only once it can take IPIs: its IDT, LAPIC and
	 * per-CPU data are ready. */
	smp_mb();
	cpumask_set_cpu(cpu, &cpu_present_mask);
	cpumask_set_cpu(cpu, &cpu_online_mask);
	/* APs come up together: raise it, never lower another's value. */
	for (int ids = READ_ONCE(nr_cpu_ids); ids < cpu + 1;)
		if (__atomic_compare_exchange_n(&nr_cpu_ids, &ids, cpu + 1, false,
						__ATOMIC_RELEASE, __ATOMIC_RELAXED))
			break;
	if (!again)
		pr_info("smp: CPU %d online (APIC id %u)\n", cpu, cpu_apic_id[cpu]);
	cpu_idle_loop();
}

static void run_queue(void)
{
	int me = smp_processor_id();
	struct call_single_data *list, *rev = NULL;

	list = __atomic_exchange_n(&call_queue[me], NULL, __ATOMIC_ACQUIRE);
	while (list) {		/* reverse the stack: run in sending order */
		struct call_single_data *n = list->next;

		list->next = rev;
		rev = list;
		list = n;
	}
	while (rev) {
		struct call_single_data *c = rev;

		rev = c->next;
		c->fn(c->info);
		__atomic_store_n(&c->locked, 0, __ATOMIC_RELEASE);
	}
}

void smp_call_function_interrupt(void)
{
	run_queue();
}

/*
 * Runs the calls sent to this CPU from a waiter that has irqs off, in the
 * context they would have had from the IPI: hardirq, on top of the code
 * the IPI would have interrupted.  That code is the waiter, and a waiter
 * with irqs off is inside an RCU-sched read-side critical section (which
 * preempt_count alone does not show) whether it is an irq handler or a
 * task, so it counts as one level of disabled preemption too.  A handler
 * that reports "interrupted no reader" when preempt_count minus its own
 * hardirq level is zero (rcu_exp_handler()) therefore defers here, as it
 * must: the waiter's reader is still running.
 */
static void run_queue_polled(void)
{
	preempt_count_add(PREEMPT_OFFSET);
	irq_enter();
	run_queue();
	irq_exit();
	preempt_count_sub(PREEMPT_OFFSET);
}

/* A CPU going down, irqs off: the calls queued before it left the mask. */
void smp_call_function_drain(void)
{
	lockdep_assert_irqs_disabled();
	if (__atomic_load_n(&call_queue[smp_processor_id()], __ATOMIC_ACQUIRE))
		run_queue_polled();
}

/* Waits for a slot to come free, running calls sent to us meanwhile (the
 * sender of the call we wait for may itself be waiting on us). */
static bool wait_slot(struct call_single_data *c, int target)
{
	u64 t0 = get_cycles(), limit = ns_to_cycles(call_timeout_ms * 1000000ull);

	while (__atomic_load_n(&c->locked, __ATOMIC_ACQUIRE)) {
		if (irqs_disabled() && __atomic_load_n(&call_queue[smp_processor_id()],
						       __ATOMIC_RELAXED))
			run_queue_polled();
		if (get_cycles() - t0 > limit) {
			pr_err("smp: CPU %d did not run a function call from CPU %d within %u ms\n",
			       target, smp_processor_id(), call_timeout_ms);
			return false;
		}
		cpu_relax();
	}
	return true;
}

/* Queues fn on target (not this CPU); irqs are off. */
static int queue_call(int target, smp_call_func_t fn, void *info)
{
	struct call_single_data *c = &call_slots[smp_processor_id()][target];
	struct call_single_data *head;

	if (!wait_slot(c, target))
		return -ETIMEDOUT;
	c->fn = fn;
	c->info = info;
	c->locked = 1;
	head = __atomic_load_n(&call_queue[target], __ATOMIC_RELAXED);
	do {
		c->next = head;
	} while (!__atomic_compare_exchange_n(&call_queue[target], &head, c, true,
					      __ATOMIC_RELEASE, __ATOMIC_RELAXED));
	if (!head)
		arch_send_call_function_ipi(target);
	jitter_site(JITTER_IPI);	/* test build: the call may run before our next step */
	return 0;
}

#ifdef CONFIG_SANITIZE
void (*smp_inject_call_hook)(enum smp_inject_point where, int cpu);

static void smp_inject_call(enum smp_inject_point where, int cpu)
{
	void (*hook)(enum smp_inject_point, int) =
		__atomic_load_n(&smp_inject_call_hook, __ATOMIC_ACQUIRE);

	if (hook)
		hook(where, cpu);
}
#else
static inline void smp_inject_call(enum smp_inject_point where, int cpu)
{
	(void)where;
	(void)cpu;
}
#endif

/* Queueing is done with irqs off (so "this CPU" holds still), waiting
 * with the caller's irq state: a caller with irqs on keeps taking its
 * ticks.  Should it migrate meanwhile it still waits on the slots it
 * filled, which belong to the CPU it queued from. */
int smp_call_function_many(const struct cpumask *mask, smp_call_func_t fn,
			   void *info, int wait)
{
	unsigned long flags;
	struct cpumask queued;
	int cpu, me, ret = 0;

	if (WARN_ON_ONCE(in_nmi()))
		return -EINVAL;
	cpumask_clear(&queued);
	local_irq_save(flags);
	me = smp_processor_id();
	for_each_cpu(cpu, mask) {
		if (cpu == me || !cpu_online(cpu))
			continue;
		int r = queue_call(cpu, fn, info);

		if (r)
			ret = r;
		else
			cpumask_set_cpu(cpu, &queued);
	}
	local_irq_restore(flags);
	if (wait) {
		/* Every call queued, even to a CPU gone offline since: it
		 * was online when we queued with irqs off, so it runs the
		 * call before it dies, and fn's info may be on our stack. */
		for_each_cpu(cpu, &queued) {
			smp_inject_call(SMP_INJECT_WAIT, cpu);
			if (!wait_slot(&call_slots[me][cpu], cpu))
				ret = -ETIMEDOUT;
		}
	}
	return ret;
}

int smp_call_function_single(int cpu, smp_call_func_t fn, void *info, int wait)
{
	unsigned long flags;
	int ret, me;

	if (cpu < 0 || cpu >= NR_CPUS)
		return -EINVAL;
	if (WARN_ON_ONCE(in_nmi()))
		return -EINVAL;
	smp_inject_call(SMP_INJECT_QUEUE, cpu);
	/* Online is tested with irqs off, an RCU-sched reader, as
	 * smp_call_function_many() does: cpu_down()'s grace period then
	 * waits for us, and the CPU runs the call before it dies.  Tested
	 * before, the CPU could die in between and the call stay queued
	 * for a dead CPU (its slot locked, its IPIs suppressed once back). */
	local_irq_save(flags);
	if (!cpu_online(cpu)) {
		local_irq_restore(flags);
		return -EINVAL;
	}
	me = smp_processor_id();
	if (cpu == me) {
		fn(info);
		local_irq_restore(flags);
		return 0;
	}
	ret = queue_call(cpu, fn, info);
	local_irq_restore(flags);
	if (!ret && wait && !wait_slot(&call_slots[me][cpu], cpu))
		ret = -ETIMEDOUT;
	return ret;
}

int smp_call_function(smp_call_func_t fn, void *info, int wait)
{
	return smp_call_function_many(&cpu_online_mask, fn, info, wait);
}

int on_each_cpu(smp_call_func_t fn, void *info, int wait)
{
	unsigned long flags;
	int ret = smp_call_function(fn, info, wait);

	local_irq_save(flags);
	fn(info);
	local_irq_restore(flags);
	return ret;
}

/*
 * To an online CPU, and to one going down until it is dead: cpu_down()
 * takes a CPU out of the mask first and parks its kthreads (rcuc/N) after,
 * and a wake-up that queues a thread there without the IPI waits for that
 * CPU's next interrupt, which an idle CPU with its tick stopped takes only
 * at its next timer (kthread_park() of rcuc/N: up to its 1 s timeout).
 * Linux clears cpu_online_mask last, on the dying CPU, so its IPIs reach
 * such a CPU too.
 */
void smp_send_reschedule(int cpu)
{
	if (cpu_online(cpu)) {
		arch_send_reschedule(cpu);
		return;
	}
	smp_rmb();	/* cpu_down() sets going-down, then clears online */
	if (cpu_going_down(cpu))
		arch_send_reschedule(cpu);
}
