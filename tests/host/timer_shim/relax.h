/*
 * tests/host/timer_shim/relax.h - forced into every file of the host timer
 * test (-include): cpu_relax() is the test's, which counts the spins of
 * each shim CPU (a test waits for a CPU to be spinning inside
 * del_timer_sync() before it opens a window) and yields, since the host
 * has fewer cores than shim CPUs.
 */
#pragma once

void shim_relax(void);
#define cpu_relax() shim_relax()
