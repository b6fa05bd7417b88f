/*
 * tests/host/test_locks.c - host tests of the kernel's lock headers
 * (kernel/spinlock.h, kernel/rwlock.h, kernel/seqlock.h) and their slow
 * paths (kernel/spinlock.c, kernel/rwlock.c), built unchanged against
 * tests/host/thread_shim.  Each pthread plays one CPU.  Built twice by
 * tests/host/locks.mk: with ASan+UBSan, and with TSan, which checks that
 * the locks' atomics really order the plain data they protect.
 *
 * Checks: mutual exclusion of each lock under every thread hammering
 * (plain counters must come out exact), readers of both rwlocks inside at
 * the same time, a writer of the fair rwlock getting in while readers
 * stream, seqlock readers never accepting a torn value, and the spinlock
 * debug reports (recursion, unlock of a lock not held, bad magic, lockup
 * naming the holder CPU), the rwlock lockup report naming the writer CPU,
 * and no lockup report while the holder CPU is not running at all.
 * Exits non-zero on any failure.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/spinlock.h"
#include "kernel/rwlock.h"
#include "kernel/seqlock.h"
#include "kernel/printk.h"
#include "kernel/time.h"
#include "tests/kernel/lock_hammer.h"
#include "ktest.h"

static int backtrace_asked = -1;
static int quiet;	/* expected BUG reports are counted, not printed */

int printk(const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (fmt[0] == '\001' && fmt[1])
		fmt += 2;
	if (!quiet) {
		va_start(ap, fmt);
		n = vprintf(fmt, ap);
		va_end(ap);
	}
	return n;
}

void dump_stack(void)
{
	if (!quiet)
		printf("  (backtrace)\n");
}

/*
 * A holder CPU that "is not running": silent_cpu answers no NMI to the
 * next silent_asks askers (a vCPU the host does not run), then does.  A
 * lockup report (its backtrace asked) while it is still silent is wrong.
 */
static int silent_cpu = -1, silent_asks, silent_answers, reports_while_silent;

bool cpu_answers_nmi(int cpu)
{
	if (cpu != __atomic_load_n(&silent_cpu, __ATOMIC_RELAXED) ||
	    __atomic_sub_fetch(&silent_asks, 1, __ATOMIC_RELAXED) < 0)
		return true;
	__atomic_add_fetch(&silent_answers, 1, __ATOMIC_RELAXED);
	return false;
}

bool trigger_cpu_backtrace(int cpu)
{
	__atomic_store_n(&backtrace_asked, cpu, __ATOMIC_RELAXED);
	if (cpu == __atomic_load_n(&silent_cpu, __ATOMIC_RELAXED) &&
	    __atomic_load_n(&silent_asks, __ATOMIC_RELAXED) > 0)
		__atomic_add_fetch(&reports_while_silent, 1, __ATOMIC_RELAXED);
	return true;
}

static int all_backtraces_asked;

void trigger_all_cpu_backtrace(void)
{
	__atomic_add_fetch(&all_backtraces_asked, 1, __ATOMIC_RELAXED);
}

#define NTHREADS 8
#ifndef LOCKS_ITERS
#define LOCKS_ITERS 50000
#endif
static int iters = LOCKS_ITERS;

struct worker {
	pthread_t th;
	int cpu;
	void *(*fn)(struct worker *);
	long result;
	long done;	/* iterations finished before the budget ran out */
};

/*
 * Each hammering part stops at its iteration count or after this much
 * wall time, whichever comes first, and checks what was actually done.
 * With more threads than host cores every FIFO ticket handoff waits for
 * the host to run one particular thread; on a loaded machine that took
 * the whole run past the harness's time limit.
 */
#define PART_BUDGET_NS	(15ull * 1000000000ull)
static u64 part_deadline;
static int parts_cut_short;

static bool out_of_time(int i)
{
	return (i & 63) == 63 && ktime_get_ns() > __atomic_load_n(&part_deadline, __ATOMIC_RELAXED);
}

static void *worker_main(void *p)
{
	struct worker *w = p;

	shim_cpu = w->cpu;
	w->fn(w);
	if (shim_preempt_count != 0) {
		printf("FAIL: cpu %d left preempt_count %d\n", w->cpu, shim_preempt_count);
		w->result = -1;
	}
	return NULL;
}

