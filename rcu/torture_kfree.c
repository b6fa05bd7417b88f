/*
 * rcu/torture_kfree.c - rcutorture's kfree_rcu stressor
 * (torture.kfree_rcu=1, RCU-sched and rcu flavours): one thread replaces
 * an RCU-protected kmalloc'd object again and again and hands the old
 * one to kfree_rcu() or kvfree_rcu_mightsleep() in turn, with a
 * kvfree_rcu_barrier() every KFREE_BARRIER_EVERY updates.  Every reader
 * of rcu/torture.c (threads, irq and NMI readers) fetches the object at
 * the start of its section and checks it at the end: kfree() poisons
 * freed memory (POISON_FREE, kernel/slab.h), so an object freed under a
 * reader shows a wrong magic, as a pool element freed by call_rcu()
 * shows its poison.  With torture.onoff_interval the CPUs the objects
 * were queued on go down under it (their queues handed over).
 *
 * Kernel only: the host build has no kfree_rcu() (rcu/kvfree.c needs
 * pages and timers); tests/host/rcu/shim stands in for these hooks.
 */
#include "rcu/torture_internal.h"
#include "rcu/kvfree.h"
#include "kernel/slab.h"
#include "kernel/time.h"

#define KFREE_MAGIC		0x6b667274756c6c21ul
#define KFREE_BARRIER_EVERY	64
/* 1 in KFREE_HOLD_EVERY updates (odd ones: kfree_rcu()) is held, 20 ms at most. */
#define KFREE_HOLD_EVERY	32
#define KFREE_HOLD_NS		(20ull * 1000000ull)

struct rcu_torture_kfree_obj {
	unsigned long magic;
	unsigned long gen;
	struct rcu_head rh;
};

static bool kfree_rcu_stress;
core_param(torture.kfree_rcu, kfree_rcu_stress, bool,
	   "a kfree_rcu() stressor: objects readers check, freed through kfree_rcu()");

static struct rcu_torture_kfree_obj __rcu *rtk_cur;
static struct task *rtk_task;
static atomic_long_t rtk_updates, rtk_barriers, rtk_errors, rtk_checked, rtk_nomem;
static atomic_long_t rtk_holds;

/*
 * The writer as a reader: old, published before the section began, was
 * handed to kfree_rcu() inside it, so it must outlive it.  Stay (20 ms:
 * kfree_rcu.drain_ms is 5) and look.  The readers alone saw an object
 * freed only when one happened to dawdle across its batch's free and to
 * look before the slab gave the memory back to the writer as the next
 * object: 2-14 errors in a 50-60 s run of torture-inject-kfree-4, the
 * first ones within a second or so.  A new gen shows that reuse, which a
 * magic check alone misses.
 */
static void rcu_torture_kfree_hold(struct rcu_torture_kfree_obj *old, unsigned long gen)
{
	atomic_long_inc(&rtk_holds);
	torture_hold_until(READ_ONCE(old->magic) != KFREE_MAGIC || READ_ONCE(old->gen) != gen,
			   KFREE_HOLD_NS);
	if (READ_ONCE(old->magic) != KFREE_MAGIC || READ_ONCE(old->gen) != gen) {
		atomic_long_inc(&rtk_errors);
		torture_error("kfree_rcu: reader on CPU %d saw its object freed (the writer's "
			      "hold: magic %#lx gen %#lx, was %#lx)\n", raw_smp_processor_id(),
			      READ_ONCE(old->magic), READ_ONCE(old->gen), gen);
	}
}

