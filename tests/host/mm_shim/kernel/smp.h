/* tests/host/mm_shim/kernel/smp.h: host stand-in for kernel/smp.h, enough
 * for kernel/kmalloc.c's per-CPU caches: each test thread sets its own
 * shim_cpu (distinct, below NR_CPUS) before it allocates. */
#pragma once

#include "kernel/types.h"

#define NR_CPUS 64
extern __thread int shim_cpu;
#define smp_processor_id() (shim_cpu)
