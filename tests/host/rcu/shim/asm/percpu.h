/*
 * tests/host/rcu/shim/asm/percpu.h - the host's this_cpu_*() for the
 * real kernel/percpu.h.  A host thread running as a task on shim CPU n
 * has shim_pcpu_off = __per_cpu_offset[n] in a thread-local, the way a
 * kernel CPU has its GS base.  Tasks never migrate (kernel/sched.h), so
 * the offset only changes when the thread is not running kernel code.
 * Each op is one relaxed atomic: a single instruction on x86, and to
 * ThreadSanitizer a marked access (other CPUs do read some per-CPU
 * fields, e.g. the pending-work flag the shim sets from outside).
 */
#pragma once

#include "kernel/types.h"

extern __thread unsigned long shim_pcpu_off;

#define __shim_pcpu(var) ((__typeof__(var) *)((unsigned long)&(var) + shim_pcpu_off))

#define this_cpu_read(var) __atomic_load_n(__shim_pcpu(var), __ATOMIC_RELAXED)
#define this_cpu_write(var, val) \
	__atomic_store_n(__shim_pcpu(var), (__typeof__(var))(val), __ATOMIC_RELAXED)
#define this_cpu_add(var, val) \
	__atomic_store_n(__shim_pcpu(var), this_cpu_read(var) + (val), __ATOMIC_RELAXED)
#define this_cpu_sub(var, val) \
	__atomic_store_n(__shim_pcpu(var), this_cpu_read(var) - (val), __ATOMIC_RELAXED)
#define this_cpu_inc(var) this_cpu_add(var, 1)
#define this_cpu_dec(var) this_cpu_sub(var, 1)
