/* kernel/ubsan.h: what the kernel's UBSan runtime (kernel/ubsan.c) tells
 * the rest of the kernel.  Only the test build (SANITIZE=1) reports. */
#pragma once

/* Reports made since boot (each source location reports once). */
extern unsigned long ubsan_reports;
