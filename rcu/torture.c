/*
 * rcu/torture.c - rcutorture's method applied to RCU-sched, in the kernel
 * (torture= on the command line, tests/kernel/test_rcu.c) and on the host
 * (tests/host/rcu, under ThreadSanitizer).
 *
 * One writer replaces the RCU-protected rcu_torture_current again and
 * again; each old element walks a pipeline of RCU_TORTURE_PIPE_LEN stages,
 * one stage per grace period (the writer's wait, or a callback chain),
 * and goes back to the free pool at the end, poisoned.  Readers on every
 * CPU pick up the current element inside a read-side critical section of
 * a random kind (preempt_disable, irqs off, bh off, rcu_read_lock_sched,
 * nested), dawdle, and record the element's stage.  Stage 0 or 1 is fine
 * (1: removed while we held it); 2 or more means a whole grace period
 * passed while a reader that started before it still held the element:
 * RCU is broken.  A poisoned element seen is broken too.  Fake writers
 * wait for grace periods at the same time, so requests overlap.
 *
 * The rcu and srcu flavours (rcu, rcu-expedited, srcu, srcu-expedited)
 * put the same body inside rcu_read_lock() or srcu_read_lock() sections
 * that are also preempted on purpose (a forced switch mid-section) and,
 * for SRCU, sleep; their writer waits with synchronize_rcu*() or
 * synchronize_srcu*().
 *
 * Element fields are read and written with READ_ONCE/WRITE_ONCE only: the
 * busted flavour really does reuse elements under readers, and the host
 * race detector must not drown its FAILURE in reports.
 */
#include "rcu/torture.h"
#include "rcu/torture_onoff.h"
#include "rcu/tree.h"
#include "rcu/srcu.h"
#include "kernel/printk.h"
#include "kernel/cmdline.h"
#include "kernel/list.h"

#define RCU_TORTURE_POOL	(10 * RCU_TORTURE_PIPE_LEN)
#define RCU_TORTURE_POISON	0x6b6b6b6bu
#define MAX_FAKEWRITERS		4

struct rcu_torture {
	struct rcu_head rtort_rcu;
	int rtort_pipe_count;
	struct list_head rtort_free;
	int rtort_mbtest;		/* 1 while allocated, 0 once freed */
	unsigned int rtort_poison;	/* RCU_TORTURE_POISON once freed */
};

enum torture_mode { TM_SYNC, TM_EXP, TM_ASYNC, TM_POLLED, TM_BUSTED };
/* Which RCU: RCU-sched, preemptible RCU (rcu/preempt.c), SRCU (rcu/srcu.c). */
enum torture_flavor { TF_SCHED, TF_RCU, TF_SRCU };

struct rcu_torture_ops {
	const char *name;
	enum torture_mode mode;
	enum torture_flavor flavor;
};

static const struct rcu_torture_ops torture_ops[] = {
	{ "sched", TM_SYNC, TF_SCHED },
	{ "sched-expedited", TM_EXP, TF_SCHED },
	{ "sched-async", TM_ASYNC, TF_SCHED },
	{ "sched-polled", TM_POLLED, TF_SCHED },
	{ "busted", TM_BUSTED, TF_SCHED },
	{ "rcu", TM_SYNC, TF_RCU },
	{ "rcu-expedited", TM_EXP, TF_RCU },
	{ "srcu", TM_SYNC, TF_SRCU },
	{ "srcu-expedited", TM_EXP, TF_SRCU },
};

DEFINE_STATIC_SRCU(rcu_torture_srcu);

static const char *torture_type;
core_param(torture, torture_type, charp,
	   "run rcutorture: sched, sched-expedited, sched-async, sched-polled, busted, "
	   "rcu, rcu-expedited, srcu, srcu-expedited");
static unsigned int torture_secs = 10;
core_param(torture.secs, torture_secs, uint, "rcutorture run length (seconds)");
static unsigned int torture_nfakewriters = 2;
core_param(torture.nfakewriters, torture_nfakewriters, uint, "fake writer threads");
static unsigned int torture_stat_interval = 5;
core_param(torture.stat_interval, torture_stat_interval, uint,
	   "seconds between summaries (0: only at the end)");

