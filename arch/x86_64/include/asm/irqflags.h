/* asm/irqflags.h: the generic names for interrupt-flag control. */
#pragma once

#include "asm/cpu.h"

#define local_irq_disable() arch_local_irq_disable()
#define local_irq_enable() arch_local_irq_enable()
#define local_irq_save(flags) ((flags) = arch_local_irq_save())
#define local_irq_restore(flags) arch_local_irq_restore(flags)
#define local_save_flags(flags) ((flags) = arch_local_save_flags())
#define irqs_disabled() arch_irqs_disabled_flags(arch_local_save_flags())
#define irqs_disabled_flags(flags) arch_irqs_disabled_flags(flags)
