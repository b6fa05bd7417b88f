/* arch/x86_64/lapic.h: the local APIC, in xAPIC (MMIO) or x2APIC (MSR)
 * mode behind one interface.  Register numbers are the xAPIC MMIO offsets;
 * in x2APIC mode the same register is MSR 0x800 + offset/16. */
#pragma once

#include "kernel/types.h"

#define APIC_ID        0x020
#define APIC_VER       0x030
#define APIC_TPR       0x080
#define APIC_EOI       0x0b0
#define APIC_LDR       0x0d0
#define APIC_DFR       0x0e0
#define APIC_SVR       0x0f0
#define APIC_IRR       0x200	/* 8 registers of 32 vectors, 0x10 apart */
#define APIC_ESR       0x280
#define APIC_ICR       0x300	/* low half; x2APIC: the whole 64-bit ICR */
#define APIC_ICR2      0x310	/* xAPIC only: destination in bits 24-31 */
#define APIC_LVTT      0x320
#define APIC_LVTTHMR   0x330
#define APIC_LVTPC     0x340
#define APIC_LVT0      0x350
#define APIC_LVT1      0x360
#define APIC_LVTERR    0x370
#define APIC_TMICT     0x380
#define APIC_TMCCT     0x390
#define APIC_TDCR      0x3e0

#define APIC_SVR_ENABLE     (1u << 8)
#define APIC_LVT_MASKED     (1u << 16)
#define APIC_LVT_LEVEL      (1u << 15)
#define APIC_LVT_ACTIVE_LOW (1u << 13)
#define APIC_LVT_TIMER_PERIODIC (1u << 17)
#define APIC_LVT_TIMER_TSCDEADLINE (2u << 17)
#define APIC_DM_FIXED  0x000
#define APIC_DM_NMI    0x400
#define APIC_DM_INIT   0x500
#define APIC_DM_STARTUP 0x600
#define APIC_DM_EXTINT 0x700
#define APIC_DM_MASK   0x700
#define APIC_ICR_BUSY  (1u << 12)
#define APIC_ICR_ASSERT (1u << 14)
#define APIC_ICR_LEVEL  (1u << 15)
#define APIC_DEST_SELF      (1u << 18)
#define APIC_DEST_ALLINC    (2u << 18)
#define APIC_DEST_ALLBUT    (3u << 18)

#define MSR_IA32_APIC_BASE 0x1b
#define MSR_IA32_TSC_DEADLINE 0x6e0
#define APIC_BASE_BSP    (1ull << 8)
#define APIC_BASE_EXTD   (1ull << 10)	/* x2APIC mode */
#define APIC_BASE_ENABLE (1ull << 11)

/* xAPIC ids are 8 bits and 0xff is broadcast. */
#define XAPIC_MAX_ID 0xfe

extern bool x2apic_mode;

/* The mode choice (arch/x86_64/apic_mode.c, pure: host-tested). */
struct apic_mode_in {
	bool has_x2apic;	/* CPUID.1:ECX[21] */
	bool fw_x2apic;		/* IA32_APIC_BASE already has EN and EXTD */
	bool want_xapic;	/* apic=xapic on the command line */
	bool need_x2apic;	/* the MADT lists an APIC id above XAPIC_MAX_ID */
	bool hypervisor;	/* CPUID.1:ECX[31]: a virtual APIC */
	bool have_dmar;		/* the ACPI DMAR table exists */
	u8 dmar_flags;		/* its flags (ACPI_DMAR_*) */
};
struct apic_mode_out {
	bool x2apic;
	bool ids_unreachable;	/* CPUs the chosen mode cannot start */
	bool param_ignored;	/* apic=xapic refused: firmware chose x2APIC */
	const char *why;	/* the rule that decided, for the boot log */
};
void apic_choose_mode(const struct apic_mode_in *in, struct apic_mode_out *out);

/* Boot CPU: choose the mode (apic_choose_mode(); needs acpi_info), map
 * the registers, enable this LAPIC.  Returns 0 or -ENODEV (no APIC). */
int lapic_init_bsp(void);
/* Each AP: the same mode as the BSP, then lapic_setup(). */
void lapic_init_ap(void);
/* Enable the running CPU's LAPIC: SVR, error/spurious vectors, LINT0/1
 * masked or NMI per the MADT's NMI entries for acpi_uid. */
void lapic_setup(u32 acpi_uid);

/* The MADT's ACPI processor uid for an APIC id (for its NMI entries). */
u32 acpi_uid_of(u32 apic_id);

u32 lapic_read(u32 reg);
void lapic_write(u32 reg, u32 v);
u32 lapic_id(void);		/* the running CPU's APIC id (32 bits in x2APIC) */
void apic_eoi(void);

/* Sends an IPI; low = vector | delivery mode | shorthand bits.  Waits
 * (bounded) for an xAPIC to take it.  Returns false if it stayed busy. */
bool lapic_send_ipi(u32 apic_id, u32 low);
/* Counts of spurious and error interrupts, all CPUs. */
extern unsigned long lapic_spurious_count, lapic_error_count;
