/* tests/host/mm_shim/kernel/preempt.h: host stand-in for kernel/preempt.h,
 * enough for kernel/kmalloc.c: a test thread is never in an NMI unless
 * the test says so. */
#pragma once

#include "kernel/types.h"

extern __thread int shim_in_nmi;
#define in_nmi()	(shim_in_nmi)
