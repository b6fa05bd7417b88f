/* asm/irqflags.h: the generic names for interrupt-flag control. */
#pragma once

#include "asm/cpu.h"
#include "kernel/jitter.h"

/* The enables are synchronization points: a delay after them (test
 * build, kernel/jitter.h) lets a pending interrupt land right there. */
#define local_irq_disable() arch_local_irq_disable()
#define local_irq_enable() \
	do { arch_local_irq_enable(); jitter_site(JITTER_IRQ_ENABLE); } while (0)
#define local_irq_save(flags) ((flags) = arch_local_irq_save())
#define local_irq_restore(flags) \
	do { arch_local_irq_restore(flags); jitter_site(JITTER_IRQ_ENABLE); } while (0)
#define local_save_flags(flags) ((flags) = arch_local_save_flags())
#define irqs_disabled() arch_irqs_disabled_flags(arch_local_save_flags())
#define irqs_disabled_flags(flags) arch_irqs_disabled_flags(flags)
