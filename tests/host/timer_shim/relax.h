/*
 * tests/host/timer_shim/relax.h - forced into every file of the host timer
 * test (-include): cpu_relax() is the test's, which counts the spins of
 * each shim CPU (a test waits for a CPU to be spinning inside
 * del_timer_sync() before it opens a window) and yields, since the host
 * has fewer cores than shim CPUs.  jiffies is the test's counter, read
 * atomically (shim ticks advance it while other shim CPUs read it);
 * kernel/time.h leaves it to this definition.
 */
#pragma once

extern unsigned long shim_jiffies;
#define jiffies __atomic_load_n(&shim_jiffies, __ATOMIC_RELAXED)

void shim_relax(void);
#define cpu_relax() shim_relax()
