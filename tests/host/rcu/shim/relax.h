/*
 * tests/host/rcu/shim/relax.h - forced first into every file of the host
 * RCU build (-include), before kernel/types.h and kernel/atomic.h can
 * define these:
 *  - READ_ONCE/WRITE_ONCE become relaxed atomics.  On x86 they compile to
 *    the same single mov; to ThreadSanitizer they are what they mean
 *    ("this access races on purpose"), so only unmarked races are reported.
 *  - jiffies is read with a relaxed atomic load (kernel/time.h leaves it
 *    to this definition).  The kernel's `volatile u64 jiffies` is one mov
 *    on x86, written only by CPU 0's tick; here the tick is a timer
 *    thread, and ThreadSanitizer must see the reads as the intended
 *    concurrent loads they are.  hz is 1000 (1 jiffy = 1 ms of host time).
 *  - cpu_relax() is an interrupt point: a CPU spinning for a lock (or a
 *    cross-CPU call) takes its NMIs, and its irqs when they are enabled, as
 *    real hardware would, and yields the host core to the thread it waits for.
 */
#pragma once

#include <stdint.h>

#define READ_ONCE(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

extern uint64_t shim_jiffies;
#define jiffies ((uint64_t)__atomic_load_n(&shim_jiffies, __ATOMIC_RELAXED))

void shim_cpu_relax(void);
#define cpu_relax() shim_cpu_relax()
