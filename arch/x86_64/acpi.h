/* arch/x86_64/acpi.h: what the kernel takes from the ACPI tables (RSDP,
 * RSDT/XSDT, MADT, HPET, FADT, DMAR, SPCR).  The parser is pure code: it reaches
 * physical memory only through a caller-supplied map callback, so the
 * host tests and the fuzzer feed it tables from plain buffers. */
#pragma once

#include "kernel/types.h"

/* Maps [phys, phys+len) and returns a pointer to it, or NULL when that
 * range cannot be reached (the host tests use NULL for "outside memory").
 * A mapping must stay valid until acpi_parse() returns. */
typedef void *(*acpi_map_fn)(u64 phys, size_t len);

#define ACPI_MAX_CPUS     64	/* >= NR_CPUS; extra CPUs are counted, not kept */
#define ACPI_MAX_IOAPICS  8
#define ACPI_MAX_ISOS     16
#define ACPI_MAX_LNMIS    16
#define ACPI_MAX_TABLE_LEN (1u << 20)	/* no sane MADT/FADT/HPET is bigger */

#define ACPI_UID_ALL 0xffffffffu	/* a LAPIC NMI entry for every CPU */

struct acpi_cpu {
	u32 apic_id;
	u32 acpi_uid;		/* matches the LAPIC NMI entries */
	bool from_x2apic;	/* listed by a type 9 entry */
};

struct acpi_ioapic {
	u8 id;
	u32 phys;
	u32 gsi_base;
};

/* An ISA irq that is not wired to GSI == irq (MADT type 2). */
struct acpi_iso {
	u8 bus, source;
	u32 gsi;
	u16 flags;		/* MPS INTI flags: polarity bits 0-1, trigger 2-3 */
};

/* "LINTn of this CPU (or all) is an NMI" (MADT types 4 and 10). */
struct acpi_lapic_nmi {
	u32 acpi_uid;		/* ACPI_UID_ALL for every CPU */
	u16 flags;		/* MPS INTI flags */
	u8 lint;		/* 0 or 1 */
};

#define ACPI_INTI_POL_MASK   0x3
#define ACPI_INTI_POL_LOW    0x3
#define ACPI_INTI_TRIG_MASK  0xc
#define ACPI_INTI_TRIG_LEVEL 0xc

struct acpi_info {
	bool present;		/* a valid RSDP and root table were found */
	u8 revision;		/* RSDP revision: 0 = ACPI 1.0, 2 = XSDT era */
	u8 rsdp_source;		/* ACPI_RSDP_*: where the RSDP was found */
	char oem_id[7];

	bool have_madt;
	u64 lapic_phys;		/* after any type 5 override */
	bool pcat_compat;	/* a dual 8259 is present and must be masked */
	int nr_cpus;		/* kept in cpus[] */
	int nr_cpus_dropped;	/* enabled CPUs past ACPI_MAX_CPUS */
	struct acpi_cpu cpus[ACPI_MAX_CPUS];
	int nr_ioapics;
	struct acpi_ioapic ioapics[ACPI_MAX_IOAPICS];
	int nr_isos;
	struct acpi_iso isos[ACPI_MAX_ISOS];
	int nr_lapic_nmis;
	struct acpi_lapic_nmi lapic_nmis[ACPI_MAX_LNMIS];
	int madt_errors;	/* malformed entries reported and skipped */

	bool have_hpet;
	u64 hpet_phys;

	bool have_fadt;
	u32 pm_tmr_port;	/* 0: no PM timer */
	bool pm_tmr_32bit;	/* else 24 bits */
	bool hw_reduced;	/* no legacy fixed hardware at all */
	u16 boot_arch;		/* IAPC_BOOT_ARCH flags */
	bool have_reset_reg;	/* FADT RESET_REG, in I/O or memory space */
	u8 reset_space;		/* ACPI_SPACE_IO or ACPI_SPACE_MEM */
	u8 reset_value;
	u64 reset_addr;
	bool have_spcr;		/* the serial console firmware redirects to */
	u8 spcr_type;		/* interface: 0 16550, 1 16450, 0x12 16550-compatible */
	u8 spcr_space;		/* ACPI_SPACE_IO or ACPI_SPACE_MEM */
	u8 spcr_access;		/* register access: 1, 2, 4 or 8 bytes */
	u8 spcr_baud;		/* 0 as set up, 3 9600, 4 19200, 6 57600, 7 115200 */
	u64 spcr_addr;
	bool have_dmar;		/* an Intel VT-d DMA remapping table */
	u8 dmar_flags;		/* ACPI_DMAR_* */
	int tables_bad;		/* tables skipped for length/mapping/contents */
	int tables_bad_checksum;	/* tables used despite a wrong checksum */
};

/* DMAR flags (Intel VT-d spec 8.1). */
#define ACPI_DMAR_INTR_REMAP      0x1	/* interrupt remapping supported */
#define ACPI_DMAR_X2APIC_OPT_OUT  0x2	/* firmware asks the OS not to enable x2APIC */

/* Where the RSDP came from: UEFI firmware has no BIOS areas to scan, so
 * there it must be one of the multiboot2 tags. */
#define ACPI_RSDP_NONE      0
#define ACPI_RSDP_MB2_NEW   1	/* multiboot2 ACPI 2.0+ tag */
#define ACPI_RSDP_MB2_OLD   2	/* multiboot2 ACPI 1.0 tag */
#define ACPI_RSDP_BIOS_SCAN 3	/* EBDA or 0xE0000-0xFFFFF */

#define ACPI_SPACE_MEM 0		/* generic address structure spaces */
#define ACPI_SPACE_IO  1

#define ACPI_BOOT_ARCH_LEGACY_DEVICES 0x0001
#define ACPI_BOOT_ARCH_8042           0x0002

/*
 * Finds the RSDP (a copy from the multiboot2 new tag, then the old tag,
 * then, if bios_scan, the EBDA and 0xE0000-0xFFFFF through map), walks
 * the XSDT (or RSDT) and parses the tables it knows.  Fills *out (zeroed
 * first).  Returns 0, or -ENODEV when there is no usable ACPI at all.
 * Each bad table is reported and skipped; it never reads past a length.
 */
int acpi_parse(const void *rsdp_new, size_t new_len,
	       const void *rsdp_old, size_t old_len,
	       bool bios_scan, acpi_map_fn map, struct acpi_info *out);

/* The pieces, exposed for the host tests and the fuzzer.  table/len is a
 * whole table including its 36-byte header.  A wrong checksum is
 * reported, counted in tables_bad_checksum, and the table used. */
int acpi_parse_madt(const void *table, size_t len, struct acpi_info *out);
int acpi_parse_hpet(const void *table, size_t len, struct acpi_info *out);
int acpi_parse_fadt(const void *table, size_t len, struct acpi_info *out);
int acpi_parse_dmar(const void *table, size_t len, struct acpi_info *out);
int acpi_parse_spcr(const void *table, size_t len, struct acpi_info *out);
/* Validates an RSDP image of avail bytes; returns its length or -errno. */
int acpi_check_rsdp(const void *p, size_t avail);
u8 acpi_checksum(const void *p, size_t len);

/* The kernel's copy, filled at boot by acpi_init(). */
extern struct acpi_info acpi_info;
