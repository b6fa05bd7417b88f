/* tests/kernel/test_idle.c: KTAP suite `idle`: the idle benchmark row.
 * Every CPU idles for idle.secs seconds (0, the default, skips it), and
 * the row gives the ticks and wake-ups per CPU per second, with and
 * without tickless idle (nohz=), and the QEMU process's host CPU time
 * over the window: the kernel brackets the window with two marker lines,
 * tests/runner.py reads /proc/PID/stat at each and writes the figure
 * over host_cpu_pct=-1 in the log (-1 stays when run otherwise). */
#include "kernel/ktap.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/tick_sched.h"
#include "kernel/time.h"
#include "arch/x86_64/timer.h"

static unsigned int idle_secs;
core_param(idle.secs, idle_secs, uint, "the idle suite's window in seconds (0: skip it)");

static u64 sum_ticks(void)
{
	u64 n = 0;
	int cpu;

	for_each_online_cpu(cpu)
		n += READ_ONCE(per_cpu(timer_ticks, cpu));
	return n;
}

static u64 sum_halts(void)
{
	u64 n = 0;
	int cpu;

	for_each_online_cpu(cpu)
		n += sched_stat(cpu, idle_halts);
	return n;
}

/* Hundredths, printed as F.FF. */
#define FIX2(x) (unsigned long long)((x) / 100), (unsigned long long)((x) % 100)

static void idle_row(void)
{
	int ncpu = num_online_cpus();
	u64 t0, t1, ticks, halts, ns;

	if (!idle_secs) {
		ktap_skip("idle.secs=0");
		return;
	}
	msleep(1000);		/* let the boot's stragglers settle */
	printk_raw("# idle: host window start\n");
	ticks = sum_ticks();
	halts = sum_halts();
	t0 = ktime_get_ns();
	msleep(idle_secs * 1000);
	t1 = ktime_get_ns();
	ticks = sum_ticks() - ticks;
	halts = sum_halts() - halts;
	printk_raw("# idle: host window end\n");
	ns = t1 - t0;
	ktap_log("bench name=idle cpus=%d secs=%u nohz=%s ticks_per_cpu_per_s=%llu.%02llu "
		 "wakeups_per_cpu_per_s=%llu.%02llu host_cpu_pct=-1", ncpu, idle_secs,
		 tick_nohz_enabled ? "on" : "off",
		 FIX2(ticks * 100 * 1000000000ull / ((u64)ncpu * ns)),
		 FIX2(halts * 100 * 1000000000ull / ((u64)ncpu * ns)));
	KTAP_EXPECT(ticks > 0);
}

KTAP_SUITE(idle, KTAP_CASE(idle_row));
