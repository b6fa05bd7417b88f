/* tests/scenarios/scenario.c: worker groups, the bench=full switch, lists
 * on the command line and fixed-point statistics for the paper_* scenario
 * suites (see scenario.h). */
#include "tests/scenarios/scenario.h"
#include "kernel/cmdline.h"
#include "kernel/ktap.h"
#include "kernel/printk.h"
#include "kernel/slab.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "kernel/spinlock.h"
#include "kernel/system.h"
#include "kernel/time.h"
#include "kernel/math.h"
#include "kernel/sched.h"

/* bench=full runs the long sweeps; bench=quick (the default) the short
 * correctness runs of `make test`. */
static char *bench_mode;
core_param(bench, bench_mode, charp,
	   "quick (default: short correctness runs) or full (the paper's sweeps, for make bench)");

bool scen_full(void)
{
	return bench_mode && !strcmp(bench_mode, "full");
}

static void worker_body(struct scen_worker *w)
{
	w->g->fn(w);
	scen_paid(w);
	WRITE_ONCE(w->finished, true);
	atomic_inc(&w->g->done);
}

static char worker_names[NR_CPUS][12];

static int worker_thread(void *arg)
{
	worker_body(arg);
	return 0;
}

struct scen_group *scen_group_alloc(void)
{
	return kzalloc(sizeof(struct scen_group), GFP_KERNEL);
}

void scen_group_free(struct scen_group *g, int wait_ret)
{
	if (g && !wait_ret)
		kfree(g);
}

int scen_group_start(struct scen_group *g, const int *cpus, int n,
		     void (*fn)(struct scen_worker *w), void *arg)
{
	if (n < 1 || n > NR_CPUS)
		return -EINVAL;
	for (int i = 0; i < n; i++)
		if (!cpu_online(cpus[i]))
			return -EINVAL;
	g->n = n;
	g->fn = fn;
	atomic_set(&g->ready, 0);
	atomic_set(&g->done, 0);
	g->stop = 0;
	g->go = 0;
	atomic_set(&g->owing, 0);
	g->failed = 0;
	/* Set by the start barrier; until then a worker that does not wait
	 * there runs until stopped. */
	g->end_ns = 0;
	for (int i = 0; i < n; i++) {
		g->w[i].g = g;
		g->w[i].idx = i;
		g->w[i].cpu = cpus[i];
		g->w[i].arg = arg;
		g->w[i].finished = false;
		g->w[i].owes = false;
	}
	smp_mb();
	struct task **t = g->task;

	/* Create them all before waking any, so an early one never waits at
	 * the barrier for a thread not yet made. */
	for (int i = 0; i < n; i++) {
		if (!worker_names[i][0])
			snprintf(worker_names[i], sizeof(worker_names[i]), "scen/%d", i);
		t[i] = kthread_create_on_cpu(worker_thread, &g->w[i], cpus[i], worker_names[i]);
		if (!t[i]) {
			pr_err("scenario: cannot create worker %d\n", i);
			/* Those made so far run fn and see stop at once. */
			g->stop = 1;
			for (int j = 0; j < i; j++)
				wake_up_process(t[j]);
			g->n = i;
			return -ENOMEM;
		}
		kthread_bind(t[i], cpus[i]);
	}
	for (int i = 0; i < n; i++)
		wake_up_process(t[i]);
	return 0;
}

int scen_group_wait(struct scen_group *g, unsigned int timeout_ms)
{
	u64 deadline = ktime_get_ns() + (u64)timeout_ms * 1000000;

	while (atomic_read(&g->done) < g->n) {
		u64 p = READ_ONCE(g->progress_ns);

		if (p && p + (u64)timeout_ms * 1000000 > deadline)
			deadline = p + (u64)timeout_ms * 1000000;	/* owed work moves */
		if (ktime_get_ns() > deadline) {
			scen_group_stop(g);
			for (int i = 0; i < g->n; i++)
				if (!READ_ONCE(g->w[i].finished))
					pr_err("scenario: worker %d on CPU %d did not finish within %u ms\n",
					       i, g->w[i].cpu, timeout_ms);
			return -ETIMEDOUT;
		}
		scen_sleep_ms(1);
	}
	smp_mb();	/* the workers' results are read after they are done */
	for (int i = 0; i < g->n; i++)
		if (g->task[i]) {
			kthread_join(g->task[i]);
			g->task[i] = NULL;
		}
	return 0;
}

