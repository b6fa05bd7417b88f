/* arch/x86_64/ioapic.h: the I/O APICs, which route device interrupts
 * (GSIs) to a LAPIC vector. */
#pragma once

#include "kernel/types.h"

/* Maps every I/O APIC the MADT lists and masks all their inputs. */
void ioapic_init(void);
/* Routes ISA irq (after the MADT's source overrides) to vector on the CPU
 * with apic_id.  Returns 0, or -ENODEV if no I/O APIC serves it. */
int ioapic_route_isa_irq(unsigned int irq, u8 vector, u32 apic_id);
void ioapic_mask_isa_irq(unsigned int irq);
