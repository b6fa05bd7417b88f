/*
 * rcu/torture_cb.c - rcutorture's callback stressors (Linux's names):
 *
 *  - n_barrier_cbs=N: N threads, one bound to each CPU in turn from the
 *    last (CPU 0 last, as torture.nreaders places readers), each queue one
 *    to four callbacks per phase on its CPU (callbacks that take 20-220 us,
 *    as real ones may, so a batch takes a while to invoke), as Linux's
 *    rcu_torture_barrier1cb() queues each on CPU i.  Hotplug moving one
 *    off its CPU ends it; the barrier thread starts another there once the
 *    CPU is back, so a CPU going down still queues until it stops running
 *    threads.  With fewer threads than CPUs, as Linux's default of 4 on
 *    8-16 CPUs, the first CPUs get none: the CPU running cpu_down() there
 *    has an empty list when a barrier's walk passes it while a dying CPU's
 *    callbacks move to it.  One phase in two with several threads, one
 *    of them alone queues, so a barrier also meets one CPU with callbacks
 *    and every other list empty.  Then one thread calls the
 *    flavour's barrier at once, after a grace period, after a tick or
 *    three, or (half the time) the moment the first callback starts to
 *    run (or a thread's CPU has gone offline since it queued), and checks
 *    that every callback queued before the call has run.
 *    These threads run at high priority: they do little, and the moment
 *    a phase or a callback starts is what they are for.
 *  - fwd_progress=N: N threads, each in rounds after fwd_progress_holdoff
 *    seconds: (a) a self-requeuing callback chain must advance three grace
 *    periods while the thread loops in cond_resched() on its CPU; (b) a
 *    flood of call_rcu*()/call_srcu() in bursts of 1-512, callbacks
 *    recycled as they run; after half of the bursts and at the end
 *    every callback must run while the thread drives grace periods with
 *    synchronize only (no new call_*() to pick up one left behind).
 *    fwd_progress_bound seconds bounds the chain's three grace periods
 *    and each flood callback's call-to-invocation time; a callback left
 *    behind must also have missed four grace periods before it is called
 *    so.  The bound is what is tested: keep it generous.
 *
 * These run beside the writer and readers of rcu/torture.c, so a barrier
 * meets the flood's batches and the writer's callback chains.
 */
#include "rcu/torture_internal.h"
#include "rcu/debug_head.h"
#include "kernel/cpu.h"
#include "kernel/slab.h"
#include "kernel/wait.h"

static bool object_debug;
core_param(torture.object_debug, object_debug, bool,
	   "a double call_*() and one on freed memory must be reported (test build)");
static unsigned int n_barrier_cbs;
core_param(torture.n_barrier_cbs, n_barrier_cbs, uint,
	   "callback-barrier test threads (0: none)");
static unsigned int fwd_progress;
core_param(torture.fwd_progress, fwd_progress, uint,
	   "forward-progress test threads (0: none)");
static unsigned int fwd_progress_holdoff = 1;
core_param(torture.fwd_progress_holdoff, fwd_progress_holdoff, uint,
	   "seconds before each forward-progress round");
static unsigned int fwd_progress_bound = 30;
core_param(torture.fwd_progress_bound, fwd_progress_bound, uint,
	   "seconds a grace period (the chain's three) or a flood callback may take");

#define MAX_BARRIER_CBS		NR_CPUS
#define BARRIER_CBS_PER_PHASE	4
#define MAX_FWD_PROGRESS	4
#define FWD_NR_GPS		3	/* the chain's grace periods per round */
#define FWD_DRAIN_GPS		4	/* a stranded callback missed this many */
#define FWD_MAX_CBS		20000	/* flood callbacks in flight at most */
#define FWD_LAUNDERS		(2 * FWD_MAX_CBS)	/* flood length, in recycled cbs */

/* ---- n_barrier_cbs ---- */

struct barrier_cb {
	struct rcu_head rh;
	unsigned int work_us;
};

