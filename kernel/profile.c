/* kernel/profile.c: the NMI profile buffer (kernel/profile.h), the
 * sampler that drives it, and its report.
 *
 * The contract, as the article states it:
 *  - nmi_profile() runs in NMI context on any CPU.  It cannot be preempted
 *    or interrupted by an irq, so it is an RCU-sched read-side critical
 *    section without saying so; it fetches the buffer once with
 *    rcu_dereference() and uses only that buffer's own size.
 *  - Updaters (start, switch, stop) are serialised by profile_mutex and
 *    publish with rcu_assign_pointer(); after synchronize_sched() returns,
 *    no NMI that saw the old buffer is still running, so it may be freed.
 *    The grace period is the only thing between the NMIs and the free: no
 *    lock, no reference count, no atomic handshake with the NMI side.
 *
 * The sampler is a thread bound to CPU 0 that kicks every other online
 * CPU with an NMI IPI at the chosen rate (works everywhere, QEMU TCG
 * included), or, where the CPU has an architectural PMU and
 * profile.source=pmu|auto, each CPU's cycle counter overflows into an NMI.
 */
#include "kernel/profile.h"
#include "kernel/cmdline.h"
#include "kernel/kallsyms.h"
#include "kernel/mutex.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/slab.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "rcu/rcupdate.h"

#define PROFILE_GUARD 0x9a0f11e5a0f11e5aull
#define POISON_BYTE 0x6b
#define REPORT_TOP 10
#define DEFAULT_BUCKETS 4096

extern char __text_start[], __text_end[];

static struct profile_buffer __rcu *buf;
static DEFINE_MUTEX(profile_mutex);

void (*profile_sync)(void) = synchronize_sched;
unsigned int profile_reader_delay_ns;

DEFINE_PER_CPU(u64, profile_samples);
DEFINE_PER_CPU(u64, profile_dropped);
DEFINE_PER_CPU(u64, profile_out_of_range);
DEFINE_PER_CPU(u64, profile_outside_text);
DEFINE_PER_CPU(bool, profile_sampled);	/* a sampling target this run */

/* ---- buffers: guard words before and after, so an overrun shows ---- */

struct guarded_buffer {
	u64 guard_lo;
	struct profile_buffer b;	/* entry[] follows, then guard_hi */
};

static u64 *guard_hi(struct profile_buffer *p)
{
	return (u64 *)ALIGN_UP((unsigned long)&p->entry[p->size], 8);
}

static size_t guarded_size(long size)
{
	return sizeof(struct guarded_buffer) + sizeof(atomic_t) * size + 16;
}

static struct profile_buffer *profile_alloc(long size)
{
	unsigned long text = (unsigned long)(__text_end - __text_start);
	struct guarded_buffer *g;
	int shift = 0;

	if (size <= 0 || size > (1l << 24))
		return NULL;
	g = kzalloc(guarded_size(size), GFP_KERNEL);
	if (!g)
		return NULL;
	/* Buckets as fine as the buffer allows while still covering text. */
	while ((text >> shift) > (unsigned long)size)
		shift++;
	g->guard_lo = PROFILE_GUARD;
	g->b.size = size;
	g->b.shift = shift;
	*guard_hi(&g->b) = PROFILE_GUARD;
	return &g->b;
}

static bool guards_intact(struct profile_buffer *p)
{
	struct guarded_buffer *g = container_of(p, struct guarded_buffer, b);
	return g->guard_lo == PROFILE_GUARD && *guard_hi(p) == PROFILE_GUARD;
}

/* ---- the folded report: what every retired buffer counted ---- */

#define FOLD_BUCKETS 65536
static u64 fold_counts[FOLD_BUCKETS];
static int fold_shift = -1;
static unsigned long guard_failures;

static void fold(struct profile_buffer *p)
{
	if (!guards_intact(p))
		guard_failures++;
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

/* ---- the quarantine (tests): freed buffers kept, poisoned, checked ---- */

#define QUARANTINE_MAX 64
static bool quarantine_on;
static struct guarded_buffer *quarantine[QUARANTINE_MAX];
static size_t quarantine_len[QUARANTINE_MAX];
static int quarantine_n;
static unsigned long quarantine_dirty;

static bool poison_intact(const u8 *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != POISON_BYTE)
			return false;
	return true;
}