static void run_workers(int n, void *(*fn)(struct worker *), struct worker *ws)
{
	part_deadline = ktime_get_ns() + PART_BUDGET_NS;
	for (int i = 0; i < n; i++) {
		ws[i].cpu = i;
		ws[i].fn = fn;
		ws[i].result = 0;
		ws[i].done = 0;
		if (pthread_create(&ws[i].th, NULL, worker_main, &ws[i])) {
			printf("FAIL: pthread_create for cpu %d\n", i);
			exit(1);
		}
	}
	for (int i = 0; i < n; i++)
		pthread_join(ws[i].th, NULL);
}

/* Sum of the workers' finished iterations; notes a part cut short. */
static long total_done(struct worker *ws, int n, long want, const char *what)
{
	long sum = 0;

	for (int i = 0; i < n; i++)
		sum += ws[i].done;
	if (sum < want) {
		parts_cut_short++;
		printf("  (%s: the %llu s budget ran out after %ld of %ld iterations)\n", what,
		       PART_BUDGET_NS / 1000000000ull, sum, want);
	}
	return sum;
}

/* ---- spinlock ---------------------------------------------------------- */

static DEFINE_SPINLOCK(test_lock);

/* One spin_trylock(); a win bumps the counter inside and w->result. */
static void try_once(struct worker *w)
{
	if (!spin_trylock(&test_lock))
		return;
	hammer_count();
	w->result++;
	spin_unlock(&test_lock);
}

/* Runs fn on every thread from a zero counter; the trylocks they won. */
static long run_hammers(void *(*fn)(struct worker *), struct worker *ws)
{
	long won = 0;

	hammer_counter = 0;
	hammer_max_inside = 0;
	run_workers(NTHREADS, fn, ws);
	for (int i = 0; i < NTHREADS; i++) {
		EXPECT_MSG(ws[i].result >= 0, "worker %d", i);
		won += ws[i].result;
	}
	return won;
}

/* CPU 0 flips tickets <-> test-and-set as it goes: the two must mix. */
static bool mix_lock_modes;

static void *spin_hammer(struct worker *w)
{
	for (int i = 0; i < iters && !out_of_time(i); i++, w->done++) {
		if (mix_lock_modes && w->cpu == 0 && !(i & 15))
			__atomic_store_n(&virt_spin_lock_enabled, !(i & 16), __ATOMIC_RELAXED);
		spin_hammer_section(&test_lock, i, hammer_count);
		try_once(w);	/* trylock too: must never let two in */
	}
	return NULL;
}

static void test_spinlock_exclusion(void)
{
	struct worker ws[NTHREADS];
	long tries = run_hammers(spin_hammer, ws), done;

	done = total_done(ws, NTHREADS, (long)NTHREADS * iters, "spinlock");
	EXPECT_MSG(done > 0, "no lock/unlock finished");
	EXPECT_MSG(hammer_counter == done + tries,
	      "counter %ld, expected %ld", hammer_counter, done + tries);
	EXPECT_MSG(hammer_max_inside == 1, "%d CPUs were inside at once", hammer_max_inside);
	EXPECT_MSG(!spin_is_locked(&test_lock), "lock left held");
	printf("spinlock: %d threads, %ld lock/unlock, %ld trylocks won, max inside %d\n",
	       NTHREADS, done, tries, hammer_max_inside);
}

/*
 * Trylock only: a winner usually takes the lock straight after another
 * thread's unlock, so the guarded counter is safe only if trylock
 * acquires from that unlock (TSan sees the ordering, or its absence).
 */
static void *spin_try_hammer(struct worker *w)
{
	for (int i = 0; i < iters && !out_of_time(i); i++, w->done++)
		try_once(w);
	return NULL;
}

static void test_spinlock_trylock(void)
{
	struct worker ws[NTHREADS];
	long won = run_hammers(spin_try_hammer, ws);

	total_done(ws, NTHREADS, (long)NTHREADS * iters, "spin_trylock");
	EXPECT_MSG(hammer_counter == won, "counter %ld, trylocks won %ld", hammer_counter, won);
	EXPECT_MSG(won > 0, "no trylock ever won");
	EXPECT_MSG(hammer_max_inside == 1, "%d CPUs were inside at once", hammer_max_inside);
	EXPECT_MSG(!spin_is_locked(&test_lock), "lock left held");
	printf("spin_trylock: %d threads, %ld won, max inside %d\n",
	       NTHREADS, won, hammer_max_inside);
}