bool scen_should_stop(struct scen_worker *w)
{
	struct scen_group *g = w->g;

	if (READ_ONCE(g->stop))
		return true;
	u64 end = READ_ONCE(g->end_ns), now;

	if (!end || (now = ktime_get_ns()) < end)
		return false;
	return !atomic_read(&g->owing) ||
	       now >= MAX(end, READ_ONCE(g->progress_ns)) + scen_owe_grace_ns();
}

void scen_progress(struct scen_worker *w)
{
	WRITE_ONCE(w->g->progress_ns, ktime_get_ns());
}

u64 scen_owe_grace_ns(void)
{
	return SCEN_OWE_GRACE_CPU_NS * (u64)MAX(num_online_cpus(), 16);
}

void scen_owe(struct scen_worker *w)
{
	if (!w->owes) {
		w->owes = true;
		atomic_inc(&w->g->owing);
	}
}

void scen_paid(struct scen_worker *w)
{
	if (w->owes) {
		w->owes = false;
		atomic_dec(&w->g->owing);
	}
}

/*
 * The last worker to arrive starts the clock of scen_group_run_for():
 * creating and waking 16 kthreads on an overloaded host can take longer
 * than a quick run, which would otherwise be over before it began.
 * A worker gives up only when no other arrived for SCEN_ARRIVE_NS: at 64
 * vCPUs on a loaded 2-core host one vCPU can go unrun for many seconds,
 * so a fixed bound from the first arrival judged the host, not the code.
 */
#define SCEN_ARRIVE_NS (60ull * 1000000000)

bool scen_start_barrier(struct scen_worker *w)
{
	struct scen_group *g = w->g;
	u64 last = ktime_get_ns(), now;
	unsigned long spins = 0;
	int ready = atomic_inc_return(&g->ready), r;

	if (ready == g->n) {
		if (g->run_ns)
			WRITE_ONCE(g->end_ns, ktime_get_ns() + g->run_ns);
		smp_store_release(&g->go, 1);
	}
	while (!smp_load_acquire(&g->go)) {
		if (READ_ONCE(g->stop))
			return false;
		/* Other threads of this CPU (the one that made us) may need it. */
		if ((++spins & 1023) == 0) {
			scen_yield();
			now = ktime_get_ns();
			r = atomic_read(&g->ready);
			if (r != ready) {
				ready = r;
				last = now;
			} else if (now - last > SCEN_ARRIVE_NS) {
				pr_err("scenario: worker %d: start barrier: only %d of %d arrived, none for %llu s\n",
				       w->idx, r, g->n, SCEN_ARRIVE_NS / 1000000000);
				WRITE_ONCE(g->failed, 1);
				scen_group_stop(g);
				return false;
			}
		}
		cpu_relax();
	}
	return true;
}

/*
 * Lock convoys under a hypervisor.  A contended FIFO lock (rwlock_fair's
 * queue, spinlocks with spinlock.virt=0) hands over only when the host
 * runs the next waiter's vCPU, and any lock whose holder the host
 * deschedules (the 2007 rwlock's writer, say) stays held meanwhile:
 * with 16 vCPUs on a 2-core host a waiter behind 15 others can wait many
 * seconds, and the lock debug code's "lockup suspected" report (after
 * spinlock.timeout_ms, 5 s) would call that a bug.  The scenarios that
 * hammer one lock from every CPU raise the limit for their duration when
 * they run under a hypervisor with more than 2 CPUs; on hardware it stays.
 */
static unsigned int convoy_timeout_ms = 120000;
core_param(scenario.convoy_timeout_ms, convoy_timeout_ms, uint,
	   "lock-wait report limit (ms) while a scenario hammers one lock from every vCPU under a hypervisor (0: leave spinlock.timeout_ms alone)");
static int convoy_depth;
static unsigned int convoy_saved_ms;

void scen_convoy_begin(int cpus)
{
	if (!convoy_timeout_ms || cpus <= 2 || !arch_under_hypervisor())
		return;
	if (convoy_depth++ == 0) {
		convoy_saved_ms = spinlock_timeout_ms;
		if (spinlock_timeout_ms && spinlock_timeout_ms < convoy_timeout_ms)
			WRITE_ONCE(spinlock_timeout_ms, convoy_timeout_ms);
	}
}

