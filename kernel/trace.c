/* kernel/trace.c: the trace buffers behind kernel/trace.h (recording,
 * the boot options, the dump).
 *
 * Each CPU has one ring of trace_buf_size records and an index, ->head,
 * that only ever grows.  A writer takes slot head++ by one atomic add, so
 * an irq or NMI that interrupts a writer takes the next slot and both
 * complete; the record is published by storing its sequence number last.
 * No lock anywhere: a dump (on a panic, with other CPUs perhaps stopped
 * inside a write) reads a slot twice around its copy and drops it if it
 * changed or was never finished.  trace.mode=overwrite (default) keeps
 * the newest records, =stop the first ones; either way head - size
 * records were lost, and the dump says so per CPU.
 *
 * The buffers and their heads are plain arrays (trace_bufs[]), so that
 * tools/gdb/rcukern.py's rk-trace can read them out of a stopped kernel. */
#include "kernel/trace.h"
#include "kernel/cmdline.h"
#include "kernel/kallsyms.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/slab.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "kernel/wait.h"

bool trace_subsys_on[TRACE_NR_SUBSYS];

static char *trace_param;
core_param(trace, trace_param, charp,
	   "trace events to record: all, or a comma-separated list of rcu, srcu, sched, irq, hotplug, tick");
static unsigned int trace_buf_size = 4096;
core_param(trace_buf_size, trace_buf_size, uint,
	   "trace records per CPU (rounded up to a power of two; 64 bytes each)");
static char *trace_mode_param = "overwrite";
core_param(trace.mode, trace_mode_param, charp,
	   "a full trace buffer: overwrite (keep the newest) or stop (keep the oldest)");
static char *trace_dump_param = "oops";
core_param(trace.dump, trace_dump_param, charp,
	   "when to print the trace: oops (panic, stall, test timeout) or end (also at the end of the run)");
static unsigned int trace_rate;
core_param(trace.rate, trace_rate, uint,
	   "at most this many trace events per CPU per second (0: no cap)");
/* Linux's rcupdate.rcu_cpu_stall_ftrace_dump, on by default here: a run
 * that provokes stalls on purpose (test=rcu) and measures with tracing
 * on afterwards turns it off, since a dump ends the recording. */
static bool trace_stall_dump = true;
core_param(trace.stall_dump, trace_stall_dump, bool,
	   "dump the trace on the first RCU stall warning (a dump stops the recording)");
static unsigned int trace_dump_max = 200000;
core_param(trace.dump_max, trace_dump_max, uint,
	   "a dump prints at most this many events, the newest");

static const char *const subsys_names[TRACE_NR_SUBSYS] = {
	[TRACE_RCU] = "rcu", [TRACE_SRCU] = "srcu", [TRACE_SCHED] = "sched",
	[TRACE_IRQ] = "irq", [TRACE_HOTPLUG] = "hotplug", [TRACE_TICK] = "tick",
};

/*
 * Each event's name and its fields, in the order f[0..4], d, e; each
 * field's first character is its kind: 's' a static string, 'c' a task
 * name (trace_comm()), 'f' a function (its name), 'x' hex, 'u' unsigned,
 * 'i' signed.  NULL: unused.
 * tools/trace.py reads the names, not the positions.
 */
struct trace_event_desc {
	const char *name;
	const char *f[7];
};