static struct task *barrier_task, *barrier_cbs_tasks[MAX_BARRIER_CBS];
static struct barrier_cb barrier_cbs[MAX_BARRIER_CBS][BARRIER_CBS_PER_PHASE];
static int barrier_cbs_cpu[MAX_BARRIER_CBS];	/* each thread's CPU */
/* The phase a thread starts after, and set (release) once it has ended. */
static unsigned long barrier_cbs_phase0[MAX_BARRIER_CBS];
static bool barrier_cbs_gone[MAX_BARRIER_CBS];
static DECLARE_WAIT_QUEUE_HEAD(barrier_cbs_wq);
static DECLARE_WAIT_QUEUE_HEAD(barrier_wq);
static unsigned long barrier_phase;		/* READ_ONCE/WRITE_ONCE */
static atomic_t barrier_cbs_done;		/* threads that queued this phase */
static atomic_long_t barrier_cbs_queued, barrier_cbs_started, barrier_cbs_invoked;
static atomic_long_t n_barrier_attempts, n_barrier_successes, n_barrier_errors;
static atomic_long_t n_barrier_cbs_total;
/*
 * This phase's barrier is called once the first callback starts: that
 * callback wakes the barrier thread, waits for the call (20 ms at most:
 * that vCPU may not be running), then holds until the barrier has
 * returned (it must not: 5 ms).
 */
static bool barrier_cbs_hold, barrier_called, barrier_returned;	/* READ_ONCE/WRITE_ONCE */
static int barrier_cpu;		/* the barrier thread's (the first CPU: never goes down) */
#define BARRIER_HOLD_NS		(5ull * 1000000ull)
#define BARRIER_CALL_NS		(20ull * 1000000ull)
/* This phase's only producer (the others queue none), or -1: all queue.
 * Written before the phase is published (release), read after it. */
static int barrier_cbs_only = -1;
/* Each thread queued this phase (written before it says it is done). */
static bool barrier_cbs_queued_here[MAX_BARRIER_CBS];

static void rcu_torture_barrier_cbf(struct rcu_head *rh)
{
	struct barrier_cb *cb = container_of(rh, struct barrier_cb, rh);

	if (atomic_long_inc_return(&barrier_cbs_started) == 1 && READ_ONCE(barrier_cbs_hold)) {
		wake_up(&barrier_wq);	/* the barrier thread, asleep until now */
		/* Not on the barrier thread's CPU: it could not run meanwhile. */
		if (raw_smp_processor_id() != barrier_cpu)
			torture_hold_until(READ_ONCE(barrier_called), BARRIER_CALL_NS);
		torture_hold_until(READ_ONCE(barrier_returned), BARRIER_HOLD_NS);
	}
	if (cb->work_us)
		udelay(cb->work_us);
	atomic_long_inc(&barrier_cbs_invoked);
}

static int rcu_torture_barrier_cbs(void *arg)
{
	long me = (long)arg;
	unsigned long phase = barrier_cbs_phase0[me];
	struct torture_random r;

	torture_random_init(&r, me + 300 + phase);
	while (!torture_must_stop()) {
		bool moved;
		int i, n;

		wait_event_timeout(barrier_cbs_wq, READ_ONCE(barrier_phase) != phase ||
				   torture_must_stop(), HZ);
		if (READ_ONCE(barrier_phase) == phase)
			continue;
		phase = smp_load_acquire(&barrier_phase);
		n = 1 + torture_random(&r) % BARRIER_CBS_PER_PHASE;
		if (READ_ONCE(barrier_cbs_only) >= 0 && READ_ONCE(barrier_cbs_only) != me)
			n = 0;		/* not this phase's producer */
		/* Bound, it runs on its CPU until hotplug moves it off. */
		preempt_disable();
		moved = raw_smp_processor_id() != barrier_cbs_cpu[me];
		if (moved)
			n = 0;
		for (i = 0; i < n; i++) {
			barrier_cbs[me][i].work_us = 20 + torture_random(&r) % 200;
			torture_call(&barrier_cbs[me][i].rh, rcu_torture_barrier_cbf);
		}
		preempt_enable();
		/* Gone before it counts: the next phase must not wait for it. */
		if (moved)
			smp_store_release(&barrier_cbs_gone[me], true);
		WRITE_ONCE(barrier_cbs_queued_here[me], n > 0);
		atomic_long_add(n, &barrier_cbs_queued);
		atomic_inc(&barrier_cbs_done);
		wake_up(&barrier_wq);
		if (moved)
			return 0;	/* the barrier thread starts another */
	}
	smp_store_release(&barrier_cbs_gone[me], true);
	return 0;
}

