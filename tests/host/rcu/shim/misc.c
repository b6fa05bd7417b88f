/*
 * tests/host/rcu/shim/misc.c - the rest of kernel/ that rcu/ calls, on the
 * host: printk and the WARN/BUG reports (kernel/printk.h), kmalloc
 * (kernel/slab.h) on malloc, and the clocks and delays of kernel/time.h.
 * Every WARN, BUG and panic counts as a shim error, so a test program
 * fails on any of them.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sched.h>

#include "shim.h"
#include "kernel/printk.h"
#include "kernel/slab.h"
#include "kernel/time.h"
#include "kernel/smp.h"
#include "kernel/preempt.h"
#include "kernel/ktap.h"
#include "kernel/kallsyms.h"

#include <execinfo.h>

/* The sanitizer runtimes' symbolised trace; glibc's without one. */
void __sanitizer_print_stack_trace(void) __attribute__((weak));

static void print_trace(void)
{
	void *pc[32];

	if (__sanitizer_print_stack_trace) {
		__sanitizer_print_stack_trace();
		return;
	}
	backtrace_symbols_fd(pc, backtrace(pc, 32), 2);
}

u64 shim_jiffies;
unsigned int hz = 1000;
u64 tsc_khz = 1000000;	/* get_cycles() counts nanoseconds here */
int console_loglevel = 8;
unsigned long warn_count;

static pthread_mutex_t printk_lock = PTHREAD_MUTEX_INITIALIZER;
static int printk_quiet_info;	/* atomic; KERN_INFO lines dropped when set */

void shim_printk_quiet(bool quiet)
{
	__atomic_store_n(&printk_quiet_info, quiet, __ATOMIC_RELAXED);
}

u64 shim_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ull + (u64)ts.tv_nsec;
}

static int cpu_id_or_host(void)
{
	extern __thread unsigned long shim_pcpu_off;

	/* Host threads that are no shim task (the tick) have no CPU. */
	return shim_pcpu_off ? smp_processor_id() : -1;
}

int vprintk(const char *fmt, va_list ap)
{
	char buf[1024];
	int level = 4, n, cpu = cpu_id_or_host();
	bool cont = false;

	while (fmt[0] == KERN_SOH[0] && fmt[1]) {
		if (fmt[1] == 'c')
			cont = true;
		else
			level = fmt[1] - '0';
		fmt += 2;
	}
	if (level == 6 && __atomic_load_n(&printk_quiet_info, __ATOMIC_RELAXED))
		return 0;
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	pthread_mutex_lock(&printk_lock);
	if (cont)
		fputs(buf, stdout);
	else if (cpu >= 0)
		printf("[c%d] %s", cpu, buf);
	else
		printf("[host] %s", buf);
	fflush(stdout);
	pthread_mutex_unlock(&printk_lock);
	return n;
}

int printk(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vprintk(fmt, ap);
	va_end(ap);
	return n;
}

void printk_raw(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pthread_mutex_lock(&printk_lock);
	vprintf(fmt, ap);
	fflush(stdout);
	pthread_mutex_unlock(&printk_lock);
	va_end(ap);
}

/* The host keeps no memory log: the same as printk_raw(). */
void printk_raw_nolog(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pthread_mutex_lock(&printk_lock);
	vprintf(fmt, ap);
	fflush(stdout);
	pthread_mutex_unlock(&printk_lock);
	va_end(ap);
}

/* The host's threads share one clock: no TSC skew to mark. */
void printk_bench(const char *indent, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pthread_mutex_lock(&printk_lock);
	printf("%s# ", indent);
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
	pthread_mutex_unlock(&printk_lock);
	va_end(ap);
}

void printk_nmi_flush(void) {}

void dump_stack(void)
{
	pthread_mutex_lock(&printk_lock);
	fflush(stdout);
	print_trace();
	fflush(stderr);
	pthread_mutex_unlock(&printk_lock);
}

void warn_slowpath(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	__atomic_fetch_add(&warn_count, 1, __ATOMIC_RELAXED);
	shim_count_error();
	printk(KERN_ERR "WARNING: at %s:%d\n", file, line);
	va_start(ap, fmt);
	vprintk(fmt, ap);
	va_end(ap);
	printk(KERN_CONT "\n");
	dump_stack();
}

__noreturn void panic(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "Kernel panic - not syncing: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	print_trace();
	abort();
}

/* ---- kmalloc: the host allocator, with the kernel's zeroing flag ---- */

void *kmalloc(size_t size, gfp_t flags)
{
	void *p = malloc(size ? size : 1);

	if (p && (flags & __GFP_ZERO))
		memset(p, 0, size);
	return p;
}

void kfree(const void *p)
{
	free((void *)p);
}

/* ---- clocks ---- */

u64 get_cycles(void) { return shim_now_ns(); }
u64 get_cycles_ordered(void) { return shim_now_ns(); }
u64 ktime_get_ns(void) { return shim_now_ns(); }
u64 cycles_to_ktime_ns(u64 tsc) { return tsc; }
u64 cycles_to_ns(u64 cycles) { return cycles; }
u64 ns_to_cycles(u64 ns) { return ns; }
void time_set_tsc_khz(u64 khz) { (void)khz; }

/* A busy-wait is an interrupt point, as it is with irqs on in the kernel. */
void ndelay(unsigned long ns)
{
	u64 end = shim_now_ns() + ns;

	while (shim_now_ns() < end) {
		shim_irq_point_all();
		sched_yield();
	}
}

void udelay(unsigned long us)
{
	ndelay(us * 1000);
}

void mdelay(unsigned long ms)
{
	ndelay(ms * 1000000);
}

/* kernel/ktap.h: rcu/ fails the running test case on misuse; here the
 * program is the test case. */
void ktap_fail(const char *fmt, ...)
{
	va_list ap;

	shim_count_error();
	printk(KERN_ERR "not ok (ktap_fail): ");
	va_start(ap, fmt);
	vprintk(fmt, ap);
	va_end(ap);
	printk(KERN_CONT "\n");
}

/* kernel/kallsyms.h: the host has no symbol table of its own here; the
 * address is what a report of rcu/debug_head.c needs to tell heads apart. */
void sprint_symbol(char *buf, size_t size, unsigned long addr)
{
	snprintf(buf, size, "%#lx", addr);
}

/* ---- torture.kfree_rcu: the host has no kfree_rcu() ----
 * rcu/kvfree.c needs the kernel's pages and timers, so it and its
 * stressor (rcu/torture_kfree.c) are kernel only; torture.c's hooks do
 * nothing here. */
#include "rcu/torture_internal.h"

int rcu_torture_kfree_start(void) { return 0; }
bool rcu_torture_kfree_pending(void) { return false; }
void rcu_torture_kfree_stop(void) {}
bool rcu_torture_kfree_report(void) { return true; }
void *rcu_torture_kfree_read_start(void) { return NULL; }
void rcu_torture_kfree_read_end(void *obj, int cpu) { (void)obj; (void)cpu; }
