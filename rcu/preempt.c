/*
 * rcu/preempt.c - preemptible RCU (rcu_read_lock() that can be preempted)
 * on top of RCU-sched's grace-period machine (rcu/tree.c), its flavour of
 * expedited grace period (run by rcu/expedited.c), and priority boosting.
 * Linux's tree_plugin.h, in the shape it had once the flavours were
 * consolidated: one grace period serves both.
 *
 * The contract (rcu/rcupdate.h): a grace period that starts after a
 * reader began ends only after that reader's outermost rcu_read_unlock().
 * How it is kept:
 *  (1) A running reader: its CPU does not report a quiescent state while
 *      the task on it is inside a section (tree.c's tick asks
 *      rcu_preempt_tick_in_reader()); a tick that finds it inside marks
 *      RCU_SPECIAL_NEED_QS so that the outermost unlock notes the QS.
 *  (2) A preempted (or, mistakenly, sleeping) reader: the context switch
 *      queues it on its CPU's leaf blkd_tasks under the leaf lock before
 *      the CPU's QS is noted.  If the leaf still waits for this CPU
 *      (qsmask bit set) the task may predate the GP, so it goes to the
 *      tail, inside the [gp_tasks, tail] suffix; otherwise (it began after
 *      this CPU's QS, hence after the GP started) to the head.  GP init
 *      makes every task already queued on a leaf in the GP hold it up
 *      (a leaf left out of it has no reader older than it).  A leaf whose
 *      qsmask is clear reports up the tree only when gp_tasks becomes
 *      NULL, done by the outermost unlock of its last covered task.
 *  (3) Expedited (rcu/expedited.c, with the hooks below):
 *      rcu_preempt_exp.expmask holds the CPUs whose running task may be
 *      in a pre-existing reader; it is set before every leaf snapshots
 *      exp_tasks under its lock, so a task queued later on a CPU whose bit
 *      is still set joins the [exp_tasks, tail] suffix.  A CPU's bit goes
 *      at its next context switch, in the IPI handler if its task is in no
 *      reader, or at that reader's outermost unlock (RCU_SPECIAL_EXP_HINT).
 *  (4) Boosting: a task in either suffix for longer than rcu.boost_delay_ms
 *      of its GP is raised to PRIO_HIGH (under the leaf lock, so never
 *      after it left) and put back by its own unlock.
 * The lists are only touched under their leaf's lock; a task's special
 * bits only on its own CPU with irqs off (the task itself, the tick, the
 * IPI handler, the switch away from it), so they need no atomics.
 */
#include "rcu/tree.h"
#include "kernel/cpu.h"
#include "kernel/printk.h"
#include "kernel/cmdline.h"

bool rcu_boost_enabled = true;
core_param(rcu.boost, rcu_boost_enabled, bool,
	   "raise preempted rcu_read_lock() readers that hold up a grace period (1) or not (0)");
unsigned int rcu_boost_delay_ms = 100;
core_param(rcu.boost_delay_ms, rcu_boost_delay_ms, uint,
	   "ms a preempted reader may hold up a grace period before it is boosted");
atomic_t rcu_boosts = ATOMIC_INIT(0);
atomic_long_t rcu_preempt_blocked_total = ATOMIC_LONG_INIT(0);

void rcu_preempt_init_node(struct rcu_node *rnp)
{
	INIT_LIST_HEAD(&rnp->blkd_tasks);
	rnp->gp_tasks = NULL;
	rnp->exp_tasks = NULL;
}

#ifdef CONFIG_PREEMPT_RCU

bool rcu_preempt_blocked_readers_cgp(struct rcu_node *rnp)
{
	return READ_ONCE(rnp->gp_tasks) != NULL;
}

void rcu_preempt_gp_init_node(struct rcu_node *rnp)
{
	WRITE_ONCE(rnp->gp_tasks, list_empty(&rnp->blkd_tasks) ? NULL : rnp->blkd_tasks.next);
}