/* A producer bound to its CPU (online, cpus_read_lock() held or at start). */
static struct task *barrier_cbs_spawn(long i)
{
	struct task *t = kthread_create(rcu_torture_barrier_cbs, (void *)i,
					"rcu_torture_barrier_cbs");

	if (!t)
		return NULL;
	barrier_cbs_phase0[i] = READ_ONCE(barrier_phase);
	barrier_cbs_gone[i] = false;
	kthread_bind(t, barrier_cbs_cpu[i]);
	set_task_prio(t, PRIO_HIGH);	/* it queues as the phase starts */
	wake_up_process(t);
	return t;
}

/*
 * Before a phase: join the producers hotplug moved, restart those whose
 * CPU is back.  Not while a hotplug operation is under way: the phases
 * must go on meanwhile (a barrier that straddles one is what they are
 * for), so those wait for a later phase.  Returns how many will queue.
 */
static unsigned int barrier_cbs_respawn(unsigned int nthreads)
{
	bool locked = cpus_read_trylock();
	unsigned int i, live = 0;

	for (i = 0; i < nthreads; i++) {
		struct task *t = barrier_cbs_tasks[i];

		if (t && smp_load_acquire(&barrier_cbs_gone[i])) {
			kthread_join(t);
			t = NULL;
		}
		if (!t && locked && cpu_online(barrier_cbs_cpu[i]))
			t = barrier_cbs_spawn(i);
		barrier_cbs_tasks[i] = t;
		live += !!t;
	}
	if (locked)
		cpus_read_unlock();
	return live;
}

/*
 * One phase in two with several producers, one of them alone queues: a
 * barrier then meets a single CPU with callbacks (being invoked, when it
 * is called as the first starts) and every other list empty, as Linux's
 * barrier meets on a mostly idle system, where a CPU's "nothing queued"
 * decides whether it waits at all.  With every producer queueing, some
 * other CPU has callbacks still waiting for their grace period, and the
 * barrier waits for that grace period whatever it decided for the rest.
 * A thread that is gone (hotplug) is not picked: all queue then.
 */
static int barrier_cbs_pick_only(unsigned int nthreads, struct torture_random *r)
{
	u32 x = torture_random(r);
	unsigned int i = (x >> 1) % nthreads;

	if (nthreads < 2 || (x & 1) || !barrier_cbs_tasks[i] ||
	    smp_load_acquire(&barrier_cbs_gone[i]))
		return -1;
	return (int)i;
}

/*
 * A thread that queued this phase is on a CPU gone offline since: its
 * callbacks may wait there, its rcuc parked, until cpu_down() moves
 * them, so the first of them may not start before the move.
 */
static bool barrier_cbs_cpu_gone(unsigned int nthreads)
{
	unsigned int i;

	for (i = 0; i < nthreads; i++)
		if (READ_ONCE(barrier_cbs_queued_here[i]) && !cpu_online(barrier_cbs_cpu[i]))
			return true;
	return false;
}

