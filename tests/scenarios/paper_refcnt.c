/* tests/scenarios/paper_refcnt.c: "RCU is a Restricted Reference-Counting
 * Mechanism" (and the bulk form).
 *
 * restricted_delete: readers take the RCU "reference"
 * (rcu_read_lock_sched(); p = rcu_dereference(head); use p; unlock) while
 * the updater runs the article's delete, head = NULL under the lock,
 * synchronize_sched(), kfree(p), and then publishes a fresh object.  A
 * reader must never see a freed (poisoned) object.
 *
 * The cost rows: the same reader pattern timed by refscale against a
 * classic reference count on the object (atomic_inc/atomic_dec of one
 * shared counter) by CPU count, `# bench name=refcnt type=rcu-sched|refcnt`
 * with the readside keys.  Their loops (rs_read_ref_*) are checked by the
 * host check of the article's Quick Quiz 1 (docs/article.md) like the
 * others.
 */
#include "tests/scenarios/refscale.h"
#include "kernel/cmdline.h"
#include "kernel/ktap.h"
#include "kernel/printk.h"
#include "kernel/slab.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"

static unsigned int refcnt_ms;
core_param(refcnt.ms, refcnt_ms, uint, "duration of paper_refcnt's delete run in ms (default 200 quick, 2000 full)");

#define OBJ_MAGIC 0x0b1ec7ul

struct obj {
	unsigned long magic;
	atomic_t ref;		/* the classic count, for the cost rows */
	long data;
};

static struct obj *head;
static DEFINE_SPINLOCK(mylock);
static volatile long ref_sink;

/* ---- the cost rows' loops ---------------------------------------------- */

#define RS_LOOP __attribute__((noinline, used))

RS_LOOP void rs_read_ref_rcu(long n)
{
	for (long i = 0; i < n; i++) {
		struct obj *p;

		rcu_read_lock_sched();	/* acquire reference */
		p = rcu_dereference(head);
		ref_sink = p->data;	/* do something with p */
		rcu_read_unlock_sched();	/* release reference */
	}
}

RS_LOOP void rs_read_ref_atomic(long n)
{
	for (long i = 0; i < n; i++) {
		struct obj *p = READ_ONCE(head);

		atomic_inc(&p->ref);
		ref_sink = p->data;
		atomic_dec(&p->ref);
	}
}

static void ref_delay_unused(long n, unsigned int cs_ns)
{
	(void)n;
	(void)cs_ns;
}

static const struct rs_ops ref_rcu_ops = {
	.type = "rcu-sched",
	.read = rs_read_ref_rcu,
	.read_delay = ref_delay_unused,
};
static const struct rs_ops ref_atomic_ops = {
	.type = "refcnt", .read = rs_read_ref_atomic, .read_delay = ref_delay_unused,
};

static void refcnt_cost(void)
{
	static struct obj stable = { OBJ_MAGIC, ATOMIC_INIT(0), 42 };
	int online = num_online_cpus();

	WRITE_ONCE(head, &stable);
	for (int cpus = 1; cpus <= online; cpus = cpus * 2 > online && cpus != online ? online : cpus * 2) {
		const struct rs_ops *ops[] = { &ref_rcu_ops, &ref_atomic_ops };

		for (int i = 0; i < 2; i++) {
			struct rs_result r;
			int ret;

			ret = refscale_measure(ops[i], cpus, 0, refscale_loops(0), refscale_runs(), &r);
			if (ret) {
				ktap_fail("%s at %d CPUs: measurement failed (%d)", ops[i]->type, cpus, ret);
				continue;
			}
			refscale_print_row("refcnt", ops[i], &r, NULL);
		}
		if (cpus == online)
			break;
	}
	/* Every get had its put. */
	KTAP_EXPECT_EQ(atomic_read(&stable.ref), 0);
	WRITE_ONCE(head, NULL);
}

/* ---- restricted_delete ------------------------------------------------- */

struct del_ctx {
	unsigned long reads[NR_CPUS], nulls[NR_CPUS], bad[NR_CPUS];
	unsigned long deletes;
	u64 gp_cycles;
	int updater_done;	/* READ_ONCE: the readers stop with it */
};

