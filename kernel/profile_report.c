/* kernel/profile_report.c: what the profile buffers counted, folded into
 * one histogram as each buffer retires, and reported per function. */
#include "kernel/profile_internal.h"
#include "kernel/kallsyms.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/string.h"

#define REPORT_TOP 10
#define FOLD_BUCKETS 65536

static u64 fold_counts[FOLD_BUCKETS];
static int fold_shift = -1;

/* Called with profile_mutex held, after p's grace period. */
void profile_fold(struct profile_buffer *p)
{
	lockdep_assert_held(&profile_mutex);
	int shift = p->shift;
	if (fold_shift < 0 || shift > fold_shift)
		fold_shift = MAX(shift, 0);
	/* Re-bucket to the report's own (coarsest seen) granularity; the
	 * report only needs function-level resolution. */
	for (long i = 0; i < p->size; i++) {
		unsigned int n = atomic_read(&p->entry[i]);
		if (!n)
			continue;
		unsigned long off = (unsigned long)i << shift;
		unsigned long idx = off >> fold_shift;
		while (idx >= FOLD_BUCKETS) {
			/* a finer report than fits: coarsen what we have */
			for (unsigned long j = 0; j < FOLD_BUCKETS / 2; j++)
				fold_counts[j] = fold_counts[2 * j] + fold_counts[2 * j + 1];
			memset(&fold_counts[FOLD_BUCKETS / 2], 0, sizeof(fold_counts) / 2);
			fold_shift++;
			idx = off >> fold_shift;
		}
		fold_counts[idx] += n;
	}
}

void profile_fold_reset(void)
{
	memset(fold_counts, 0, sizeof(fold_counts));
	fold_shift = -1;
}

struct func_count {
	const char *name;
	u64 n;
};

static int collect_functions(struct func_count *out, int max)
{
	int used = 0;

	if (fold_shift < 0)
		return 0;
	for (unsigned long i = 0; i < FOLD_BUCKETS; i++) {
		if (!fold_counts[i])
			continue;
		unsigned long addr = (unsigned long)__text_start + (i << fold_shift);
		const char *name = kallsyms_lookup(addr, NULL);
		if (!name)
			name = "(unknown)";
		int j;
		for (j = 0; j < used && out[j].name != name; j++)
			;
		if (j == used) {
			if (used == max)
				continue;
			out[used++] = (struct func_count){ name, 0 };
		}
		out[j].n += fold_counts[i];
	}
	/* insertion sort, most samples first */
	for (int a = 1; a < used; a++)
		for (int b = a; b > 0 && out[b].n > out[b - 1].n; b--) {
			struct func_count t = out[b];
			out[b] = out[b - 1];
			out[b - 1] = t;
		}
	return used;
}

static struct func_count funcs[512];

const char *profile_top_function(unsigned long *samples)
{
	mutex_lock(&profile_mutex);
	int n = collect_functions(funcs, ARRAY_SIZE(funcs));
	const char *name = n ? funcs[0].name : NULL;
	if (samples)
		*samples = n ? funcs[0].n : 0;
	mutex_unlock(&profile_mutex);
	return name;
}

void profile_report(void)
{
	struct profile_stats st;
	u64 total = 0;
	int cpu;

	mutex_lock(&profile_mutex);
	profile_get_stats(&st);
	int n = collect_functions(funcs, ARRAY_SIZE(funcs));
	for (int i = 0; i < n; i++)
		total += funcs[i].n;
	printk(KERN_INFO "profile: source %s, %llu ms, %llu samples in kernel text\n",
	       profile_source_desc(), (unsigned long long)(profile_run_ns() / 1000000),
	       (unsigned long long)total);
	for (int i = 0; i < n && i < REPORT_TOP; i++)
		printk(KERN_INFO "profile: %6llu %3llu%% %s\n", (unsigned long long)funcs[i].n,
		       (unsigned long long)(total ? funcs[i].n * 100 / total : 0), funcs[i].name);
	for_each_online_cpu(cpu)
		if (st.samples[cpu])
			printk(KERN_INFO "profile: cpu%d %llu samples\n", cpu,
			       (unsigned long long)st.samples[cpu]);
	printk(KERN_INFO "profile: dropped (no buffer) %llu, out of range %llu, outside text %llu\n",
	       (unsigned long long)st.dropped, (unsigned long long)st.out_of_range,
	       (unsigned long long)st.outside_text);
	mutex_unlock(&profile_mutex);
}