bool rcu_preempt_has_blocked_tasks(void)
{
	struct rcu_node *rnp;
	unsigned long flags;
	bool any = false;

	rcu_for_each_leaf_node(rnp) {
		spin_lock_irqsave(&rnp->lock, flags);
		any |= !list_empty(&rnp->blkd_tasks);
		spin_unlock_irqrestore(&rnp->lock, flags);
	}
	return any;
}

static bool rcu_preempt_exp_pending_here(void)
{
	return rcu_exp_pending_here(&rcu_preempt_exp);
}

/* Irqs off: this CPU's running task is in no pre-existing reader. */
static void rcu_preempt_exp_report_qs(bool can_wake)
{
	rcu_report_exp_rdp(&rcu_preempt_exp, can_wake);
}

/*
 * The scheduler is switching away from current (irqs off, no run-queue
 * lock held yet).  A reader is queued before tree.c notes the CPU's QS.
 */
void rcu_preempt_note_context_switch(bool preempt)
{
	struct task *t = current;
	struct rcu_data *rdp = this_cpu_ptr(&rcu_data);
	struct rcu_node *rnp = rdp->mynode;
	unsigned long flags;

	(void)preempt;
	if (t->rcu_read_lock_nesting > 0 && !(t->rcu_read_unlock_special & RCU_SPECIAL_BLOCKED)) {
		bool gp, exp;

		spin_lock_irqsave(&rnp->lock, flags);
		gp = (rnp->qsmask & rdp->grpmask) && rcu_seq_state(rnp->gp_seq);
		exp = rcu_preempt_exp_pending_here();
		if (gp || exp) {
			/* It may predate a running GP: inside the suffixes. */
			list_add_tail(&t->rcu_node_entry, &rnp->blkd_tasks);
			if (gp && !rnp->gp_tasks)
				WRITE_ONCE(rnp->gp_tasks, &t->rcu_node_entry);
			if (exp && !rnp->exp_tasks)
				WRITE_ONCE(rnp->exp_tasks, &t->rcu_node_entry);
		} else {
			list_add(&t->rcu_node_entry, &rnp->blkd_tasks);
		}
		t->rcu_blocked_node = rnp;
		trace_rcu_preempt_task("rcu_preempt", t, rnp->gp_seq);
		t->rcu_read_unlock_special |= RCU_SPECIAL_BLOCKED;
		t->rcu_read_unlock_special &= ~RCU_SPECIAL_NEED_QS;	/* the list holds it now */
		spin_unlock_irqrestore(&rnp->lock, flags);
		atomic_long_inc(&rcu_preempt_blocked_total);
	}
	/* Whatever runs next is in no reader that predates the exp GP, or is queued. */
	if (rcu_preempt_exp_pending_here())
		rcu_preempt_exp_report_qs(false);	/* the waiter polls each tick */
}

bool rcu_preempt_tick_in_reader(void)
{
	struct task *t = current;
	struct rcu_data *rdp = this_cpu_ptr(&rcu_data);

	if (t->rcu_read_lock_nesting <= 0)
		return false;
	if (rdp->core_needs_qs && READ_ONCE(rdp->cpu_no_qs))
		t->rcu_read_unlock_special |= RCU_SPECIAL_NEED_QS;
	if (rcu_preempt_exp_pending_here())
		t->rcu_read_unlock_special |= RCU_SPECIAL_EXP_HINT;
	return true;
}

/*
 * rnp locked (irqs saved in flags), t's entry just left it.  If that was
 * the last task holding up the GP and every CPU of the leaf has reported,
 * the leaf reports up the tree; releases the lock either way.
 */
static void rcu_report_unblock_qs_rnp(struct rcu_node *rnp, unsigned long flags)
{
	unsigned long mask, gps;
	struct rcu_node *parent;

	if (!rcu_seq_state(rnp->gp_seq) || rnp->qsmask || rnp->gp_tasks) {
		spin_unlock_irqrestore(&rnp->lock, flags);
		return;
	}
	parent = rnp->parent;
	if (!parent) {
		spin_unlock_irqrestore(&rnp->lock, flags);
		rcu_gp_kthread_wake();
		return;
	}
	mask = rnp->grpmask;
	gps = rnp->gp_seq;
	spin_unlock(&rnp->lock);	/* irqs stay off */
	spin_lock(&parent->lock);
	rcu_stats_qs_lock(parent);
	rcu_report_qs_rnp(mask, parent, gps, flags);
}

