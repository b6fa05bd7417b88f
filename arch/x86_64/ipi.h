/* arch/x86_64/ipi.h: arch-internal IPI setup (smpboot.c calls it). */
#pragma once

/* Registers the call-function and reschedule vectors. */
void ipi_init(void);
