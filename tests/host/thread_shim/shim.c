/*
 * tests/host/thread_shim/shim.c - the host stand-ins shared by the
 * pthread tests of the kernel's own lock and timer code (test_locks.c,
 * test_timer.c): the per-thread "CPU" state behind the headers in
 * thread_shim/kernel/, and kernel/time.h's clock with hz fixed at 1000.
 * Each test gives its own printk(), dump_stack(), the backtrace triggers
 * and, for the timer test, jiffies.
 */
#include <time.h>

#include "kernel/preempt.h"
#include "kernel/smp.h"
#include "kernel/time.h"

__thread int shim_cpu;
__thread int shim_preempt_count;
__thread int shim_irqs_off;
int nr_cpu_ids = 8;
unsigned int hz = 1000;

u64 ktime_get_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ull + (u64)ts.tv_nsec;
}