/* The outermost rcu_read_unlock() found special bits set. */
void rcu_read_unlock_special(struct task *t)
{
	struct rcu_data *rdp;
	unsigned long flags;
	unsigned int special;
	int boosted = 0;

	/* An NMI inside this very function: the interrupted code finishes it. */
	if (in_nmi())
		return;
	local_irq_save(flags);
	special = t->rcu_read_unlock_special;
	if (!special || t->rcu_read_lock_nesting) {
		local_irq_restore(flags);
		return;
	}
	rdp = this_cpu_ptr(&rcu_data);
	if (special & RCU_SPECIAL_NEED_QS) {
		t->rcu_read_unlock_special &= ~RCU_SPECIAL_NEED_QS;
		/* Outside RCU-sched readers too? Then this CPU is quiescent;
		 * its next tick reports it. */
		if (preempt_count() == 0 && !irqs_disabled_flags(flags))
			WRITE_ONCE(rdp->cpu_no_qs, false);
	}
	if (special & RCU_SPECIAL_EXP_HINT) {
		t->rcu_read_unlock_special &= ~RCU_SPECIAL_EXP_HINT;
		if (rcu_preempt_exp_pending_here())
			rcu_preempt_exp_report_qs(!irqs_disabled_flags(flags));
	}
	if (special & RCU_SPECIAL_BLOCKED) {
		struct rcu_node *rnp = t->rcu_blocked_node;
		struct list_head *next;
		bool held_gp, held_exp;

		t->rcu_read_unlock_special &= ~RCU_SPECIAL_BLOCKED;
		spin_lock(&rnp->lock);
		next = t->rcu_node_entry.next == &rnp->blkd_tasks ? NULL : t->rcu_node_entry.next;
		held_gp = rnp->gp_tasks == &t->rcu_node_entry;
		held_exp = rnp->exp_tasks == &t->rcu_node_entry;
		if (held_gp)
			WRITE_ONCE(rnp->gp_tasks, next);
		if (held_exp)
			WRITE_ONCE(rnp->exp_tasks, next);
		list_del_init(&t->rcu_node_entry);
		trace_rcu_unlock_preempted_task("rcu_preempt", rnp->gp_seq, t);
		t->rcu_blocked_node = NULL;
		boosted = t->rcu_boost_saved_prio;
		t->rcu_boost_saved_prio = 0;
		/* Lock order: leaf, then the wait queue's (__wake_up() takes
		 * it only when a waiter sleeps there). */
		if (held_exp && !next && !irqs_disabled_flags(flags))
			wake_up(&rcu_preempt_exp.expedited_wq);
		if (held_gp && !next)
			rcu_report_unblock_qs_rnp(rnp, flags);	/* restores irqs */
		else
			spin_unlock_irqrestore(&rnp->lock, flags);
	} else {
		local_irq_restore(flags);
	}
	if (boosted) {
		trace_rcu_boost("end", t);
		set_task_prio(t, boosted - 1);
	}
}

void rcu_preempt_stall_print_blocked(void)
{
	struct rcu_node *rnp;
	unsigned long flags;

	rcu_for_each_leaf_node(rnp) {
		struct list_head *pos;

		spin_lock_irqsave(&rnp->lock, flags);
		for (pos = rnp->gp_tasks; pos && pos != &rnp->blkd_tasks; pos = pos->next) {
			struct task *t = container_of(pos, struct task, rcu_node_entry);

			printk(KERN_ERR "rcu: \tP%s (preempted in rcu_read_lock() on CPU %d, "
			       "prio %d%s)\n", t->name, t->cpu, t->prio,
			       t->rcu_boost_saved_prio ? ", boosted" : "");
		}
		spin_unlock_irqrestore(&rnp->lock, flags);
	}
}

