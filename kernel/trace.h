/* kernel/trace.h: trace events in per-CPU ring buffers, in the manner of
 * Linux's ftrace events (include/trace/events/rcu.h, sched.h, irq.h).
 *
 * An event is a call such as
 *
 *   trace_rcu_grace_period("rcu_sched", gp_seq, "start");
 *
 * which costs one load and one branch predicted not taken while its
 * subsystem is off: `trace=` turns subsystems on at boot (trace=rcu,sched,
 * trace=all), so the benchmark build keeps every call at that cost
 * (bench row name=trace_off).  When on, kernel/trace.c writes a fixed-size
 * record, stamped with the TSC, into the running CPU's ring buffer; any
 * context may write (irqs off or on, irq or NMI nested inside another
 * writer), because a slot is reserved by one atomic add on the CPU's own
 * index and published by its sequence number, written last.
 *
 * The buffers are dumped to the console as `T: ` lines (the runner keeps
 * them apart from KTAP; tools/trace.py makes a timeline of them): at the
 * end of a run with trace.dump=end, and on a panic, the first RCU stall
 * warning (unless trace.stall_dump=0) and a KTAP case's timeout, as
 * Linux's ftrace_dump_on_oops.
 * Pure C, built on the host too (tests/host/rcu). */
#pragma once

#include "kernel/types.h"

enum trace_subsys {
	TRACE_RCU,		/* grace periods, QS reports, callbacks, boosting */
	TRACE_SRCU,
	TRACE_SCHED,		/* context switches and wake-ups */
	TRACE_IRQ,		/* irq and NMI entry and exit */
	TRACE_HOTPLUG,		/* cpu_down()/cpu_up() steps */
	TRACE_TICK,		/* tickless idle: tick stopped and restarted */
	TRACE_NR_SUBSYS,
};

/* Which subsystems record; written once at boot (trace_init()), and
 * cleared while a dump reads the buffers. */
extern bool trace_subsys_on[TRACE_NR_SUBSYS];

/* The events; kernel/trace.c's table names each one and its fields. */
enum trace_event_id {
	TE_NONE,
	TE_RCU_GRACE_PERIOD,
	TE_RCU_QS_REPORT,
	TE_RCU_EXP_GRACE_PERIOD,
	TE_RCU_CALLBACK,
	TE_RCU_BATCH_START,
	TE_RCU_INVOKE_CALLBACK,
	TE_RCU_BATCH_END,
	TE_RCU_PREEMPT_TASK,
	TE_RCU_UNLOCK_PREEMPTED_TASK,
	TE_RCU_BOOST,
	TE_RCU_STALL_WARNING,
	TE_RCU_READER,
	TE_SRCU_GRACE_PERIOD,
	TE_SCHED_SWITCH,
	TE_SCHED_WAKEUP,
	TE_IRQ_ENTRY,
	TE_IRQ_EXIT,
	TE_NMI_ENTRY,
	TE_NMI_EXIT,
	TE_CPUHP,
	TE_TICK_STOP,
	TE_TICK_RESTART,
	TE_NR_EVENTS,
};

/*
 * One record, 64 bytes: five 64-bit fields, one of 32 and one of 16 bits,
 * whose names and kinds (a static string, a task name, a number) the
 * event's entry in kernel/trace.c's table gives.  seq is the slot's
 * absolute index plus one, stored last (release): a reader takes a slot
 * only if seq says it holds the record it expects, so one half written
 * by an interrupted writer is skipped, and counted, never shown torn.
 */
struct trace_entry {
	u64 seq;
	u64 tsc;
	u64 f[5];
	u32 d;
	u16 id;
	u16 e;
};

/* The slow path: subsystem on.  Never call it directly. */
void trace_record(unsigned int id, u64 f0, u64 f1, u64 f2, u64 f3, u64 f4, u32 d, u16 e);

/* The arguments are evaluated only when the subsystem is on. */
#define __trace(sub, id, f0, f1, f2, f3, f4, d, e) do {			\
		if (unlikely(READ_ONCE(trace_subsys_on[sub])))		\
			trace_record(id, (u64)(unsigned long)(f0),	\
				     (u64)(unsigned long)(f1),			\
				     (u64)(unsigned long)(f2),			\
				     (u64)(unsigned long)(f3),			\
				     (u64)(unsigned long)(f4), (u32)(d), (u16)(e)); \
	} while (0)

