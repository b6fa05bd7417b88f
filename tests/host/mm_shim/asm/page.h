/* tests/host/mm_shim/asm/page.h: host stand-in for arch/x86_64's
 * asm/page.h.  "Physical memory" is one big lazily-backed mapping made by
 * the test (host_phys_base, host_phys_size), so kernel/pmm.c and
 * kernel/kmalloc.c run unchanged and ASan sees every access. */
#pragma once

#include "kernel/types.h"

#define PAGE_SHIFT	12
#define PAGE_SIZE	(1ul << PAGE_SHIFT)
#define PAGE_MASK	(~(PAGE_SIZE - 1))
#define PHYS_ADDR_MAX	(1ul << 52)

extern unsigned char *host_phys_base;
extern u64 host_phys_size;

static inline void *phys_to_virt(u64 phys)
{
	if (phys >= host_phys_size)
		__builtin_trap();	/* the allocator touched memory it does not own */
	return host_phys_base + phys;
}

static inline u64 virt_to_phys(const void *virt)
{
	return (u64)((const unsigned char *)virt - host_phys_base);
}

static inline bool virt_addr_direct(const void *virt)
{
	const unsigned char *v = virt;

	return v >= host_phys_base && v < host_phys_base + host_phys_size;
}