static const struct rcu_torture_ops *cur_ops;
static struct rcu_torture rcu_tortures[RCU_TORTURE_POOL];
static struct rcu_torture *rcu_torture_current;	/* __rcu */
static unsigned long rcu_torture_current_version;
static LIST_HEAD(rcu_torture_freelist);
static LIST_HEAD(rcu_torture_removed);		/* writer-private */
static DEFINE_SPINLOCK(rcu_torture_lock);	/* the free list */

static atomic_long_t n_rcu_torture_alloc;
static atomic_long_t n_rcu_torture_alloc_fail;
static atomic_long_t n_rcu_torture_free;
static atomic_long_t n_rcu_torture_mberror;
static atomic_long_t n_rcu_torture_error;
static atomic_long_t n_rcu_torture_nmi_reads;
static long rcu_torture_wcount[RCU_TORTURE_PIPE_LEN + 1];	/* writer only */

DEFINE_PER_CPU(long [RCU_TORTURE_PIPE_LEN + 1], rcu_torture_count);
DEFINE_PER_CPU(long [RCU_TORTURE_PIPE_LEN + 1], rcu_torture_batch);

static bool torture_stop;	/* READ_ONCE/WRITE_ONCE */
static int torture_error_logged;

/* For the host shim's simulated NMIs (a reader in NMI context). */
void (*rcu_torture_nmi_hook)(void);

/* ---- a small per-thread PRNG (no floating point, no shared state) ---- */

struct torture_random {
	u64 s;
};

static u32 torture_random(struct torture_random *r)
{
	r->s ^= r->s << 13;
	r->s ^= r->s >> 7;
	r->s ^= r->s << 17;
	return (u32)(r->s >> 11);
}

static void torture_random_init(struct torture_random *r, u64 seed)
{
	r->s = seed * 0x9e3779b97f4a7c15ull + get_cycles() + 1;
}

/* ---- the element pool ---- */

static struct rcu_torture *rcu_torture_alloc(void)
{
	struct rcu_torture *p = NULL;
	unsigned long flags;

	spin_lock_irqsave(&rcu_torture_lock, flags);
	if (!list_empty(&rcu_torture_freelist)) {
		p = list_first_entry(&rcu_torture_freelist, struct rcu_torture, rtort_free);
		list_del(&p->rtort_free);
	}
	spin_unlock_irqrestore(&rcu_torture_lock, flags);
	if (p)
		atomic_long_inc(&n_rcu_torture_alloc);
	else
		atomic_long_inc(&n_rcu_torture_alloc_fail);
	return p;
}

static void rcu_torture_free(struct rcu_torture *p)
{
	unsigned long flags;

	WRITE_ONCE(p->rtort_mbtest, 0);
	WRITE_ONCE(p->rtort_poison, RCU_TORTURE_POISON);
	atomic_long_inc(&n_rcu_torture_free);
	spin_lock_irqsave(&rcu_torture_lock, flags);
	list_add_tail(&p->rtort_free, &rcu_torture_freelist);
	spin_unlock_irqrestore(&rcu_torture_lock, flags);
}

/* One more grace period has passed over p: true once it is out of the pipe. */
static bool rcu_torture_pipe_update_one(struct rcu_torture *p)
{
	int i = READ_ONCE(p->rtort_pipe_count);

	if (i > RCU_TORTURE_PIPE_LEN)
		i = RCU_TORTURE_PIPE_LEN;
	__atomic_fetch_add(&rcu_torture_wcount[i], 1, __ATOMIC_RELAXED);
	WRITE_ONCE(p->rtort_pipe_count, i + 1);
	return i + 1 >= RCU_TORTURE_PIPE_LEN;
}

/* The writer's grace period just ended: every removed element moves on. */
static void rcu_torture_pipe_update(void)
{
	struct rcu_torture *p, *n;

	list_for_each_entry_safe(p, n, &rcu_torture_removed, rtort_free) {
		if (rcu_torture_pipe_update_one(p)) {
			list_del(&p->rtort_free);
			rcu_torture_free(p);
		}
	}
}

static void rcu_torture_cb(struct rcu_head *head)
{
	struct rcu_torture *p = container_of(head, struct rcu_torture, rtort_rcu);

	if (READ_ONCE(torture_stop) || rcu_torture_pipe_update_one(p))
		rcu_torture_free(p);
	else
		call_rcu_sched(&p->rtort_rcu, rcu_torture_cb);
}