/* ---- spinlock debug checks --------------------------------------------- */

static void test_spinlock_debug(void)
{
	DEFINE_SPINLOCK(l);
	int bugs;

	quiet = 1;
	shim_cpu = 0;

	/* recursion: reported, nesting counted, no hang, lock stays coherent */
	bugs = atomic_read(&spinlock_bugs);
	spin_lock(&l);
	spin_lock(&l);
	EXPECT_MSG(atomic_read(&spinlock_bugs) == bugs + 1, "recursion not reported");
	spin_unlock(&l);
	EXPECT_MSG(spin_is_locked(&l), "inner unlock of a recursion released the lock");
	spin_unlock(&l);
	EXPECT_MSG(!spin_is_locked(&l), "outer unlock did not release");
	EXPECT_MSG(atomic_read(&spinlock_bugs) == bugs + 1, "spurious report");

	/* unlock of a lock not held: reported, and the lock still works */
	bugs = atomic_read(&spinlock_bugs);
	spin_unlock(&l);
	EXPECT_MSG(atomic_read(&spinlock_bugs) == bugs + 1, "bad unlock not reported");
	EXPECT_MSG(shim_preempt_count == 0, "bad unlock changed preempt_count: %d",
	      shim_preempt_count);
	EXPECT_MSG(l.raw.owner == l.raw.next, "bad unlock corrupted the tickets");
	spin_lock(&l);
	EXPECT_MSG(spin_is_locked(&l), "lock unusable after bad unlock");

	/* unlock from another CPU while held: reported, not released */
	bugs = atomic_read(&spinlock_bugs);
	shim_cpu = 5;
	spin_unlock(&l);
	shim_cpu = 0;
	EXPECT_MSG(atomic_read(&spinlock_bugs) == bugs + 1, "wrong-CPU unlock not reported");
	EXPECT_MSG(shim_preempt_count == 1, "wrong-CPU unlock dropped preempt_count: %d",
	      shim_preempt_count);
	EXPECT_MSG(spin_is_locked(&l), "wrong-CPU unlock released the lock");
	spin_unlock(&l);
	EXPECT_MSG(!spin_is_locked(&l), "lock stuck");

	/* a freed (0x6b-poisoned) lock is refused */
	spinlock_t *p = malloc(sizeof(*p));
	memset(p, 0x6b, sizeof(*p));
	bugs = atomic_read(&spinlock_bugs);
	spin_lock(p);
	EXPECT_MSG(atomic_read(&spinlock_bugs) == bugs + 1, "poisoned lock not reported");
	spin_unlock(p);
	EXPECT_MSG(atomic_read(&spinlock_bugs) == bugs + 2, "poisoned unlock not reported");
	EXPECT_MSG(shim_preempt_count == 0, "poisoned lock unbalanced preempt_count: %d",
	      shim_preempt_count);
	free(p);

	/* a zeroed lock (kzalloc without init) is a valid unlocked lock */
	spinlock_t z;
	memset(&z, 0, sizeof(z));
	bugs = atomic_read(&spinlock_bugs);
	spin_lock(&z);
	spin_unlock(&z);
	EXPECT_MSG(atomic_read(&spinlock_bugs) == bugs, "zeroed lock reported");
	EXPECT_MSG(shim_preempt_count == 0, "preempt_count %d", shim_preempt_count);
	quiet = 0;
	printf("spinlock debug: recursion, bad unlock, wrong CPU, poison checked\n");
}

/*
 * The lockup cases: a holder keeps a lock while the others wait on it,
 * each waiter's watchdog (spinlock_timeout_ms) must report once.  The
 * holder lets go only when every report it must cause has come in, never
 * after a fixed time: on a loaded host a waiter may not run at all for
 * longer than any such time.  A generous bound keeps a broken watchdog
 * from hanging the test; reaching it is a failure of its own.
 */
#define HOLD_BOUND_NS	(600ull * 1000000000ull)
static int holder_ready, holder_gave_up;