/* ---- priority boosting ---- */

/* rnp locked: raise every task from pos to the tail that is not raised yet. */
static void rcu_boost_from(struct rcu_node *rnp, struct list_head *pos)
{
	for (; pos && pos != &rnp->blkd_tasks; pos = pos->next) {
		struct task *t = container_of(pos, struct task, rcu_node_entry);

		if (t->rcu_boost_saved_prio)
			continue;
		t->rcu_boost_saved_prio = t->prio + 1;
		trace_rcu_boost("start", t);
		atomic_inc(&rcu_boosts);
		if (t->prio < PRIO_HIGH)
			set_task_prio(t, PRIO_HIGH);	/* leaf lock, then run queue */
	}
}

void rcu_preempt_boost_check(void)
{
	unsigned long delay = msecs_to_jiffies(READ_ONCE(rcu_boost_delay_ms));
	unsigned long now = jiffies, flags;
	bool gp_old, exp_old;
	struct rcu_node *rnp;

	if (!READ_ONCE(rcu_boost_enabled))
		return;
	gp_old = rcu_seq_state(READ_ONCE(rcu_state.gp_seq)) &&
		 now - READ_ONCE(rcu_state.gp_start) >= delay;
	exp_old = rcu_seq_state(READ_ONCE(rcu_preempt_exp.expedited_sequence)) &&
		  now - READ_ONCE(rcu_preempt_exp.gp_start) >= delay;
	if (!gp_old && !exp_old)
		return;
	rcu_for_each_leaf_node(rnp) {
		if (!READ_ONCE(rnp->gp_tasks) && !READ_ONCE(rnp->exp_tasks))
			continue;
		spin_lock_irqsave(&rnp->lock, flags);
		if (gp_old)
			rcu_boost_from(rnp, rnp->gp_tasks);
		if (exp_old)
			rcu_boost_from(rnp, rnp->exp_tasks);
		spin_unlock_irqrestore(&rnp->lock, flags);
	}
}

/* ---- the update side ---- */

void synchronize_rcu(void)
{
	if (rcu_misuse_check("synchronize_rcu"))
		return;
	synchronize_sched();	/* the same GPs now wait for preempted readers */
}

__fastpath void call_rcu(struct rcu_head *head, rcu_callback_t func)
{
	call_rcu_sched(head, func);
}

void rcu_barrier(void)
{
	if (rcu_misuse_check("rcu_barrier"))
		return;
	rcu_barrier_sched();
}

unsigned long get_state_synchronize_rcu(void) { return get_state_synchronize_sched(); }
unsigned long start_poll_synchronize_rcu(void) { return start_poll_synchronize_sched(); }
bool poll_state_synchronize_rcu(unsigned long s) { return poll_state_synchronize_sched(s); }

void cond_synchronize_rcu(unsigned long s)
{
	if (!poll_state_synchronize_rcu(s))
		synchronize_rcu();
}

unsigned long rcu_batches_completed(void)
{
	return rcu_batches_completed_sched();
}

unsigned long rcu_exp_batches_completed(void)
{
	return rcu_exp_completed(&rcu_preempt_exp);
}

/* ---- the expedited flavour (the machine is rcu/expedited.c's) ---- */

/* In the cross-CPU call: the interrupted task is inside rcu_read_lock(). */
static bool rcu_preempt_exp_cpu_in_reader(void)
{
	return current->rcu_read_lock_nesting > 0;
}

/* Its outermost rcu_read_unlock() reports (rcu_read_unlock_special()). */
static void rcu_preempt_exp_defer_qs(void)
{
	current->rcu_read_unlock_special |= RCU_SPECIAL_EXP_HINT;
}

/* (3): the mask is set; the tasks queued now hold the grace period up. */
static void rcu_preempt_exp_gp_init_blocked(void)
{
	struct rcu_node *rnp;
	unsigned long flags;

	rcu_for_each_leaf_node(rnp) {
		spin_lock_irqsave(&rnp->lock, flags);
		WRITE_ONCE(rnp->exp_tasks,
			   list_empty(&rnp->blkd_tasks) ? NULL : rnp->blkd_tasks.next);
		spin_unlock_irqrestore(&rnp->lock, flags);
	}
}

