/* tests/host/fbcon_shim/asm/io.h: host stand-in for the
 * kernel's ioremap, for kernel/fbcon.c's host test: "maps" a physical
 * range by handing out the test's own buffer registered for it. */
#pragma once

#include "kernel/types.h"

void *ioremap(u64 phys, size_t len);
void *ioremap_wc(u64 phys, size_t len);
static inline void wmb(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
