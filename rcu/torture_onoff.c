/*
 * rcu/torture_onoff.c - rcutorture's oldest stressor, as in Linux: a
 * thread that takes random CPUs offline and brings them back through the
 * whole run (torture.onoff_interval=MS between operations, after
 * torture.onoff_holdoff=S), while the readers, writers and fake writers
 * of rcu/torture.c run on whichever CPUs are left.  It counts the
 * operations that succeeded and times each (mean and maximum), and
 * rcu_torture_run() keeps going until at least torture.onoff_min
 * offline+online pairs are done (a count that must be reached, not a
 * rate), unless no operation completes for 300 s (a hang guard).
 */
#include "rcu/torture_onoff.h"
#include "kernel/cmdline.h"
#include "kernel/cpu.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/time.h"

static unsigned int onoff_interval;
core_param(torture.onoff_interval, onoff_interval, uint,
	   "rcutorture: ms between CPU offline/online operations (0: none)");
static unsigned int onoff_holdoff;
core_param(torture.onoff_holdoff, onoff_holdoff, uint,
	   "rcutorture: seconds before the first CPU offline operation");
static unsigned int onoff_min;
core_param(torture.onoff_min, onoff_min, uint,
	   "rcutorture: offline+online pairs a run must complete before it ends");

static struct task *onoff_task;
static struct torture_onoff_stats onoff_stats;	/* the onoff thread's; read after it stops */
/* The first failure, repeated in the summary: the lines a failed run's
 * judge shows are its last ones, not the error's own line. */
static char onoff_first_error[64];
static u64 onoff_t0;

/* Sleeps ms in short steps, so kthread_stop() is not kept waiting. */
static void onoff_sleep(unsigned int ms)
{
	u64 end = ktime_get_ns() + (u64)ms * 1000000ull;

	while (!kthread_should_stop() && ktime_get_ns() < end)
		msleep(MIN(ms, 10u));
}

static void onoff_error(struct torture_onoff_stats *s, const char *op, int cpu, int ret)
{
	if (!s->errors++)
		snprintf(onoff_first_error, sizeof(onoff_first_error), "%s(%d) %d at %llu ms",
			 op, cpu, ret, (unsigned long long)((ktime_get_ns() - onoff_t0) / 1000000));
}

static void account(unsigned long *n, u64 *sum, u64 *max, u64 ns)
{
	WRITE_ONCE(*n, *n + 1);
	*sum += ns;
	if (ns > *max)
		*max = ns;
}

static int torture_onoff_thread(void *arg)
{
	u64 seed = (u64)(unsigned long)arg ^ ktime_get_ns();
	struct torture_onoff_stats *s = &onoff_stats;

	onoff_sleep(onoff_holdoff * 1000);
	while (!kthread_should_stop()) {
		int cpu, ret;
		u64 t0;

		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		cpu = 1 + (int)(seed % (u64)(nr_cpu_ids > 1 ? nr_cpu_ids - 1 : 1));
		if (!cpu_present(cpu))
			continue;
		t0 = ktime_get_ns();
		if (cpu_online(cpu)) {
			s->offl_attempts++;
			ret = cpu_down(cpu);
			if (!ret) {
				account(&s->offl, &s->offl_ns_sum, &s->offl_ns_max, ktime_get_ns() - t0);
			} else if (ret != -EBUSY) {
				pr_err("rcu-torture: onoff: cpu_down(%d) failed: %d\n", cpu, ret);
				onoff_error(s, "cpu_down", cpu, ret);
			}
		} else {
			s->onl_attempts++;
			ret = cpu_up(cpu);
			if (!ret) {
				account(&s->onl, &s->onl_ns_sum, &s->onl_ns_max, ktime_get_ns() - t0);
			} else if (ret != -EBUSY) {	/* -EBUSY: a late death, counted */
				pr_err("rcu-torture: onoff: cpu_up(%d) failed: %d\n", cpu, ret);
				onoff_error(s, "cpu_up", cpu, ret);
			}
		}
		onoff_sleep(onoff_interval);
	}
	return 0;
}

