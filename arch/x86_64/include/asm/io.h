/* asm/io.h: mapping device memory, for generic code (the framebuffer
 * console).  Part of the arch boundary: kernel/ includes asm/ headers,
 * never arch/x86_64/ ones.  arch/x86_64/paging.c implements these. */
#pragma once

#include "kernel/types.h"

/* Uncached, NX mapping of device registers; NULL if out of space. */
void *ioremap(u64 phys, size_t len);
/* Write-combining (through the PAT), NX: for a framebuffer, where UC
 * makes every pixel store a bus transaction.  UC if the CPU has no PAT.
 * Never for RAM the direct map also maps (conflicting memory types). */
void *ioremap_wc(u64 phys, size_t len);

/* Orders write-combined stores before what follows and pushes them out of
 * the CPU's combining buffers (Linux's wmb(): sfence on x86). */
static inline void wmb(void) { __asm__ __volatile__("sfence" ::: "memory"); }
