/*
 * tests/kernel/test_stray_warning.c - KTAP suite `selftest_stray_warning`:
 * WARNINGs that no case can count must still fail the run.  kernel/ktap.c
 * counts the WARNINGs of the running case; one printed between cases, by
 * a suite's exit, or by a kthread whose case has ended is no case's, and
 * only the judge (tests/judge.py unannounced_warnings()) sees it.  Its
 * one case passes; then the suite's exit WARNs, and lets a kthread the
 * case left behind WARN too.  The stray-warning-fails configuration
 * requires both and a failed run.  A selftest_ suite: test=all skips it.
 */
#include "kernel/ktap.h"
#include "tests/kernel/test_helpers.h"
#include "kernel/sched.h"
#include "kernel/printk.h"
#include "kernel/wait.h"

static struct completion stray_go;
static struct task *stray_thread;

static int stray_late_warner(void *unused)
{
	(void)unused;
	wait_for_completion(&stray_go);
	WARN(1, "stray: a kthread WARNs after its case ended");
	return 0;
}

static void stray_case_passes(void)
{
	init_completion(&stray_go);
	stray_thread = start_on(stray_late_warner, NULL, raw_smp_processor_id(),
				PRIO_NORMAL, "stray-late");
	KTAP_ASSERT(stray_thread);
	ktap_log("a kthread left waiting; it WARNs once the suite ends");
}

static void stray_suite_exit(void)
{
	WARN(1, "stray: the suite's exit WARNs between cases");
	if (!stray_thread)
		return;
	complete(&stray_go);
	kthread_join(stray_thread);
	stray_thread = NULL;
}

KTAP_SUITE_FULL(selftest_stray_warning, NULL, stray_suite_exit,
		KTAP_CASE(stray_case_passes));