/*
 * The quarantine's own kfree() must be safe even while a test runs the
 * busted grace period: a real grace period first, so no NMI (an RCU-sched
 * reader) and no preemptible sampler still holds any of these buffers.
 * One synchronize_rcu() covers both kinds of reader (rcu/rcupdate.h: one
 * grace-period machine serves both flavours).  A write that landed before
 * it is still seen as dirt.
 */
static void quarantine_scan(void)
{
	synchronize_rcu();
	for (int i = 0; i < quarantine_n; i++) {
		struct guarded_buffer *g = quarantine[i];

		/* The header was kept for late readers (profile_free()); no reader writes it. */
		memset(&g->b, POISON_BYTE, offsetof(struct profile_buffer, entry));
		if (!poison_intact((const u8 *)g, quarantine_len[i]))
			quarantine_dirty++;
		kfree(quarantine[i]);
	}
	quarantine_n = 0;
}

void profile_quarantine(bool on)
{
	mutex_lock(&profile_mutex);
	quarantine_on = on;
	mutex_unlock(&profile_mutex);
}

unsigned long profile_quarantine_check(void)
{
	mutex_lock(&profile_mutex);
	quarantine_scan();
	unsigned long dirty = quarantine_dirty;
	quarantine_dirty = 0;
	mutex_unlock(&profile_mutex);
	return dirty;
}

/* After the grace period: nobody may touch p any more. */
static void profile_free(struct profile_buffer *p)
{
	struct guarded_buffer *g = container_of(p, struct guarded_buffer, b);
	size_t n = guarded_size(p->size);

	fold(p);
	if (!quarantine_on) {
		kfree(g);
		return;
	}
	if (quarantine_n == QUARANTINE_MAX)
		quarantine_scan();
	/*
	 * All but the header: a reader the busted grace period lets in late
	 * then computes a sane index and its write lands in the poisoned
	 * entries, where the scan sees it.  A poisoned shift would make it
	 * shift by 0x6b6b6b6b instead, undefined behaviour that UBSan reports
	 * as a crash of its own (seen at 16 CPUs).
	 */
	size_t head = offsetof(struct guarded_buffer, b.entry);

	memset(&g->guard_lo, POISON_BYTE, sizeof(g->guard_lo));
	memset((u8 *)g + head, POISON_BYTE, n - head);
	quarantine[quarantine_n] = g;
	quarantine_len[quarantine_n++] = n;
}

/* ---- the article's code ---- */

void nmi_profile(unsigned long pc)
{
	struct profile_buffer *p = rcu_dereference(buf);

	if (p == NULL) {
		this_cpu_inc(profile_dropped);
		return;
	}
	unsigned long idx = pc >> p->shift;
	if (idx >= (unsigned long)p->size) {
		this_cpu_inc(profile_out_of_range);
		return;
	}
	if (unlikely(profile_reader_delay_ns))
		ndelay(profile_reader_delay_ns);	/* a slow reader, for tests */
	atomic_inc(&p->entry[idx]);
}

void nmi_stop(void)
{
	struct profile_buffer *p = rcu_access_pointer(buf);

	if (p == NULL)
		return;
	rcu_assign_pointer(buf, NULL);
	profile_sync();		/* synchronize_sched(): every NMI holding p is done */
	profile_free(p);
}

/*
 * Quick Quiz 6: a preemptible reader must say where its critical section
 * is, since nothing else stops a grace period from ending under it.
 * With CONFIG_PREEMPT_RCU (the default build) rcu_read_lock() only counts
 * nesting in the task and the reader may be preempted (rcu/preempt.c);
 * with PREEMPT_RCU=0 the same code is an RCU-sched reader.
 */
