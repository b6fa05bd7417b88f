/* arch/x86_64/idt.c: the interrupt descriptor table and x86_trap(), the
 * one C entry point every vector reaches (from entry.asm).
 *
 * NMI, double fault and machine check run on IST stacks (gdt.c): they can
 * arrive with a broken or exhausted stack.  After a device/IPI handler the
 * dispatcher is where a preemptible kernel preempts: the interrupted code
 * had interrupts on and preempt_count 0, so it may be switched out. */
#include "asm/irq.h"
#include "asm/cpu.h"
#include "asm/desc.h"
#include "asm/preempt.h"
#include "kernel/percpu.h"
#include "kernel/preempt_mask.h"
#include "kernel/printk.h"
#include "kernel/trace.h"
#include "arch/x86_64/timer.h"

struct idt_entry {
	u16 offset_lo;
	u16 selector;
	u8 ist;
	u8 type;
	u16 offset_mid;
	u32 offset_hi;
	u32 zero;
} __packed;

static struct idt_entry idt[256] __aligned(16);
static irq_handler_t irq_handlers[256];
unsigned long irq_unhandled_count;
extern const u64 isr_stub_table[256];

void do_exception(struct pt_regs *regs);	/* traps.c */

static void set_gate(int vec, u64 addr, int ist)
{
	idt[vec] = (struct idt_entry){
		.offset_lo = addr & 0xffff,
		.selector = KERNEL_CS,
		.ist = ist,
		.type = 0x8e,		/* present, DPL 0, 64-bit interrupt gate */
		.offset_mid = (addr >> 16) & 0xffff,
		.offset_hi = addr >> 32,
	};
}

void idt_init(void)
{
	for (int v = 0; v < 256; v++)
		set_gate(v, isr_stub_table[v], 0);
	set_gate(2, isr_stub_table[2], IST_NMI);
	set_gate(8, isr_stub_table[8], IST_DOUBLE_FAULT);
	set_gate(18, isr_stub_table[18], IST_MCE);
	idt_load();
}

void idt_load(void)
{
	struct {
		u16 limit;
		u64 base;
	} __packed ptr = { sizeof(idt) - 1, (u64)idt };
	__asm__ __volatile__("lidt %0" ::"m"(ptr));
}

int irq_register(unsigned int vector, irq_handler_t handler)
{
	if (vector < FIRST_EXTERNAL_VECTOR || vector > 255)
		return -EINVAL;
	irq_handler_t none = NULL;
	if (!__atomic_compare_exchange_n(&irq_handlers[vector], &none, handler,
					 false, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		return -EBUSY;
	return 0;
}

void x86_trap(struct pt_regs *regs)
{
	unsigned int vec = regs->vector;

	if (vec == NMI_VECTOR) {
		nmi_enter();
		trace_nmi_entry();
		nmi_handler(regs);
		trace_nmi_exit();
		nmi_exit();
		return;
	}
	if (vec < FIRST_EXTERNAL_VECTOR) {
		do_exception(regs);
		return;
	}

	irq_enter();
	irq_handler_t h = __atomic_load_n(&irq_handlers[vec], __ATOMIC_ACQUIRE);
	trace_irq_handler_entry(vec);
	if (h)
		h(regs);
	else
		irq_unhandled_count++;
	/* Any interrupt is a chance to restart a tick that stopped. */
	if (vec != LOCAL_TIMER_VECTOR)
		timer_check_tick(false);
	/* The spurious vector is the one the LAPIC does not want EOI'd. */
	if (vec != SPURIOUS_APIC_VECTOR)
		apic_eoi();
	trace_irq_handler_exit(vec);
	irq_exit();

	if (regs_irqs_enabled(regs) && preempt_count() == 0 &&
	    need_resched())
		preempt_schedule_irq();
}
