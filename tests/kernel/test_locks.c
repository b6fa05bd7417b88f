/*
 * tests/kernel/test_locks.c - KTAP suite `locks`: every lock type under
 * all CPUs hammering (plain counters guarded by the lock must come out
 * exact), rwlock readers inside together, seqlock readers never taking a
 * torn value, the spinlock debug reports, and the uncontended lock/unlock
 * cost of each type (`# bench name=lock type=...`).
 *
 * The report-provoking cases run only with sched.provoke_bugs (see
 * tests/kernel/test_sched.c).  Waits are bounded so a broken lock fails
 * a case instead of hanging the run.
 */
#include "kernel/ktap.h"
#include "kernel/sched.h"
#include "kernel/spinlock.h"
#include "kernel/rwlock.h"
#include "kernel/seqlock.h"
#include "kernel/mutex.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/slab.h"
#include "kernel/string.h"
#include "kernel/printk.h"
#include "kernel/math.h"
#include "kernel/timer.h"
#include "tests/kernel/lock_hammer.h"

extern bool sched_provoke_bugs;	/* tests/kernel/test_sched.c */

/* Iterations per thread: the total stays about the same at any CPU count,
 * since TCG runs all vCPUs on the host's few cores. */
static int per_thread(int total)
{
	int n = nr_cpu_ids > 0 ? nr_cpu_ids : 1;
	return total / n > 200 ? total / n : 200;
}

/*
 * Each hammering loop also stops once this budget is spent, and the
 * checks count what was done: with more vCPUs than host cores every FIFO
 * handoff waits for the host to run one particular vCPU, and on a loaded
 * host 16 of them took the fixed counts past the run's time limit.
 */
#define HAMMER_BUDGET_NS	(8ull * 1000000000ull)
static u64 hammer_end;
static long hammer_done;	/* iterations finished, all threads */
static int hammers_cut;

static bool hammer_stop(int i)
{
	return (i & 63) == 63 && ktime_get_ns() > READ_ONCE(hammer_end);
}

static void hammer_finished(int i)
{
	__atomic_add_fetch(&hammer_done, i, __ATOMIC_RELAXED);
}

/*
 * One thread per online CPU (times `per_cpu`), each bound, all joined.
 * Those of this CPU are woken last: one may preempt the waker (its slice
 * ends) and spin with preemption off until all the others have come.
 */
static int run_on_all(int (*fn)(void *), void *arg, int per_cpu_n)
{
	int n = nr_cpu_ids * per_cpu_n, made = 0, me = raw_smp_processor_id();
	struct task **ts = kcalloc(n, sizeof(*ts), GFP_KERNEL);

	if (!ts)
		return 0;
	hammer_done = 0;
	hammer_end = ktime_get_ns() + HAMMER_BUDGET_NS;
	for (int i = 0; i < n; i++)
		ts[i] = kthread_create_on_cpu(fn, arg, i % nr_cpu_ids, "hammer");
	for (int mine = 0; mine < 2; mine++)
		for (int i = 0; i < n; i++)
			if (ts[i] && (i % nr_cpu_ids == me) == mine) {
				wake_up_process(ts[i]);
				made++;
			}
	for (int i = 0; i < n; i++)
		if (ts[i])
			kthread_join(ts[i]);
	kfree(ts);
	return made;
}

/* ---- spinlock ---------------------------------------------------------- */

static DEFINE_SPINLOCK(hammer_lock);
static int spin_iters;

static int spin_hammer(void *unused)
{
	int i;

	for (i = 0; i < spin_iters && !hammer_stop(i); i++) {
		spin_hammer_section(&hammer_lock, i, hammer_count);
		if (preempt_count())
			ktap_fail("preempt_count %d after unlock", preempt_count());
		if ((i & 255) == 0)
			cond_resched();
	}
	hammer_finished(i);
	return 0;
}

/* Says so when the budget cut a hammer short; true if it did. */
static bool note_cut(const char *what, long done, long want)
{
	if (done >= want)
		return false;
	hammers_cut++;
	ktap_log("%s: the %llu s budget ran out after %ld of %ld iterations", what,
		 HAMMER_BUDGET_NS / 1000000000ull, done, want);
	return true;
}

static void locks_spinlock_all_cpus(void)
{
	int made;

	hammer_counter = 0;
	hammer_max_inside = 0;
	spin_iters = per_thread(40000);
	made = run_on_all(spin_hammer, NULL, 1);
	KTAP_EXPECT_EQ(made, nr_cpu_ids);
	note_cut("spinlock", hammer_done, (long)made * spin_iters);
	KTAP_EXPECT(hammer_done > 0);
	KTAP_EXPECT_EQ(hammer_counter, hammer_done);
	KTAP_EXPECT_EQ(hammer_max_inside, 1);
	KTAP_EXPECT(!spin_is_locked(&hammer_lock));
	ktap_log("%d CPUs, %ld lock/unlock: counter exact", made, hammer_done);
}

