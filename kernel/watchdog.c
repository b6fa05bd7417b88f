/*
 * kernel/watchdog.c: the hard-lockup detector.  A CPU that spins with
 * irqs off takes no timer tick and never schedules, so nothing on it can
 * notice; another CPU has to.  As in Linux's "buddy" detector, each CPU
 * watches the next online one: its own tick counts how many of its ticks
 * have gone by since the watched CPU's tick count last moved.  Past
 * watchdog_thresh seconds' worth, it asks the watched CPU through an NMI
 * (which irqs off do not block) whether it is interrupted with irqs off
 * and still has not ticked.  Only a second such answer, a second later,
 * is reported: "Watchdog detected hard LOCKUP on cpu N" and N's
 * backtrace, then a panic (nmi_watchdog=nopanic: only the report).
 *
 * The thresholds count jiffies, not TSC time: jiffies are the ticks of
 * one CPU (kernel/tick_sched.c), so a loaded host slows the watch down
 * instead of making false reports; and a watched vCPU that was merely
 * not run answers the NMI with irqs on, or ticks before the second
 * question.  Not the watcher's own ticks: under tickless idle an idle
 * watcher takes about one a second, and its watch would take hours.  The NMI
 * itself is the arch's (asm/nmi.h, asm/smp.h).
 *
 * A CPU in tickless idle (kernel/tick_sched.c) takes no ticks on purpose
 * and is not watched while its tick is stopped; a tickless watcher looks
 * only when it wakes (at least every NOHZ_MAX_TICKS), which delays a
 * report by up to that much in each phase.  That leaves a hole: its
 * flag is set with irqs off just before the halt and cleared by the next
 * interrupt's entry, so a CPU that hangs in between (in the idle path
 * between stopping its tick and halting, or in an NMI handler that never
 * returns to the halt) is never reported.  A hang in an interrupt handler
 * is still seen: the interrupt restarted the tick first.
 */
#include "kernel/watchdog.h"
#include "kernel/trace.h"
#include "kernel/cmdline.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "kernel/system.h"
#include "kernel/tick_sched.h"
#include "kernel/time.h"
#include "asm/nmi.h"
#include "asm/ptrace.h"
#include "asm/smp.h"

static unsigned int watchdog_thresh = 10;
core_param(watchdog_thresh, watchdog_thresh, uint,
	   "seconds (of jiffies) a CPU may go without a tick with irqs off before it is reported as a hard lockup; 0: no detector");
static char *nmi_watchdog = "panic";
core_param(nmi_watchdog, nmi_watchdog, charp,
	   "the hard-lockup detector: panic (report, then panic), nopanic (report only), 0 (off)");

atomic_t hardlockup_reports = ATOMIC_INIT(0);
static bool watchdog_stopped;

/* Each CPU's ticks (Linux's name: they come from its hrtimer there). */
static DEFINE_PER_CPU(unsigned long, hrtimer_interrupts);

enum { WATCHING, PROBED, CONFIRMING, REPORTED };

/* What a CPU knows about the one it watches. */
struct watch {
	int target;		/* -1: none yet */
	unsigned long saved;	/* its tick count when last seen moving */
	unsigned long since;	/* jiffies then */
	unsigned long phase_since;	/* jiffies when this phase began */
	int phase, round;
};
static DEFINE_PER_CPU(struct watch, watchdog_watch);

/* The question put to a watched CPU by NMI, and its answer. */
enum { PROBE_NONE, PROBE_ASKED, PROBE_STUCK, PROBE_RUNNING };
struct probe {
	int state;
	unsigned long ticks;	/* the count the watcher saw stand still */
};
static struct probe probes[NR_CPUS];

static int watchdog_nmi(struct pt_regs *regs, void *data)
{
	struct probe *p = &probes[smp_processor_id()];
	bool stuck;

	(void)data;
	if (__atomic_load_n(&p->state, __ATOMIC_ACQUIRE) != PROBE_ASKED)
		return NMI_DONE;
	stuck = !regs_irqs_enabled(regs) && this_cpu_read(hrtimer_interrupts) == p->ticks;
	__atomic_store_n(&p->state, stuck ? PROBE_STUCK : PROBE_RUNNING, __ATOMIC_RELEASE);
	return NMI_HANDLED;
}

static struct nmiaction watchdog_action = { watchdog_nmi, NULL, "watchdog" };
static bool nmi_registered;

static bool watchdog_panics(void)
{
	return strcmp(nmi_watchdog, "nopanic") != 0;
}