static void hold_until(atomic_t *reports, int want, atomic_t *reports2, int want2)
{
	u64 bound = ktime_get_ns() + HOLD_BOUND_NS;

	while (atomic_read(reports) < want || (reports2 && atomic_read(reports2) < want2)) {
		if (ktime_get_ns() > bound) {
			__atomic_store_n(&holder_gave_up, 1, __ATOMIC_RELAXED);
			return;
		}
		usleep(1000);
	}
}

static void wait_for_holder(void)
{
	while (!__atomic_load_n(&holder_ready, __ATOMIC_ACQUIRE))
		usleep(1000);
}

/* Runs a lockup case on n workers (fn says who holds, who waits) with a
 * 100 ms watchdog, the expected BUG reports kept quiet. */
static void run_lockup_case(int n, void *(*fn)(struct worker *), const char *kind)
{
	struct worker ws[8];

	quiet = 1;
	spinlock_timeout_ms = 100;
	holder_ready = holder_gave_up = 0;
	run_workers(n, fn, ws);
	spinlock_timeout_ms = 5000;
	quiet = 0;
	EXPECT_MSG(!holder_gave_up, "%s: the holder gave up after %llu s without the reports",
		   kind, HOLD_BOUND_NS / 1000000000ull);
}

static DEFINE_SPINLOCK(held_lock);
static int lockups_due;		/* spinlock_lockups to wait for */

static void *hold_long(struct worker *w)
{
	spin_lock(&held_lock);
	__atomic_store_n(&holder_ready, 1, __ATOMIC_RELEASE);
	hold_until(&spinlock_lockups, lockups_due, NULL, 0);
	spin_unlock(&held_lock);
	return NULL;
}

static void *wait_long(struct worker *w)
{
	wait_for_holder();
	spin_lock(&held_lock);
	spin_unlock(&held_lock);
	return NULL;
}

/* The same with a bare arch_spinlock_t: no holder recorded, all CPUs asked. */
static arch_spinlock_t held_raw = __ARCH_SPIN_LOCK_UNLOCKED;

static void *raw_lockup_pair(struct worker *w)
{
	if (w->cpu == 0)
		return NULL;
	if (w->cpu == 3) {
		arch_spin_lock(&held_raw);
		__atomic_store_n(&holder_ready, 1, __ATOMIC_RELEASE);
		hold_until(&raw_spinlock_lockups, lockups_due, NULL, 0);
		arch_spin_unlock(&held_raw);
		return NULL;
	}
	wait_for_holder();
	arch_spin_lock(&held_raw);
	arch_spin_unlock(&held_raw);
	return NULL;
}

static void test_raw_spinlock_lockup(void)
{
	int before = atomic_read(&raw_spinlock_lockups), asked = all_backtraces_asked;

	lockups_due = before + 2;
	run_lockup_case(4, raw_lockup_pair, "raw spinlock");	/* CPU 3 holds, 1 and 2 wait */
	EXPECT_MSG(atomic_read(&raw_spinlock_lockups) == before + 2,
		   "%d raw lockup reports, expected 2", atomic_read(&raw_spinlock_lockups) - before);
	EXPECT_MSG(all_backtraces_asked == asked + 2, "all CPUs' backtraces asked %d times, expected 2",
		   all_backtraces_asked - asked);
	EXPECT_MSG(!arch_spin_is_locked(&held_raw), "raw lock left held");
	printf("raw spinlock lockup (%s): reported %d times, every CPU asked\n",
	       virt_spin_lock_enabled ? "test-and-set" : "tickets",
	       atomic_read(&raw_spinlock_lockups) - before);
}

static void *lockup_pair(struct worker *w)
{
	return w->cpu == 0 ? NULL : w->cpu == 3 ? hold_long(w) : wait_long(w);
}

