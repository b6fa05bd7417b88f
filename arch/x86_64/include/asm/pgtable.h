/* asm/pgtable.h: the kernel's page tables as generic code sees them:
 * kmain builds them once; the layout is the arch's business
 * (arch/x86_64/paging.h).  Part of the arch boundary, like every asm/
 * header. */
#pragma once

/* Builds the tables and switches to them.  Needs pmm_init() first (for
 * the memory map and early pages); ends by calling pmm_late_init(), so
 * pmm_alloc_pages and kmalloc work when it returns. */
void paging_init(void);
