/* kernel/pmm.h: the physical page allocator.
 *
 * Boot builds it in three steps, in this order:
 *   1. pmm_init(bi) (or pmm_add_range/pmm_reserve by hand) records the
 *      usable RAM of the memory map minus what must never be handed out
 *      (everything below 1 MiB, the kernel image, the multiboot info,
 *      firmware-reserved ranges that overlap "usable" ones).  Only a static
 *      table is written: no memory outside the kernel image is touched.
 *   2. paging_init() takes its page tables with pmm_early_alloc() (which
 *      carves pages off the bottom of the free ranges) and switches to the
 *      kernel's own tables with the direct map of all memory.
 *   3. pmm_late_init() (called by paging_init) places a bitmap, one bit per
 *      page, in free memory through the direct map.  From then on
 *      pmm_alloc_pages/pmm_free_pages work, from any CPU, irqs on or off.
 *
 * Addresses are physical; 0 means failure (page 0 is never free). */
#pragma once

#include "kernel/types.h"

struct boot_info;

struct pmm_range {
	u64 start, end;		/* [start, end) */
};

void pmm_init(const struct boot_info *bi);

/* Step 1 by hand (pmm_init uses these; so do the host tests).  Ranges may
 * come in any order, overlap, be empty or run past the end of the
 * physical address space: all handled.  Usable ranges are shrunk inward to
 * whole pages, reserved ones grown outward. */
void pmm_add_range(u64 base, u64 len);
/* Before pmm_late_init: cut [base, base+len) out of the free ranges.
 * After: mark the pages allocated (they must be free). */
void pmm_reserve(u64 base, u64 len);
/* Any memory-map entry (any type): the direct map covers them all
 * (rounded out to 2 MiB), and not the holes between them. */
void pmm_note_physical(u64 base, u64 len);
/* Those ranges, sorted and merged; returns how many. */
unsigned int pmm_physical_ranges(const struct pmm_range **out);

/* npages contiguous pages below limit, taken for good; 0 if none.
 * Only before pmm_late_init. */
u64 pmm_early_alloc(u64 npages, u64 limit);
void pmm_late_init(void);
bool pmm_ready(void);

u64 pmm_alloc_pages(unsigned long npages);
static inline u64 pmm_alloc_page(void) { return pmm_alloc_pages(1); }
/* Freed pages are poisoned with 0x6b.  Freeing a page that is not
 * allocated is reported and ignored. */
void pmm_free_pages(u64 phys, unsigned long npages);
static inline void pmm_free_page(u64 phys) { pmm_free_pages(phys, 1); }

/* A byte per page for the allocator's users (kmalloc marks its pages). */
u8 pmm_page_tag(u64 phys);
void pmm_set_page_tag(u64 phys, unsigned long npages, u8 tag);

/* End of the highest usable range and of anything the memory map named. */
u64 pmm_usable_end(void);
u64 pmm_physical_end(void);
/* Bytes of usable RAM in the memory map (overlaps counted once). */
u64 pmm_usable_bytes(void);
unsigned long pmm_free_count(void);
unsigned long pmm_managed_count(void);
/* Frees of pages that were not allocated, since boot. */
unsigned long pmm_bad_free_count(void);
void pmm_report(void);

/* Host tests start from an empty allocator. */
void pmm_reset(void);