static int rcu_torture_kfree(void *arg)
{
	unsigned long gen = 0;

	(void)arg;
	while (!torture_must_stop()) {
		struct rcu_torture_kfree_obj *p = kmalloc(sizeof(*p), GFP_KERNEL), *old;

		stutter_wait();
		if (!p) {
			atomic_long_inc(&rtk_nomem);
			schedule_timeout_uninterruptible(1);
			continue;
		}
		p->magic = KFREE_MAGIC;
		p->gen = ++gen;
		if (gen % KFREE_HOLD_EVERY == 1) {
			unsigned long old_gen;
			int idx = 0;

			rcutorture_flavour_lock(&idx);
			old = __atomic_exchange_n(&rtk_cur, p, __ATOMIC_RELEASE);
			old_gen = old->gen;
			kfree_rcu(old, rh);
			rcu_torture_kfree_hold(old, old_gen);
			rcutorture_flavour_unlock(idx);
		} else {
			old = __atomic_exchange_n(&rtk_cur, p, __ATOMIC_RELEASE);	/* published */
			if (gen & 1)
				kfree_rcu(old, rh);
			else
				kvfree_rcu_mightsleep(old);
		}
		atomic_long_inc(&rtk_updates);
		if (!(gen % KFREE_BARRIER_EVERY)) {
			kvfree_rcu_barrier();
			atomic_long_inc(&rtk_barriers);
		}
		if (!(gen % 8))
			schedule_timeout_uninterruptible(1);
		else
			cond_resched();
	}
	return 0;
}

void *rcu_torture_kfree_read_start(void)
{
	return READ_ONCE(rtk_task) ? rcu_dereference_raw(rtk_cur) : NULL;
}

void rcu_torture_kfree_read_end(void *obj, int cpu)
{
	struct rcu_torture_kfree_obj *p = obj;

	if (!p)
		return;
	atomic_long_inc(&rtk_checked);
	if (READ_ONCE(p->magic) != KFREE_MAGIC) {
		atomic_long_inc(&rtk_errors);
		torture_error("kfree_rcu: reader on CPU %d saw its object freed (magic %#lx)\n",
			      cpu, READ_ONCE(p->magic));
	}
}

int rcu_torture_kfree_start(void)
{
	struct rcu_torture_kfree_obj *p;

	atomic_long_set(&rtk_updates, 0);
	atomic_long_set(&rtk_barriers, 0);
	atomic_long_set(&rtk_errors, 0);
	atomic_long_set(&rtk_checked, 0);
	atomic_long_set(&rtk_nomem, 0);
	atomic_long_set(&rtk_holds, 0);
	if (!kfree_rcu_stress)
		return 0;
	if (cur_ops->flavor == TF_SRCU) {
		pr_err("rcu-torture: kfree_rcu: its grace periods do not cover SRCU readers; off\n");
		return 0;
	}
	p = kmalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	p->magic = KFREE_MAGIC;
	p->gen = 0;
	rcu_assign_pointer(rtk_cur, p);
	rtk_task = kthread_run(rcu_torture_kfree, NULL, "rcu_torture_kfree");
	return rtk_task ? 0 : -ENOMEM;
}

bool rcu_torture_kfree_pending(void)
{
	return rtk_task && !atomic_long_read(&rtk_barriers);
}

void rcu_torture_kfree_stop(void)
{
	struct rcu_torture_kfree_obj *p;

	if (!rtk_task)
		return;
	kthread_stop(rtk_task);
	p = __atomic_exchange_n(&rtk_cur, NULL, __ATOMIC_RELEASE);
	kfree_rcu(p, rh);
	kvfree_rcu_barrier();	/* nothing of ours stays queued */
}

bool rcu_torture_kfree_report(void)
{
	if (!rtk_task)
		return true;
	rtk_task = NULL;
	printk(KERN_INFO "rcu-torture: kfree_rcu: updates %ld barriers %ld reads checked %ld "
	       "errors %ld alloc failures %ld (batches %ld, by rcu_head %ld, handed over %ld) "
	       "writer holds %ld\n",
	       atomic_long_read(&rtk_updates), atomic_long_read(&rtk_barriers),
	       atomic_long_read(&rtk_checked), atomic_long_read(&rtk_errors),
	       atomic_long_read(&rtk_nomem), atomic_long_read(&kfree_rcu_stats.batches),
	       atomic_long_read(&kfree_rcu_stats.by_head),
	       atomic_long_read(&kfree_rcu_stats.handed_over), atomic_long_read(&rtk_holds));
	if (!atomic_long_read(&rtk_barriers)) {
		pr_err("rcu-torture: kfree_rcu: no kvfree_rcu_barrier() completed in the run\n");
		return false;
	}
	return !atomic_long_read(&rtk_errors);
}
