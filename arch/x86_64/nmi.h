/* arch/x86_64/nmi.h: arch-internal NMI and IPI setup (smpboot.c calls). */
#pragma once

/* Installs the nesting-safe NMI entry (nmi_entry.asm) in the IDT. */
void nmi_init(void);
/* Registers the call-function and reschedule vectors. */
void ipi_init(void);