/* ---- one grace period, the flavour's way ---- */

static void torture_sync_normal(void)
{
	if (cur_ops->flavor == TF_RCU)
		synchronize_rcu();
	else if (cur_ops->flavor == TF_SRCU)
		synchronize_srcu(&rcu_torture_srcu);
	else
		synchronize_sched();
}

static void torture_sync_exp(void)
{
	if (cur_ops->flavor == TF_RCU)
		synchronize_rcu_expedited();
	else if (cur_ops->flavor == TF_SRCU)
		synchronize_srcu_expedited(&rcu_torture_srcu);
	else
		synchronize_sched_expedited();
}

/* Grace periods of the flavour under test, normal and expedited. */
static unsigned long torture_completed(void)
{
	if (cur_ops->flavor == TF_SRCU)
		return srcu_batches_completed(&rcu_torture_srcu);
	return rcu_batches_completed_sched();
}

static unsigned long torture_exp_completed(void)
{
	if (cur_ops->flavor == TF_RCU)
		return rcu_exp_batches_completed();
	if (cur_ops->flavor == TF_SRCU)
		return 0;	/* SRCU counts one kind */
	return rcu_exp_batches_completed_sched();
}

static void torture_gp_sync(struct torture_random *r)
{
	unsigned long cookie;

	switch (cur_ops->mode) {
	case TM_SYNC:
		torture_sync_normal();
		break;
	case TM_EXP:
		torture_sync_exp();
		break;
	case TM_POLLED:
		if (torture_random(r) & 1) {
			cookie = start_poll_synchronize_sched();
			while (!poll_state_synchronize_sched(cookie))
				schedule_timeout_uninterruptible(1);
		} else {
			cond_synchronize_sched(get_state_synchronize_sched());
		}
		break;
	case TM_ASYNC:
		synchronize_sched();	/* fake writers only */
		break;
	case TM_BUSTED:
		break;			/* the deliberate bug: no wait at all */
	}
}

/* ---- threads ---- */

static int rcu_torture_writer(void *arg)
{
	struct torture_random r;

	(void)arg;
	torture_random_init(&r, 0x5eed);
	while (!READ_ONCE(torture_stop)) {
		struct rcu_torture *rp = rcu_torture_alloc(), *old;

		if (!rp) {
			schedule_timeout_uninterruptible(1);
			continue;
		}
		WRITE_ONCE(rp->rtort_pipe_count, 0);
		WRITE_ONCE(rp->rtort_poison, 0);
		WRITE_ONCE(rp->rtort_mbtest, 1);
		udelay(torture_random(&r) & 0x3f);
		old = rcu_dereference_protected(rcu_torture_current, 1);
		rcu_assign_pointer(rcu_torture_current, rp);
		if (old) {
			/* Removed: stage 1.  Readers may still hold it. */
			WRITE_ONCE(old->rtort_pipe_count, old->rtort_pipe_count + 1);
			if (cur_ops->mode == TM_ASYNC) {
				call_rcu_sched(&old->rtort_rcu, rcu_torture_cb);
			} else {
				list_add(&old->rtort_free, &rcu_torture_removed);
				torture_gp_sync(&r);
				rcu_torture_pipe_update();
			}
		}
		WRITE_ONCE(rcu_torture_current_version, rcu_torture_current_version + 1);
		if (!(torture_random(&r) & 0x7))
			schedule_timeout_uninterruptible(1);
		else
			cond_resched();
	}
	return 0;
}

static void fake_cb(struct rcu_head *head)
{
	atomic_t *pending = (atomic_t *)((char *)head + sizeof(*head));

	atomic_dec(pending);
}

