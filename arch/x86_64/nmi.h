/* arch/x86_64/nmi.h: arch-internal NMI setup (smpboot.c calls it). */
#pragma once

/* Installs the nesting-safe NMI entry (nmi_entry.asm) in the IDT. */
void nmi_init(void);