/* A task's name, its first 8 bytes in one field (names are 16 bytes, and
 * a task may be gone by the time the trace is read). */
static inline u64 trace_comm(const char *name)
{
	u64 v;

	__builtin_memcpy(&v, name, sizeof(v));
	return v;
}

/* ---- RCU (names and fields as Linux's include/trace/events/rcu.h) ---- */

/* gpevent: "start", "init" (its qsmasks set), "fqs" (pass c), "cleanup",
 * "end". */
#define trace_rcu_grace_period(rcuname, gp_seq, gpevent) \
	__trace(TRACE_RCU, TE_RCU_GRACE_PERIOD, rcuname, gpevent, gp_seq, 0, 0, 0, 0)
#define trace_rcu_grace_period_fqs(rcuname, gp_seq, pass) \
	__trace(TRACE_RCU, TE_RCU_GRACE_PERIOD, rcuname, "fqs", gp_seq, 0, pass, 0, 0)
/* mask cleared in the node covering CPUs/children from grplo at level,
 * leaving qsmask. */
#define trace_rcu_quiescent_state_report(rcuname, gp_seq, mask, qsmask, grplo, level) \
	__trace(TRACE_RCU, TE_RCU_QS_REPORT, rcuname, NULL, gp_seq, mask, qsmask, grplo, level)
/* what: "start", "end", "ipi" (to cpu). */
#define trace_rcu_exp_grace_period(rcuname, seq, what, cpu) \
	__trace(TRACE_RCU, TE_RCU_EXP_GRACE_PERIOD, rcuname, what, seq, 0, 0, cpu, 0)
#define trace_rcu_callback(rcuname, rhp, func, qlen) \
	__trace(TRACE_RCU, TE_RCU_CALLBACK, rcuname, NULL, rhp, func, qlen, 0, 0)
#define trace_rcu_batch_start(rcuname, qlen, blimit) \
	__trace(TRACE_RCU, TE_RCU_BATCH_START, rcuname, NULL, qlen, blimit, 0, 0, 0)
#define trace_rcu_invoke_callback(rcuname, rhp, func) \
	__trace(TRACE_RCU, TE_RCU_INVOKE_CALLBACK, rcuname, NULL, rhp, func, 0, 0, 0)
#define trace_rcu_batch_end(rcuname, count) \
	__trace(TRACE_RCU, TE_RCU_BATCH_END, rcuname, NULL, count, 0, 0, 0, 0)
/* A reader preempted and queued on its leaf; its unlock dequeues it. */
#define trace_rcu_preempt_task(rcuname, pid, gp_seq) \
	__trace(TRACE_RCU, TE_RCU_PREEMPT_TASK, rcuname, NULL, pid, gp_seq, 0, 0, 0)
#define trace_rcu_unlock_preempted_task(rcuname, gp_seq, pid) \
	__trace(TRACE_RCU, TE_RCU_UNLOCK_PREEMPTED_TASK, rcuname, NULL, pid, gp_seq, 0, 0, 0)
/* what: "start", "end". */
#define trace_rcu_boost(what, pid) \
	__trace(TRACE_RCU, TE_RCU_BOOST, "rcu_preempt", what, pid, 0, 0, 0, 0)
#define trace_rcu_stall_warning(rcuname, msg, gp_seq) \
	__trace(TRACE_RCU, TE_RCU_STALL_WARNING, rcuname, msg, gp_seq, 0, 0, 0, 0)
/* A scenario's reader (tests/scenarios): what "begin" or "end", id its
 * number, saw what it read (1: the new value); and its updater: "update"
 * (begins), "commit" (the new value published), "updated" (the grace
 * period over).  The report's figure of the article is drawn from them. */
#define trace_rcu_reader(scenario, what, id, saw) \
	__trace(TRACE_RCU, TE_RCU_READER, scenario, what, id, saw, 0, 0, 0)

