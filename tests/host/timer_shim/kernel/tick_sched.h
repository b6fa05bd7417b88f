/* tests/host/timer_shim/kernel/tick_sched.h: no tickless idle on the
 * host: a timer added for another CPU needs no wake-up. */
#pragma once

static inline void wake_up_nohz_cpu(int cpu) { (void)cpu; }