/* The updater goes on past the run's end until it has deleted this many
 * times (a grace period may outlast a quick run under QEMU). */
#define REF_MIN_DELETES 3

static void del_worker(struct scen_worker *w)
{
	struct del_ctx *x = w->arg;

	if (!scen_start_barrier(w))
		return;
	if (w->idx == 0) {
		while (!READ_ONCE(w->g->stop) &&
		       (x->deletes < REF_MIN_DELETES || !scen_should_stop(w))) {
			struct obj *p, *fresh = kmalloc(sizeof(*fresh), GFP_KERNEL);

			if (!fresh)
				break;
			spin_lock(&mylock);
			p = head;
			head = NULL;	/* no new reference can be taken */
			spin_unlock(&mylock);
			u64 t0 = get_cycles();

			synchronize_sched();	/* wait for all references to be released */
			x->gp_cycles += get_cycles() - t0;
			kfree(p);
			x->deletes++;
			fresh->magic = OBJ_MAGIC;
			fresh->data = (long)x->deletes;
			atomic_set(&fresh->ref, 0);
			rcu_assign_pointer(head, fresh);
			scen_yield();
		}
		smp_store_release(&x->updater_done, 1);
		return;
	}
	/* Past the run's end, read on while the updater is short of its
	 * deletes (at most 10 s more). */
	while (!scen_should_stop(w) ||
	       (!READ_ONCE(w->g->stop) && !smp_load_acquire(&x->updater_done) &&
		READ_ONCE(x->deletes) < REF_MIN_DELETES &&
		ktime_get_ns() < w->g->end_ns + 10000000000ull)) {
		for (int i = 0; i < 64; i++) {
			struct obj *p;

			rcu_read_lock_sched();
			p = rcu_dereference(head);
			if (!p) {
				x->nulls[w->idx]++;
			} else {
				/* Use it for a while: a grace period must wait. */
				long d = READ_ONCE(p->data);

				ndelay(200);
				if (READ_ONCE(p->magic) != OBJ_MAGIC || READ_ONCE(p->data) != d)
					x->bad[w->idx]++;
			}
			rcu_read_unlock_sched();
			x->reads[w->idx]++;
		}
		scen_yield();
	}
}

static void restricted_delete(void)
{
	int cpus[NR_CPUS], n;
	unsigned int ms = scen_run_ms(refcnt_ms);
	struct scen_group *g;
	struct del_ctx *x = scen_setup(cpus, &n, sizeof(*x), &g, "readers beside the updater");

	if (!x)
		return;
	struct obj *first = kzalloc(sizeof(*first), GFP_KERNEL);

	if (!first) {
		scen_setup_undo(x, g);
		return;
	}
	first->magic = OBJ_MAGIC;
	rcu_assign_pointer(head, first);
	if (scen_run(g, cpus, n, del_worker, x, ms, false, NULL))
		return;		/* left allocated: a worker may still use it */
	unsigned long reads = 0, nulls = 0, bad = 0;
	char b[SCEN_FMT_BUF];

	for (int i = 1; i < n; i++) {
		reads += x->reads[i];
		nulls += x->nulls[i];
		bad += x->bad[i];
	}
	ktap_log("bench name=refcnt_delete cpus=%d readers=%d ms=%u reads=%lu nulls=%lu deletes=%lu gp_ns=%s bad=%lu",
		 n, n - 1, ms, reads, nulls, x->deletes,
		 scen_fmt_ps(b, sizeof(b), x->deletes ? (s64)(scen_cycles_to_ps(x->gp_cycles) / x->deletes) : 0),
		 bad);
	if (bad)
		ktap_fail("%lu reads saw the object change or freed under their reference", bad);
	KTAP_EXPECT(x->deletes >= REF_MIN_DELETES);
	KTAP_EXPECT(reads > 0);
	kfree(head);
	head = NULL;
	kfree(x);
	scen_group_free(g, 0);
}

KTAP_SUITE(paper_refcnt,
	   KTAP_CASE(refcnt_cost),
	   KTAP_CASE(restricted_delete));
