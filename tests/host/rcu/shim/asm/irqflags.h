/*
 * tests/host/rcu/shim/asm/irqflags.h - the host's interrupt flag, for the
 * real kernel/preempt.h and kernel/spinlock.h.  The flag belongs to the
 * running task (a thread-local; the kernel saves IF across a switch the
 * same way).  Interrupts for a shim CPU wait in its mailbox; turning
 * interrupts back on is an interrupt point, like `sti` with an IRQ
 * pending, so they are taken there (tests/host/rcu/shim/cpu.c).
 */
#pragma once

extern __thread unsigned long shim_irqs_off;
void shim_irq_point(void);
void shim_irq_point_all(void);	/* busy-waits: the tick too, inside readers */

#define local_irq_disable() ((void)(shim_irqs_off = 1))
#define local_irq_enable() do { shim_irqs_off = 0; shim_irq_point(); } while (0)
#define local_irq_save(flags) ((flags) = shim_irqs_off, shim_irqs_off = 1)
#define local_irq_restore(flags) do {					\
	shim_irqs_off = (flags);					\
	if (!shim_irqs_off)						\
		shim_irq_point();					\
} while (0)
#define local_save_flags(flags) ((flags) = shim_irqs_off)
#define irqs_disabled() (shim_irqs_off != 0)
#define irqs_disabled_flags(flags) ((flags) != 0)
