/* arch/x86_64/nmi.c: NMI handling.  The entry stub (nmi_entry.asm) makes
 * nesting safe; here each NMI is counted and handed to every registered
 * handler.  The handler table is a fixed array of pointers, published with
 * release stores and read with acquire loads, so an NMI sees either no
 * action or a complete one.  Unregistering waits, per CPU, until an NMI
 * that might have read the old pointer has finished: each CPU's nmi_seq
 * is odd while it is inside its outermost NMI.  That makes the race with
 * a handler in flight impossible, not unlikely; RCU may replace it later. */
#include "arch/x86_64/nmi.h"
#include "arch/x86_64/lapic.h"
#include "asm/cpu.h"
#include "asm/irq.h"
#include "asm/nmi.h"
#include "asm/smp.h"
#include "kernel/atomic.h"
#include "kernel/kallsyms.h"
#include "kernel/lockdep.h"
#include "kernel/preempt.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/stacktrace.h"
#include "kernel/time.h"

DEFINE_PER_CPU(u64, nmi_count);
DEFINE_PER_CPU(u64, nmi_unknown);
DEFINE_PER_CPU(u64, nmi_nested);
DEFINE_PER_CPU(unsigned long, nmi_seq);
DEFINE_PER_CPU(int, nmi_depth);

static struct nmiaction *nmi_actions[NMI_MAX_HANDLERS];

extern char nmi_entry[];

/* The IDT is idt.c's; we only swap the NMI gate's target, read back from
 * IDTR so that idt.c needs no hook for it.  Done on the boot CPU before
 * any NMI source is armed; the other CPUs load the same table. */
/* platform_nmi(): one CPU at a time reads and clears the NMI reason port. */
static arch_spinlock_t nmi_reason_lock = __ARCH_SPIN_LOCK_UNLOCKED;

void nmi_init(void)
{
	struct {
		u16 limit;
		u64 base;
	} __packed idtr;
	u64 addr = (u64)nmi_entry;

	/* Taken only in NMIs, with a trylock: NMI-safe by design. */
	lockdep_set_nmi_safe(&nmi_reason_lock);
	__asm__ __volatile__("sidt %0" : "=m"(idtr));
	if (idtr.limit < NMI_VECTOR * 16 + 15) {
		pr_err("nmi: IDT too short to hold the NMI gate\n");
		return;
	}
	volatile u16 *gate = (volatile u16 *)(idtr.base + NMI_VECTOR * 16);

	/* offset 15:0 at +0, 31:16 at +6, 63:32 at +8; selector, IST and
	 * type stay as idt.c set them. */
	gate[0] = addr & 0xffff;
	gate[3] = (addr >> 16) & 0xffff;
	*(volatile u32 *)(gate + 4) = addr >> 32;
}

int register_nmi_handler(struct nmiaction *a)
{
	for (int i = 0; i < NMI_MAX_HANDLERS; i++)
		if (__atomic_load_n(&nmi_actions[i], __ATOMIC_RELAXED) == a)
			return -EBUSY;
	for (int i = 0; i < NMI_MAX_HANDLERS; i++) {
		struct nmiaction *none = NULL;

		if (__atomic_compare_exchange_n(&nmi_actions[i], &none, a, false,
						__ATOMIC_RELEASE, __ATOMIC_RELAXED))
			return 0;
	}
	return -ENOSPC;
}

