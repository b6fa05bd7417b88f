/* tests/kernel/test_watchdog.c: KTAP suite `selftest_hardlockup`, which
 * hangs a CPU on purpose: a kthread spins with irqs off for good, and the
 * hard-lockup detector (kernel/watchdog.c) must report it from the CPU
 * that watches it, with the stuck CPU's backtrace taken by NMI, and panic.
 * tests/qemu-configs (selftest-hardlockup) expects exactly that. */
#include "kernel/atomic.h"
#include "kernel/ktap.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/watchdog.h"
#include "asm/irqflags.h"

static int spinning_cpu = -1;

static __attribute__((noinline)) int hardlockup_spin(void *arg)
{
	(void)arg;
	local_irq_disable();
	WRITE_ONCE(spinning_cpu, raw_smp_processor_id());
	for (;;)
		cpu_relax();
	return 0;
}

/* CPU 1 hangs (if it held the jiffies duty, another CPU takes it over:
 * the wait below sleeps on jiffies). */
#define STUCK_CPU 1

static void hardlockup_is_reported(void)
{
	int before = atomic_read(&hardlockup_reports);
	struct task *t;

	if (nr_cpu_ids < 2) {
		ktap_skip("needs 2 CPUs: another one must notice");
		return;
	}
	ktap_expect_alarm("a hard LOCKUP report for CPU %d (and a panic unless nmi_watchdog=nopanic)",
			  STUCK_CPU);
	t = kthread_create_on_cpu(hardlockup_spin, NULL, STUCK_CPU, "hardlockup_spin");
	KTAP_ASSERT(t != NULL);
	wake_up_process(t);
	for (int i = 0; i < 6000 && READ_ONCE(spinning_cpu) < 0; i++)
		msleep(10);
	ktap_log("CPU %d spins with irqs off: waiting for the watchdog's report",
		 READ_ONCE(spinning_cpu));
	/* Ended by the report (a panic, by default), or by a generous count
	 * of our own sleeps if it never comes. */
	for (int i = 0; i < 12000 && atomic_read(&hardlockup_reports) == before; i++)
		msleep(10);
	if (atomic_read(&hardlockup_reports) == before)
		ktap_fail("CPU %d spun with irqs off and no hard lockup was reported",
			  READ_ONCE(spinning_cpu));
}

KTAP_SUITE(selftest_hardlockup, KTAP_CASE(hardlockup_is_reported));
