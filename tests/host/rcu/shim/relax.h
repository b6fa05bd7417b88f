/*
 * tests/host/rcu/shim/relax.h - forced first into every file of the host
 * RCU build (-include), before kernel/types.h and kernel/atomic.h can
 * define these:
 *  - READ_ONCE/WRITE_ONCE become relaxed atomics.  On x86 they compile to
 *    the same single mov; to ThreadSanitizer they are what they mean
 *    ("this access races on purpose"), so only unmarked races are reported.
 *  - cpu_relax() is an interrupt point: a CPU spinning for a lock (or a
 *    cross-CPU call) takes its NMIs, and its irqs when they are enabled, as
 *    real hardware would, and yields the host core to the thread it waits for.
 */
#pragma once

#define READ_ONCE(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

void shim_cpu_relax(void);
#define cpu_relax() shim_cpu_relax()
