/* kernel/watchdog.h: the hard-lockup detector (kernel/watchdog.c).  Each
 * CPU's tick calls watchdog_tick(); a CPU whose ticks stop while it runs
 * with irqs off is reported by the CPU that watches it, with the stuck
 * CPU's backtrace taken through an NMI. */
#pragma once

#include "kernel/types.h"
#include "kernel/atomic.h"

/* From every CPU's scheduling-clock tick (irq context). */
void watchdog_tick(void);
/* The run is ending (system_exit, panic): no more reports. */
void watchdog_stop(void);

/* Hard lockups reported since boot (tests). */
extern atomic_t hardlockup_reports;