static void test_spinlock_lockup(void)
{
	int before = atomic_read(&spinlock_lockups);

	lockups_due = before + 3;
	run_lockup_case(5, lockup_pair, "spinlock");	/* CPU 3 holds, 1, 2 and 4 wait */
	EXPECT_MSG(atomic_read(&spinlock_lockups) == before + 3,
	      "%d lockup reports, expected 3", atomic_read(&spinlock_lockups) - before);
	EXPECT_MSG(spinlock_last_lockup_holder == 3, "named holder CPU %d, expected 3",
	      spinlock_last_lockup_holder);
	EXPECT_MSG(backtrace_asked == 3, "asked CPU %d for a backtrace, expected 3",
	      backtrace_asked);
	printf("spinlock lockup: reported %d times, holder CPU#%d named\n",
	       atomic_read(&spinlock_lockups) - before, spinlock_last_lockup_holder);
}

/* The rwlock lockup report names the writer CPU and asks it for its
 * backtrace: CPU 2 write-holds each kind in turn, CPUs 1 and 3 wait to
 * read.  Both wait on rwlock_t; on rwlock_fair_t only the queue head does
 * (the other waits on wait_lock, an arch spinlock: a raw report). */
static DEFINE_RWLOCK(held_rw);
static DEFINE_RWLOCK_FAIR(held_rwf);
static int rw_fair;
static int rw_lockups_due, rw_raw_lockups_due;

static void *rw_lockup_pair(struct worker *w)
{
	if (w->cpu == 0)
		return NULL;
	if (w->cpu == 2) {
		if (rw_fair)
			write_lock(&held_rwf);
		else
			write_lock(&held_rw);
		__atomic_store_n(&holder_ready, 1, __ATOMIC_RELEASE);
		hold_until(&rwlock_lockups, rw_lockups_due,
			   &raw_spinlock_lockups, rw_raw_lockups_due);
		if (rw_fair)
			write_unlock(&held_rwf);
		else
			write_unlock(&held_rw);
		return NULL;
	}
	wait_for_holder();
	if (rw_fair) {
		read_lock(&held_rwf);
		read_unlock(&held_rwf);
	} else {
		read_lock(&held_rw);
		read_unlock(&held_rw);
	}
	return NULL;
}

static void test_rwlock_lockup(void)
{
	for (rw_fair = 0; rw_fair < 2; rw_fair++) {
		int before = atomic_read(&rwlock_lockups), raw_before = atomic_read(&raw_spinlock_lockups);
		const char *kind = rw_fair ? "rwlock_fair" : "rwlock";

		/* rwlock_fair's second reader waits on wait_lock: a raw report. */
		int want = rw_fair ? 1 : 2, want_raw = rw_fair ? 1 : 0;

		rw_lockups_due = before + want;
		rw_raw_lockups_due = raw_before + want_raw;
		backtrace_asked = -1;
		rwlock_last_lockup_writer = -1;
		run_lockup_case(4, rw_lockup_pair, kind);
		EXPECT_MSG(atomic_read(&rwlock_lockups) == before + want,
			   "%s: %d lockup reports, expected %d", kind,
			   atomic_read(&rwlock_lockups) - before, want);
		EXPECT_MSG(atomic_read(&raw_spinlock_lockups) == raw_before + want_raw,
			   "%s: %d raw lockup reports, expected %d", kind,
			   atomic_read(&raw_spinlock_lockups) - raw_before, want_raw);
		EXPECT_MSG(rwlock_last_lockup_writer == 2, "%s: named writer CPU %d, expected 2",
			   kind, rwlock_last_lockup_writer);
		EXPECT_MSG(backtrace_asked == 2, "%s: asked CPU %d for a backtrace, expected 2",
			   kind, backtrace_asked);
		EXPECT_MSG(rw_owner_cpu(rw_fair ? &held_rwf.owner : &held_rw.owner) == -1,
			   "%s: writer still recorded after write_unlock", kind);
		printf("%s lockup: reported %d times, writer CPU#%d named\n", kind,
		       atomic_read(&rwlock_lockups) - before, rwlock_last_lockup_writer);
	}
}

/*
 * The same holders, but not running for the first asks: no report while
 * the holder takes no NMI (QEMU TCG at -smp 64 left a vCPU unrun for over
 * 5 s inside a short section, and its waiters said "BUG: spinlock lockup
 * suspected"); the clock restarts, and once it answers the lockup is
 * reported as before.
 */
#define SILENT_ASKS 6