static int rcu_torture_barrier(void *arg)
{
	struct torture_random r;
	unsigned int nthreads = (unsigned long)arg;

	torture_random_init(&r, 299);
	while (!torture_must_stop()) {
		long queued, invoked, missed;
		unsigned long until;
		unsigned int live, i;
		u32 x;

		stutter_wait();
		atomic_set(&barrier_cbs_done, 0);
		atomic_long_set(&barrier_cbs_queued, 0);
		atomic_long_set(&barrier_cbs_started, 0);
		atomic_long_set(&barrier_cbs_invoked, 0);
		for (i = 0; i < nthreads; i++)
			WRITE_ONCE(barrier_cbs_queued_here[i], false);
		live = barrier_cbs_respawn(nthreads);
		/*
		 * The draw comes first: the "first callback starts" kind holds
		 * that callback (above), so that the barrier is called inside
		 * its batch however late this thread's vCPU gets to run.  The
		 * batch alone lasts some 0.2 ms: a barrier thread that spun
		 * on another vCPU reached it in 4 of 26 tries (1 of 2 kinds).
		 * Spinning at the readers' priority, it called the barrier
		 * 30-900 ms after that callback started in TREE11 (readers'
		 * slices, producers late to say they were done): asleep and
		 * high, and with the producers high, 2-80 ms.
		 */
		x = torture_random(&r) % 6;
		WRITE_ONCE(barrier_returned, false);
		WRITE_ONCE(barrier_called, false);
		WRITE_ONCE(barrier_cbs_hold, x >= 3);
		WRITE_ONCE(barrier_cbs_only, barrier_cbs_pick_only(nthreads, &r));
		smp_store_release(&barrier_phase, barrier_phase + 1);
		wake_up_all(&barrier_cbs_wq);
		while (atomic_read(&barrier_cbs_done) < (int)live && !torture_must_stop())
			wait_event_timeout(barrier_wq, atomic_read(&barrier_cbs_done) >=
					   (int)live || torture_must_stop(), HZ);
		if (atomic_read(&barrier_cbs_done) < (int)live)
			break;		/* stopping */
		/*
		 * Now; after a grace period; after a tick or three; or the
		 * moment the first callback starts to run, while its batch is
		 * being invoked (bounded: a grace period may take long).
		 */
		if (x == 1) {
			torture_sync_normal();
		} else if (x == 2) {
			schedule_timeout_uninterruptible(1 + torture_random(&r) % 3);
		} else if (x >= 3) {
			unsigned long until = jiffies + 10 * HZ;

			/*
			 * None queued (every thread moved by hotplug): no wait.
			 * Nor once a thread's CPU went offline after it queued:
			 * the barrier is then called while its callbacks wait
			 * to move, not after the move (seconds later).
			 */
			while (atomic_long_read(&barrier_cbs_queued) &&
			       !atomic_long_read(&barrier_cbs_started) && time_before(jiffies, until) &&
			       !barrier_cbs_cpu_gone(nthreads))
				wait_event_timeout(barrier_wq, atomic_long_read(&barrier_cbs_started) ||
						   torture_must_stop(), 1);
		}
		queued = atomic_long_read(&barrier_cbs_queued);
		cpu_kthread_cbs_snap();
		atomic_long_inc(&n_barrier_attempts);
		WRITE_ONCE(barrier_called, true);
		torture_barrier();
		invoked = atomic_long_read(&barrier_cbs_invoked);
		WRITE_ONCE(barrier_returned, true);
		atomic_long_add(queued, &n_barrier_cbs_total);
		missed = cpu_kthread_cbs_missed();
		if (missed) {
			atomic_long_inc(&n_barrier_errors);
			torture_error("rcu_torture_barrier: %ld of cpu_kthreads' callbacks "
				      "queued before the barrier had not run when it returned\n",
				      missed);
		}
		if (invoked != queued) {
			atomic_long_inc(&n_barrier_errors);
			torture_error("rcu_torture_barrier: %ld of the %ld callbacks queued "
				      "before the barrier had run when it returned\n", invoked, queued);
			/*
			 * The heads are reused next phase: wait for them, as
			 * long as the stuck-barrier check would (a stranded
			 * one never runs).  Then stop phasing: the stop's own
			 * barriers meet it, and that check ends the run.
			 */
			until = jiffies + TORTURE_BARRIER_STUCK_S * HZ;
			while (atomic_long_read(&barrier_cbs_invoked) != queued &&
			       !torture_must_stop() && time_before(jiffies, until))
				schedule_timeout_uninterruptible(1);
			if (atomic_long_read(&barrier_cbs_invoked) != queued) {
				if (!torture_must_stop())
					torture_error("rcu_torture_barrier: %ld of the %ld "
						      "callbacks still not run %u s after the "
						      "barrier returned: stranded?\n",
						      atomic_long_read(&barrier_cbs_invoked),
						      queued, TORTURE_BARRIER_STUCK_S);
				break;
			}
		} else {
			atomic_long_inc(&n_barrier_successes);
		}
	}
	return 0;
}

/* ---- fwd_progress ---- */

struct fwd_state;

struct fwd_cb {
	struct rcu_head rh;
	struct fwd_cb *next;		/* on the free list */
	struct fwd_state *owner;
	unsigned long queued_at;	/* jiffies */
};

struct fwd_chain {
	struct rcu_head rh;
	bool run;			/* requeue on invocation */
	bool active;			/* queued */
	unsigned long n;		/* invocations */
	unsigned long last;		/* jiffies of the last one */
	unsigned long max_gap;		/* jiffies between two, at most */
};

