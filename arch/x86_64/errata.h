/* arch/x86_64/errata.h: which CPUs need a workaround, decided from their
 * identity alone (arch/x86_64/errata.c, pure: host-tested with the
 * identities of CPUs QEMU cannot be). */
#pragma once

#include "asm/cpufeature.h"

/* The microcode revision from which this CPU's TSC-deadline timer works
 * (Linux's deadline_match table, from Intel's errata for Haswell,
 * Broadwell, Skylake, Kaby Lake and their servers): 0 when the table
 * does not name this CPU. */
u32 tsc_deadline_min_microcode(const struct cpuinfo_x86 *c);

/* Whether TSC-deadline mode may be used: the CPU has it, and either runs
 * under a hypervisor (whose deadline timer is emulated; Linux trusts it
 * too) or its microcode is at least tsc_deadline_min_microcode(). */
bool tsc_deadline_usable(const struct cpuinfo_x86 *c, bool has_deadline, bool hypervisor);

/* AMD erratum 400: on K8 rev F+ and family 10h, C1E (entered when every
 * core halts) stops the LAPIC timer.  osvw_valid/osvw_bit: the CPU's OS
 * Visible Workaround status for id 1, which decides when it is given. */
bool amd_erratum_400(const struct cpuinfo_x86 *c, bool osvw_valid, bool osvw_bit);