static void silent_holder(int cpu)
{
	silent_answers = reports_while_silent = 0;
	__atomic_store_n(&silent_asks, SILENT_ASKS, __ATOMIC_RELAXED);
	__atomic_store_n(&silent_cpu, cpu, __ATOMIC_RELAXED);
}

static void check_silent_holder(const char *kind, int not_running_before)
{
	__atomic_store_n(&silent_cpu, -1, __ATOMIC_RELAXED);
	EXPECT_MSG(silent_answers == SILENT_ASKS, "%s: the watchdog asked whether the holder runs "
		   "%d times before reporting, expected %d", kind, silent_answers, SILENT_ASKS);
	EXPECT_MSG(reports_while_silent == 0, "%s: %d lockup reports while the holder was not "
		   "running", kind, reports_while_silent);
	EXPECT_MSG(atomic_read(&spinlock_holder_not_running) == not_running_before + SILENT_ASKS,
		   "%s: %d waits found the holder not running, expected %d", kind,
		   atomic_read(&spinlock_holder_not_running) - not_running_before, SILENT_ASKS);
}

static void test_lockup_holder_not_running(void)
{
	int before = atomic_read(&spinlock_lockups);
	int nr = atomic_read(&spinlock_holder_not_running);

	silent_holder(3);
	lockups_due = before + 3;
	run_lockup_case(5, lockup_pair, "spinlock, holder not running");
	EXPECT_MSG(atomic_read(&spinlock_lockups) == before + 3,
		   "%d lockup reports once the holder ran, expected 3",
		   atomic_read(&spinlock_lockups) - before);
	check_silent_holder("spinlock", nr);

	before = atomic_read(&rwlock_lockups);
	nr = atomic_read(&spinlock_holder_not_running);
	rw_fair = 0;
	rw_lockups_due = before + 2;
	rw_raw_lockups_due = atomic_read(&raw_spinlock_lockups);
	silent_holder(2);
	run_lockup_case(4, rw_lockup_pair, "rwlock, writer not running");
	EXPECT_MSG(atomic_read(&rwlock_lockups) == before + 2,
		   "%d rwlock lockup reports once the writer ran, expected 2",
		   atomic_read(&rwlock_lockups) - before);
	check_silent_holder("rwlock", nr);
	printf("lockup of a holder not running: no report for %d asks, then reported\n",
	       SILENT_ASKS);
}

/* ---- rwlocks ----------------------------------------------------------- */

static DEFINE_RWLOCK(rw);
static DEFINE_RWLOCK_FAIR(rwf);

#define RW_HAMMER(name, LOCK)						\
static void *name(struct worker *w)					\
{									\
	for (int i = 0; i < iters / 4 && !out_of_time(i); i++) {	\
		if (i % 8 == w->cpu) {					\
			rw_hammer_write(LOCK);				\
			w->done++;	/* writes */			\
		} else if (rw_hammer_read(LOCK)) {			\
			w->result = -2;					\
		}							\
	}								\
	return NULL;							\
}
RW_HAMMER(rw_hammer, &rw)
RW_HAMMER(rwf_hammer, &rwf)

static void check_rw(const char *what, struct worker *ws)
{
	long writes = 0;

	for (int i = 0; i < NTHREADS; i++)
		EXPECT_MSG(ws[i].result == 0, "%s worker %d result %ld", what, i, ws[i].result);
	for (int i = 0; i < NTHREADS; i++)
		writes += (iters / 4 + 7 - i) / 8;
	writes = total_done(ws, NTHREADS, writes, what);
	EXPECT_MSG(writes > 0, "%s: no write finished", what);
	EXPECT_MSG(hammer_pair_a == writes && hammer_pair_b == writes,
		   "%s: %ld/%ld writes, expected %ld", what, hammer_pair_a, hammer_pair_b, writes);
	EXPECT_MSG(hammer_overlap == 0, "%s: %d overlaps of a writer with anyone",
		   what, hammer_overlap);
	printf("%s: %ld writes exact, max %d readers inside together\n",
	       what, writes, hammer_max_readers);
}

/*
 * Readers really share: every thread takes the read lock and waits inside
 * until all have arrived.  An exclusive lock would never get them all in;
 * the wait is bounded so that failure reports instead of hanging.
 */
static int arrived, gather_timeouts;

