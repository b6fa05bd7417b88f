/* arch/x86_64/mmio.h: reading and writing device registers (LAPIC,
 * I/O APIC, HPET) with accesses the compiler keeps as written.  The
 * registers are mapped uncached by ioremap() (arch/x86_64/paging.h). */
#pragma once

#include "kernel/types.h"
#include "arch/x86_64/paging.h"

static inline u32 mmio_read32(const volatile void *p) { return *(const volatile u32 *)p; }
static inline void mmio_write32(volatile void *p, u32 v) { *(volatile u32 *)p = v; }
static inline u64 mmio_read64(const volatile void *p) { return *(const volatile u64 *)p; }
static inline void mmio_write64(volatile void *p, u64 v) { *(volatile u64 *)p = v; }