static int rcu_torture_fakewriter(void *arg)
{
	struct torture_random r;
	struct {
		struct rcu_head head;
		atomic_t pending;
	} fake = { .pending = ATOMIC_INIT(0) };

	torture_random_init(&r, (unsigned long)arg);
	while (!READ_ONCE(torture_stop)) {
		schedule_timeout_uninterruptible(1 + (torture_random(&r) & 1));
		switch (cur_ops->mode) {
		case TM_ASYNC:
			if (!atomic_read(&fake.pending)) {
				atomic_inc(&fake.pending);
				call_rcu_sched(&fake.head, fake_cb);
			} else if (!(torture_random(&r) & 0xf)) {
				rcu_barrier_sched();
				if (atomic_read(&fake.pending))
					atomic_long_inc(&n_rcu_torture_error);	/* barrier broke */
			}
			break;
		case TM_EXP:
			if (torture_random(&r) & 3)
				torture_sync_exp();
			else
				torture_sync_normal();
			break;
		default:
			torture_gp_sync(&r);
		}
	}
	if (atomic_read(&fake.pending))
		rcu_barrier_sched();
	return 0;
}

/* Dawdle inside the reader now and then, so the writer gets ahead. */
static void rcu_read_delay(struct torture_random *r)
{
	u32 x = torture_random(r);

	if (!(x % 512))
		udelay(50 + (x & 0x3f));
	else if (!(x % 32))
		udelay(2);
}

/*
 * Inside an rcu or srcu reader: now and then be switched out mid-section
 * (a forced preemption when another task is runnable here), or stay off
 * the CPU for 1-3 ticks, long enough for several grace periods to try to
 * end under us.  SRCU readers may sleep; for preemptible RCU the sleep
 * stands in for a long preemption (the same path: the context switch
 * queues the reader on its leaf).  preempt=none has no forced switches.
 */
static void rcu_read_preempt_delay(struct torture_random *r)
{
	u32 x = torture_random(r);

	if (!(x % 1024)) {
		schedule_timeout_uninterruptible(1 + (x >> 20) % 3);
	} else if (!(x % 128) && preempt_full) {
		preempt_disable();
		resched_cpu(smp_processor_id());
		preempt_enable();	/* switches here if anyone else is ready */
	} else if (!(x % 2048)) {
		udelay(500);		/* long enough for ticks and wake-ups to cut in */
	}
}

/* The body of a read: works in any reader context, NMI included. */
static void rcu_torture_one_read_body(struct torture_random *r, int cpu)
{
	unsigned long started = torture_completed(), completed;
	struct rcu_torture *p = cur_ops->flavor == TF_SCHED ?
		rcu_dereference_sched(rcu_torture_current) :
		rcu_dereference_raw(rcu_torture_current);
	int pipe;

	if (!p)
		return;
	if (!READ_ONCE(p->rtort_mbtest) || READ_ONCE(p->rtort_poison) == RCU_TORTURE_POISON)
		atomic_long_inc(&n_rcu_torture_mberror);
	if (r)
		rcu_read_delay(r);
	if (r && cur_ops->flavor != TF_SCHED && preemptible())
		rcu_read_preempt_delay(r);
	pipe = READ_ONCE(p->rtort_pipe_count);
	if (pipe > RCU_TORTURE_PIPE_LEN)
		pipe = RCU_TORTURE_PIPE_LEN;
	completed = torture_completed() - started;
	if (completed > RCU_TORTURE_PIPE_LEN)
		completed = RCU_TORTURE_PIPE_LEN;
	if (pipe > 1) {
		atomic_long_inc(&n_rcu_torture_error);
		if (!__atomic_exchange_n(&torture_error_logged, 1, __ATOMIC_RELAXED))
			printk(KERN_ERR "rcu-torture: reader on CPU %d saw an element %d "
			       "grace periods after its removal\n", cpu, pipe - 1);
	}
	__atomic_fetch_add(&per_cpu(rcu_torture_count, cpu)[pipe], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&per_cpu(rcu_torture_batch, cpu)[completed], 1, __ATOMIC_RELAXED);
}

/*
 * Preemptible RCU's readers: plain, nested, and one inside an RCU-sched
 * reader (which protects it too).  The CPU number is only for the
 * statistics: a preempted reader stays on its CPU (threads never migrate).
 */
static void rcu_torture_one_read_rcu(struct torture_random *r)
{
	switch (torture_random(r) % 3) {
	case 0:
		rcu_read_lock();
		rcu_torture_one_read_body(r, raw_smp_processor_id());
		rcu_read_unlock();
		break;
	case 1:
		rcu_read_lock();
		rcu_read_lock();
		rcu_torture_one_read_body(r, raw_smp_processor_id());
		rcu_read_unlock();
		rcu_read_unlock();
		break;
	default:
		rcu_read_lock();
		preempt_disable();
		rcu_torture_one_read_body(r, smp_processor_id());
		preempt_enable();
		rcu_read_unlock();
	}
}