static bool watchdog_enabled(void)
{
	return watchdog_thresh && strcmp(nmi_watchdog, "0") != 0 &&
	       !__atomic_load_n(&watchdog_stopped, __ATOMIC_RELAXED);
}

void watchdog_stop(void)
{
	__atomic_store_n(&watchdog_stopped, true, __ATOMIC_RELAXED);
}

/* The next online CPU after this one that has started ticking. */
static int watchdog_next_cpu(int me)
{
	for (int i = 1; i < nr_cpu_ids; i++) {
		int cpu = (me + i) % nr_cpu_ids;

		if (cpu_online(cpu) && READ_ONCE(per_cpu(hrtimer_interrupts, cpu)))
			return cpu;
	}
	return -1;
}

static bool watchdog_probe(int cpu, unsigned long ticks)
{
	struct probe *p = &probes[cpu];

	if (!__atomic_exchange_n(&nmi_registered, true, __ATOMIC_ACQ_REL) &&
	    register_nmi_handler(&watchdog_action) < 0) {
		pr_err("watchdog: no NMI handler slot; hard lockups go unreported\n");
		watchdog_stop();
		return false;
	}
	p->ticks = ticks;
	__atomic_store_n(&p->state, PROBE_ASKED, __ATOMIC_RELEASE);
	return arch_send_nmi(cpu);
}

static void watchdog_report(int cpu, const char *how)
{
	atomic_inc(&hardlockup_reports);
	pr_emerg("watchdog: Watchdog detected hard LOCKUP on cpu %d: no timer tick for %u s "
		 "of jiffies (CPU %d watching), %s\n", cpu, watchdog_thresh, smp_processor_id(), how);
	if (!trigger_cpu_backtrace(cpu))
		pr_emerg("watchdog: no backtrace from CPU %d\n", cpu);
	if (!watchdog_panics())
		trace_dump_later("hardlockup");	/* a panic dumps at once */
	if (watchdog_panics())
		panic("Hard LOCKUP on cpu %d", cpu);
}

/* Round 1 or 2: asks w's target by NMI whether it is stuck, or reports
 * it at once if no NMI can be sent. */
static void watchdog_ask(struct watch *w, int round)
{
	w->round = round;
	w->phase_since = jiffies;
	w->phase = PROBED;
	if (!watchdog_probe(w->target, w->saved)) {
		watchdog_report(w->target, "and it cannot be sent an NMI");
		w->phase = REPORTED;
	}
}

void watchdog_tick(void)
{
	struct watch *w = this_cpu_ptr(&watchdog_watch);
	unsigned long thresh_ticks, now;
	int me = smp_processor_id(), target, state;

	this_cpu_inc(hrtimer_interrupts);
	if (!watchdog_enabled())
		return;
	target = watchdog_next_cpu(me);
	if (target != w->target || target < 0) {
		w->target = target;
		w->saved = target < 0 ? 0 : READ_ONCE(per_cpu(hrtimer_interrupts, target));
		w->since = w->phase_since = jiffies;
		w->phase = WATCHING;
		return;
	}
	now = READ_ONCE(per_cpu(hrtimer_interrupts, target));
	/* A tickless idle CPU takes no ticks on purpose: not watched. */
	if (now != w->saved || tick_nohz_tick_stopped_cpu(target)) {
		w->saved = now;
		w->since = jiffies;
		w->phase = WATCHING;
		return;
	}
	thresh_ticks = (unsigned long)watchdog_thresh * hz;
	switch (w->phase) {
	case WATCHING:
		if (jiffies - w->since >= thresh_ticks)
			watchdog_ask(w, 1);
		break;
	case PROBED:
		state = __atomic_load_n(&probes[target].state, __ATOMIC_ACQUIRE);
		if (state == PROBE_RUNNING) {
			/* Irqs on: the host did not run it, or it is in a
			 * long irq-enabled stretch without a tick (none). */
			w->since = jiffies;
			w->phase = WATCHING;
		} else if (state == PROBE_STUCK && w->round == 1) {
			w->phase_since = jiffies;
			w->phase = CONFIRMING;
		} else if (state == PROBE_STUCK) {
			watchdog_report(target, "irqs off");
			w->phase = REPORTED;
		} else if (jiffies - w->phase_since >= thresh_ticks) {
			watchdog_report(target, "and it does not answer NMIs");
			w->phase = REPORTED;
		}
		break;
	case CONFIRMING:
		/* A second of jiffies for a short irqs-off stretch to end. */
		if (jiffies - w->phase_since >= hz)
			watchdog_ask(w, 2);
		break;
	default:
		break;		/* reported: quiet until it ticks again */
	}
}
