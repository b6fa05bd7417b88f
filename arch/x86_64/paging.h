/* arch/x86_64/paging.h: the kernel's own 4-level page tables.
 *
 * Virtual layout (one address space, shared by every CPU):
 *   0 .. 128 TiB             nothing (the boot identity map is gone, so a
 *                             null or stray user-half pointer faults);
 *                             the first 1 MiB only while APs start
 *   0xffff800000000000       direct map (PAGE_OFFSET) of the memory map's
 *                             RAM and ACPI ranges only, split at their
 *                             edges: RW, NX; the kernel image's
 *                             text/rodata alias in it is read-only
 *   0xffffc00000000000       kernel stacks, each above an unmapped guard page
 *   0xffffd00000000000       ioremap: device registers, uncached, NX
 *   0xffffffff80000000       the kernel image (KERNEL_VMA), 4 KiB pages:
 *                             .text R-X, .rodata R-- NX, .data/.bss RW- NX
 * Mappings are only ever added, never changed or removed (stacks are
 * recycled with their mapping), so no CPU ever needs a TLB shootdown. */
#pragma once

#include "kernel/types.h"
#include "asm/page.h"
#include "kernel/vmstack.h"
#include "asm/io.h"
#include "asm/pgtable.h"

#define PTE_PRESENT	(1ul << 0)
#define PTE_WRITE	(1ul << 1)
#define PTE_USER	(1ul << 2)
#define PTE_PWT		(1ul << 3)
#define PTE_PCD		(1ul << 4)
#define PTE_ACCESSED	(1ul << 5)
#define PTE_DIRTY	(1ul << 6)
#define PTE_HUGE	(1ul << 7)	/* 2 MiB in a PD, 1 GiB in a PDPT */
#define PTE_GLOBAL	(1ul << 8)
#define PTE_NX		(1ul << 63)
#define PTE_ADDR_MASK	0x000ffffffffff000ul

#define STACK_REGION_START	0xffffc00000000000ul
#define STACK_REGION_END	0xffffc08000000000ul	/* 512 GiB */
#define IOREMAP_REGION_START	0xffffd00000000000ul
#define IOREMAP_REGION_END	0xffffd08000000000ul

/* paging_init(): asm/pgtable.h. */
/* Each AP, once in long mode on the boot tables: load the kernel's. */
void paging_load_cpu(void);
/* Physical address of the kernel PML4 (below 4 GiB, so a 32-bit
 * trampoline can load it into CR3). */
u64 paging_kernel_cr3(void);
/* Maps the first 1 MiB at virtual = physical (RWX: the AP trampoline runs
 * and writes there) while on; off removes it and flushes this CPU's TLB.
 * Every AP started while it was on must reload CR3 itself (paging_load_cpu
 * does) before the caller turns it off. */
void paging_identity_map_low(bool on);

/* ioremap(), ioremap_wc(): asm/io.h. */
/* This CPU's PAT MSR (0 without PAT), for tests. */
u64 paging_read_pat(void);

/* alloc_kernel_stack, free_kernel_stack, is_stack_guard: kernel/vmstack.h.
 * Freed stacks keep their mapping and are reused by the next allocation
 * of the same size.  is_stack_guard also knows the boot stack's guard if
 * boot/entry.asm defines boot_stack_guard (a page-aligned .bss page just
 * below boot_stack_bottom). */
/* The leaf entry mapping virt (0 if none); *level is 1 for a 4 KiB page,
 * 2 for 2 MiB, 3 for 1 GiB.  Safe in any context: tables are never freed. */
u64 paging_lookup(u64 virt, int *level);

struct paging_features {
	bool nx, gbpages, pge, pat;
	unsigned int phys_bits;
};
extern struct paging_features paging_features;

/* Runs fn(arg) with the stack pointer at top (from alloc_kernel_stack),
 * then returns on the caller's stack. */
void call_on_stack(void *top, void (*fn)(void *), void *arg);