/* What each variant does to this CPU's state, and gives back. */
static void locks_variants_state(void)
{
	DEFINE_SPINLOCK(l);
	DEFINE_RWLOCK(rw);
	DEFINE_RWLOCK_FAIR(rwf);
	unsigned long flags, outer;

	KTAP_ASSERT(preempt_count() == 0 && !irqs_disabled());
	spin_lock(&l);
	KTAP_EXPECT(preempt_count() == 1 && !irqs_disabled() && spin_is_locked(&l));
	KTAP_EXPECT(!spin_trylock(&l) && preempt_count() == 1);	/* held: refused */
	spin_unlock(&l);
	KTAP_EXPECT(preempt_count() == 0 && !spin_is_locked(&l));

	spin_lock_irq(&l);
	KTAP_EXPECT(preempt_count() == 1 && irqs_disabled());
	spin_unlock_irq(&l);
	KTAP_EXPECT(preempt_count() == 0 && !irqs_disabled());

	spin_lock_irqsave(&l, flags);
	KTAP_EXPECT(preempt_count() == 1 && irqs_disabled());
	spin_unlock_irqrestore(&l, flags);
	KTAP_EXPECT(preempt_count() == 0 && !irqs_disabled());
	/* Nested in an irqs-off region: the restore keeps them off. */
	local_irq_save(outer);
	spin_lock_irqsave(&l, flags);
	spin_unlock_irqrestore(&l, flags);
	KTAP_EXPECT(irqs_disabled());
	local_irq_restore(outer);
	KTAP_EXPECT(!irqs_disabled());

	spin_lock_bh(&l);
	KTAP_EXPECT(softirq_count() == SOFTIRQ_DISABLE_OFFSET && in_softirq() &&
		    !irqs_disabled() && (preempt_count() & PREEMPT_MASK) == 0);
	spin_unlock_bh(&l);
	KTAP_EXPECT_EQ(preempt_count(), 0);

	KTAP_EXPECT(spin_trylock(&l) && preempt_count() == 1);
	spin_unlock(&l);

	/* rwlocks: the same rules, both kinds. */
	read_lock(&rw);
	read_lock(&rw);		/* readers nest */
	KTAP_EXPECT(preempt_count() == 2 && !write_trylock(&rw));
	read_unlock(&rw);
	read_unlock(&rw);
	write_lock_irqsave(&rw, flags);
	KTAP_EXPECT(irqs_disabled() && preempt_count() == 1 && !read_trylock(&rw));
	write_unlock_irqrestore(&rw, flags);
	read_lock_bh(&rwf);
	KTAP_EXPECT(in_softirq() && !write_trylock(&rwf));
	read_unlock_bh(&rwf);
	write_lock_irq(&rwf);
	KTAP_EXPECT(irqs_disabled() && !read_trylock(&rwf));
	write_unlock_irq(&rwf);
	KTAP_EXPECT(preempt_count() == 0 && !irqs_disabled());
	KTAP_EXPECT_EQ(atomic_read(&rw.cnt), RW_LOCK_BIAS);
	KTAP_EXPECT_EQ(atomic_read(&rwf.cnts), 0);
}

/* ---- rwlocks ----------------------------------------------------------- */

static DEFINE_RWLOCK(hammer_rw);
static DEFINE_RWLOCK_FAIR(hammer_rwf);
static int torn_pairs, rw_iters;
static atomic_t rw_writes;

#define RW_HAMMER(name, LOCK)						\
static int name(void *unused)						\
{									\
	int me = raw_smp_processor_id();					\
	for (int i = 0; i < rw_iters && !hammer_stop(i); i++) {		\
		if ((i + me) % 8 == 0) {				\
			rw_hammer_write(LOCK);				\
			atomic_inc(&rw_writes);				\
		} else if (rw_hammer_read(LOCK)) {			\
			__atomic_add_fetch(&torn_pairs, 1, __ATOMIC_RELAXED); \
		}							\
		if ((i & 255) == 0)					\
			cond_resched();					\
	}								\
	return 0;							\
}
RW_HAMMER(rw_hammer, &hammer_rw)
RW_HAMMER(rwf_hammer, &hammer_rwf)

