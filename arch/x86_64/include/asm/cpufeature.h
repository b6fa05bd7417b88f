/* asm/cpufeature.h: named CPUID feature bits (Linux's X86_FEATURE_*
 * names) and the boot CPU's identity (vendor, family, model, stepping,
 * microcode revision).  A feature constant packs the CPUID leaf, the
 * output register and the bit, so boot_cpu_has() needs no table. */
#pragma once

#include "asm/cpu.h"

enum cpuid_regs_idx { CPUID_EAX, CPUID_EBX, CPUID_ECX, CPUID_EDX };

#define X86_FEATURE(leaf, reg, bit) \
	(((u64)(leaf) << 32) | ((u64)(reg) << 8) | (u64)(bit))

/* CPUID.1:EDX */
#define X86_FEATURE_TSC            X86_FEATURE(1, CPUID_EDX, 4)
#define X86_FEATURE_MSR            X86_FEATURE(1, CPUID_EDX, 5)
#define X86_FEATURE_APIC           X86_FEATURE(1, CPUID_EDX, 9)
#define X86_FEATURE_PGE            X86_FEATURE(1, CPUID_EDX, 13)
#define X86_FEATURE_PAT            X86_FEATURE(1, CPUID_EDX, 16)
#define X86_FEATURE_HT             X86_FEATURE(1, CPUID_EDX, 28)
/* CPUID.1:ECX */
#define X86_FEATURE_PDCM           X86_FEATURE(1, CPUID_ECX, 15)
#define X86_FEATURE_X2APIC         X86_FEATURE(1, CPUID_ECX, 21)
#define X86_FEATURE_TSC_DEADLINE_TIMER X86_FEATURE(1, CPUID_ECX, 24)
#define X86_FEATURE_HYPERVISOR     X86_FEATURE(1, CPUID_ECX, 31)
/* CPUID.7.0:EBX */
#define X86_FEATURE_TSC_ADJUST     X86_FEATURE(7, CPUID_EBX, 1)
/* CPUID.0x80000001:EDX */
#define X86_FEATURE_NX             X86_FEATURE(0x80000001, CPUID_EDX, 20)
#define X86_FEATURE_GBPAGES        X86_FEATURE(0x80000001, CPUID_EDX, 26)
#define X86_FEATURE_RDTSCP         X86_FEATURE(0x80000001, CPUID_EDX, 27)
#define X86_FEATURE_LM             X86_FEATURE(0x80000001, CPUID_EDX, 29)
/* CPUID.0x80000001:ECX */
#define X86_FEATURE_OSVW           X86_FEATURE(0x80000001, CPUID_ECX, 9)
#define X86_FEATURE_TOPOEXT        X86_FEATURE(0x80000001, CPUID_ECX, 22)
/* CPUID.0x80000007:EDX */
#define X86_FEATURE_CONSTANT_TSC   X86_FEATURE(0x80000007, CPUID_EDX, 8)	/* invariant TSC */

/* The highest standard (leaf < 0x80000000) or extended leaf. */
static inline u32 cpuid_max_leaf(u32 leaf)
{
	u32 a, b, c, d;

	cpuid(leaf & 0x80000000u, &a, &b, &c, &d);
	return a;
}

/* Does the running CPU have feature f?  (Every CPU of a PC has the
 * boot CPU's features; this reads CPUID each time, for boot code.) */
static inline bool boot_cpu_has(u64 f)
{
	u32 leaf = (u32)(f >> 32), r[4];

	if (cpuid_max_leaf(leaf) < leaf)
		return false;
	cpuid_count(leaf, 0, &r[0], &r[1], &r[2], &r[3]);
	return (r[(f >> 8) & 3] >> (f & 31)) & 1;
}

#define X86_VENDOR_OTHER 0
#define X86_VENDOR_INTEL 1
#define X86_VENDOR_AMD   2
#define X86_VENDOR_HYGON 3

struct cpuinfo_x86 {
	u8 x86_vendor;		/* X86_VENDOR_* */
	u8 x86;			/* family, extended family added */
	u8 x86_model;		/* extended model folded in */
	u8 x86_stepping;
	u32 microcode;		/* revision; 0 when unknown */
};

/* Fills c for the running CPU (arch/x86_64/cpu.c); reads the microcode
 * revision (MSR 0x8B on Intel, 0x8B as PATCH_LEVEL on AMD). */
void cpu_identify(struct cpuinfo_x86 *c);
extern struct cpuinfo_x86 boot_cpu_data;
/* CR4 as the loader left it, before boot/entry.asm wrote it outright
 * (PAE, MCE kept), for the boot log. */
extern u32 boot_cr4_at_entry;
const char *x86_vendor_name(const struct cpuinfo_x86 *c);
/* Per-CPU setup every CPU does from boot_cpu_data (the AMD LFENCE bit). */
void cpu_init_this(void);	/* the boot CPU's, from kmain */
