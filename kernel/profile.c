/* kernel/profile.c: the NMI profile buffer of the article (kernel/profile.h):
 * its reader nmi_profile(), its updaters, and the buffers they exchange.
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
 * Where the NMIs come from is kernel/profile_sampler.c; the report of
 * what they counted is kernel/profile_report.c; the profile= option is
 * kernel/profile_boot.c.
 */
#include "kernel/profile_internal.h"
#include "kernel/percpu.h"
#include "kernel/slab.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "kernel/time.h"

#define PROFILE_GUARD 0x9a0f11e5a0f11e5aull

static struct profile_buffer __rcu *buf;
DEFINE_MUTEX(profile_mutex);
static unsigned long guard_failures;	/* retired buffers with a guard overwritten */

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

/* After the grace period: nobody may touch p any more. */
static void profile_free(struct profile_buffer *p)
{
	struct guarded_buffer *g = container_of(p, struct guarded_buffer, b);

	if (!guards_intact(p))
		guard_failures++;
	profile_fold(p);
	if (!profile_quarantine_retire(g, guarded_size(p->size),
				       offsetof(struct guarded_buffer, b.entry)))
		kfree(g);
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
 * Quick Quiz 6 of "What is RCU? Part 2: Usage" (docs/article.md): a
 * preemptible reader must say where its critical section is, since
 * nothing else stops a grace period from ending under it.  With
 * CONFIG_PREEMPT_RCU (the default build) rcu_read_lock() only counts
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
	struct profile_buffer *p;

	/* An updater, as nmi_stop()'s callers: profile_fold() needs it. */
	mutex_lock(&profile_mutex);
	p = rcu_access_pointer(buf);
	if (p) {
		rcu_assign_pointer(buf, NULL);
		synchronize_rcu();
		profile_free(p);
	}
	mutex_unlock(&profile_mutex);
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

/* ---- the updaters ---- */

bool profile_running(void)
{
	return rcu_access_pointer(buf) != NULL;
}

int profile_start(long size, unsigned int rate_hz)
{
	struct profile_buffer *p;
	int cpu, err;

	if (!rate_hz || rate_hz > 100000)
		return -EINVAL;
	mutex_lock(&profile_mutex);
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
	err = profile_sources_start(rate_hz);
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

void profile_stop(bool report)
{
	mutex_lock(&profile_mutex);
	profile_sources_stop();
	nmi_stop();
	mutex_unlock(&profile_mutex);
	if (report)
		profile_report();
}

/* ---- checks and counters ---- */

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
	profile_fold_reset();
	guard_failures = 0;
	mutex_unlock(&profile_mutex);
}