static const struct trace_event_desc trace_events[TE_NR_EVENTS] = {
	[TE_RCU_GRACE_PERIOD] = { "rcu_grace_period",
		{ "srcuname", "sgpevent", "igp_seq", NULL, "upass" } },
	[TE_RCU_QS_REPORT] = { "rcu_quiescent_state_report",
		{ "srcuname", NULL, "igp_seq", "xmask", "xqsmask", "ugrplo", "ulevel" } },
	[TE_RCU_EXP_GRACE_PERIOD] = { "rcu_exp_grace_period",
		{ "srcuname", "sgpevent", "igp_seq", NULL, NULL, "ucpu" } },
	[TE_RCU_CALLBACK] = { "rcu_callback",
		{ "srcuname", NULL, "xrhp", "ffunc", "uqlen" } },
	[TE_RCU_BATCH_START] = { "rcu_batch_start",
		{ "srcuname", NULL, "uqlen", "ublimit" } },
	[TE_RCU_INVOKE_CALLBACK] = { "rcu_invoke_callback",
		{ "srcuname", NULL, "xrhp", "ffunc" } },
	[TE_RCU_BATCH_END] = { "rcu_batch_end",
		{ "srcuname", NULL, "ucallbacks_invoked" } },
	[TE_RCU_PREEMPT_TASK] = { "rcu_preempt_task",
		{ "srcuname", NULL, "xpid", "igp_seq" } },
	[TE_RCU_UNLOCK_PREEMPTED_TASK] = { "rcu_unlock_preempted_task",
		{ "srcuname", NULL, "xpid", "igp_seq" } },
	[TE_RCU_BOOST] = { "rcu_boost",
		{ "srcuname", "swhat", "xpid" } },
	[TE_RCU_STALL_WARNING] = { "rcu_stall_warning",
		{ "srcuname", "smsg", "igp_seq" } },
	[TE_RCU_READER] = { "rcu_reader",
		{ "sscenario", "swhat", "uid", "usaw" } },
	[TE_SRCU_GRACE_PERIOD] = { "srcu_grace_period",
		{ "sname", "sgpevent", "igp_seq", NULL, NULL, "uidx" } },
	[TE_SCHED_SWITCH] = { "sched_switch",
		{ "cprev_comm", "cnext_comm", "xprev_pid", "xnext_pid", "iprev_state" } },
	[TE_SCHED_WAKEUP] = { "sched_wakeup",
		{ "ccomm", NULL, "xpid", NULL, NULL, "utarget_cpu" } },
	[TE_IRQ_ENTRY] = { "irq_handler_entry", { NULL, NULL, NULL, NULL, NULL, "uirq" } },
	[TE_IRQ_EXIT] = { "irq_handler_exit", { NULL, NULL, NULL, NULL, NULL, "uirq" } },
	[TE_NMI_ENTRY] = { "nmi_entry", { NULL } },
	[TE_NMI_EXIT] = { "nmi_exit", { NULL } },
	[TE_CPUHP] = { "cpuhp", { "sdir", "sstep", "iret", NULL, NULL, "ucpu" } },
	[TE_TICK_STOP] = { "tick_stop", { NULL, NULL, "uticks" } },
	[TE_TICK_RESTART] = { "tick_restart", { NULL } },
};

struct trace_buf {
	struct trace_entry *ent;	/* size records; NULL: not tracing */
	unsigned long mask;		/* size - 1 */
	unsigned long head;		/* records ever reserved */
	unsigned long win_start;	/* trace.rate=: jiffies its second began */
	unsigned long win_count;	/* events in that second */
	unsigned long capped;		/* dropped by trace.rate= */
} ____cacheline_aligned;

struct trace_buf trace_bufs[NR_CPUS];
#ifdef CONFIG_SANITIZE
void (*trace_inject_hook)(unsigned int id, u64 f0);
static bool trace_inject_split_reserve;
core_param(trace.inject_split_reserve, trace_inject_split_reserve, bool,
	   "test build: reserve a trace slot by a load and a store (a bug test=trace catches)");
#endif
static bool trace_stop_when_full;
static bool trace_enabled_any;

/* trace_dump_later(): the reason asked for, and the thread that dumps. */
static const char *dump_pending;
static DECLARE_WAIT_QUEUE_HEAD(trace_dump_wq);