void nmi_profile_preemptible(unsigned long pc)
{
	struct profile_buffer *p;

	rcu_read_lock();
	p = rcu_dereference(buf);
	if (p == NULL) {
		rcu_read_unlock();
		this_cpu_inc(profile_dropped);
		return;
	}
	unsigned long idx = pc >> p->shift;
	if (idx >= (unsigned long)p->size) {
		rcu_read_unlock();
		return;
	}
	atomic_inc(&p->entry[idx]);
	rcu_read_unlock();
}

void nmi_stop_preemptible(void)
{
	struct profile_buffer *p = rcu_access_pointer(buf);

	if (p == NULL)
		return;
	rcu_assign_pointer(buf, NULL);
	synchronize_rcu();
	profile_free(p);
}

/* Called by the arch NMI handler with the interrupted instruction. */
void profile_nmi_sample(unsigned long ip)
{
	this_cpu_inc(profile_samples);
	if (ip < (unsigned long)__text_start || ip >= (unsigned long)__text_end) {
		this_cpu_inc(profile_outside_text);
		return;
	}
	nmi_profile(ip - (unsigned long)__text_start);
}

/* ---- the sampler ---- */

static unsigned int profile_source_opt;	/* 0 auto, 1 ipi, 2 pmu */
static char *profile_source_name;
core_param(profile.source, profile_source_name, charp,
	   "NMI source for profile=: auto (PMU if present, else IPIs), ipi, pmu");

static u64 boot_profile_end_ns;	/* profile=: when sampling stops */
static struct task *sampler;
static unsigned int sampler_rate;
static bool using_pmu;
static u64 run_start_ns, run_kicks, run_ns;

/* One round of NMIs per period; periods shorter than a tick are not
 * offered (the sampler sleeps between rounds, so CPU 0 stays usable). */
static int sampler_fn(void *arg)
{
	unsigned int period_ms = MAX(1000 / sampler_rate, 1u);

	(void)arg;
	while (!kthread_should_stop()) {
		int cpu;
		if (!boot_profile_end_ns || ktime_get_ns() < boot_profile_end_ns) {
			for_each_online_cpu(cpu) {
				if (cpu != smp_processor_id() && arch_profile_kick(cpu))
					run_kicks++;
			}
		}
		msleep(period_ms);
	}
	return 0;
}

static int sources_start(unsigned int rate_hz)
{
	bool want_pmu = profile_source_opt != 1;

	using_pmu = false;
	if (want_pmu && arch_profile_pmu_available()) {
		if (!arch_profile_pmu_start(rate_hz)) {
			using_pmu = true;
			return 0;
		}
	}
	if (profile_source_opt == 2)
		printk(KERN_WARNING "profile: no architectural PMU on this CPU; using NMI IPIs from CPU 0\n");
	sampler_rate = rate_hz;
	sampler = kthread_create(sampler_fn, NULL, "profile-sampler");
	if (!sampler)
		return -ENOMEM;
	kthread_bind(sampler, 0);
	wake_up_process(sampler);
	return 0;
}

static void sources_stop(void)
{
	if (using_pmu)
		arch_profile_pmu_stop();
	if (sampler) {
		kthread_stop(sampler);
		sampler = NULL;
	}
}

bool profile_running(void)
{
	return rcu_access_pointer(buf) != NULL;
}

int profile_start(long size, unsigned int rate_hz)
{
	static bool inited;
	struct profile_buffer *p;
	int cpu, err;

	if (!rate_hz || rate_hz > 100000)
		return -EINVAL;
	mutex_lock(&profile_mutex);
	if (!inited) {
		err = arch_profile_init();
		if (err)
			printk(KERN_ERR "profile: cannot register the NMI handler (%d)\n", err);
		inited = true;
	}
	if (profile_source_name) {
		profile_source_opt = !strcmp(profile_source_name, "ipi") ? 1 :
				     !strcmp(profile_source_name, "pmu") ? 2 : 0;
	}
	if (rcu_access_pointer(buf)) {
		mutex_unlock(&profile_mutex);
		return -EBUSY;
	}
	p = profile_alloc(size);
	if (!p) {
		mutex_unlock(&profile_mutex);
		return -ENOMEM;
	}
	for_each_online_cpu(cpu)
		per_cpu(profile_sampled, cpu) = cpu != 0;
	rcu_assign_pointer(buf, p);
	run_start_ns = ktime_get_ns();
	run_kicks = 0;
	err = sources_start(rate_hz);
	if (err) {
		nmi_stop();
		mutex_unlock(&profile_mutex);
		return err;
	}
	mutex_unlock(&profile_mutex);
	return 0;
}

