/* asm/desc.h: segment selectors, the TSS, and the IST stack numbers. */
#pragma once

#include "kernel/types.h"

#define KERNEL_CS 0x08
#define KERNEL_DS 0x10
#define TSS_SEL 0x18

#define IST_NMI 1
#define IST_DOUBLE_FAULT 2
#define IST_MCE 3
#define IST_STACK_SIZE 16384

/* Builds and loads cpu's GDT and TSS (IST stacks included) on the running
 * CPU; the boot CPU calls it early, each AP during its bring-up (after
 * ist_stacks_guard(cpu): an AP has no IST stacks without it). */
void gdt_init_cpu(int cpu);
/* Gives cpu IST stacks with guard pages (the boot CPU moves to them from
 * its static early ones).  Needs the page allocator; 0 or -ENOMEM. */
int ist_stacks_guard(int cpu);
/* If addr is in the guard page of an IST stack: its name ("NMI", ...)
 * and *cpu; else NULL.  For the fault handlers. */
const char *ist_stack_guard_name(unsigned long addr, int *cpu);
/* The [bottom, top) of the IST stack ist of cpu, for backtrace bounds. */
void ist_stack_bounds(int cpu, int ist, unsigned long *bottom, unsigned long *top);
