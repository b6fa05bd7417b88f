/* arch/x86_64/pic.h: the legacy 8259 interrupt controllers. */
#pragma once

/* Remap and mask both 8259s (done whether or not the MADT says PCAT_COMPAT:
 * touching absent ports is harmless on a PC). */
void pic_disable(void);
