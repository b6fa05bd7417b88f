/*
 * tests/host/locks_shim/relax.h - forced into every host lock-test file
 * (-include): spinning threads yield, since the host has fewer cores than
 * test threads and a FIFO ticket lock must otherwise wait for each
 * descheduled waiter in turn.
 */
#pragma once

#include <sched.h>
#define cpu_relax() sched_yield()
