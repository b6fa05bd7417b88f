/* tests/scenarios/readers.c: the read-side critical sections refscale
 * times, one loop function per reader type (rs_read_<type> and
 * rs_delay_<type>), and their table.
 *
 * The article's Quick Quiz 1 (docs/article.md): its 100-femtosecond
 * rcu_read_lock() was a loop the compiler had deleted, because rcu_read_lock() of a non-preemptible
 * kernel is empty.  Every loop here has a barrier() in its body: an empty
 * asm with a "memory" clobber that the compiler must emit once per
 * iteration and across which it may not move or merge memory accesses, so
 * the loop runs n times even when the primitives compile to nothing (the
 * `rcu` and `empty` rows), and consecutive lock/unlock pairs are not
 * fused.  Values a reader loads go to a volatile sink so their loads stay.
 * tests/host/scenarios_qq1.py checks the compiled functions: each still
 * has its backward branch, and rs_read_rcu_sched its preempt_count
 * increment.  noinline keeps each loop a function of its own to check.
 */
#include "tests/scenarios/refscale.h"
#include "kernel/atomic.h"
#include "kernel/percpu.h"
#include "kernel/preempt.h"
#include "kernel/rwlock.h"
#include "kernel/seqlock.h"
#include "kernel/spinlock.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "rcu/srcu.h"

#define RS_LOOP __attribute__((noinline, used))

/*
 * A reader type's two loops: rs_read_<type>, n empty sections (barrier()
 * only), and rs_delay_<type>, n sections of cs_ns each.  lock and unlock
 * are the statements that open and close one section.
 */
#define RS_READER(type, lock, unlock)					\
RS_LOOP void rs_read_##type(long n)					\
{									\
	for (long i = 0; i < n; i++) {					\
		lock;							\
		barrier();						\
		unlock;							\
	}								\
}									\
									\
RS_LOOP void rs_delay_##type(long n, unsigned int cs_ns)		\
{									\
	for (long i = 0; i < n; i++) {					\
		lock;							\
		ndelay(cs_ns);						\
		unlock;							\
	}								\
}

static volatile long rs_sink;

/* ---- empty: the bare loop ---------------------------------------------- */

RS_LOOP void rs_read_empty(long n)
{
	for (long i = 0; i < n; i++)
		barrier();
}

RS_LOOP void rs_delay_empty(long n, unsigned int cs_ns)
{
	for (long i = 0; i < n; i++) {
		barrier();
		ndelay(cs_ns);
	}
}

/* ---- the harness alone ------------------------------------------------- */

/*
 * No sections at all: refscale times batches of "n" sections of this and
 * so measures only itself (TSC reads, the call, the batch bookkeeping).
 * Its gross cost per section, at the batch sizes the empty loop gets, is
 * the readside_harness row: what the harness adds to every gross figure.
 */
static void __attribute__((noinline)) rs_harness_none(long n)
{
	barrier();
}

static void __attribute__((noinline)) rs_harness_none_delay(long n, unsigned int cs_ns)
{
	barrier();
}

const struct rs_ops rs_ops_harness = {
	"harness", rs_harness_none, rs_harness_none_delay, NULL,
	"the timing harness with no sections: its cost per section of the empty loop's batches"
};

/* ---- rcu-sched: preempt_disable() / preempt_enable() -------------------- */

RS_READER(rcu_sched, rcu_read_lock_sched(), rcu_read_unlock_sched())

/* ---- rcu: rcu_read_lock() -------------------------------------------------- */

/*
 * In the default (CONFIG_PREEMPT_RCU) build rcu_read_lock() is preemptible
 * RCU's per-task nesting count (rcu/preempt.c); with PREEMPT_RCU=0 it is
 * RCU-sched's preempt_disable().
 */
RS_READER(rcu, rcu_read_lock(), rcu_read_unlock())

/* ---- rcu-nonpreempt: Quick Quiz 1's empty rcu_read_lock() ---------------- */

/*
 * rcu_read_lock() exactly as a kernel built without preemption compiles
 * it, Quick Quiz 1's answer: nothing.  Timed only (rcu/rcupdate.h says
 * why it is no reader in this kernel): the row is the loop's own cost.
 */
RS_READER(rcu_nonpreempt, rcu_read_lock_nopreempt_build(), rcu_read_unlock_nopreempt_build())

/* ---- srcu: srcu_read_lock() / srcu_read_unlock() ------------------------ */

DEFINE_STATIC_SRCU(rs_srcu);

RS_READER(srcu, int idx = srcu_read_lock(&rs_srcu), srcu_read_unlock(&rs_srcu, idx))

/* ---- rwlock: the 2007 counter rwlock ------------------------------------ */

static DEFINE_RWLOCK(rs_rwlock);

RS_READER(rwlock, read_lock(&rs_rwlock), read_unlock(&rs_rwlock))

static bool rs_idle_rwlock(void)
{
	return atomic_read(&rs_rwlock.cnt) == RW_LOCK_BIAS;
}

/* ---- rwlock-fair: the queued rwlock ------------------------------------- */