void scen_convoy_end(int cpus)
{
	if (!convoy_timeout_ms || cpus <= 2 || !arch_under_hypervisor())
		return;
	if (--convoy_depth == 0)
		WRITE_ONCE(spinlock_timeout_ms, convoy_saved_ms);
}

int scen_online_cpus(int *cpus, int max)
{
	int n = 0, cpu;

	for_each_online_cpu(cpu)
		if (n < max)
			cpus[n++] = cpu;
	return n;
}

void *scen_setup(int *cpus, int *n, size_t ctx_size, struct scen_group **g,
		 const char *who)
{
	void *ctx;

	*n = scen_online_cpus(cpus, NR_CPUS);
	if (*n < 2) {
		ktap_skip("needs 2 CPUs (%s)", who);
		return NULL;
	}
	ctx = kzalloc(ctx_size, GFP_KERNEL);
	*g = scen_group_alloc();
	if (!ctx || !*g) {
		kfree(ctx);
		kfree(*g);
		ktap_fail("out of memory");
		return NULL;
	}
	return ctx;
}

void scen_setup_undo(void *ctx, struct scen_group *g)
{
	kfree(ctx);
	kfree(g);
	ktap_fail("out of memory");
}

unsigned int scen_run_ms(unsigned int opt)
{
	return opt ? opt : scen_full() ? 2000 : 200;
}

int scen_run(struct scen_group *g, const int *cpus, int n, void (*fn)(struct scen_worker *w),
	     void *arg, unsigned int run_ms, bool convoy, const char *what)
{
	int ret;

	scen_group_run_for(g, run_ms);
	if (convoy)
		scen_convoy_begin(n);
	ret = scen_group_start(g, cpus, n, fn, arg);
	if (!ret)
		ret = scen_group_wait(g, run_ms + (unsigned int)(scen_owe_grace_ns() / 1000000) + 50000);
	if (convoy)
		scen_convoy_end(n);
	if (ret)
		ktap_fail("%s%sthe run did not finish (%d)", what ? what : "", what ? ": " : "", ret);
	return ret;
}

void scen_yield(void)
{
	cond_resched();
}

void scen_sleep_ms(unsigned int ms)
{
	msleep(ms);
}

int scen_parse_list(const char *s, unsigned int *out, int max)
{
	int n = 0;

	if (!s)
		return -1;
	while (*s) {
		unsigned long v = 0;
		int digits = 0;

		while (*s >= '0' && *s <= '9' && digits < 10) {
			v = v * 10 + (unsigned long)(*s++ - '0');
			digits++;
		}
		if (!digits || v > 0xffffffffu || n >= max)
			return -1;
		out[n++] = (unsigned int)v;
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	return n;
}

bool scen_list_has(const char *s, const char *word)
{
	size_t len = strlen(word);

	if (!s || !*s || !strcmp(s, "all"))
		return true;
	while (*s) {
		const char *e = s;

		while (*e && *e != ',')
			e++;
		if ((size_t)(e - s) == len && !strncmp(s, word, len))
			return true;
		s = *e ? e + 1 : e;
	}
	return false;
}

char *scen_fmt_ps(char *buf, size_t size, s64 ps)
{
	u64 a = ps < 0 ? (u64)-ps : (u64)ps;

	snprintf(buf, size, "%s%llu.%03llu", ps < 0 ? "-" : "",
		 (unsigned long long)(a / 1000), (unsigned long long)(a % 1000));
	return buf;
}

/* ps = cycles * 1e9 / tsc_khz, split so that nothing overflows for any
 * run shorter than a few days. */
u64 scen_cycles_to_ps(u64 cycles)
{
	u64 khz = tsc_khz ? tsc_khz : 1;
	u64 whole = cycles / khz, rest = cycles % khz;

	return whole * 1000000000ull + rest * 1000000000ull / khz;
}

u64 scen_ns_to_cycles(u64 ns)
{
	return ns * tsc_khz / 1000000;
}

void scen_stats(u64 *v, int n, struct scen_stats *st)
{
	struct stats s;

	stats_compute(v, n, &s);
	*st = (struct scen_stats){ s.mean, s.stddev, s.median, s.min, s.max };
}
