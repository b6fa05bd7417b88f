/*
 * kernel/jitter.c - the delays and holds of kernel/jitter.h (test build
 * only): jitter=N, jitter.seed=S, a per-CPU xorshift generator and a TSC
 * spin, and the holds until a walk over the CPUs ends (jitter_walk_hold()).
 *
 * Each site class gets a probability from the seed once, at boot, the
 * same on every CPU: a seed that slows gp_init and the barrier walk but
 * never the lock releases stresses other crossings than one that does the
 * reverse, and running several seeds covers the combinations.  Each CPU
 * draws from its own generator (seed and CPU number), so no site shares a
 * cache line or takes a lock.  A thread migrated mid-draw may advance
 * another CPU's state: harmless, it only changes which number comes next.
 */
#include "kernel/jitter.h"
#include "kernel/atomic.h"
#include "kernel/cmdline.h"
#include "kernel/percpu.h"
#include "kernel/preempt.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/wait.h"
#include "asm/cpu.h"

#ifdef CONFIG_JITTER
static unsigned int jitter_max_us;
core_param(jitter, jitter_max_us, uint,
	   "test build: random delays of 0..N us at synchronization points (0: off)");
static unsigned int jitter_slow_us;
core_param(jitter.slow, jitter_slow_us, uint,
	   "test build: max delay (us) at the slow-path sites (default 16 x jitter=)");
static unsigned int jitter_seed;
core_param(jitter.seed, jitter_seed, uint,
	   "test build: the seed of jitter= (default: from the TSC; printed at boot)");

unsigned int jitter_site_mask;
/* Per site: hot sites jitter= us, slow paths jitter.slow= us (Linux's
 * gp_*_delay are milliseconds: a window between two slow paths needs a
 * delay as long as the other path's step to line up often). */
static u64 jitter_max_cycles[JITTER_NR_SITES];
static u64 jitter_until_cycles;	/* jitter_site_until()'s bound */
/* One fire in 2^shift calls; the hot sites' choices, then the slow ones'. */
static u8 jitter_shift[JITTER_NR_SITES];
static const u8 hot_shifts[] = { 6, 8, 10, 12, 0xff };
static const u8 slow_shifts[] = { 0, 1, 2, 3 };
static const char *const site_names[JITTER_NR_SITES] = {
	"unlock", "release", "rmw", "preempt", "irq", "wake",
	"hotplug", "barrier", "gp_init", "gp_phase", "srcu", "switch", "irq_entry", "srcu_read",
	"ipi", "switch_dying", "eqs", "cb_invoke", "play_dead", "cb_hold",
};

/* The task inside cpu_down()/cpu_up(), or NULL (JITTER_WALK_SITES). */
static struct task *jitter_hotplug_task;
static unsigned long jitter_hotplug_steps;	/* JITTER_HOTPLUG sites passed */
static DECLARE_WAIT_QUEUE_HEAD(jitter_hotplug_wq);	/* walks asleep until its end */
static DEFINE_PER_CPU(u64, jitter_rng);
static DEFINE_PER_CPU(u64, jitter_count);
static DEFINE_PER_CPU(u64, jitter_cross_count);
static DEFINE_PER_CPU(u64, jitter_end_count);
static DEFINE_PER_CPU(u64, jitter_hold_count);
static DEFINE_PER_CPU(u64, jitter_hold_done_count);
static DEFINE_PER_CPU(bool, jitter_dead);	/* in cpuhp_play_dead() */
/*
 * The walks holds wait for (jitter_walk_begin()/end()), begun and ended,
 * per kind.  One task at a time runs a kind of walk (the GP kthread;
 * rcu_barrier_sched() under its mutex): plain increments, released.
 */
