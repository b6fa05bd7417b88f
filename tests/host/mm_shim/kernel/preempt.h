/* tests/host/mm_shim/kernel/preempt.h: host stand-in for kernel/preempt.h,
 * enough for kernel/kmalloc.c: a test thread is never in an NMI unless
 * the test says so. */
#pragma once

#include "kernel/types.h"

extern __thread int shim_in_nmi;
#define in_nmi()	(shim_in_nmi)

/* No interrupts on the host: each test thread is its own "CPU". */
#define local_irq_save(flags)	((flags) = 0)
#define local_irq_restore(flags) ((void)(flags))