static void check_rw(const char *what, int (*fn)(void *))
{
	hammer_rw_reset();
	torn_pairs = 0;
	atomic_set(&rw_writes, 0);
	rw_iters = per_thread(40000);
	int made = run_on_all(fn, NULL, 1);
	KTAP_EXPECT_EQ(made, nr_cpu_ids);
	KTAP_EXPECT_EQ(hammer_pair_a, atomic_read(&rw_writes));
	KTAP_EXPECT_EQ(hammer_pair_b, atomic_read(&rw_writes));
	KTAP_EXPECT_EQ(hammer_overlap, 0);
	KTAP_EXPECT_EQ(torn_pairs, 0);
	KTAP_EXPECT(hammer_pair_a > 0);
	ktap_log("%s: %d CPUs x up to %d, %ld writes exact, max %d readers inside together",
		 what, made, rw_iters, hammer_pair_a, hammer_max_readers);
}

static void locks_rwlock_all_cpus(void)
{
	check_rw("rwlock", rw_hammer);
	KTAP_EXPECT_EQ(atomic_read(&hammer_rw.cnt), RW_LOCK_BIAS);
	check_rw("rwlock_fair", rwf_hammer);
	KTAP_EXPECT_EQ(atomic_read(&hammer_rwf.cnts), 0);
}

/* Every CPU takes the read lock and waits inside for all the others.  A
 * reader gives up only when none has come for GATHER_IDLE_NS, so a slow
 * start of many vCPUs is no failure (the longest gap between arrivals is
 * logged). */
#define GATHER_IDLE_NS 20000000000ull
static int arrived, gather_timeouts;
static u64 gather_last_ns, gather_max_gap_ns;