static unsigned long jitter_walks_begun[JITTER_NR_WALKS];
static unsigned long jitter_walks_ended[JITTER_NR_WALKS];
/* Walks found blocked by the hotplug operation under way (any CPU). */
static unsigned long jitter_walks_blocked[JITTER_NR_WALKS];
static int jitter_walk_holding[JITTER_NR_WALKS];	/* holds waiting for one now */
static DECLARE_WAIT_QUEUE_HEAD(jitter_walk_wq);	/* sleeping holds */
/*
 * Across a CPU's death (kernel/jitter.h, jitter_walk_cpu()): the CPU the
 * operation under way takes down (-1: none), whether a walk has slept
 * there in this operation, the operations ended so far, and whether a
 * walk that slept so is under way (its rcuc holds then need no draw).
 */
static int jitter_down_cpu = -1;
static bool jitter_down_walked;
static unsigned long jitter_hotplug_ends;
static bool jitter_walk_across[JITTER_NR_WALKS];
enum jitter_cross (*jitter_walk_may_cross)(unsigned int walk);

/* splitmix64: spreads a small seed over all 64 bits (never returns 0 here
 * for the inputs we give it in practice; xorshift needs a nonzero state). */
static u64 splitmix64(u64 x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static u64 jitter_next(void)
{
	u64 x = this_cpu_read(jitter_rng);

	if (unlikely(!x))
		x = splitmix64(((u64)jitter_seed << 16) ^ (u64)(smp_processor_id() + 1)) | 1;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	this_cpu_write(jitter_rng, x);
	return x;
}

/*
 * JITTER_EQS: its windows have irqs off, so only an NMI can land there,
 * and under TCG one sent from another CPU (the irqreader's) almost never
 * did: 6069 NMIs in a TREE05 run missed rcu_nmi_exit()'s window, with a
 * delay holding it open 1 time in 4.  So when that site fires the CPU
 * sends itself an NMI (smp_call_nmi()) and waits, bounded, until it has
 * run: rcu_nmi_enter()/exit() then meet the half-done state each time,
 * and rcu_nmi_enter()'s check says whether it is one they can nest in.
 * A CPU going down, or with another CPU's NMI call already pending (that
 * one lands too), gets the delay instead.
 */
static DEFINE_PER_CPU(unsigned long, jitter_nmis_landed);
static DEFINE_PER_CPU(u64, jitter_nmi_count);

static void jitter_nmi(void)
{
	this_cpu_add(jitter_nmis_landed, 1);
}

/* Irqs off: an NMI to this CPU, landed before this returns; false if none sent. */
static bool jitter_nmi_here(void)
{
	unsigned long *landed = this_cpu_ptr(&jitter_nmis_landed);
	unsigned long seen = READ_ONCE(*landed);
	u64 t0 = rdtsc(), bound = 10ull * tsc_khz;	/* 10 ms */

	if (!smp_call_nmi(smp_processor_id(), jitter_nmi))
		return false;
	while (READ_ONCE(*landed) == seen && rdtsc() - t0 < bound)
		cpu_relax();
	this_cpu_add(jitter_nmi_count, 1);
	return true;
}

/* A draw at site's odds: true (and *r, whose bits 16.. are left for the
 * caller) one time in 2^jitter_shift[site]. */
static bool jitter_draw(unsigned int site, u64 *r)
{
	u8 shift = jitter_shift[site];

	*r = jitter_next();
	return !(shift && (*r & ((1ull << shift) - 1)));
}

/* The delay itself: rdtsc and pause only, no site of its own. */
static void jitter_spin(u64 t0, u64 cycles)
{
	while (rdtsc() - t0 < cycles)
		cpu_relax();
}

void __jitter_walk_begin(unsigned int walk)
{
	__atomic_store_n(&jitter_walks_begun[walk], jitter_walks_begun[walk] + 1,
			 __ATOMIC_RELEASE);
}

void __jitter_walk_end(unsigned int walk)
{
	if (__atomic_load_n(&jitter_walk_across[walk], __ATOMIC_RELAXED))
		__atomic_store_n(&jitter_walk_across[walk], false, __ATOMIC_RELEASE);
	__atomic_store_n(&jitter_walks_ended[walk], jitter_walks_ended[walk] + 1,
			 __ATOMIC_RELEASE);
	wake_up_all(&jitter_walk_wq);
}

void __jitter_walk_blocked(unsigned int walk)
{
	__atomic_add_fetch(&jitter_walks_blocked[walk], 1, __ATOMIC_RELEASE);
}

/*
 * What a hold waits for: the ended count to reach ended (one more than
 * when it began; two if a walk under way then does not count: one
 * walker per kind, so at most one is), or the blocked count to move.
 */
struct jitter_walk_snap {
	unsigned long ended, blocked;
};

static struct jitter_walk_snap jitter_walk_snap(unsigned int walk, bool next)
{
	unsigned long ended = smp_load_acquire(&jitter_walks_ended[walk]);
	unsigned long begun = smp_load_acquire(&jitter_walks_begun[walk]);

	return (struct jitter_walk_snap){
		.ended = ended + 1 + (next && begun != ended),
		.blocked = smp_load_acquire(&jitter_walks_blocked[walk]),
	};
}

static bool jitter_walk_ended_since(unsigned int walk, struct jitter_walk_snap snap)
{
	return (long)(smp_load_acquire(&jitter_walks_ended[walk]) - snap.ended) >= 0 ||
	       smp_load_acquire(&jitter_walks_blocked[walk]) != snap.blocked;
}

/*
 * The holds (kernel/jitter.h, JITTER_WALK_HOLD_SCALE): from t0, until a
 * walk of this kind ends or is blocked by the hotplug operation (its
 * counts move from snap, read before the hold began, so a walk under way
 * then counts), at most cycles.
 * It spins; where the caller may sleep (can_sleep) it sleeps instead,
 * woken by the walk's end.  A kthread asked to park or stop meanwhile
 * stops holding (its caller looks at that before going on: rcuc then
 * parks with its callbacks still queued, as a dying CPU's are to move).
 * While it holds, that kind's walk sites wait for no hotplug step (a
 * sleep to an operation's end already begun goes on): the hold and the
 * walk must not wait for each other, nor the walk for the next
 * operations.
 */
static void jitter_walk_hold(unsigned int walk, struct jitter_walk_snap snap, u64 t0,
			     u64 cycles, bool can_sleep)
{
	__atomic_add_fetch(&jitter_walk_holding[walk], 1, __ATOMIC_SEQ_CST);
	this_cpu_add(jitter_hold_count, 1);
	while (rdtsc() - t0 < cycles) {
		if (jitter_walk_ended_since(walk, snap)) {
			this_cpu_add(jitter_hold_done_count, 1);
			break;
		}
		if (!can_sleep) {
			cpu_relax();
			continue;
		}
		if (kthread_should_park() || kthread_should_stop())
			break;
		wait_event_timeout(jitter_walk_wq, jitter_walk_ended_since(walk, snap) ||
				   kthread_should_park() || kthread_should_stop(), 1);
	}
	__atomic_sub_fetch(&jitter_walk_holding[walk], 1, __ATOMIC_SEQ_CST);
}

/*
 * done: NULL, or jitter_site_until()'s: the delay is then
 * JITTER_UNTIL_SCALE jitter.slow, ended as soon as done(arg).
 */
static void jitter_fire(unsigned int site, bool can_sleep, bool (*done)(void *), void *arg)
{
	bool unlock = site == JITTER_LOCK_RELEASE, hotplug = site == JITTER_HOTPLUG;
	struct jitter_walk_snap walk_snap = { 0, 0 };
	unsigned int walk;
	u64 r, cycles, t0;

	if (in_nmi())
		return;
	if (hotplug)	/* fired or not: a step of cpu_down()/up() */
		__atomic_add_fetch(&jitter_hotplug_steps, 1, __ATOMIC_RELAXED);
	if (((JITTER_HOT_SITES | (1u << JITTER_HOTPLUG)) & (1u << site)) &&
	    this_cpu_read(jitter_dead))
		site = JITTER_PLAY_DEAD;
	if (site == JITTER_CB_HOLD) {	/* only while a barrier walks */
		walk_snap = jitter_walk_snap(JITTER_WALK_BARRIER, false);
		if (smp_load_acquire(&jitter_walks_begun[JITTER_WALK_BARRIER]) + 1 ==
		    walk_snap.ended)	/* none under way */
			return;
		/* One across a CPU's death: every rcuc holds, no draw, as
		 * long as that walk may sleep. */
		if (__atomic_load_n(&jitter_walk_across[JITTER_WALK_BARRIER], __ATOMIC_ACQUIRE)) {
			this_cpu_add(jitter_count, 1);
			jitter_walk_hold(JITTER_WALK_BARRIER, walk_snap, rdtsc(),
					 JITTER_ACROSS_SCALE * jitter_max_cycles[JITTER_BARRIER_WALK],
					 can_sleep);
			return;
		}
	}
	if (!jitter_draw(site, &r))
		return;
	cycles = (r >> 16) % (jitter_max_cycles[site] + 1);
	this_cpu_add(jitter_count, 1);
	if (site == JITTER_EQS && jitter_nmi_here())
		return;
	t0 = rdtsc();
	if (site == JITTER_PLAY_DEAD && (unlock || hotplug)) {
		/* The dying CPU's next step waits for an rcu_gp_init() walk,
		 * unless that cannot line a crossing up. */
		enum jitter_cross (*may_cross)(unsigned int) = READ_ONCE(jitter_walk_may_cross);
		enum jitter_cross cross = may_cross ? may_cross(JITTER_WALK_GP_INIT) :
					  JITTER_CROSS_ANY;

		if (cross == JITTER_CROSS_NONE)
			return;
		jitter_walk_hold(JITTER_WALK_GP_INIT,
				 jitter_walk_snap(JITTER_WALK_GP_INIT, cross == JITTER_CROSS_NEXT), t0,
				 JITTER_DEAD_HOLD_SCALE * jitter_until_cycles, false);
		return;
	}
	if (site == JITTER_CB_HOLD) {
		jitter_walk_hold(JITTER_WALK_BARRIER, walk_snap, t0,
				 JITTER_WALK_HOLD_SCALE * jitter_until_cycles, can_sleep);
		return;
	}
	if (done) {
		cycles = jitter_until_cycles;
		this_cpu_add(jitter_hold_count, 1);
		while (rdtsc() - t0 < cycles) {
			if (done(arg)) {
				this_cpu_add(jitter_hold_done_count, 1);
				return;
			}
			cpu_relax();
		}
		return;
	}
	walk = site == JITTER_BARRIER_WALK ? JITTER_WALK_BARRIER : JITTER_WALK_GP_INIT;
	if ((JITTER_WALK_SITES & (1u << site)) && READ_ONCE(jitter_hotplug_task) &&
	    READ_ONCE(jitter_hotplug_task) != current &&
	    !__atomic_load_n(&jitter_walk_holding[walk], __ATOMIC_SEQ_CST)) {
		/* A walk over the CPUs lets a hotplug operation take its
		 * next step inside it (kernel/jitter.h), unless a hold
		 * waits for this walk's end.  A barrier walk sleeps across
		 * a whole operation only at the dying CPU (__jitter_walk_cpu()). */
		unsigned long steps = READ_ONCE(jitter_hotplug_steps);

		cycles = jitter_max_cycles[site];
		if (site == JITTER_BARRIER_WALK)
			cycles *= 160;	/* 100 ms at the default: a hotplug step's length */
		while (READ_ONCE(jitter_hotplug_task) &&
		       READ_ONCE(jitter_hotplug_steps) == steps &&
		       !READ_ONCE(jitter_walk_holding[walk]) && rdtsc() - t0 < cycles)
			cpu_relax();
		this_cpu_add(jitter_cross_count, 1);
		return;
	}
	jitter_spin(t0, cycles);
}

void __jitter_site(unsigned int site)
{
	jitter_fire(site, false, NULL, NULL);
}

void __jitter_site_until(unsigned int site, bool (*done)(void *arg), void *arg)
{
	jitter_fire(site, false, done, arg);
}

long __jitter_pass_pick(unsigned int site, long n)
{
	u64 r;

	if (in_nmi() || !jitter_draw(site, &r))
		return -1;
	return (long)((r >> 16) % (u64)(n - 1));
}

void __jitter_delay(unsigned int site)
{
	u64 cycles = (jitter_next() >> 16) % (jitter_max_cycles[site] + 1);

	this_cpu_add(jitter_count, 1);
	jitter_spin(rdtsc(), cycles);
}

void __jitter_site_sleep(unsigned int site)
{
	might_sleep();
	jitter_fire(site, true, NULL, NULL);
}

/*
 * A walk comes to cpu, which has callbacks (jitter_walk_cpu() looked):
 * if it is the CPU the operation under way takes down, and no walk has
 * slept there in this operation, sleep until the operation's end.  Marked
 * across until the walk's end (__jitter_walk_end()).  The walker may
 * sleep: rcu_barrier_sched()'s, under its mutex, one at a time.
 */
void __jitter_walk_cpu(unsigned int walk, int cpu)
{
	struct task *hp = READ_ONCE(jitter_hotplug_task);
	unsigned long ends = __atomic_load_n(&jitter_hotplug_ends, __ATOMIC_ACQUIRE);
	u64 t0, cycles;

	might_sleep();
	/* One sleep per walk: a walk that met one operation's CPU and then
	 * the next one's would pass the barrier stressor's stuck bound. */
	if (walk != JITTER_WALK_BARRIER || in_nmi() || !hp || hp == current ||
	    READ_ONCE(jitter_down_cpu) != cpu ||
	    __atomic_load_n(&jitter_walk_across[walk], __ATOMIC_ACQUIRE) ||
	    __atomic_exchange_n(&jitter_down_walked, true, __ATOMIC_SEQ_CST))
		return;
	__atomic_store_n(&jitter_walk_across[walk], true, __ATOMIC_SEQ_CST);
	this_cpu_add(jitter_count, 1);
	t0 = rdtsc();
	cycles = JITTER_ACROSS_SCALE * jitter_max_cycles[JITTER_BARRIER_WALK];
	while (__atomic_load_n(&jitter_hotplug_ends, __ATOMIC_ACQUIRE) == ends &&
	       rdtsc() - t0 < cycles)
		wait_event_timeout(jitter_hotplug_wq,
				   __atomic_load_n(&jitter_hotplug_ends, __ATOMIC_ACQUIRE) != ends,
				   HZ / 10);
	this_cpu_add(jitter_end_count, 1);
}

/*
 * From here to its halt, this CPU's hot sites are JITTER_PLAY_DEAD's
 * (kernel/jitter.h).  Only the hot sites the seed turned on reach
 * jitter_fire(): a seed that slows no lock release slows none here.
 */
void jitter_play_dead(void)
{
	this_cpu_write(jitter_dead, true);
}

/* cpu_up(), before cpu starts again (it left cpuhp_play_dead() by halting). */
void jitter_cpu_up(int cpu)
{
	*per_cpu_ptr(&jitter_dead, cpu) = false;
}

void jitter_hotplug_begin(void)
{
	WRITE_ONCE(jitter_hotplug_task, current);
}

void jitter_hotplug_down(int cpu)
{
	__atomic_store_n(&jitter_down_walked, false, __ATOMIC_RELAXED);
	WRITE_ONCE(jitter_down_cpu, cpu);
}

void jitter_hotplug_end(void)
{
	WRITE_ONCE(jitter_down_cpu, -1);
	WRITE_ONCE(jitter_hotplug_task, NULL);
	__atomic_add_fetch(&jitter_hotplug_ends, 1, __ATOMIC_RELEASE);
	wake_up_all(&jitter_hotplug_wq);
}

static u64 jitter_sum(u64 *counter)
{
	u64 n = 0;
	int cpu;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		n += *per_cpu_ptr(counter, cpu);
	return n;
}

/* Walk sites that waited for a hotplug operation, every CPU. */
u64 jitter_crossings(void)
{
	return jitter_sum(&jitter_cross_count);
}

/* Walk sites that slept until a hotplug operation's end, every CPU. */
u64 jitter_walks_held_to_end(void)
{
	return jitter_sum(&jitter_end_count);
}

u64 jitter_delays(void)
{
	return jitter_sum(&jitter_count);
}

/* Holds that fired (jitter_site_until()'s, the walk holds), and those
 * that ended early (done(), the walk's end), every CPU. */
u64 jitter_holds(void)
{
	return jitter_sum(&jitter_hold_count);
}

u64 jitter_holds_done(void)
{
	return jitter_sum(&jitter_hold_done_count);
}

/* NMIs the eqs site sent itself and saw land, every CPU. */
u64 jitter_nmis(void)
{
	return jitter_sum(&jitter_nmi_count);
}

void jitter_init(void)
{
	char buf[448];
	unsigned int mask = 0, s;
	int len = 0;
	u64 r;

	if (!jitter_max_us)
		return;
	if (!jitter_seed)
		jitter_seed = (unsigned int)(rdtsc() % 1000000u) + 1;
	if (!jitter_slow_us)
		jitter_slow_us = 16 * jitter_max_us;
	jitter_until_cycles = (u64)JITTER_UNTIL_SCALE * jitter_slow_us * tsc_khz / 1000;
	r = splitmix64(jitter_seed);
	for (s = 0; s < JITTER_NR_SITES; s++) {
		jitter_max_cycles[s] = (u64)(JITTER_LONG_SITES & (1u << s) ? jitter_slow_us :
					     jitter_max_us) * tsc_khz / 1000;
		/* A dying CPU's last switches: long enough for a wake-up on
		 * another CPU, the move of prev and its run elsewhere, to its
		 * exit, to fit inside (IPIs take milliseconds under TCG). */
		if (s == JITTER_SWITCH_DYING || s == JITTER_PLAY_DEAD)
			jitter_max_cycles[s] *= JITTER_SWITCH_DYING_SCALE;
		/* A callback's waiter on another CPU: its wake-up's IPI. */
		if (s == JITTER_CB_INVOKE)
			jitter_max_cycles[s] *= JITTER_CB_INVOKE_SCALE;
		r = splitmix64(r);
		if ((JITTER_SLOW_SITES | JITTER_OFTEN_SITES) & (1u << s))
			jitter_shift[s] = slow_shifts[r % sizeof(slow_shifts)];
		else
			jitter_shift[s] = hot_shifts[r % sizeof(hot_shifts)];
		if (jitter_shift[s] == 0xff)
			continue;
		mask |= 1u << s;
		len += snprintf(buf + len, sizeof(buf) - len, " %s:1/%u", site_names[s],
				1u << jitter_shift[s]);
	}
	pr_info("jitter: max %u us seed %u\n", jitter_max_us, jitter_seed);
	pr_info("jitter: slow paths max %u us (switch_dying %u us); sites%s\n", jitter_slow_us,
		JITTER_SWITCH_DYING_SCALE * jitter_slow_us, len ? buf : " none");
	/* Published last: a site that sees its bit finds its shift set. */
	__atomic_store_n(&jitter_site_mask, mask, __ATOMIC_RELEASE);
}
#endif