bool torture_onoff_start(void)
{
	onoff_stats = (struct torture_onoff_stats){ 0 };
	onoff_first_error[0] = '\0';
	onoff_t0 = ktime_get_ns();
	onoff_task = NULL;
	if (!onoff_interval)
		return false;
	if (num_online_cpus() < 2) {
		pr_info("rcu-torture: onoff: one CPU, nothing to take offline\n");
		return false;
	}
	pr_info("rcu-torture: onoff: every %u ms after %u s, at least %u pairs\n",
		onoff_interval, onoff_holdoff, onoff_min);
	onoff_task = kthread_run(torture_onoff_thread, NULL, "rcu_torture_onoff");
	return onoff_task != NULL;
}

unsigned long torture_onoff_ops(void)
{
	return READ_ONCE(onoff_stats.offl) + READ_ONCE(onoff_stats.onl);
}

bool torture_onoff_done(void)
{
	return !onoff_task ||
	       MIN(READ_ONCE(onoff_stats.offl), READ_ONCE(onoff_stats.onl)) >= onoff_min;
}

/* Stops the thread, brings every CPU back, prints the counts and times. */
bool torture_onoff_stop(const char *type, struct torture_onoff_stats *out)
{
	struct torture_onoff_stats *s = &onoff_stats;
	int cpu;

	if (!onoff_task) {
		if (out)
			*out = (struct torture_onoff_stats){ 0 };
		return true;
	}
	kthread_stop(onoff_task);
	onoff_task = NULL;
	for (cpu = 1; cpu < NR_CPUS; cpu++) {
		int ret;

		if (!cpu_present(cpu) || cpu_online(cpu))
			continue;
		ret = cpu_up(cpu);
		if (ret) {
			pr_err("rcu-torture: onoff: CPU %d did not come back at the end: %d\n",
			       cpu, ret);
			onoff_error(s, "cpu_up", cpu, ret);
		}
	}
	printk(KERN_INFO "rcu-torture: onoff: %lu/%lu offlines, %lu/%lu onlines, "
	       "offline mean %llu us max %llu us, online mean %llu us max %llu us, %lu errors\n",
	       s->offl, s->offl_attempts, s->onl, s->onl_attempts,
	       (unsigned long long)(s->offl ? s->offl_ns_sum / s->offl / 1000 : 0),
	       (unsigned long long)(s->offl_ns_max / 1000),
	       (unsigned long long)(s->onl ? s->onl_ns_sum / s->onl / 1000 : 0),
	       (unsigned long long)(s->onl_ns_max / 1000), s->errors);
	printk_bench("", "bench name=torture_onoff type=%s cpus=%d interval_ms=%u offlines=%lu "
		     "onlines=%lu offline_mean_us=%llu offline_max_us=%llu online_mean_us=%llu "
		     "online_max_us=%llu errors=%lu", type, num_online_cpus(), onoff_interval,
		     s->offl, s->onl,
		     (unsigned long long)(s->offl ? s->offl_ns_sum / s->offl / 1000 : 0),
		     (unsigned long long)(s->offl_ns_max / 1000),
		     (unsigned long long)(s->onl ? s->onl_ns_sum / s->onl / 1000 : 0),
		     (unsigned long long)(s->onl_ns_max / 1000), s->errors);
	if (s->errors)
		pr_err("rcu-torture: onoff: %lu CPU hotplug operations failed, the first: %s\n",
		       s->errors, onoff_first_error);
	if (MIN(s->offl, s->onl) < onoff_min)
		pr_err("rcu-torture: onoff: only %lu offline+online pairs, %u wanted\n",
		       MIN(s->offl, s->onl), onoff_min);
	if (out)
		*out = *s;
	return !s->errors && MIN(s->offl, s->onl) >= onoff_min;
}