void unregister_nmi_handler(struct nmiaction *a)
{
	unsigned long seen[NR_CPUS];
	int cpu;

	for (int i = 0; i < NMI_MAX_HANDLERS; i++) {
		struct nmiaction *want = a;

		__atomic_compare_exchange_n(&nmi_actions[i], &want, NULL, false,
					    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
	}
	/* Pairs with the full barrier after nmi_seq++ in nmi_handler(): an
	 * NMI either saw the slot empty or shows an odd count we wait out. */
	smp_mb();
	for_each_online_cpu(cpu)
		seen[cpu] = READ_ONCE(per_cpu(nmi_seq, cpu));
	for_each_online_cpu(cpu) {
		u64 t0 = get_cycles(), warned = 0;

		if (!(seen[cpu] & 1))
			continue;
		while (READ_ONCE(per_cpu(nmi_seq, cpu)) == seen[cpu]) {
			if (!warned && get_cycles() - t0 > ns_to_cycles(1000000000ull)) {
				pr_err("nmi: CPU %d has been inside an NMI for 1 s; still waiting to unregister '%s'\n",
				       cpu, a->name ? a->name : "?");
				warned = 1;
			}
			cpu_relax();
		}
	}
	smp_mb();
}

/* The chipset's NMI sources, latched in system control port B (Linux's
 * NMI_REASON_*): bit 7 PCI SERR# (or memory parity), bit 6 I/O channel
 * check.  A latch stays set, and keeps raising NMIs, until its enable bit
 * (3 for IOCHK, 2 for SERR) is written to 1; the low bits (PIT gate,
 * speaker) are written back as read. */
#define NMI_REASON_PORT        0x61
#define NMI_REASON_SERR        0x80
#define NMI_REASON_IOCHK       0x40
#define NMI_REASON_CLEAR_SERR  0x04
#define NMI_REASON_CLEAR_IOCHK 0x08
#define NMI_REASON_CLEAR_MASK  0x0f

static u64 nmi_serr_count, nmi_iochk_count;

/* An NMI no handler claimed: if port 0x61 names a chipset source, report
 * it, clear the latch and leave that source disabled (as Linux's
 * pci_serr_error() does; Linux re-enables IOCHK after 2 s of udelay,
 * which is too long to spend in an NMI here).  One CPU at a time: the
 * port is shared.  True if it was one. */
static bool platform_nmi(void)
{
	u8 reason;

	if (!arch_spin_trylock(&nmi_reason_lock))
		return false;
	reason = inb(NMI_REASON_PORT);
	if (!(reason & (NMI_REASON_SERR | NMI_REASON_IOCHK))) {
		arch_spin_unlock(&nmi_reason_lock);
		return false;
	}
	if (reason & NMI_REASON_SERR) {
		if (nmi_serr_count++ < 3)
			printk(KERN_EMERG "NMI: PCI system error (SERR) for reason %02x on CPU %d; SERR NMIs now disabled\n",
			       reason, smp_processor_id());
		outb((reason & NMI_REASON_CLEAR_MASK) | NMI_REASON_CLEAR_SERR, NMI_REASON_PORT);
	} else {
		if (nmi_iochk_count++ < 3)
			printk(KERN_EMERG "NMI: IOCK error (debug interrupt?) for reason %02x on CPU %d; IOCHK NMIs now disabled\n",
			       reason, smp_processor_id());
		outb((reason & NMI_REASON_CLEAR_MASK) | NMI_REASON_CLEAR_IOCHK, NMI_REASON_PORT);
	}
	arch_spin_unlock(&nmi_reason_lock);
	return true;
}

void nmi_handler(struct pt_regs *regs)
{
	int handled = 0;
	bool outer = this_cpu_read(nmi_depth) == 0;

	this_cpu_inc(nmi_depth);
	this_cpu_inc(nmi_count);
	if (outer) {
		this_cpu_inc(nmi_seq);
		smp_mb();
	} else {
		this_cpu_inc(nmi_nested);
	}
	for (int i = 0; i < NMI_MAX_HANDLERS; i++) {
		struct nmiaction *a = __atomic_load_n(&nmi_actions[i], __ATOMIC_ACQUIRE);

		if (a)
			handled |= a->handler(regs, a->data);
	}
	if (!handled && !platform_nmi()) {
		this_cpu_inc(nmi_unknown);
		if (this_cpu_read(nmi_unknown) <= 3)
			printk(KERN_WARNING "NMI received for unknown reason %02x on CPU %d\n",
			       inb(NMI_REASON_PORT), smp_processor_id());
	}
	if (outer) {
		smp_mb();
		this_cpu_inc(nmi_seq);
	}
	this_cpu_dec(nmi_depth);
}

/* ---- smp_call_nmi() ----
 * One pending function per target CPU; the NMI handler takes it with an
 * exchange, so an NMI that carries another reason too still runs it once. */

static smp_nmi_func_t nmi_call_fn[NR_CPUS];
static bool nmi_call_registered;

static int nmi_call_handler(struct pt_regs *regs, void *data)
{
	smp_nmi_func_t fn = __atomic_exchange_n(&nmi_call_fn[smp_processor_id()], NULL,
						__ATOMIC_ACQ_REL);

	(void)regs;
	(void)data;
	if (!fn)
		return NMI_DONE;
	fn();
	return NMI_HANDLED;
}

static struct nmiaction nmi_call_action = { nmi_call_handler, NULL, "smp_call_nmi" };

bool smp_call_nmi(int cpu, smp_nmi_func_t fn)
{
	smp_nmi_func_t none = NULL;

	if (cpu < 0 || cpu >= NR_CPUS || !cpu_online(cpu) || in_nmi())
		return false;
	if (!__atomic_load_n(&nmi_call_registered, __ATOMIC_ACQUIRE)) {
		int ret = register_nmi_handler(&nmi_call_action);

		if (ret < 0 && ret != -EBUSY)
			return false;
		__atomic_store_n(&nmi_call_registered, true, __ATOMIC_RELEASE);
	}
	if (!__atomic_compare_exchange_n(&nmi_call_fn[cpu], &none, fn, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return false;
	if (arch_send_nmi(cpu))
		return true;
	__atomic_store_n(&nmi_call_fn[cpu], NULL, __ATOMIC_RELEASE);
	return false;
}

/* ---- NMI backtraces ----
 * The target's NMI handler only copies its interrupted registers and
 * return addresses into a per-CPU snapshot; the requester prints them.  A
 * CPU stuck with irqs off could not flush its own NMI printk buffer, and
 * that is exactly the CPU whose backtrace is wanted. */

#define BT_DEPTH 24

struct bt_snapshot {
	int state;		/* 0 idle, 1 requested, 2 filled */
	struct pt_regs regs;
	int depth;
	unsigned long ips[BT_DEPTH];
	u64 guess;		/* bit i: ips[i] is a guess ("?") */
};

static struct bt_snapshot bt_snap[NR_CPUS];
static bool bt_registered;

/* The same walk as a panic backtrace (save_stack_trace_regs): a frameless
 * function's caller, read from the interrupted stack, is not skipped. */
static int backtrace_nmi(struct pt_regs *regs, void *data)
{
	struct bt_snapshot *s = &bt_snap[smp_processor_id()];

	(void)data;
	if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != 1)
		return NMI_DONE;
	s->regs = *regs;
	s->depth = save_stack_trace_regs(regs->rbp, regs->rip, regs->rsp,
					 s->ips, &s->guess, BT_DEPTH);
	__atomic_store_n(&s->state, 2, __ATOMIC_RELEASE);
	return NMI_HANDLED;
}

static struct nmiaction backtrace_action = { backtrace_nmi, NULL, "backtrace" };

static void print_snapshot(int cpu, struct bt_snapshot *s)
{
	char sym[96];
	const struct pt_regs *r = &s->regs;

	sprint_symbol(sym, sizeof(sym), r->rip);
	printk(KERN_WARNING "NMI backtrace for cpu %d\n", cpu);
	printk(KERN_WARNING "RIP: %016llx %s\n", (unsigned long long)r->rip, sym);
	printk(KERN_WARNING "RSP: %016llx RBP: %016llx RFLAGS: %08llx\n",
	       (unsigned long long)r->rsp, (unsigned long long)r->rbp,
	       (unsigned long long)r->rflags);
	printk(KERN_WARNING "Call Trace:\n");
	for (int i = 0; i < s->depth; i++) {
		sprint_symbol(sym, sizeof(sym), s->ips[i]);
		printk(KERN_WARNING " [<%016lx>] %s%s\n", s->ips[i],
		       s->guess >> i & 1 ? "? " : "", sym);
	}
}

bool trigger_cpu_backtrace(int cpu)
{
	struct bt_snapshot *s;
	u64 t0;

	if (cpu < 0 || cpu >= NR_CPUS || !cpu_online(cpu) || in_nmi())
		return false;
	if (!__atomic_exchange_n(&bt_registered, true, __ATOMIC_ACQ_REL) &&
	    register_nmi_handler(&backtrace_action) < 0)
		return false;
	s = &bt_snap[cpu];
	int idle = 0, late = 2;

	/* An answer that came after its requester gave up. */
	if (__atomic_compare_exchange_n(&s->state, &late, 1, false,
					__ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
		printk(KERN_WARNING "(late answer to an earlier request)\n");
		print_snapshot(cpu, s);
		__atomic_store_n(&s->state, 0, __ATOMIC_RELEASE);
	}

	if (!__atomic_compare_exchange_n(&s->state, &idle, 1, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return false;	/* a request for it is already in flight */
	if (cpu == smp_processor_id()) {
		__atomic_store_n(&s->state, 0, __ATOMIC_RELEASE);
		printk(KERN_WARNING "NMI backtrace for cpu %d (self)\n", cpu);
		dump_stack();
		return true;
	}
	if (!arch_send_nmi(cpu)) {
		__atomic_store_n(&s->state, 0, __ATOMIC_RELEASE);
		return false;
	}
	t0 = get_cycles();
	while (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != 2) {
		if (get_cycles() - t0 > ns_to_cycles(1000000000ull)) {
			printk(KERN_ERR "smp: CPU %d did not answer the backtrace NMI within 1 s\n", cpu);
			/* Left "requested": its late answer fills the slot. */
			return false;
		}
		cpu_relax();
	}
	print_snapshot(cpu, s);
	__atomic_store_n(&s->state, 0, __ATOMIC_RELEASE);
	return true;
}

static void nmi_noop(void)
{
}

/* Any NMI the CPU takes counts (a profile sample too): it only has to run. */
bool cpu_answers_nmi(int cpu)
{
	u64 seen, t0;

	if (cpu < 0 || cpu >= NR_CPUS || cpu == smp_processor_id() || !cpu_online(cpu) ||
	    in_nmi())
		return true;
	seen = __atomic_load_n(per_cpu_ptr(&nmi_count, cpu), __ATOMIC_RELAXED);
	/* One already pending for it (another asker's) will do as well. */
	if (!smp_call_nmi(cpu, nmi_noop) &&
	    !__atomic_load_n(&nmi_call_fn[cpu], __ATOMIC_ACQUIRE))
		return true;
	t0 = get_cycles();
	while (__atomic_load_n(per_cpu_ptr(&nmi_count, cpu), __ATOMIC_RELAXED) == seen) {
		if (get_cycles() - t0 > ns_to_cycles(1000000000ull))
			return false;
		cpu_relax();
	}
	return true;
}

void trigger_all_cpu_backtrace(void)
{
	int cpu;

	for_each_online_cpu(cpu)
		trigger_cpu_backtrace(cpu);
}