struct fwd_state {
	int id, cpu;
	struct task *task;
	spinlock_t lock;		/* the free list */
	struct fwd_cb *free;
	long allocated;			/* flood callbacks owned */
	long nfree;			/* of them on the free list */
	unsigned long max_age;		/* jiffies, queue to invoke */
	struct fwd_chain chain;
	/* Totals for the report. */
	unsigned long rounds, nr_gps, launders, max_in_flight, cr_gps;
	unsigned long worst_gap, worst_age;
	unsigned long nr_loops, drains;
};

static struct fwd_state fwd_states[MAX_FWD_PROGRESS];
static atomic_long_t n_fwd_errors;

static void fwd_chain_cb(struct rcu_head *rh)
{
	struct fwd_chain *c = container_of(rh, struct fwd_chain, rh);
	unsigned long now = jiffies;

	if (now - c->last > c->max_gap)
		c->max_gap = now - c->last;
	c->last = now;
	WRITE_ONCE(c->n, c->n + 1);
	if (READ_ONCE(c->run))
		torture_call(&c->rh, fwd_chain_cb);
	else
		WRITE_ONCE(c->active, false);
}

static void fwd_cb_invoke(struct rcu_head *rh)
{
	struct fwd_cb *cb = container_of(rh, struct fwd_cb, rh);
	struct fwd_state *fs = cb->owner;
	unsigned long flags, age;

	age = jiffies - cb->queued_at;
	spin_lock_irqsave(&fs->lock, flags);
	if (age > fs->max_age)
		fs->max_age = age;
	cb->next = fs->free;
	fs->free = cb;
	fs->nfree++;
	WRITE_ONCE(fs->launders, fs->launders + 1);
	spin_unlock_irqrestore(&fs->lock, flags);
}

/* (a) cond_resched() alone on this CPU while a chain needs GPs. */
static void rcu_torture_fwd_prog_nr(struct fwd_state *fs)
{
	struct fwd_chain *c = &fs->chain;
	unsigned long start = jiffies, n0, bound = (unsigned long)fwd_progress_bound * HZ;
	unsigned long loops = 0;

	c->run = true;
	c->active = true;
	c->last = jiffies;
	c->max_gap = 0;
	n0 = READ_ONCE(c->n);
	torture_call(&c->rh, fwd_chain_cb);
	while (READ_ONCE(c->n) - n0 < FWD_NR_GPS && !torture_must_stop()) {
		cond_resched();
		loops++;
		if (jiffies - start > bound) {
			atomic_long_inc(&n_fwd_errors);
			torture_error("fwd_progress: %lu of %d grace periods in %u s while CPU %d "
				      "looped in cond_resched()\n", READ_ONCE(c->n) - n0,
				      FWD_NR_GPS, fwd_progress_bound, fs->cpu);
			break;
		}
	}
	fs->nr_loops += loops;
	fs->nr_gps += READ_ONCE(c->n) - n0;
	WRITE_ONCE(c->run, false);
	while (READ_ONCE(c->active))
		schedule_timeout_uninterruptible(1);
	if (c->max_gap > fs->worst_gap)
		fs->worst_gap = c->max_gap;
}

/*
 * Every flood callback must run with no further call_*(): grace periods
 * are driven by synchronize only, which picks up no callback left behind.
 * False (an error counted) once FWD_DRAIN_GPS grace periods and the bound
 * have both passed with some still queued.
 */
static bool rcu_torture_fwd_drain(struct fwd_state *fs)
{
	unsigned long end = jiffies, gp_end = torture_completed();
	unsigned long bound = (unsigned long)fwd_progress_bound * HZ;

	while (READ_ONCE(fs->nfree) != fs->allocated) {
		if (torture_completed() - gp_end >= FWD_DRAIN_GPS && jiffies - end > bound) {
			atomic_long_inc(&n_fwd_errors);
			torture_error("fwd_progress: %ld flood callbacks not invoked %u s and %lu "
				      "grace periods after the flood ended\n",
				      fs->allocated - READ_ONCE(fs->nfree), fwd_progress_bound,
				      torture_completed() - gp_end);
			return false;
		}
		torture_sync_normal();
		schedule_timeout_uninterruptible(1);
	}
	fs->drains++;
	return true;
}

