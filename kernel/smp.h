/* kernel/smp.h: the generic SMP interface: which CPU am I, which CPUs are
 * online, and running a function on other CPUs.  Implemented in
 * kernel/smp.c over the arch's IPIs (arch/x86_64/ipi.c).  CPUs are
 * numbered 0..nr_cpu_ids-1 in the firmware's order (the MADT's); CPU 0
 * boots.  A number whose CPU failed to come up stays unused: the online
 * mask may have holes. */
#pragma once

#include "kernel/types.h"
#include "kernel/percpu.h"

/*
 * The test build (CONFIG_DEBUG_PREEMPT, Linux's) checks that the answer
 * stays true: preemption or irqs off, or a task bound to this CPU (a
 * per-CPU kthread, the idle task, kmain's).  Elsewhere the task may be
 * preempted and, on a CPU going down, moved right after the read: a
 * "using smp_processor_id() in preemptible code" WARNING, once per
 * caller.  Code that only wants a hint (statistics, a starting point)
 * says so with raw_smp_processor_id().
 */
#ifdef CONFIG_DEBUG_PREEMPT
int debug_smp_processor_id(void);
#define smp_processor_id() debug_smp_processor_id()
#else
#define smp_processor_id() raw_smp_processor_id()
#endif

/* CPUs online so far; ids are dense, so this is also max id + 1. */
extern int nr_cpu_ids;

/*
 * The CPUs there may ever be, numbered 0..num_possible_cpus()-1 (Linux's
 * nr_cpu_ids): those the firmware lists, capped by smp= and NR_CPUS.  The
 * arch sets it once, from its firmware tables, before rcu_init(), which
 * sizes the rcu_node tree by it: a CPU that cpu_up() brings back later has
 * a number below it, so it has a leaf.  NR_CPUS until the arch says.
 */
int num_possible_cpus(void);
void init_cpu_possible(int n);	/* arch, before rcu_init() */

/* NR_CPUS is 64: one word holds a whole mask. */
struct cpumask {
	u64 bits;
};

extern struct cpumask cpu_online_mask;

static inline bool cpumask_test_cpu(int cpu, const struct cpumask *m)
{
	return (unsigned)cpu < NR_CPUS && (__atomic_load_n(&m->bits, __ATOMIC_RELAXED) >> cpu) & 1;
}
static inline void cpumask_set_cpu(int cpu, struct cpumask *m)
{
	__atomic_fetch_or(&m->bits, 1ull << cpu, __ATOMIC_RELAXED);
}
static inline void cpumask_clear_cpu(int cpu, struct cpumask *m)
{
	__atomic_fetch_and(&m->bits, ~(1ull << cpu), __ATOMIC_RELAXED);
}
static inline int cpumask_weight(const struct cpumask *m)
{
	u64 b = __atomic_load_n(&m->bits, __ATOMIC_RELAXED);
	int n = 0;

	/* No libgcc in the kernel, so no __builtin_popcount (without -mpopcnt). */
	for (; b; b &= b - 1)
		n++;
	return n;
}
static inline void cpumask_clear(struct cpumask *m) { m->bits = 0; }

#define for_each_cpu(cpu, mask) \
	for ((cpu) = 0; (cpu) < NR_CPUS; (cpu)++) \
		if (!cpumask_test_cpu((cpu), (mask))) {} else
#define for_each_online_cpu(cpu) for_each_cpu(cpu, &cpu_online_mask)

static inline bool cpu_online(int cpu) { return cpumask_test_cpu(cpu, &cpu_online_mask); }
static inline int num_online_cpus(void) { return cpumask_weight(&cpu_online_mask); }

typedef void (*smp_call_func_t)(void *info);

/*
 * Runs fn(info) on cpu, in its interrupt context (irqs off there), or
 * directly (irqs off) when cpu is this CPU.  Interrupt context holds when
 * cpu runs it from its own wait with irqs off too (see below): fn sees
 * in_irq(), on top of a preempt_count that shows the waiter as the
 * RCU-sched reader it is.  wait: return only after fn
 * has returned.  Returns 0, -EINVAL for a CPU that is not online,
 * -ETIMEDOUT if a waited-for CPU never ran it (it is named on the console).
 * May be called with irqs off: while waiting this CPU keeps running calls
 * sent to it, so two CPUs calling each other do not deadlock.  Not from
 * NMI context (-EINVAL and a warning).
 */
int smp_call_function_single(int cpu, smp_call_func_t fn, void *info, int wait);
/* Test build: a hook the tests set (NULL: none), called with irqs as
 * the caller has them where a host or an NMI may stop a sender: */
enum smp_inject_point {
	SMP_INJECT_QUEUE,	/* smp_call_function_single(): just before the
				 * irqs-off section that tests cpu online and
				 * queues the call */
	SMP_INJECT_WAIT,	/* smp_call_function_many(): the calls queued,
				 * irqs back on, before waiting (once per call) */
};
#ifdef CONFIG_SANITIZE
extern void (*smp_inject_call_hook)(enum smp_inject_point where, int cpu);
#endif
/* The same on every CPU in mask except this one. */
int smp_call_function_many(const struct cpumask *mask, smp_call_func_t fn,
			   void *info, int wait);
/* Every other online CPU. */
int smp_call_function(smp_call_func_t fn, void *info, int wait);
/* Every online CPU, this one included (this one directly, irqs off). */
int on_each_cpu(smp_call_func_t fn, void *info, int wait);

/* Kick cpu into its scheduler (calls scheduler_ipi() there). */
void smp_send_reschedule(int cpu);
/* The reschedule IPI's hook (kernel/sched.c). */
void scheduler_ipi(void);

/* NMI cpu, which prints its registers and backtrace (flushed once out of
 * NMI).  False if it cannot (not online, no NMI IPIs). */
bool trigger_cpu_backtrace(int cpu);
/* Every online CPU but this one. */
void trigger_all_cpu_backtrace(void);
/* Whether cpu is running at all: it takes an NMI sent to it within 1 s
 * (with irqs off too).  False means it did not, which under a hypervisor
 * is a vCPU the host is not running, not a CPU stuck in a loop.  True
 * when it cannot be asked (this CPU, offline, in NMI, no NMI IPIs), so a
 * caller that reports a stuck CPU still does. */
bool cpu_answers_nmi(int cpu);
/* Runs fn() on cpu in NMI context, from an NMI sent for it (tests that
 * need code inside an NMI handler: rcutorture's NMI readers).  Does not
 * wait.  False if cpu is not online, already has one pending, or cannot
 * be sent an NMI.  fn must be NMI-safe; callable from irq context. */
typedef void (*smp_nmi_func_t)(void);
bool smp_call_nmi(int cpu, smp_nmi_func_t fn);

/* Bring-up, from arch code. */
void smp_prepare_boot_cpu(void);	/* CPU 0 online, before the APs */
void smp_ap_main(int cpu) __noreturn;	/* each AP ends its bring-up here */
void smp_call_function_interrupt(void);	/* arch: the call IPI arrived */
void smp_call_function_drain(void);	/* a CPU going down, irqs off: run what is queued */