/* SRCU's: plain, and nested in the same struct (two indices). */
static void rcu_torture_one_read_srcu(struct torture_random *r)
{
	int idx, idx2;

	if (torture_random(r) & 1) {
		idx = srcu_read_lock(&rcu_torture_srcu);
		rcu_torture_one_read_body(r, raw_smp_processor_id());
		srcu_read_unlock(&rcu_torture_srcu, idx);
	} else {
		idx = srcu_read_lock(&rcu_torture_srcu);
		idx2 = srcu_read_lock(&rcu_torture_srcu);
		rcu_torture_one_read_body(r, raw_smp_processor_id());
		srcu_read_unlock(&rcu_torture_srcu, idx2);
		srcu_read_unlock(&rcu_torture_srcu, idx);
	}
}

/* Every kind of RCU-sched reader the article names. */
static void rcu_torture_one_read(struct torture_random *r)
{
	unsigned long flags;
	int cpu;

	if (cur_ops->flavor == TF_RCU) {
		rcu_torture_one_read_rcu(r);
		return;
	}
	if (cur_ops->flavor == TF_SRCU) {
		rcu_torture_one_read_srcu(r);
		return;
	}
	switch (torture_random(r) % 5) {
	case 0:
		rcu_read_lock_sched();
		rcu_torture_one_read_body(r, smp_processor_id());
		rcu_read_unlock_sched();
		break;
	case 1:
		preempt_disable();
		preempt_disable();	/* nested */
		cpu = smp_processor_id();
		preempt_enable();
		rcu_torture_one_read_body(r, cpu);
		preempt_enable();
		break;
	case 2:
		local_irq_save(flags);
		rcu_torture_one_read_body(r, smp_processor_id());
		local_irq_restore(flags);
		break;
	case 3:
		local_bh_disable();
		rcu_torture_one_read_body(r, smp_processor_id());
		local_bh_enable();
		break;
	default:
		rcu_read_lock_sched();
		rcu_read_lock_sched();
		rcu_torture_one_read_body(r, smp_processor_id());
		rcu_read_unlock_sched();
		rcu_read_unlock_sched();
	}
}

/* An NMI handler is a reader with no lock at all (host shim's NMIs). */
static void rcu_torture_nmi_read(void)
{
	rcu_torture_one_read_body(NULL, smp_processor_id());
	atomic_long_inc(&n_rcu_torture_nmi_reads);
}

static int rcu_torture_reader(void *arg)
{
	struct torture_random r;
	unsigned long n = 0;

	torture_random_init(&r, (unsigned long)arg + 1);
	while (!READ_ONCE(torture_stop)) {
		rcu_torture_one_read(&r);
		/* Between sections: preempted, or asleep (the CPU may go idle). */
		if (!(++n & 0x3ff))
			schedule_timeout_uninterruptible(1);
		else if (!(n & 0x1f))
			cond_resched();
	}
	return 0;
}

/* ---- summary ---- */

static void rcu_torture_sum(long *pipe, long *batch)
{
	int cpu, i;

	for (i = 0; i <= RCU_TORTURE_PIPE_LEN; i++)
		pipe[i] = batch[i] = 0;
	for_each_online_cpu(cpu)
		for (i = 0; i <= RCU_TORTURE_PIPE_LEN; i++) {
			pipe[i] += __atomic_load_n(&per_cpu(rcu_torture_count, cpu)[i], __ATOMIC_RELAXED);
			batch[i] += __atomic_load_n(&per_cpu(rcu_torture_batch, cpu)[i], __ATOMIC_RELAXED);
		}
}

static void rcu_torture_print_row(const char *name, const long *v)
{
	char buf[256];
	int i, len = 0;

	for (i = 0; i <= RCU_TORTURE_PIPE_LEN; i++)
		len += snprintf(buf + len, sizeof(buf) - len, " %ld", v[i]);
	printk(KERN_INFO "rcu-torture: %s: %s\n", name, buf);
}