#define RW_GATHER(name, LOCK)						\
static void *name(struct worker *w)					\
{									\
	read_lock(LOCK);						\
	__atomic_add_fetch(&arrived, 1, __ATOMIC_RELAXED);		\
	for (int t = 0; __atomic_load_n(&arrived, __ATOMIC_RELAXED) < NTHREADS; t++) { \
		if (t > 60000) {	/* >= 60 s: a hang guard only */	\
			__atomic_add_fetch(&gather_timeouts, 1, __ATOMIC_RELAXED); \
			break;						\
		}							\
		usleep(1000);						\
	}								\
	read_unlock(LOCK);						\
	return NULL;							\
}
RW_GATHER(rw_gather, &rw)
RW_GATHER(rwf_gather, &rwf)

/* The fair lock lets a writer in while readers keep streaming. */
static int stop_readers;
static long writer_got_in;

static void *fair_stream(struct worker *w)
{
	if (w->cpu == 0) {
		usleep(20 * 1000);
		write_lock(&rwf);
		writer_got_in = 1;
		write_unlock(&rwf);
		__atomic_store_n(&stop_readers, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	for (long i = 0; !__atomic_load_n(&stop_readers, __ATOMIC_RELAXED); i++) {
		read_lock(&rwf);
		for (volatile int k = 0; k < 50; k++)
			;
		read_unlock(&rwf);
		if (out_of_time((int)i)) {
			w->result = -3;	/* writer starved for the whole budget */
			__atomic_store_n(&stop_readers, 1, __ATOMIC_RELAXED);
		}
	}
	return NULL;
}

static void test_rwlocks(void)
{
	struct worker ws[NTHREADS];

	hammer_rw_reset();
	run_workers(NTHREADS, rw_hammer, ws);
	check_rw("rwlock (2007 counter)", ws);

	hammer_rw_reset();
	run_workers(NTHREADS, rwf_hammer, ws);
	check_rw("rwlock_fair (queued)", ws);

	arrived = gather_timeouts = 0;
	run_workers(NTHREADS, rw_gather, ws);
	EXPECT_MSG(gather_timeouts == 0 && arrived == NTHREADS,
	      "rwlock: only %d readers got in together", arrived);
	arrived = gather_timeouts = 0;
	run_workers(NTHREADS, rwf_gather, ws);
	EXPECT_MSG(gather_timeouts == 0 && arrived == NTHREADS,
	      "rwlock_fair: only %d readers got in together", arrived);
	printf("rwlocks: %d readers held each lock at once\n", NTHREADS);

	stop_readers = 0; writer_got_in = 0;
	run_workers(NTHREADS, fair_stream, ws);
	EXPECT_MSG(writer_got_in == 1, "fair writer never got in");
	for (int i = 0; i < NTHREADS; i++)
		EXPECT_MSG(ws[i].result == 0, "fair stream worker %d: %s", i,
		      ws[i].result == -3 ? "the writer did not get in within the budget" : "?");
	printf("rwlock_fair: writer got in past streaming readers\n");

	/* trylock semantics */
	EXPECT_MSG(write_trylock(&rw), "write_trylock free rwlock");
	EXPECT_MSG(!read_trylock(&rw), "read_trylock while write-held");
	EXPECT_MSG(!write_trylock(&rw), "write_trylock while write-held");
	write_unlock(&rw);
	EXPECT_MSG(read_trylock(&rw), "read_trylock free rwlock");
	EXPECT_MSG(!write_trylock(&rw), "write_trylock while read-held");
	read_unlock(&rw);
	EXPECT_MSG(atomic_read(&rw.cnt) == RW_LOCK_BIAS, "rwlock count %x", atomic_read(&rw.cnt));
	EXPECT_MSG(write_trylock(&rwf), "fair write_trylock free");
	EXPECT_MSG(!read_trylock(&rwf), "fair read_trylock while write-held");
	write_unlock(&rwf);
	EXPECT_MSG(read_trylock(&rwf), "fair read_trylock free");
	EXPECT_MSG(!write_trylock(&rwf), "fair write_trylock while read-held");
	read_unlock(&rwf);
	EXPECT_MSG(atomic_read(&rwf.cnts) == 0, "fair count %x", atomic_read(&rwf.cnts));
	EXPECT_MSG(shim_preempt_count == 0, "preempt_count %d", shim_preempt_count);
}

/* ---- seqlock ----------------------------------------------------------- */

static DEFINE_SEQLOCK(sl);
static u64 sdata[4];	/* the writer keeps all four equal */
static int stop_seq;

static void *seq_worker(struct worker *w)
{
	if (w->cpu < 2) {	/* two writers: the spinlock serialises them */
		for (u64 i = 1; i <= (u64)iters / 10 && !out_of_time((int)i); i++, w->done++) {
			write_seqlock(&sl);
			u64 v = __atomic_load_n(&sdata[0], __ATOMIC_RELAXED) + 1;
			for (int k = 0; k < 4; k++)
				__atomic_store_n(&sdata[k], v, __ATOMIC_RELAXED);
			write_sequnlock(&sl);
		}
		__atomic_add_fetch(&stop_seq, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	long torn_seen = 0, reads = 0;

	while (__atomic_load_n(&stop_seq, __ATOMIC_RELAXED) < 2) {
		u64 v[4];
		unsigned s;
		bool torn;

		do {
			s = read_seqbegin(&sl);
			for (int k = 0; k < 4; k++)
				v[k] = __atomic_load_n(&sdata[k], __ATOMIC_RELAXED);
			torn = v[0] != v[1] || v[1] != v[2] || v[2] != v[3];
			if (torn)
				torn_seen++;
		} while (read_seqretry(&sl, s));
		reads++;
		if (torn)
			w->result = -1;	/* accepted a torn value */
		sched_yield();	/* six readers on two cores would starve the writers */
	}
	(void)torn_seen;
	return NULL;
}

static void test_seqlock(void)
{
	struct worker ws[NTHREADS];

	stop_seq = 0;
	memset(sdata, 0, sizeof(sdata));
	run_workers(NTHREADS, seq_worker, ws);
	for (int i = 0; i < NTHREADS; i++)
		EXPECT_MSG(ws[i].result == 0, "seqlock reader %d accepted a torn value", i);
	long writes = ws[0].done + ws[1].done;
	total_done(ws, 2, 2l * (iters / 10), "seqlock");
	EXPECT_MSG(sdata[0] == (u64)writes && sdata[3] == (u64)writes,
	      "seqlock writers lost updates: %llu of %ld", (unsigned long long)sdata[0], writes);
	EXPECT_MSG((sl.seqcount.sequence & 1) == 0, "sequence left odd");
	printf("seqlock: %ld writes, no torn value accepted\n", writes);
}

/* Each part's run time, so a slow (or timed-out) run shows where. */
static void timed(const char *what, void (*fn)(void))
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	ktest_run(what, fn);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("  (%s: %ld ms)\n", what,
	       (long)((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000));
}

int main(int argc, char **argv)
{
	if (getenv("LOCKS_ITERS"))
		iters = atoi(getenv("LOCKS_ITERS"));
	(void)argc; (void)argv;
	setvbuf(stdout, NULL, _IOLBF, 0);
	timed("spinlock exclusion", test_spinlock_exclusion);
	virt_spin_lock_enabled = true;		/* test-and-set, as under a hypervisor */
	timed("spinlock exclusion, test-and-set", test_spinlock_exclusion);
	timed("spinlock lockup, test-and-set", test_spinlock_lockup);
	timed("raw spinlock lockup, test-and-set", test_raw_spinlock_lockup);
	mix_lock_modes = true;
	timed("spinlock exclusion, tickets and test-and-set mixed", test_spinlock_exclusion);
	mix_lock_modes = false;
	virt_spin_lock_enabled = false;
	timed("spin_trylock", test_spinlock_trylock);
	timed("spinlock debug", test_spinlock_debug);
	timed("spinlock lockup", test_spinlock_lockup);
	timed("raw spinlock lockup", test_raw_spinlock_lockup);
	timed("rwlocks", test_rwlocks);
	timed("rwlock lockup", test_rwlock_lockup);
	timed("lockup of a holder not running", test_lockup_holder_not_running);
	timed("seqlock", test_seqlock);
	if (parts_cut_short)
		printf("test_locks: %d parts cut short by the time budget (a loaded host)\n",
		       parts_cut_short);
	return ktest_summary();
}
