/* kernel/panic.c: panic(), warnings and dump_stack().  A panic says why,
 * shows the stack, and ends the run with a failure status (under QEMU the
 * runner sees it at once; on a PC it halts).  A second CPU that panics
 * meanwhile only halts; the others are not stopped. */
#include "kernel/printk.h"
#include "kernel/stacktrace.h"
#include "kernel/percpu.h"
#include "kernel/system.h"
#include "kernel/trace.h"
#include "kernel/watchdog.h"
#include "kernel/cmdline.h"
#include "asm/irqflags.h"

unsigned long warn_count;
static int panic_cpu = -1;

#ifdef CONFIG_SANITIZE
/* Test build, as Linux's panic_on_warn: a warning ends the run.  For a
 * run expected to fail at a warning after which it would hang (a grace
 * period that can no longer end stops torture's shutdown), so that it
 * ends at once instead of at its time limit. */
static bool panic_on_warn;
core_param(panic_on_warn, panic_on_warn, bool,
	   "test build: panic at the first warning, ending the run (Linux's panic_on_warn)");
#endif

void dump_stack(void)
{
	show_stack((unsigned long)__builtin_frame_address(0), 0);
}

void warn_slowpath(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	char msg[256];

	__atomic_add_fetch(&warn_count, 1, __ATOMIC_RELAXED);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	printk(KERN_WARNING "WARNING: CPU: %d at %s:%d: %s\n",
	       raw_smp_processor_id(), file, line, msg);
	dump_stack();
#ifdef CONFIG_SANITIZE
	if (panic_on_warn)
		panic("panic_on_warn set");
#endif
}

void panic(const char *fmt, ...)
{
	va_list ap;
	char msg[256];
	int cpu = raw_smp_processor_id();
	int none = -1;

	local_irq_disable();
	watchdog_stop();
	/* A second CPU panicking at once just stops: one report is readable. */
	if (!__atomic_compare_exchange_n(&panic_cpu, &none, cpu, false,
					 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST) &&
	    panic_cpu != cpu)
		for (;;)
			arch_halt();
	printk_bust_locks();
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	printk(KERN_EMERG "Kernel panic - not syncing: %s\n", msg);
	dump_stack();
	trace_dump("panic");	/* as Linux's ftrace_dump_on_oops */
	printk(KERN_EMERG "---[ end Kernel panic - not syncing: %s ]---\n", msg);
	system_exit(EXIT_PANIC);
}