/*
 * (b) The flood: callbacks recycled as they run, in bursts of 1-512; half
 * of the bursts, and the flood itself, end in a drain.
 */
static void rcu_torture_fwd_prog_cr(struct fwd_state *fs, struct torture_random *r)
{
	unsigned long launders0 = fs->launders, gp0 = torture_completed(), start = jiffies;
	unsigned long bound = (unsigned long)fwd_progress_bound * HZ;
	unsigned long flags, n = 0, burst = 1 + torture_random(r) % 512;
	bool ok = true;
	long in_flight;

	fs->max_age = 0;
	while (READ_ONCE(fs->launders) - launders0 < FWD_LAUNDERS && !torture_must_stop() &&
	       jiffies - start < bound) {
		struct fwd_cb *cb = NULL;

		spin_lock_irqsave(&fs->lock, flags);
		if (fs->free) {
			cb = fs->free;
			fs->free = cb->next;
			fs->nfree--;
		}
		spin_unlock_irqrestore(&fs->lock, flags);
		if (!cb && fs->allocated < FWD_MAX_CBS) {
			cb = kmalloc(sizeof(*cb), GFP_KERNEL);
			if (cb)
				fs->allocated++;
		}
		if (!cb) {
			cond_resched();
			continue;
		}
		cb->owner = fs;
		cb->queued_at = jiffies;
		in_flight = fs->allocated - READ_ONCE(fs->nfree);
		if (in_flight > (long)fs->max_in_flight)
			fs->max_in_flight = in_flight;
		torture_call(&cb->rh, fwd_cb_invoke);
		if (!(++n & 0xff))
			cond_resched();
		if (!--burst) {
			burst = 1 + torture_random(r) % 512;
			if (!(torture_random(r) % 2) && !(ok = rcu_torture_fwd_drain(fs)))
				break;
		}
	}
	fs->cr_gps += torture_completed() - gp0;
	if (ok)
		rcu_torture_fwd_drain(fs);
	torture_barrier();	/* gathers any left behind */
	if (fs->max_age > bound) {
		atomic_long_inc(&n_fwd_errors);
		torture_error("fwd_progress: a flood callback took %u ms from call to "
			      "invocation (bound %u s)\n", jiffies_to_msecs(fs->max_age),
			      fwd_progress_bound);
	}
	if (fs->max_age > fs->worst_age)
		fs->worst_age = fs->max_age;
}

static int rcu_torture_fwd_prog(void *arg)
{
	struct fwd_state *fs = arg;
	struct torture_random r;

	torture_random_init(&r, 500 + fs->id);
	while (!torture_must_stop()) {
		unsigned long until = jiffies + (unsigned long)fwd_progress_holdoff * HZ;

		while (time_before(jiffies, until) && !torture_must_stop())
			schedule_timeout_uninterruptible(1 + HZ / 50);
		if (torture_must_stop())
			break;
		stutter_wait();
		rcu_torture_fwd_prog_nr(fs);
		if (torture_must_stop())
			break;
		rcu_torture_fwd_prog_cr(fs, &r);
		WRITE_ONCE(fs->rounds, fs->rounds + 1);
	}
	return 0;
}

static void fwd_free_all(struct fwd_state *fs)
{
	while (fs->free) {
		struct fwd_cb *cb = fs->free;

		fs->free = cb->next;
		kfree(cb);
	}
	fs->allocated = fs->nfree = 0;
}

/* ---- object_debug (Linux's rcu_test_debug_objects()) ---- */

static atomic_t od_leak_invoked, od_err_invoked;
static int od_double, od_freed;
static bool od_ran;

static void rcu_torture_leak_cb(struct rcu_head *rhp)
{
	(void)rhp;
	atomic_inc(&od_leak_invoked);
}

static void rcu_torture_err_cb(struct rcu_head *rhp)
{
	(void)rhp;
	atomic_inc(&od_err_invoked);
	pr_err("rcu-torture: object_debug: a refused callback was invoked\n");
}

/*
 * Inside a reader of the flavour, so that the first callback cannot run
 * before the second call: queue rh2 twice, then queue a head in memory
 * just freed.  Both refusals must be reported, and only the two good
 * callbacks run.
 */
