/* kernel/vmstack.h: kernel stacks with a guard page, for generic code
 * (the scheduler's threads, the APs).  Each stack lives in a virtual
 * region of its own, above an unmapped page, so an overflow faults and is
 * reported as "kernel stack overflow" instead of corrupting a neighbour.
 * The arch implements them (arch/x86_64/paging.c). */
#pragma once

#include "kernel/types.h"

/* The top (initial stack pointer) of a zeroed stack of `size` bytes
 * (rounded up to pages), or NULL.  The stack's lowest byte is top - size. */
void *alloc_kernel_stack(size_t size);
/* Gives back a stack: top and size as allocated.  Any context but NMI. */
void free_kernel_stack(void *top, size_t size);
/* True if addr lies in a stack guard page (used by the fault handlers). */
bool is_stack_guard(unsigned long addr);