static bool rcu_torture_stats_print(struct rcu_torture_result *res, unsigned long gp0,
				    unsigned long exp0)
{
	long pipe[RCU_TORTURE_PIPE_LEN + 1], batch[RCU_TORTURE_PIPE_LEN + 1];
	long wc[RCU_TORTURE_PIPE_LEN + 1], reads = 0, bad = 0;
	bool ok;
	int i;

	rcu_torture_sum(pipe, batch);
	for (i = 0; i <= RCU_TORTURE_PIPE_LEN; i++) {
		reads += pipe[i];
		if (i > 1)
			bad += pipe[i];
		wc[i] = __atomic_load_n(&rcu_torture_wcount[i], __ATOMIC_RELAXED);
	}
	res->versions = READ_ONCE(rcu_torture_current_version);
	res->gps = torture_completed() - gp0;
	res->exp_gps = torture_exp_completed() - exp0;
	res->reads = reads;
	res->nmi_reads = atomic_long_read(&n_rcu_torture_nmi_reads);
	res->pipe_errors = bad;
	res->mberrors = atomic_long_read(&n_rcu_torture_mberror);
	res->errors = atomic_long_read(&n_rcu_torture_error);
	printk(KERN_INFO "rcu-torture: rtc: %p ver: %lu tfle: %d rta: %ld rtaf: %ld rtf: %ld "
	       "rtmbe: %ld rtbe: %ld nt: %ld nmi: %ld gps: %lu exp: %lu (HZ=%u)\n",
	       (void *)READ_ONCE(rcu_torture_current), res->versions,
	       list_empty(&rcu_torture_freelist) ? 1 : 0,
	       atomic_long_read(&n_rcu_torture_alloc), atomic_long_read(&n_rcu_torture_alloc_fail),
	       atomic_long_read(&n_rcu_torture_free), res->mberrors, res->errors - bad,
	       reads, res->nmi_reads, res->gps, res->exp_gps, hz);
	rcu_torture_print_row("Reader Pipe", pipe);
	rcu_torture_print_row("Reader Batch", batch);
	rcu_torture_print_row("Free-Block Circulation", wc);
	ok = !bad && !res->mberrors && !res->errors && res->versions > 0 && reads > 0;
	return ok;
}

/* ---- the run ---- */

static const struct rcu_torture_ops *rcu_torture_find(const char *type)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(torture_ops); i++) {
		const char *a = torture_ops[i].name, *b = type;

		while (*a && (*a == *b || (*a == '-' && *b == '_'))) {
			a++;
			b++;
		}
		if (!*a && !*b)
			return &torture_ops[i];
	}
	return NULL;
}

static void rcu_torture_reset(void)
{
	int cpu, i;

	INIT_LIST_HEAD(&rcu_torture_freelist);
	INIT_LIST_HEAD(&rcu_torture_removed);
	for (i = 0; i < RCU_TORTURE_POOL; i++) {
		rcu_tortures[i].rtort_mbtest = 0;
		rcu_tortures[i].rtort_poison = RCU_TORTURE_POISON;
		list_add_tail(&rcu_tortures[i].rtort_free, &rcu_torture_freelist);
	}
	for (i = 0; i <= RCU_TORTURE_PIPE_LEN; i++)
		rcu_torture_wcount[i] = 0;
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		for (i = 0; i <= RCU_TORTURE_PIPE_LEN; i++) {
			per_cpu(rcu_torture_count, cpu)[i] = 0;
			per_cpu(rcu_torture_batch, cpu)[i] = 0;
		}
	atomic_long_set(&n_rcu_torture_alloc, 0);
	atomic_long_set(&n_rcu_torture_alloc_fail, 0);
	atomic_long_set(&n_rcu_torture_free, 0);
	atomic_long_set(&n_rcu_torture_mberror, 0);
	atomic_long_set(&n_rcu_torture_error, 0);
	atomic_long_set(&n_rcu_torture_nmi_reads, 0);
	rcu_torture_current = NULL;
	rcu_torture_current_version = 0;
	torture_error_logged = 0;
	WRITE_ONCE(torture_stop, false);
}

