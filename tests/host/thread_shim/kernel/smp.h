/* tests/host/thread_shim/kernel/smp.h - host stand-in: a thread is a CPU. */
#pragma once

#include "kernel/types.h"

#define NR_CPUS 64

extern __thread int shim_cpu;
extern int nr_cpu_ids;
static inline int smp_processor_id(void) { return shim_cpu; }
bool trigger_cpu_backtrace(int cpu);	/* each test says what it does */
void trigger_all_cpu_backtrace(void);
bool cpu_answers_nmi(int cpu);		/* each test says what it does */