static void rcu_test_debug_objects(void)
{
	struct rcu_head rh1, rh2;
	struct od_obj {
		long payload;		/* kfree() keeps its free-list link here */
		struct rcu_head rh;
	} *obj = kmalloc(sizeof(*obj), GFP_KERNEL);
	int d0 = atomic_read(&rcu_debug_head_double), f0 = atomic_read(&rcu_debug_head_freed);
	int idx = 0;

	od_ran = true;
	atomic_set(&od_leak_invoked, 0);
	atomic_set(&od_err_invoked, 0);
	if (!obj)
		return;
	kfree(obj);
	printk(KERN_INFO "rcu-torture: object_debug: a double %s and one on freed memory; "
	       "two ODEBUG warnings follow\n", cur_ops->flavor == TF_SRCU ? "call_srcu()" :
	       "call_rcu()");
	if (cur_ops->flavor == TF_SRCU)
		idx = srcu_read_lock(&rcu_torture_srcu);
	else if (cur_ops->flavor == TF_RCU)
		rcu_read_lock();
	preempt_disable();
	torture_call(&rh1, rcu_torture_leak_cb);
	local_irq_disable();
	torture_call(&rh2, rcu_torture_leak_cb);
	torture_call(&rh2, rcu_torture_err_cb);		/* already queued */
	torture_call(&obj->rh, rcu_torture_err_cb);	/* freed */
	local_irq_enable();
	preempt_enable();
	if (cur_ops->flavor == TF_SRCU)
		srcu_read_unlock(&rcu_torture_srcu, idx);
	else if (cur_ops->flavor == TF_RCU)
		rcu_read_unlock();
	torture_barrier();
	od_double = atomic_read(&rcu_debug_head_double) - d0;
	od_freed = atomic_read(&rcu_debug_head_freed) - f0;
}

unsigned int rcu_torture_expected_warnings(void)
{
	return object_debug && RCU_DEBUG_HEAD ? 2 : 0;
}

/* ---- start, stop, report ---- */

static int torture_nth_online_cpu(unsigned int n)
{
	int cpus[NR_CPUS], k = 0, cpu;

	for_each_online_cpu(cpu)
		cpus[k++] = cpu;
	return cpus[n % k];
}

int rcu_torture_cb_start(void)
{
	unsigned int i, nb = MIN(n_barrier_cbs, MAX_BARRIER_CBS);
	unsigned int nf = MIN(fwd_progress, MAX_FWD_PROGRESS);

	atomic_long_set(&n_barrier_attempts, 0);
	atomic_long_set(&n_barrier_successes, 0);
	atomic_long_set(&n_barrier_errors, 0);
	atomic_long_set(&n_barrier_cbs_total, 0);
	atomic_long_set(&n_fwd_errors, 0);
	od_ran = false;
	if (object_debug) {
		if (RCU_DEBUG_HEAD)
			rcu_test_debug_objects();
		else
			pr_err("rcu-torture: object_debug needs the test build (CONFIG_SANITIZE)\n");
	}
	if (nb) {
		for (i = 0; i < nb; i++) {
			/* The last CPUs first: CPU 0 keeps the test's main loop. */
			barrier_cbs_cpu[i] = torture_nth_online_cpu(num_online_cpus() - 1 -
								    i % num_online_cpus());
			barrier_cbs_tasks[i] = barrier_cbs_spawn(i);
			if (!barrier_cbs_tasks[i])
				return -ENOMEM;
		}
		barrier_task = kthread_create(rcu_torture_barrier, (void *)(unsigned long)nb,
					      "rcu_torture_barrier");
		if (!barrier_task)
			return -ENOMEM;
		/*
		 * It sleeps between its steps (woken by the producers, then
		 * by the first callback): high, so that it calls the barrier
		 * the moment that callback starts, not after the readers'
		 * slices on its CPU (tens to hundreds of ms at preempt=none).
		 */
		set_task_prio(barrier_task, PRIO_HIGH);
		/*
		 * Tasks never migrate here, so where it starts it stays.  On a
		 * producer's CPU it could not run while that CPU's rcuc invokes
		 * a batch (bh off), and never call the barrier mid-batch there:
		 * the first CPU, which gets a producer only when every CPU does.
		 */
		barrier_cpu = torture_nth_online_cpu(0);
		kthread_bind(barrier_task, barrier_cpu);
		wake_up_process(barrier_task);
	}
	for (i = 0; i < nf; i++) {
		struct fwd_state *fs = &fwd_states[i];

		*fs = (struct fwd_state){ .id = (int)i };
		spin_lock_init(&fs->lock);
		/* The last CPUs: CPU 0 keeps jiffies and the test's main loop. */
		fs->cpu = torture_nth_online_cpu(num_online_cpus() - 1 - i);
		fs->task = kthread_create(rcu_torture_fwd_prog, fs, "rcu_torture_fwd_prog");
		if (!fs->task)
			return -ENOMEM;
		kthread_bind(fs->task, fs->cpu);
		/*
		 * At the readers' priority: its cond_resched() loop must let a
		 * reader it preempted finish (an SRCU reader has no boosting).
		 */
		torture_reader_prio(fs->task);
		wake_up_process(fs->task);
	}
	return 0;
}