static DEFINE_RWLOCK_FAIR(rs_rwlock_fair);

RS_READER(rwlock_fair, read_lock(&rs_rwlock_fair), read_unlock(&rs_rwlock_fair))

static bool rs_idle_rwlock_fair(void)
{
	return atomic_read(&rs_rwlock_fair.cnts) == 0;
}

/* ---- spinlock ----------------------------------------------------------- */

static DEFINE_SPINLOCK(rs_spinlock);

RS_READER(spinlock, spin_lock(&rs_spinlock), spin_unlock(&rs_spinlock))

static bool rs_idle_spinlock(void)
{
	return !spin_is_locked(&rs_spinlock);
}

/* ---- refcnt: one global atomic reference count --------------------------- */

static atomic_t rs_refcnt ____cacheline_aligned;

RS_READER(refcnt, atomic_inc(&rs_refcnt), atomic_dec(&rs_refcnt))

static bool rs_idle_refcnt(void)
{
	return atomic_read(&rs_refcnt) == 0;
}

/* ---- refcnt-percpu: one count per CPU, no shared line -------------------- */

static DEFINE_PER_CPU(long, rs_refcnt_pcpu);

RS_READER(refcnt_percpu, this_cpu_inc(rs_refcnt_pcpu), this_cpu_dec(rs_refcnt_pcpu))

static bool rs_idle_refcnt_percpu(void)
{
	long sum = 0;
	int cpu;

	for_each_online_cpu(cpu)
		sum += per_cpu(rs_refcnt_pcpu, cpu);
	return sum == 0;
}

/* ---- seqlock: a reader that never writes shared memory ------------------ */

static DEFINE_SEQLOCK(rs_seqlock);
static long rs_seq_data;

/* One section: retried until no writer overlapped it; with delay, cs_ns
 * of ndelay() inside. */
static inline __attribute__((always_inline)) void rs_seq_section(bool delay, unsigned int cs_ns)
{
	unsigned int seq;
	long v;

	do {
		seq = read_seqbegin(&rs_seqlock);
		v = READ_ONCE(rs_seq_data);
		if (delay)
			ndelay(cs_ns);
	} while (read_seqretry(&rs_seqlock, seq));
	rs_sink = v;
}

RS_LOOP void rs_read_seqlock(long n)
{
	for (long i = 0; i < n; i++)
		rs_seq_section(false, 0);
}

RS_LOOP void rs_delay_seqlock(long n, unsigned int cs_ns)
{
	for (long i = 0; i < n; i++)
		rs_seq_section(true, cs_ns);
}

static bool rs_idle_seqlock(void)
{
	return !(READ_ONCE(rs_seqlock.seqcount.sequence) & 1);
}

/* ---- the table ---------------------------------------------------------- */

#define RCU_OPS(t, f, nt) { t, rs_read_##f, rs_delay_##f, NULL, nt }

#ifdef CONFIG_PREEMPT_RCU
#define RCU_NOTE "preemptible RCU: a per-task nesting count"
#else
#define RCU_NOTE "PREEMPT_RCU=0 build: rcu_read_lock() is preempt_disable()"
#endif
#define RCU_NONPREEMPT_NOTE "rcu_read_lock() of a non-preemptible kernel: nothing (Quick Quiz 1); this is the loop's cost"

#define SRCU_OPS { "srcu", rs_read_srcu, rs_delay_srcu, NULL, \
		   "two full-barrier per-CPU counts per section" }

const struct rs_ops rs_ops_table[] = {
	{ "empty", rs_read_empty, rs_delay_empty, NULL,
	  "the bare loop (barrier() only): subtract it for net overhead" },
	RCU_OPS("rcu-sched", rcu_sched, NULL),
	RCU_OPS("rcu", rcu, RCU_NOTE),
	RCU_OPS("rcu-nonpreempt", rcu_nonpreempt, RCU_NONPREEMPT_NOTE),
	{ "rwlock", rs_read_rwlock, rs_delay_rwlock, rs_idle_rwlock, NULL },
	{ "rwlock-fair", rs_read_rwlock_fair, rs_delay_rwlock_fair, rs_idle_rwlock_fair, NULL },
	{ "spinlock", rs_read_spinlock, rs_delay_spinlock, rs_idle_spinlock, NULL },
	{ "refcnt", rs_read_refcnt, rs_delay_refcnt, rs_idle_refcnt, NULL },
	{ "refcnt-percpu", rs_read_refcnt_percpu, rs_delay_refcnt_percpu,
	  rs_idle_refcnt_percpu, NULL },
	{ "seqlock", rs_read_seqlock, rs_delay_seqlock, rs_idle_seqlock, NULL },
	SRCU_OPS,
};
const int rs_ops_count = ARRAY_SIZE(rs_ops_table);

const struct rs_ops *rs_ops_find(const char *type)
{
	for (int i = 0; i < rs_ops_count; i++)
		if (!strcmp(rs_ops_table[i].type, type))
			return &rs_ops_table[i];
	return NULL;
}