int profile_restart_buffer(long size)
{
	struct profile_buffer *p = profile_alloc(size);

	if (!p)
		return -ENOMEM;
	mutex_lock(&profile_mutex);
	nmi_stop();
	rcu_assign_pointer(buf, p);
	mutex_unlock(&profile_mutex);
	return 0;
}

int profile_switch(long new_size)
{
	struct profile_buffer *new = profile_alloc(new_size), *old;

	if (!new)
		return -ENOMEM;
	mutex_lock(&profile_mutex);
	old = rcu_access_pointer(buf);
	if (!old) {
		mutex_unlock(&profile_mutex);
		kfree(container_of(new, struct guarded_buffer, b));
		return -ENOENT;
	}
	rcu_assign_pointer(buf, new);
	profile_sync();		/* every NMI still using old is done */
	profile_free(old);
	mutex_unlock(&profile_mutex);
	return 0;
}

static void profile_report(void);

void profile_stop(bool report)
{
	mutex_lock(&profile_mutex);
	sources_stop();
	run_ns = ktime_get_ns() - run_start_ns;
	nmi_stop();
	mutex_unlock(&profile_mutex);
	if (report)
		profile_report();
}

u64 profile_achieved_rate_hz(void)
{
	int targets = num_online_cpus() - 1;
	if (using_pmu || !run_ns || targets <= 0)
		return 0;
	return run_kicks * 1000000000ull / run_ns / targets;
}

bool profile_guards_ok(void)
{
	struct profile_buffer *p;
	bool ok;

	mutex_lock(&profile_mutex);
	p = rcu_access_pointer(buf);
	ok = !guard_failures && (!p || guards_intact(p));
	mutex_unlock(&profile_mutex);
	return ok;
}

void profile_get_stats(struct profile_stats *st)
{
	int cpu;

	memset(st, 0, sizeof(*st));
	for_each_online_cpu(cpu) {
		st->samples[cpu] = per_cpu(profile_samples, cpu);
		st->dropped += per_cpu(profile_dropped, cpu);
		st->out_of_range += per_cpu(profile_out_of_range, cpu);
		st->outside_text += per_cpu(profile_outside_text, cpu);
	}
}

void profile_reset_stats(void)
{
	int cpu;

	mutex_lock(&profile_mutex);
	for_each_online_cpu(cpu) {
		per_cpu(profile_samples, cpu) = 0;
		per_cpu(profile_dropped, cpu) = 0;
		per_cpu(profile_out_of_range, cpu) = 0;
		per_cpu(profile_outside_text, cpu) = 0;
	}
	memset(fold_counts, 0, sizeof(fold_counts));
	fold_shift = -1;
	guard_failures = 0;
	mutex_unlock(&profile_mutex);
}

/* ---- the report: samples per function, top first ---- */

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

static void profile_report(void)
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
	       using_pmu ? "PMU cycle overflow" : "NMI IPIs from CPU 0",
	       (unsigned long long)(run_ns / 1000000), (unsigned long long)total);
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

/* ---- profile=SECONDS[,rate] on the command line ---- */

static char *profile_opt;
core_param(profile, profile_opt, charp,
	   "profile the run by NMI: SECONDS[,RATE_HZ] (default rate 1000)");

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
	boot_profile_end_ns = ktime_get_ns() + secs * 1000000000ull;
	printk(KERN_INFO "profile: sampling for %lu s at %lu Hz\n", secs, rate);
}

/* At the end of the run: the sampler stopped kicking at the deadline (or
 * the run ended first); report what was seen. */
void profile_boot_finish(void)
{
	if (!profile_running() || !boot_profile_end_ns)
		return;
	profile_stop(true);
	boot_profile_end_ns = 0;
}
