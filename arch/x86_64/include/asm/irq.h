/* asm/irq.h: interrupt vectors and the handler table x86_trap dispatches
 * through.  Vectors 0-31 are exceptions; 32 and up belong to devices and
 * IPIs, registered by their owners. */
#pragma once

#include "kernel/types.h"
#include "asm/ptrace.h"

#define NMI_VECTOR 2
#define FIRST_EXTERNAL_VECTOR 0x20
#define LOCAL_TIMER_VECTOR 0xec
#define RESCHEDULE_VECTOR 0xfc
#define CALL_FUNCTION_VECTOR 0xfb
#define ERROR_APIC_VECTOR 0xfe
#define SPURIOUS_APIC_VECTOR 0xff

/* x86_trap sends the LAPIC EOI after the handler returns: handlers must not. */
typedef void (*irq_handler_t)(struct pt_regs *regs);

/* Returns -EBUSY if the vector already has a handler. */
int irq_register(unsigned int vector, irq_handler_t handler);
void idt_init(void);	/* boot CPU: builds the table */
void idt_load(void);	/* every CPU */

/* Hooks x86_trap calls, each defined once outside idt.c. */
void nmi_handler(struct pt_regs *regs);	/* arch/x86_64/nmi.c */
void apic_eoi(void);			/* arch/x86_64/lapic.c */
void irq_enter(void);
void irq_exit(void);
void nmi_enter(void);
void nmi_exit(void);
bool need_resched(void);
void preempt_schedule_irq(void);
extern unsigned long irq_unhandled_count;

/* Runs fn(arg); returns 0 if it returned, or the vector of the exception
 * it raised (the faulting function is abandoned: only for tests that poke
 * memory they expect to fault on, such as W^X checks). */
int probe_fault(void (*fn)(void *), void *arg);