int rcu_torture_run(const char *type, unsigned int duration_ms,
		    struct rcu_torture_result *res)
{
	struct task *readers[NR_CPUS] = { 0 }, *writer, *fakes[MAX_FAKEWRITERS] = { 0 };
	unsigned int nfake = MIN(torture_nfakewriters, MAX_FAKEWRITERS), i;
	unsigned long gp0, exp0, start, stat_next;
	long blocked0;
	int boosts0;
	int cpu;
	bool ok, onoff_ok;

	*res = (struct rcu_torture_result){ 0 };
	cur_ops = rcu_torture_find(type);
	if (!cur_ops) {
		pr_err("rcu-torture: unknown torture type '%s'\n", type);
		return -EINVAL;
	}
	rcu_torture_reset();
	printk(KERN_INFO "rcu-torture:--- Start of test: torture_type=%s duration=%ums "
	       "nreaders=%d nfakewriters=%u stat_interval=%u\n", cur_ops->name,
	       duration_ms, num_online_cpus(), nfake, torture_stat_interval);
	blocked0 = atomic_long_read(&rcu_preempt_blocked_total);
	boosts0 = atomic_read(&rcu_boosts);
	gp0 = torture_completed();
	exp0 = torture_exp_completed();

	for_each_online_cpu(cpu) {
		readers[cpu] = kthread_create(rcu_torture_reader, (void *)(long)cpu, "rcu_torture_reader");
		if (readers[cpu]) {
			kthread_bind(readers[cpu], cpu);
			/* Below the writers, so their every wake-up preempts a reader. */
			if (cur_ops->flavor != TF_SCHED)
				set_task_prio(readers[cpu], PRIO_LOW);
			wake_up_process(readers[cpu]);
		}
	}
	writer = kthread_run(rcu_torture_writer, NULL, "rcu_torture_writer");
	for (i = 0; i < nfake; i++)
		fakes[i] = kthread_run(rcu_torture_fakewriter, (void *)(long)(i + 100),
				       "rcu_torture_fakewriter");
	/* NMI handlers are RCU-sched readers, not rcu or srcu ones. */
	if (cur_ops->flavor == TF_SCHED)
		WRITE_ONCE(rcu_torture_nmi_hook, rcu_torture_nmi_read);

	torture_onoff_start();
	start = jiffies;
	stat_next = start + msecs_to_jiffies(torture_stat_interval * 1000);
	/* With onoff, until its pairs are done too (within 10x the time). */
	while (jiffies - start < msecs_to_jiffies(duration_ms) ||
	       (!torture_onoff_done() && jiffies - start < 10 * msecs_to_jiffies(duration_ms))) {
		msleep(20);
		if (torture_stat_interval && time_after_eq(jiffies, stat_next)) {
			rcu_torture_stats_print(res, gp0, exp0);
			stat_next += msecs_to_jiffies(torture_stat_interval * 1000);
		}
	}

	onoff_ok = torture_onoff_stop(cur_ops->name, NULL);
	WRITE_ONCE(rcu_torture_nmi_hook, NULL);
	WRITE_ONCE(torture_stop, true);
	if (writer)
		kthread_stop(writer);
	for (i = 0; i < nfake; i++)
		if (fakes[i])
			kthread_stop(fakes[i]);
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		if (readers[cpu])
			kthread_stop(readers[cpu]);
	/* The async flavour's callbacks still hold pool elements. */
	rcu_barrier_sched();

	ok = rcu_torture_stats_print(res, gp0, exp0);
	if (cur_ops->flavor == TF_RCU)
		printk(KERN_INFO "rcu-torture: readers preempted inside rcu_read_lock(): %ld, "
		       "boosted: %d\n", atomic_long_read(&rcu_preempt_blocked_total) - blocked0,
		       atomic_read(&rcu_boosts) - boosts0);
	if (!writer || !res->versions)
		pr_err("rcu-torture: the writer completed no update: grace periods stuck?\n");
	res->success = ok && writer && onoff_ok;
	printk(KERN_INFO "rcu-torture:--- End of test: %s: torture_type=%s gps=%lu\n",
	       res->success ? "SUCCESS" : "FAILURE", cur_ops->name, res->gps);
	return res->success ? 0 : 1;
}

const char *rcu_torture_cmdline_type(void)
{
	return torture_type;
}

unsigned int rcu_torture_cmdline_secs(void)
{
	return torture_secs;
}