bool rcu_torture_cb_pending(void)
{
	unsigned int i;

	if (barrier_task && !atomic_long_read(&n_barrier_attempts))
		return true;
	for (i = 0; i < MAX_FWD_PROGRESS; i++)
		if (fwd_states[i].task && !READ_ONCE(fwd_states[i].rounds))
			return true;
	return false;
}

void rcu_torture_cb_stop(void)
{
	unsigned int i;

	wake_up_all(&barrier_cbs_wq);
	wake_up_all(&barrier_wq);
	if (barrier_task)
		kthread_stop(barrier_task);
	for (i = 0; i < MAX_BARRIER_CBS; i++)
		if (barrier_cbs_tasks[i])
			kthread_stop(barrier_cbs_tasks[i]);
	for (i = 0; i < MAX_FWD_PROGRESS; i++)
		if (fwd_states[i].task)
			kthread_stop(fwd_states[i].task);
	/* Every callback of ours has run before its memory goes. */
	torture_barrier();
}

bool rcu_torture_cb_report(void)
{
	bool ok = true;
	unsigned int i;

	if (object_debug) {
		printk(KERN_INFO "rcu-torture: object_debug: double call reported %d, freed head "
		       "reported %d, good callbacks run %d of 2, refused ones run %d\n",
		       od_double, od_freed, atomic_read(&od_leak_invoked),
		       atomic_read(&od_err_invoked));
		if (!od_ran || od_double != 1 || od_freed != 1 ||
		    atomic_read(&od_leak_invoked) != 2 || atomic_read(&od_err_invoked)) {
			torture_error("object_debug: a double or freed call_*() went %s\n",
				      od_ran ? "unreported or ran" : "untested");
			ok = false;
		}
	}
	if (barrier_task) {
		printk(KERN_INFO "rcu-torture: barrier: threads %u attempts %ld successes %ld "
		       "callbacks %ld errors %ld\n", MIN(n_barrier_cbs, MAX_BARRIER_CBS),
		       atomic_long_read(&n_barrier_attempts), atomic_long_read(&n_barrier_successes),
		       atomic_long_read(&n_barrier_cbs_total), atomic_long_read(&n_barrier_errors));
		if (atomic_long_read(&n_barrier_errors))
			ok = false;
		if (!atomic_long_read(&n_barrier_attempts)) {
			pr_err("rcu-torture: barrier: no barrier completed in the run\n");
			ok = false;
		}
		barrier_task = NULL;
		for (i = 0; i < MAX_BARRIER_CBS; i++)
			barrier_cbs_tasks[i] = NULL;
	}
	for (i = 0; i < MAX_FWD_PROGRESS; i++) {
		struct fwd_state *fs = &fwd_states[i];

		if (!fs->task)
			continue;
		printk(KERN_INFO "rcu-torture: fwd_progress %d: CPU %d rounds %lu "
		       "cond_resched loops %lu chain gps %lu max chain gap %u ms flood "
		       "callbacks %lu in flight max %lu drains %lu flood gps %lu max cb age %u ms\n",
		       fs->id, fs->cpu, fs->rounds, fs->nr_loops, fs->nr_gps,
		       jiffies_to_msecs(fs->worst_gap), fs->launders, fs->max_in_flight,
		       fs->drains, fs->cr_gps, jiffies_to_msecs(fs->worst_age));
		fwd_free_all(fs);
		fs->task = NULL;
	}
	if (atomic_long_read(&n_fwd_errors))
		ok = false;
	return ok;
}