/* ---- SRCU ---- */
/* what: "start", "flip" (to idx), "end". */
#define trace_srcu_grace_period(name, seq, what, idx) \
	__trace(TRACE_SRCU, TE_SRCU_GRACE_PERIOD, name, what, seq, 0, 0, idx, 0)

/* ---- scheduler, interrupts, hotplug, tick ---- */
#define trace_sched_switch(prev_comm, prev_pid, prev_state, next_comm, next_pid) \
	__trace(TRACE_SCHED, TE_SCHED_SWITCH, trace_comm(prev_comm), trace_comm(next_comm), prev_pid, next_pid, prev_state, 0, 0)
#define trace_sched_wakeup(comm, pid, target_cpu) \
	__trace(TRACE_SCHED, TE_SCHED_WAKEUP, trace_comm(comm), 0, pid, 0, 0, target_cpu, 0)
#define trace_irq_handler_entry(vector) \
	__trace(TRACE_IRQ, TE_IRQ_ENTRY, NULL, NULL, 0, 0, 0, vector, 0)
#define trace_irq_handler_exit(vector) \
	__trace(TRACE_IRQ, TE_IRQ_EXIT, NULL, NULL, 0, 0, 0, vector, 0)
#define trace_nmi_entry() __trace(TRACE_IRQ, TE_NMI_ENTRY, NULL, NULL, 0, 0, 0, 0, 0)
#define trace_nmi_exit() __trace(TRACE_IRQ, TE_NMI_EXIT, NULL, NULL, 0, 0, 0, 0, 0)
/* A hotplug step of cpu: what "down"/"up" names the direction, step the
 * hook or phase, ret its result (Linux's cpuhp_enter/cpuhp_exit). */
#define trace_cpuhp(what, step, cpu, ret) \
	__trace(TRACE_HOTPLUG, TE_CPUHP, what, step, (long)(ret), 0, 0, cpu, 0)
/* ticks: how long it may stay stopped, at most (its next timer). */
#define trace_tick_stop(ticks) \
	__trace(TRACE_TICK, TE_TICK_STOP, NULL, NULL, ticks, 0, 0, 0, 0)
#define trace_tick_restart() \
	__trace(TRACE_TICK, TE_TICK_RESTART, NULL, NULL, 0, 0, 0, 0, 0)

/* ---- control ---- */

/* After the CPUs are up: parses trace=, allocates the buffers, turns the
 * chosen subsystems on.  A no-op without trace=. */
void trace_init(void);
/* Whether any buffer exists (trace= was given). */
bool trace_active(void);
/*
 * Prints the buffers, oldest event first across CPUs, as `T: ` lines
 * between a header and an end line that say how many events were lost
 * (overwritten, over trace.rate=, cut by trace.dump_max=).  Recording
 * stops for good.  Once per boot: a second call says only that the dump
 * was given already.  reason: "end", "panic", "stall", "timeout".
 */
void trace_dump(const char *reason);
/* The same from irq context: the dump is made by a thread, soon. */
void trace_dump_later(const char *reason);
/* Tests (tests/kernel/test_trace.c): records ever reserved on cpu, and
 * a copy of record idx if its slot still holds it, whole. */
unsigned long trace_cpu_head(int cpu);
bool trace_peek(int cpu, unsigned long idx, struct trace_entry *out);
/* Tests: cpu's buffer size in records, its events dropped by
 * trace.rate=, that cap, and whether a full buffer stops recording. */
unsigned long trace_cpu_size(int cpu);
unsigned long trace_cpu_capped(int cpu);
unsigned int trace_rate_cap(void);
bool trace_mode_stop(void);
#ifdef CONFIG_SANITIZE
/* Test build: called by trace_record() between a slot's reservation and
 * its writes, where tests/kernel/test_trace.c nests an NMI that records
 * too; trace.inject_split_reserve makes the reservation a plain load and
 * store, the bug that test must catch. */
extern void (*trace_inject_hook)(unsigned int id, u64 f0);
#endif
/* At the end of a run: trace_dump("end") if trace.dump=end. */
void trace_dump_at_end(void);