static void gather_arrive(void)
{
	u64 now = ktime_get_ns();
	u64 prev = __atomic_exchange_n(&gather_last_ns, now, __ATOMIC_RELAXED);
	u64 gap = prev && now > prev ? now - prev : 0, max;

	max = __atomic_load_n(&gather_max_gap_ns, __ATOMIC_RELAXED);
	while (gap > max && !__atomic_compare_exchange_n(&gather_max_gap_ns, &max, gap, false,
							  __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	__atomic_add_fetch(&arrived, 1, __ATOMIC_RELAXED);
}

#define RW_GATHER(name, LOCK)						\
static int name(void *unused)						\
{									\
	u64 end = ktime_get_ns() + GATHER_IDLE_NS;			\
	int seen = 0, now;						\
	read_lock(LOCK);						\
	gather_arrive();						\
	while ((now = __atomic_load_n(&arrived, __ATOMIC_RELAXED)) < nr_cpu_ids) { \
		if (now != seen) {					\
			seen = now;					\
			end = ktime_get_ns() + GATHER_IDLE_NS;		\
		} else if (ktime_get_ns() > end) {			\
			__atomic_add_fetch(&gather_timeouts, 1, __ATOMIC_RELAXED); \
			break;						\
		}							\
		cpu_relax();						\
	}								\
	read_unlock(LOCK);						\
	return 0;							\
}
RW_GATHER(rw_gather, &hammer_rw)
RW_GATHER(rwf_gather, &hammer_rwf)

static void locks_rwlock_readers_share(void)
{
	if (nr_cpu_ids < 2) {
		ktap_skip("needs 2 CPUs");
		return;
	}
	arrived = gather_timeouts = 0;
	gather_last_ns = gather_max_gap_ns = 0;
	run_on_all(rw_gather, NULL, 1);
	KTAP_EXPECT_EQ(gather_timeouts, 0);
	KTAP_EXPECT_EQ(arrived, nr_cpu_ids);
	arrived = gather_timeouts = 0;
	gather_last_ns = 0;
	run_on_all(rwf_gather, NULL, 1);
	KTAP_EXPECT_EQ(gather_timeouts, 0);
	KTAP_EXPECT_EQ(arrived, nr_cpu_ids);
	ktap_log("%d readers held each rwlock at once; longest wait for the next one %llu ms",
		 nr_cpu_ids, (unsigned long long)(gather_max_gap_ns / 1000000));
}

/* ---- mutex ------------------------------------------------------------- */

static DEFINE_MUTEX(hammer_mutex);
static int mutex_iters;

static int mutex_hammer(void *unused)
{
	int i;

	for (i = 0; i < mutex_iters && !hammer_stop(i); i++) {
		mutex_lock(&hammer_mutex);
		hammer_enter();
		hammer_counter++;
		if ((i & 31) == 0)
			msleep(0);	/* sleep holding it: others must sleep too */
		hammer_leave();
		mutex_unlock(&hammer_mutex);
		if ((i & 63) == 0)
			cond_resched();
	}
	hammer_finished(i);
	return 0;
}

static void locks_mutex_all_cpus(void)
{
	int bugs = atomic_read(&mutex_bugs), made;

	hammer_counter = 0;
	hammer_max_inside = 0;
	mutex_iters = per_thread(8000);
	made = run_on_all(mutex_hammer, NULL, 2);
	KTAP_EXPECT_EQ(made, 2 * nr_cpu_ids);
	note_cut("mutex", hammer_done, (long)made * mutex_iters);
	KTAP_EXPECT(hammer_done > 0);
	KTAP_EXPECT_EQ(hammer_counter, hammer_done);
	KTAP_EXPECT_EQ(hammer_max_inside, 1);
	KTAP_EXPECT(!mutex_is_locked(&hammer_mutex));
	KTAP_EXPECT_EQ(atomic_read(&mutex_bugs), bugs);
	KTAP_EXPECT(mutex_trylock(&hammer_mutex));
	KTAP_EXPECT(!mutex_trylock(&hammer_mutex));
	mutex_unlock(&hammer_mutex);
	ktap_log("%d threads, %ld lock/unlock: counter exact", made, hammer_done);
}

/* ---- seqlock ----------------------------------------------------------- */

static DEFINE_SEQLOCK(sl);
static u64 sdata[4];
static volatile int seq_stop;
static int seq_torn, seq_writer_cpu;
static long seq_retries, seq_reads;

static int seq_worker(void *unused)
{
	if (raw_smp_processor_id() == seq_writer_cpu) {
		int i;

		for (i = 0; i < 20000 && !hammer_stop(i); i++) {
			write_seqlock(&sl);
			u64 v = READ_ONCE(sdata[0]) + 1;
			for (int k = 0; k < 4; k++)
				WRITE_ONCE(sdata[k], v);
			write_sequnlock(&sl);
			if ((i & 63) == 0)
				cond_resched();
		}
		hammer_finished(i);
		seq_stop = 1;
		return 0;
	}
	long retries = 0, reads = 0;
	while (!seq_stop) {
		u64 v[4];
		unsigned s;

		for (;;) {
			s = read_seqbegin(&sl);
			for (int k = 0; k < 4; k++)
				v[k] = READ_ONCE(sdata[k]);
			if (!read_seqretry(&sl, s))
				break;
			retries++;
		}
		reads++;
		if (v[0] != v[1] || v[1] != v[2] || v[2] != v[3])
			__atomic_add_fetch(&seq_torn, 1, __ATOMIC_RELAXED);
		if ((reads & 63) == 0)
			cond_resched();
	}
	__atomic_add_fetch(&seq_retries, retries, __ATOMIC_RELAXED);
	__atomic_add_fetch(&seq_reads, reads, __ATOMIC_RELAXED);
	return 0;
}

static void locks_seqlock_no_torn_reads(void)
{
	seq_stop = 0;
	seq_torn = 0;
	seq_retries = seq_reads = 0;
	seq_writer_cpu = nr_cpu_ids - 1;
	memset(sdata, 0, sizeof(sdata));
	run_on_all(seq_worker, NULL, nr_cpu_ids > 1 ? 1 : 2);
	KTAP_EXPECT_EQ(seq_torn, 0);
	note_cut("seqlock writes", hammer_done, 20000 * (nr_cpu_ids > 1 ? 1 : 2));
	KTAP_EXPECT((long)sdata[0] == hammer_done && hammer_done > 0);
	KTAP_EXPECT_EQ(sdata[3], sdata[0]);
	KTAP_EXPECT_EQ(sl.seqcount.sequence & 1, 0);
	ktap_log("%ld reads, %ld retried, none torn", seq_reads, seq_retries);
}

/*
 * The writer in interrupt context (a timer re-arming itself every tick)
 * and the reader in a thread on the same CPU: the tick lands inside read
 * sections, which must retry.  Works at one CPU, where the test above has
 * no readers.
 */
static DEFINE_SEQLOCK(irq_sl);
static u64 irq_sdata[4];
static volatile bool irq_writer_stop;
static long irq_writes;

static void seq_irq_writer(struct timer_list *t)
{
	unsigned long flags;

	write_seqlock_irqsave(&irq_sl, flags);
	u64 v = READ_ONCE(irq_sdata[0]) + 1;
	for (int k = 0; k < 4; k++)
		WRITE_ONCE(irq_sdata[k], v);
	write_sequnlock_irqrestore(&irq_sl, flags);
	irq_writes++;
	if (!irq_writer_stop) {
		t->expires = jiffies + 1;
		add_timer(t);
	}
}

static void locks_seqlock_irq_writer(void)
{
	struct timer_list t;
	long reads = 0, retries = 0, torn = 0;
	u64 end;

	irq_writer_stop = false;
	irq_writes = 0;
	memset(irq_sdata, 0, sizeof(irq_sdata));
	timer_setup(&t, seq_irq_writer, 0);
	t.expires = jiffies + 1;
	add_timer(&t);		/* on this CPU, which this thread never leaves */
	end = ktime_get_ns() + 100000000ull;
	while (ktime_get_ns() < end || irq_writes < 5) {
		u64 v[4];
		unsigned seq;

		for (;;) {
			seq = read_seqbegin(&irq_sl);
			for (int k = 0; k < 4; k++) {
				v[k] = READ_ONCE(irq_sdata[k]);
				barrier();
			}
			if (!read_seqretry(&irq_sl, seq))
				break;
			retries++;
		}
		reads++;
		torn += v[0] != v[1] || v[1] != v[2] || v[2] != v[3];
		if (ktime_get_ns() > end + 5000000000ull)
			break;	/* no tick in 5 s: the writes check fails below */
	}
	irq_writer_stop = true;
	/* A handler that saw the flag still clear re-armed before we get here:
	 * it runs on this CPU, so it is not running now, only pending. */
	del_timer_sync(&t);
	KTAP_EXPECT_EQ(torn, 0);
	KTAP_EXPECT(irq_writes >= 5);
	KTAP_EXPECT_EQ(irq_sdata[3], irq_sdata[0]);
	KTAP_EXPECT_EQ(irq_sl.seqcount.sequence & 1, 0);
	ktap_log("%ld reads beside %ld writes from the tick: %ld retried, none torn",
		 reads, irq_writes, retries);
}

/* ---- debug reports ----------------------------------------------------- */

static void locks_spinlock_debug_reports(void)
{
	DEFINE_SPINLOCK(l);
	int bugs;

	if (!sched_provoke_bugs) {
		ktap_skip("provokes BUG reports: boot with sched.provoke_bugs");
		return;
	}
	ktap_expect_alarm("2 BUG reports: a spinlock taken twice, one unlocked when not held");
	bugs = atomic_read(&spinlock_bugs);
	spin_lock(&l);
	spin_lock(&l);		/* recursion: reported, not a hang */
	KTAP_EXPECT_EQ(atomic_read(&spinlock_bugs), bugs + 1);
	spin_unlock(&l);
	KTAP_EXPECT(spin_is_locked(&l));
	spin_unlock(&l);
	KTAP_EXPECT(!spin_is_locked(&l));
	KTAP_EXPECT_EQ(preempt_count(), 0);

	spin_unlock(&l);	/* not held: reported, tickets untouched */
	KTAP_EXPECT_EQ(atomic_read(&spinlock_bugs), bugs + 2);
	KTAP_EXPECT_EQ(l.raw.owner, l.raw.next);
	KTAP_EXPECT_EQ(preempt_count(), 0);
	spin_lock(&l);
	KTAP_EXPECT(spin_is_locked(&l));
	spin_unlock(&l);
	KTAP_EXPECT_EQ(atomic_read(&spinlock_bugs), bugs + 2);
}

/* A mutex unlocked by a task that does not own it; a mutex taken while
 * atomic (sleeping function from invalid context). */
static DEFINE_MUTEX(debug_mutex);
static int unlock_not_mine(void *unused)
{
	mutex_unlock(&debug_mutex);
	return 0;
}

static void locks_mutex_debug_reports(void)
{
	DEFINE_SPINLOCK(l);
	int bugs = atomic_read(&mutex_bugs), sbugs;
	struct task *t;

	if (!sched_provoke_bugs) {
		ktap_skip("provokes BUG reports: boot with sched.provoke_bugs");
		return;
	}
	ktap_expect_alarm("2 BUG reports: a mutex unlocked by a task that does not own it, "
			  "one taken inside a spinlock");
	mutex_lock(&debug_mutex);
	t = kthread_run(unlock_not_mine, NULL, "notowner");
	KTAP_ASSERT(t);
	kthread_join(t);
	KTAP_EXPECT_EQ(atomic_read(&mutex_bugs), bugs + 1);
	KTAP_EXPECT(mutex_is_locked(&debug_mutex));	/* refused, still ours */
	KTAP_EXPECT(mutex_owner(&debug_mutex) == current);
	mutex_unlock(&debug_mutex);
	KTAP_EXPECT(!mutex_is_locked(&debug_mutex));
	KTAP_EXPECT_EQ(atomic_read(&mutex_bugs), bugs + 1);

	sbugs = atomic_read(&sched_sleep_bugs);
	spin_lock(&l);
	mutex_lock(&debug_mutex);	/* free, so it does not sleep: still reported */
	mutex_unlock(&debug_mutex);
	spin_unlock(&l);
	KTAP_EXPECT_EQ(atomic_read(&sched_sleep_bugs), sbugs + 1);
	KTAP_EXPECT_EQ(preempt_count(), 0);
}

static DEFINE_SPINLOCK(held_lock);
static volatile int holder_in;

/*
 * A holder keeps its lock until the waiter's watchdog has reported it:
 * *lockup_counter reaching lockup_due is what must happen.  A fixed hold
 * lost the report whenever the host left the waiter's vCPU unrun for
 * most of it.  The bound only keeps a broken watchdog from hanging the
 * run; the case then fails on the count.  The holder waits in mdelay(),
 * whose frameless ndelay() its NMI backtrace must see through.
 */
#define LOCKUP_HOLD_BOUND_NS (120ull * 1000000000ull)
static atomic_t *lockup_counter;
static int lockup_due;

static void hold_until_reported(void)
{
	u64 end = ktime_get_ns() + LOCKUP_HOLD_BOUND_NS;

	while (atomic_read(lockup_counter) < lockup_due && ktime_get_ns() < end)
		mdelay(1);
}

/* Waits (sleeping) until the holder has its lock, generously bounded. */
static void wait_for_holder(void)
{
	u64 end = ktime_get_ns() + LOCKUP_HOLD_BOUND_NS;

	while (!holder_in && ktime_get_ns() < end)
		msleep(1);
}

static int hold_lock(void *p)
{
	(void)p;
	spin_lock(&held_lock);
	holder_in = 1;
	hold_until_reported();
	spin_unlock(&held_lock);
	return 0;
}

/*
 * The lockup cases' common start: skip unless bugs may be provoked and a
 * second CPU can hold the lock; then a 200 ms watchdog on lock alone,
 * and fn holding it on CPU LOCKUP_HOLDER until one more report in
 * *counter.  NULL if
 * skipped (or failed, with no holder thread).  The caller waits for the
 * lock, then lockup_end().
 */
#define LOCKUP_HOLDER 1

static struct task *lockup_begin(int (*fn)(void *), atomic_t *counter, const char *name,
				 const void *lock)
{
	struct task *t;

	if (!sched_provoke_bugs) {
		ktap_skip("provokes BUG reports: boot with sched.provoke_bugs");
		return NULL;
	}
	if (nr_cpu_ids < 2 || raw_smp_processor_id() == LOCKUP_HOLDER) {
		ktap_skip("needs 2 CPUs");
		return NULL;
	}
	holder_in = 0;
	lockup_counter = counter;
	lockup_due = atomic_read(counter) + 1;
	ktap_expect_alarm("a lockup report on the lock %s holds on CPU %d, with backtraces",
			  name, LOCKUP_HOLDER);
	spin_lockup_watch(lock, 200);
	t = kthread_create_on_cpu(fn, NULL, LOCKUP_HOLDER, name);
	if (!t) {
		spin_lockup_watch(NULL, 0);
		ktap_fail("no holder thread");
		return NULL;
	}
	wake_up_process(t);
	wait_for_holder();
	return t;
}

static void lockup_end(struct task *t)
{
	kthread_join(t);
	spin_lockup_watch(NULL, 0);
}

static void locks_spinlock_lockup_names_holder(void)
{
	int before = atomic_read(&spinlock_lockups);
	struct task *t = lockup_begin(hold_lock, &spinlock_lockups, "holder",
					   &held_lock);

	if (!t)
		return;
	spin_lock(&held_lock);	/* waits past the 200 ms watchdog */
	spin_unlock(&held_lock);
	lockup_end(t);
	KTAP_EXPECT(holder_in);
	KTAP_EXPECT_EQ(atomic_read(&spinlock_lockups), before + 1);
	KTAP_EXPECT_EQ(spinlock_last_lockup_holder, LOCKUP_HOLDER);
}

/* A bare arch_spinlock_t records no holder: the report asks every CPU. */
static arch_spinlock_t held_raw = __ARCH_SPIN_LOCK_UNLOCKED;

static int hold_raw(void *p)
{
	preempt_disable();
	arch_spin_lock(&held_raw);
	holder_in = 1;
	hold_until_reported();
	arch_spin_unlock(&held_raw);
	preempt_enable();
	return 0;
}

static void locks_raw_spinlock_lockup_reported(void)
{
	int before = atomic_read(&raw_spinlock_lockups);
	struct task *t = lockup_begin(hold_raw, &raw_spinlock_lockups, "raw_holder",
					   &held_raw);

	if (!t)
		return;
	preempt_disable();
	arch_spin_lock(&held_raw);	/* waits past the 200 ms watchdog */
	arch_spin_unlock(&held_raw);
	preempt_enable();
	lockup_end(t);
	KTAP_EXPECT(holder_in);
	KTAP_EXPECT_EQ(atomic_read(&raw_spinlock_lockups), before + 1);
}

/* The short watchdog of a lockup case is for its lock alone: any other
 * lock held past it meanwhile (a run queue's, by a vCPU the host left
 * unrun) is no lockup.  CPU 1 holds another lock for 3x the limit. */
static arch_spinlock_t other_raw = __ARCH_SPIN_LOCK_UNLOCKED;

static int hold_other_raw(void *p)
{
	(void)p;
	preempt_disable();
	arch_spin_lock(&other_raw);
	holder_in = 1;
	mdelay(600);
	arch_spin_unlock(&other_raw);
	preempt_enable();
	return 0;
}

static void locks_lockup_watch_is_one_lock(void)
{
	int raw_before = atomic_read(&raw_spinlock_lockups);
	struct task *t;

	if (nr_cpu_ids < 2 || raw_smp_processor_id() == LOCKUP_HOLDER) {
		ktap_skip("needs 2 CPUs");
		return;
	}
	holder_in = 0;
	spin_lockup_watch(&held_raw, 200);
	t = kthread_create_on_cpu(hold_other_raw, NULL, LOCKUP_HOLDER, "other_holder");
	KTAP_ASSERT(t);
	wake_up_process(t);
	wait_for_holder();
	preempt_disable();
	arch_spin_lock(&other_raw);	/* 600 ms, past the watched lock's limit */
	arch_spin_unlock(&other_raw);
	preempt_enable();
	kthread_join(t);
	spin_lockup_watch(NULL, 0);
	KTAP_EXPECT(holder_in);
	KTAP_EXPECT_EQ(atomic_read(&raw_spinlock_lockups), raw_before);
}

/* The rwlock lockup report names the writer CPU, which then prints its
 * NMI backtrace: CPU 1 write-holds each kind until the report, this CPU
 * reads. */
static DEFINE_RWLOCK(held_rw);
static DEFINE_RWLOCK_FAIR(held_rwf);

static int hold_rw(void *p)
{
	bool fair = p != NULL;

	if (fair)
		write_lock(&held_rwf);
	else
		write_lock(&held_rw);
	holder_in = 1;
	hold_until_reported();
	if (fair)
		write_unlock(&held_rwf);
	else
		write_unlock(&held_rw);
	return 0;
}

static void locks_rwlock_lockup_names_writer(void)
{
	int holder = 1;

	if (!sched_provoke_bugs) {
		ktap_skip("provokes BUG reports: boot with sched.provoke_bugs");
		return;
	}
	if (nr_cpu_ids < 2 || raw_smp_processor_id() == holder) {
		ktap_skip("needs 2 CPUs");
		return;
	}
	for (long fair = 0; fair < 2; fair++) {
		int before = atomic_read(&rwlock_lockups);
		struct task *t;

		holder_in = 0;
		rwlock_last_lockup_writer = -1;
		lockup_counter = &rwlock_lockups;
		lockup_due = before + 1;
		ktap_expect_alarm("a %srwlock lockup report naming the writer on CPU %d",
				  fair ? "fair " : "", holder);
		spin_lockup_watch(fair ? (const void *)&held_rwf : (const void *)&held_rw, 200);
		t = kthread_create_on_cpu(hold_rw, (void *)fair, holder, "rw_holder");
		KTAP_ASSERT(t);
		wake_up_process(t);
		wait_for_holder();
		if (fair) {	/* waits past the 200 ms watchdog */
			read_lock(&held_rwf);
			read_unlock(&held_rwf);
		} else {
			read_lock(&held_rw);
			read_unlock(&held_rw);
		}
		kthread_join(t);
		KTAP_EXPECT(holder_in);
		KTAP_EXPECT_EQ(atomic_read(&rwlock_lockups), before + 1);
		KTAP_EXPECT_EQ(rwlock_last_lockup_writer, holder);
	}
	spin_lockup_watch(NULL, 0);
}

/* ---- uncontended cost -------------------------------------------------- */

#define BENCH_RUNS 10
#define BENCH_ITERS 20000

struct bench_result {
	u64 ns_milli[BENCH_RUNS];	/* per op, thousandths of a ns */
	u64 cyc_milli[BENCH_RUNS];
};

static void report(const char *type, struct bench_result *r)
{
	struct stats ns, cyc;

	stats_compute(r->ns_milli, BENCH_RUNS, &ns);
	stats_compute(r->cyc_milli, BENCH_RUNS, &cyc);
	ktap_log("bench name=lock type=%s ns=%llu.%03llu cycles=%llu.%03llu stddev=%llu.%03llu "
		 "stddev_cycles=%llu.%03llu median_ns=%llu.%03llu median_cycles=%llu.%03llu "
		 "runs=%d iters=%d cpus=%d preempt=%s", type,
		 (unsigned long long)(ns.mean / 1000), (unsigned long long)(ns.mean % 1000),
		 (unsigned long long)(cyc.mean / 1000), (unsigned long long)(cyc.mean % 1000),
		 (unsigned long long)(ns.stddev / 1000), (unsigned long long)(ns.stddev % 1000),
		 (unsigned long long)(cyc.stddev / 1000), (unsigned long long)(cyc.stddev % 1000),
		 (unsigned long long)(ns.median / 1000), (unsigned long long)(ns.median % 1000),
		 (unsigned long long)(cyc.median / 1000), (unsigned long long)(cyc.median % 1000),
		 BENCH_RUNS, BENCH_ITERS, nr_cpu_ids, preempt_full ? "full" : "none");
}

/* The body is inlined into its own loop, kept alive by barrier(). */
#define BENCH(type, body) do {						\
	struct bench_result __r;					\
	for (int __run = 0; __run < BENCH_RUNS; __run++) {		\
		u64 __t0 = ktime_get_ns(), __c0 = get_cycles_ordered();	\
		for (int __i = 0; __i < BENCH_ITERS; __i++) {		\
			body;						\
			barrier();					\
		}							\
		u64 __c1 = get_cycles_ordered(), __t1 = ktime_get_ns();	\
		__r.ns_milli[__run] = (__t1 - __t0) * 1000 / BENCH_ITERS; \
		__r.cyc_milli[__run] = (__c1 - __c0) * 1000 / BENCH_ITERS; \
	}								\
	report(type, &__r);						\
} while (0)

static DEFINE_SPINLOCK(bench_spin);
static DEFINE_RWLOCK(bench_rw);
static DEFINE_RWLOCK_FAIR(bench_rwf);
static DEFINE_SEQLOCK(bench_seq);
static DEFINE_MUTEX(bench_mutex);
static u64 bench_data;

static void locks_bench_uncontended(void)
{
	unsigned long flags;

	BENCH("empty", );
	BENCH("spinlock", spin_lock(&bench_spin); spin_unlock(&bench_spin));
	BENCH("spinlock-irqsave", spin_lock_irqsave(&bench_spin, flags);
	      spin_unlock_irqrestore(&bench_spin, flags));
	BENCH("spinlock-irq", spin_lock_irq(&bench_spin); spin_unlock_irq(&bench_spin));
	BENCH("spinlock-bh", spin_lock_bh(&bench_spin); spin_unlock_bh(&bench_spin));
	BENCH("rwlock-read", read_lock(&bench_rw); read_unlock(&bench_rw));
	BENCH("rwlock-write", write_lock(&bench_rw); write_unlock(&bench_rw));
	BENCH("rwlock-fair-read", read_lock(&bench_rwf); read_unlock(&bench_rwf));
	BENCH("rwlock-fair-write", write_lock(&bench_rwf); write_unlock(&bench_rwf));
	BENCH("seqlock-read", unsigned __s; do { __s = read_seqbegin(&bench_seq);
	      (void)READ_ONCE(bench_data); } while (read_seqretry(&bench_seq, __s)));
	BENCH("seqlock-write", write_seqlock(&bench_seq); write_sequnlock(&bench_seq));
	BENCH("mutex", mutex_lock(&bench_mutex); mutex_unlock(&bench_mutex));
	BENCH("preempt", preempt_disable(); preempt_enable());
	KTAP_EXPECT(!spin_is_locked(&bench_spin));
	KTAP_EXPECT(!mutex_is_locked(&bench_mutex));
	KTAP_EXPECT_EQ(preempt_count(), 0);
}

KTAP_SUITE(locks,
	   KTAP_CASE(locks_spinlock_all_cpus),
	   KTAP_CASE(locks_variants_state),
	   KTAP_CASE(locks_rwlock_all_cpus),
	   KTAP_CASE(locks_rwlock_readers_share),
	   KTAP_CASE(locks_mutex_all_cpus),
	   KTAP_CASE(locks_seqlock_no_torn_reads),
	   KTAP_CASE(locks_seqlock_irq_writer),
	   KTAP_CASE(locks_spinlock_debug_reports),
	   KTAP_CASE(locks_spinlock_lockup_names_holder),
	   KTAP_CASE(locks_rwlock_lockup_names_writer),
	   KTAP_CASE(locks_raw_spinlock_lockup_reported),
	   KTAP_CASE(locks_lockup_watch_is_one_lock),
	   KTAP_CASE(locks_mutex_debug_reports),
	   KTAP_CASE(locks_bench_uncontended));
