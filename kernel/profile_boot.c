/* kernel/profile_boot.c: profile=SECONDS[,RATE_HZ] on the command line:
 * profile the run from boot and report at its end. */
#include "kernel/profile_internal.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/time.h"

#define DEFAULT_BUCKETS 4096

static char *profile_opt;
core_param(profile, profile_opt, charp,
	   "profile the run by NMI: SECONDS[,RATE_HZ] (default rate 1000)");
static bool boot_profiling;
static u64 boot_profile_start, boot_profile_end;	/* ktime, ns */

static unsigned long parse_uint(const char **s)
{
	unsigned long v = 0;
	while (**s >= '0' && **s <= '9')
		v = v * 10 + (unsigned long)(*(*s)++ - '0');
	return v;
}

void profile_boot_start(void)
{
	if (!profile_opt)
		return;
	const char *s = profile_opt;
	unsigned long secs = parse_uint(&s), rate = 1000;
	if (*s == ',') {
		s++;
		rate = parse_uint(&s);
	}
	if (*s || !secs || !rate || rate > 100000) {
		printk(KERN_ERR "profile: bad profile=%s (want SECONDS[,RATE_HZ]); not profiling\n",
		       profile_opt);
		return;
	}
	int err = profile_start(DEFAULT_BUCKETS, rate);
	if (err) {
		printk(KERN_ERR "profile: could not start (%d)\n", err);
		return;
	}
	boot_profile_start = ktime_get_ns();
	boot_profile_end = boot_profile_start + secs * 1000000000ull;
	profile_sample_until(boot_profile_end);
	boot_profiling = true;
	printk(KERN_INFO "profile: sampling for %lu s at %lu Hz\n", secs, rate);
}

/* At the end of the run: the sampler stopped kicking at the deadline (or
 * the run ended first); report what was seen. */
void profile_boot_finish(void)
{
	u64 now = ktime_get_ns();

	if (!profile_running() || !boot_profiling)
		return;
	/* Else the report's "N ms" reads as a short count of the asked time. */
	if (now < boot_profile_end)
		printk(KERN_INFO "profile: the run ended %llu ms into the %llu s asked: "
		       "the profile covers only that\n",
		       (unsigned long long)(now - boot_profile_start) / 1000000,
		       (unsigned long long)(boot_profile_end - boot_profile_start) / 1000000000);
	profile_stop(true);
	profile_sample_until(0);
	boot_profiling = false;
}
