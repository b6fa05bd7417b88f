/* asm/page.h: page size and the two fixed ways a kernel virtual address
 * maps to physical memory on x86-64.  Generic code (pmm, kmalloc) uses
 * these; arch/x86_64/paging.c builds the tables that make them true.
 *
 *   PAGE_OFFSET + phys   the direct map of all physical memory
 *   KERNEL_VMA + phys    the kernel image (linker.ld), 4 KiB pages, W^X
 *
 * The host tests supply their own asm/page.h with the same names. */
#pragma once

#include "kernel/types.h"

#define PAGE_SHIFT	12
#define PAGE_SIZE	(1ul << PAGE_SHIFT)
#define PAGE_MASK	(~(PAGE_SIZE - 1))

#define PAGE_OFFSET	0xffff800000000000ul
#define KERNEL_VMA	0xffffffff80000000ul

/* Highest physical address the architecture can name (52 bits); memory
 * map entries above it are firmware garbage. */
#define PHYS_ADDR_MAX	(1ul << 52)
/* The direct map's virtual room (up to the stack region): 64 TiB. */
#define DIRECT_MAP_SIZE	(1ul << 46)

static inline void *phys_to_virt(u64 phys)
{
	return (void *)(phys + PAGE_OFFSET);
}

/* Accepts direct-map and kernel-image addresses, which are the only
 * virtual addresses with a fixed physical address. */
static inline u64 virt_to_phys(const void *virt)
{
	u64 v = (u64)virt;

	if (v >= KERNEL_VMA)
		return v - KERNEL_VMA;
	return v - PAGE_OFFSET;
}

/* True if virt lies in the direct map (as kmalloc'd memory does). */
static inline bool virt_addr_direct(const void *virt)
{
	u64 v = (u64)virt;

	return v >= PAGE_OFFSET && v - PAGE_OFFSET < DIRECT_MAP_SIZE;
}

#define __va(p)	phys_to_virt(p)
#define __pa(v)	virt_to_phys(v)