static bool rcu_preempt_exp_has_blocked(void)
{
	struct rcu_node *rnp;

	rcu_for_each_leaf_node(rnp)
		if (READ_ONCE(rnp->exp_tasks))
			return true;
	return false;
}

static size_t rcu_preempt_exp_print_blocked(char *buf, size_t size, size_t len)
{
	struct rcu_node *rnp;
	unsigned long flags;

	rcu_for_each_leaf_node(rnp) {
		struct list_head *pos;

		spin_lock_irqsave(&rnp->lock, flags);
		for (pos = rnp->exp_tasks; pos && pos != &rnp->blkd_tasks; pos = pos->next)
			len = rcu_exp_stall_append(buf, size, len, " P%s",
				container_of(pos, struct task, rcu_node_entry)->name);
		spin_unlock_irqrestore(&rnp->lock, flags);
	}
	return len;
}

const struct rcu_exp_ops rcu_preempt_exp_ops = {
	.cpu_in_reader = rcu_preempt_exp_cpu_in_reader,
	.defer_qs = rcu_preempt_exp_defer_qs,
	.report_qs = rcu_preempt_exp_report_qs,
	.gp_init_blocked = rcu_preempt_exp_gp_init_blocked,
	.has_blocked = rcu_preempt_exp_has_blocked,
	.print_blocked = rcu_preempt_exp_print_blocked,
	.wait_tick = rcu_preempt_boost_check,
};

/*
 * Waits for every rcu_read_lock() reader that began before the call:
 * those running now (the non-idle CPUs) and those preempted (the leaves'
 * lists).  RCU-sched readers are not waited for.
 */
void synchronize_rcu_expedited(void)
{
	if (rcu_misuse_check("synchronize_rcu_expedited") || rcu_blocking_is_gp())
		return;
	synchronize_exp(&rcu_preempt_exp);
}

#ifdef CONFIG_SANITIZE
/*
 * Test build, rnp (a leaf) locked: every task on its list is blocked
 * there (->rcu_blocked_node, which changes only under this lock; the
 * BLOCKED bit is cleared before it), and gp_tasks and exp_tasks, when
 * set, point into the list.  Stops after 1024 tasks (true then).
 */
bool rcu_preempt_blkd_tasks_ok(struct rcu_node *rnp)
{
	struct list_head *pos;
	bool gp = !rnp->gp_tasks, exp = !rnp->exp_tasks;
	int n = 0;

	list_for_each(pos, &rnp->blkd_tasks) {
		struct task *t = list_entry(pos, struct task, rcu_node_entry);

		if (t->rcu_blocked_node != rnp)
			return false;
		gp |= pos == rnp->gp_tasks;
		exp |= pos == rnp->exp_tasks;
		if (++n == 1024)
			return true;
	}
	return gp && exp;
}
#endif

#else /* !CONFIG_PREEMPT_RCU: nothing is ever queued */

#ifdef CONFIG_SANITIZE
bool rcu_preempt_blkd_tasks_ok(struct rcu_node *rnp) { (void)rnp; return true; }
#endif

bool rcu_preempt_blocked_readers_cgp(struct rcu_node *rnp) { (void)rnp; return false; }
void rcu_preempt_gp_init_node(struct rcu_node *rnp) { (void)rnp; }
bool rcu_preempt_has_blocked_tasks(void) { return false; }
void rcu_preempt_note_context_switch(bool preempt) { (void)preempt; }
bool rcu_preempt_tick_in_reader(void) { return false; }
void rcu_preempt_boost_check(void) {}
void rcu_preempt_stall_print_blocked(void) {}
unsigned long rcu_batches_completed(void) { return rcu_batches_completed_sched(); }
unsigned long rcu_exp_batches_completed(void) { return rcu_exp_batches_completed_sched(); }

#endif /* CONFIG_PREEMPT_RCU */