/* The slow path of every trace_*() call whose subsystem is on. */
void trace_record(unsigned int id, u64 f0, u64 f1, u64 f2, u64 f3, u64 f4, u32 d, u16 e)
{
	struct trace_buf *bf = &trace_bufs[raw_smp_processor_id()];
	u64 tsc = get_cycles();
	struct trace_entry *ent;
	unsigned long idx;

	if (!READ_ONCE(bf->ent))
		return;		/* a CPU that came up after trace_init() */
	if (trace_rate) {
		unsigned long now = jiffies;

		/* Racy against a nested writer: a count lost, nothing worse. */
		if (now - READ_ONCE(bf->win_start) >= HZ) {
			WRITE_ONCE(bf->win_start, now);
			WRITE_ONCE(bf->win_count, 0);
		}
		if (__atomic_add_fetch(&bf->win_count, 1, __ATOMIC_RELAXED) > trace_rate) {
			__atomic_add_fetch(&bf->capped, 1, __ATOMIC_RELAXED);
			return;
		}
	}
#ifdef CONFIG_SANITIZE
	if (unlikely(trace_inject_split_reserve)) {
		idx = READ_ONCE(bf->head);
		if (trace_inject_hook)
			trace_inject_hook(id, f0);
		WRITE_ONCE(bf->head, idx + 1);
	} else {
		idx = __atomic_fetch_add(&bf->head, 1, __ATOMIC_RELAXED);
		if (trace_inject_hook)
			trace_inject_hook(id, f0);
	}
#else
	idx = __atomic_fetch_add(&bf->head, 1, __ATOMIC_RELAXED);
#endif
	if (trace_stop_when_full && idx > bf->mask)
		return;		/* counted as lost: head passed the size */
	ent = &bf->ent[idx & bf->mask];
	/* Unpublish first: a reader must not take the old record's number
	 * with our fields half written into it. */
	__atomic_store_n(&ent->seq, 0, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	ent->tsc = tsc;
	ent->f[0] = f0;
	ent->f[1] = f1;
	ent->f[2] = f2;
	ent->f[3] = f3;
	ent->f[4] = f4;
	ent->d = d;
	ent->id = (u16)id;
	ent->e = e;
	__atomic_store_n(&ent->seq, (u64)idx + 1, __ATOMIC_RELEASE);
}

bool trace_active(void)
{
	return READ_ONCE(trace_enabled_any);
}

/* trace=LIST: true if it names something; unknown names are reported. */
static bool trace_parse(const char *list, bool *on)
{
	bool any = false;

	for (const char *p = list; *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		bool known = false;

		for (int i = 0; i < TRACE_NR_SUBSYS; i++) {
			if ((len == 3 && !strncmp(p, "all", 3)) ||
			    (strlen(subsys_names[i]) == len && !strncmp(p, subsys_names[i], len))) {
				on[i] = known = any = true;
			}
		}
		if (!known && len)
			printk(KERN_ERR "trace: trace=%s: unknown subsystem '%.*s' (all, rcu, srcu, sched, irq, hotplug, tick)\n",
			       list, (int)len, p);
		p += len;
		if (*p == ',')
			p++;
	}
	return any;
}

/*
 * Dumps asked for from irq context (a stall warning in the tick, a hard
 * lockup report): a dump takes seconds, and a CPU that spends them with
 * irqs off is itself a hard lockup.  This thread dumps instead.
 */
static int trace_dumper(void *unused)
{
	(void)unused;
	wait_event(trace_dump_wq, READ_ONCE(dump_pending));
	trace_dump(READ_ONCE(dump_pending));
	return 0;
}

void trace_dump_later(const char *reason)
{
	const char *none = NULL;

	if (!strcmp(reason, "stall") && !trace_stall_dump)
		return;
	if (trace_active() &&
	    __atomic_compare_exchange_n(&dump_pending, &none, reason, false,
					__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		wake_up(&trace_dump_wq);
}

void trace_init(void)
{
	bool on[TRACE_NR_SUBSYS] = { false };
	struct task *t;
	unsigned long size = 16;
	int cpu, ncpus = 0;

	if (!trace_param || !trace_parse(trace_param, on))
		return;
	while (size < trace_buf_size && size < (1ul << 24))
		size <<= 1;
	if (!strcmp(trace_mode_param, "stop"))
		trace_stop_when_full = true;
	else if (strcmp(trace_mode_param, "overwrite"))
		printk(KERN_ERR "trace: trace.mode=%s is not overwrite or stop; using overwrite\n",
		       trace_mode_param);
	for_each_online_cpu(cpu) {
		struct trace_entry *ent = kzalloc(size * sizeof(*ent), GFP_KERNEL);

		if (!ent) {
			printk(KERN_ERR "trace: no memory for CPU %d's %lu records\n", cpu, size);
			continue;
		}
		trace_bufs[cpu].mask = size - 1;
		trace_bufs[cpu].win_start = jiffies;
		__atomic_store_n(&trace_bufs[cpu].ent, ent, __ATOMIC_RELEASE);
		ncpus++;
	}
	if (!ncpus)
		return;
	t = kthread_create(trace_dumper, NULL, "trace_dump");
	if (t) {
		set_task_prio(t, PRIO_HIGH);
		wake_up_process(t);
	}
	WRITE_ONCE(trace_enabled_any, true);
	for (int i = 0; i < TRACE_NR_SUBSYS; i++)
		WRITE_ONCE(trace_subsys_on[i], on[i]);
	printk(KERN_INFO "trace: trace=%s on %d CPUs, %lu records (%lu KiB) each, mode %s, rate cap %u/s, dump %s\n",
	       trace_param, ncpus, size, size * sizeof(struct trace_entry) / 1024,
	       trace_stop_when_full ? "stop" : "overwrite", trace_rate, trace_dump_param);
}

/* ---- the dump ---- */

/* Where a CPU's dump starts and stops (absolute slot numbers). */
struct dump_cursor {
	unsigned long next, end;
	struct trace_entry cur;		/* the record at next, if valid */
	bool have;
};

/* Copies slot idx of bf into *out if it holds record idx, whole. */
static bool read_slot(struct trace_buf *bf, unsigned long idx, struct trace_entry *out)
{
	struct trace_entry *ent = &bf->ent[idx & bf->mask];
	u64 s1 = __atomic_load_n(&ent->seq, __ATOMIC_ACQUIRE);

	if (s1 != (u64)idx + 1)
		return false;
	memcpy(out, ent, sizeof(*out));
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&ent->seq, __ATOMIC_RELAXED) == s1;
}

unsigned long trace_cpu_head(int cpu)
{
	return __atomic_load_n(&trace_bufs[cpu].head, __ATOMIC_ACQUIRE);
}

bool trace_peek(int cpu, unsigned long idx, struct trace_entry *out)
{
	return trace_bufs[cpu].ent && read_slot(&trace_bufs[cpu], idx, out);
}

unsigned long trace_cpu_size(int cpu)
{
	return trace_bufs[cpu].ent ? trace_bufs[cpu].mask + 1 : 0;
}

unsigned long trace_cpu_capped(int cpu)
{
	return __atomic_load_n(&trace_bufs[cpu].capped, __ATOMIC_RELAXED);
}

unsigned int trace_rate_cap(void)
{
	return trace_rate;
}

bool trace_mode_stop(void)
{
	return trace_stop_when_full;
}

/* Moves c to its next whole record; counts the torn ones skipped. */
static void cursor_fill(struct trace_buf *bf, struct dump_cursor *c, unsigned long *torn)
{
	c->have = false;
	while (c->next < c->end) {
		if (read_slot(bf, c->next, &c->cur)) {
			c->have = true;
			return;
		}
		c->next++;
		(*torn)++;
	}
}

/* A static string or a task name as one word (no spaces: the line is
 * split on them). */
static int print_word(char *buf, size_t size, const char *w, size_t max)
{
	size_t n = 0;

	if (!w || !*w)
		w = "-";
	for (; n < max && w[n] && n + 1 < size; n++)
		buf[n] = (w[n] == ' ' || w[n] == '=' || w[n] < 0x21 || w[n] > 0x7e) ? '_' : w[n];
	buf[n] = 0;
	return (int)n;
}

static void print_event(int cpu, const struct trace_entry *t)
{
	const struct trace_event_desc *d =
		t->id < TE_NR_EVENTS && trace_events[t->id].name ? &trace_events[t->id] : NULL;
	u64 v[7] = { t->f[0], t->f[1], t->f[2], t->f[3], t->f[4], t->d, t->e };
	char line[256];
	int n;

	n = snprintf(line, sizeof(line), "T: %d %llu %s", cpu,
		     (unsigned long long)cycles_to_ktime_ns(t->tsc), d ? d->name : "unknown");
	if (!d)
		n += snprintf(line + n, sizeof(line) - n, " id=%u", t->id);
	for (int i = 0; d && i < 7 && n < (int)sizeof(line) - 40; i++) {
		const char *f = d->f[i];
		char word[24];
		u64 comm[2] = { v[i], 0 };

		if (!f)
			continue;
		switch (f[0]) {
		case 's':
			print_word(word, sizeof(word), (const char *)(unsigned long)v[i], 20);
			n += snprintf(line + n, sizeof(line) - n, " %s=%s", f + 1, word);
			break;
		case 'c':
			print_word(word, sizeof(word), (const char *)comm, 8);
			n += snprintf(line + n, sizeof(line) - n, " %s=%s", f + 1, word);
			break;
		case 'f': {
			char sym[64];

			sprint_symbol(sym, sizeof(sym), (unsigned long)v[i]);
			if (strchr(sym, '+'))
				*strchr(sym, '+') = 0;
			print_word(word, sizeof(word), sym, 23);
			n += snprintf(line + n, sizeof(line) - n, " %s=%s", f + 1, word);
			break;
		}
		case 'x':
			n += snprintf(line + n, sizeof(line) - n, " %s=0x%llx", f + 1,
				      (unsigned long long)v[i]);
			break;
		case 'i':
			n += snprintf(line + n, sizeof(line) - n, " %s=%lld", f + 1, (long long)v[i]);
			break;
		default:
			n += snprintf(line + n, sizeof(line) - n, " %s=%llu", f + 1,
				      (unsigned long long)v[i]);
		}
	}
	printk_raw_nolog("%s\n", line);
}

void trace_dump(const char *reason)
{
	static int dumped;
	static struct dump_cursor cur[NR_CPUS];
	unsigned long total = 0, lost = 0, capped = 0, torn = 0, skip, printed = 0;
	int cpu;

	if (!trace_active())
		return;
	if (__atomic_exchange_n(&dumped, 1, __ATOMIC_SEQ_CST)) {
		printk(KERN_INFO "trace: no dump (%s): the trace was dumped already\n", reason);
		return;
	}
	for (int i = 0; i < TRACE_NR_SUBSYS; i++)
		WRITE_ONCE(trace_subsys_on[i], false);

	printk(KERN_INFO "trace: dump (%s) begins\n", reason);
	printk_raw_nolog("T: begin reason=%s mode=%s tsc_khz=%llu\n", reason,
		   trace_stop_when_full ? "stop" : "overwrite", (unsigned long long)tsc_khz);
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		struct trace_buf *bf = &trace_bufs[cpu];
		unsigned long head = __atomic_load_n(&bf->head, __ATOMIC_ACQUIRE);
		unsigned long size = bf->mask + 1, l;

		cur[cpu].next = cur[cpu].end = 0;
		cur[cpu].have = false;
		if (!bf->ent)
			continue;
		l = head > size ? head - size : 0;
		if (trace_stop_when_full) {
			cur[cpu].end = head > size ? size : head;
		} else {
			cur[cpu].next = l;
			cur[cpu].end = head;
		}
		cursor_fill(bf, &cur[cpu], &torn);
		printk_raw_nolog("T: cpu=%d recorded=%lu lost=%lu capped=%lu first_ns=%llu\n", cpu,
			   head, l, READ_ONCE(bf->capped),
			   cur[cpu].have ? (unsigned long long)cycles_to_ktime_ns(cur[cpu].cur.tsc) : 0ull);
		total += cur[cpu].end - cur[cpu].next;
		lost += l;
		capped += READ_ONCE(bf->capped);
	}
	/* trace.dump_max=: the oldest beyond it are skipped, and counted. */
	skip = total > trace_dump_max ? total - trace_dump_max : 0;
	if (skip)
		printk_raw_nolog("T: skipped=%lu oldest (trace.dump_max=%u)\n", skip, trace_dump_max);
	for (;;) {
		int best = -1;

		for (cpu = 0; cpu < NR_CPUS; cpu++)
			if (cur[cpu].have &&
			    (best < 0 || (s64)(cur[cpu].cur.tsc - cur[best].cur.tsc) < 0))
				best = cpu;
		if (best < 0)
			break;
		if (skip)
			skip--;
		else {
			print_event(best, &cur[best].cur);
			printed++;
		}
		cur[best].next++;
		cursor_fill(&trace_bufs[best], &cur[best], &torn);
	}
	printk_raw_nolog("T: end printed=%lu lost=%lu capped=%lu torn=%lu skipped=%lu\n", printed,
		   lost, capped, torn, total > trace_dump_max ? total - trace_dump_max : 0ul);
	printk(KERN_INFO "trace: dump (%s) ends: %lu events printed, %lu lost (overwritten or full), %lu over trace.rate, %lu torn, %lu skipped\n",
	       reason, printed, lost, capped, torn,
	       total > trace_dump_max ? total - trace_dump_max : 0ul);
}

void trace_dump_at_end(void)
{
	if (trace_active() && !strcmp(trace_dump_param, "end"))
		trace_dump("end");
}
