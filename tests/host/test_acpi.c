/* tests/host/test_acpi.c: host tests of the ACPI parser
 * (arch/x86_64/acpi.c) against good and corrupt tables built in a fake
 * physical memory: bad checksums, lengths past the end, zero-length MADT
 * entries, root tables pointing outside memory.  Built with ASan+UBSan,
 * so a read past a table's end fails the test too.  Uses ktest.h: a
 * PASS/FAIL line per case, "N passed, N failed"; non-zero on a failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arch/x86_64/acpi.h"
#include "ktest.h"

int acpi_shim_quiet = 1;

#define MEM_SIZE (1u << 20)
static unsigned char *mem;	/* fake physical memory [0, MEM_SIZE) */

static void *map(u64 phys, size_t len)
{
	if (phys >= MEM_SIZE || len > MEM_SIZE - phys)
		return NULL;
	return mem + phys;
}

static void put16(u64 at, u16 v) { memcpy(mem + at, &v, 2); }
static void put32(u64 at, u32 v) { memcpy(mem + at, &v, 4); }
static void put64(u64 at, u64 v) { memcpy(mem + at, &v, 8); }

static void fix_sum(u64 at, size_t len, size_t sum_off)
{
	mem[at + sum_off] = 0;
	mem[at + sum_off] = (u8)(0x100 - acpi_checksum(mem + at, len));
}

/* A table header; returns the offset of the body. */
static u64 hdr(u64 at, const char *sig, u32 len)
{
	memset(mem + at, 0, 36);
	memcpy(mem + at, sig, 4);
	put32(at + 4, len);
	mem[at + 8] = 1;
	memcpy(mem + at + 10, "RCUKRN", 6);
	return at + 36;
}

/* Fixes a table's checksum, if its stated length is inside memory. */
static void seal(u64 at)
{
	u32 len;

	memcpy(&len, mem + at + 4, 4);
	if (len >= 10 && len <= MEM_SIZE - at)
		fix_sum(at, len, 9);
}

/* Physical layout of the standard good image. */
#define RSDP_AT 0xe0010
#define XSDT_AT 0x1000
#define RSDT_AT 0x1100
#define MADT_AT 0x2000
#define HPET_AT 0x3000
#define FADT_AT 0x4000

static u8 rsdp_copy[36];

static void make_rsdp(u64 at, u8 rev, u32 rsdt, u64 xsdt)
{
	memset(mem + at, 0, 36);
	memcpy(mem + at, "RSD PTR ", 8);
	memcpy(mem + at + 9, "RCUKRN", 6);
	mem[at + 15] = rev;
	put32(at + 16, rsdt);
	put32(at + 20, 36);
	put64(at + 24, xsdt);
	fix_sum(at, 20, 8);
	if (rev >= 2)
		fix_sum(at, 36, 32);
	memcpy(rsdp_copy, mem + at, 36);
}

static u32 madt_len;
/* Appends one MADT entry; bytes after the two-byte header come from b. */
static void madt_entry(u8 type, u8 len, const u8 *b, size_t n)
{
	u64 at = MADT_AT + madt_len;

	mem[at] = type;
	mem[at + 1] = len;
	memcpy(mem + at + 2, b, n);
	madt_len += (n + 2 > len) ? (u32)(n + 2) : len;
}

static void lapic_entry(u8 uid, u8 id, u32 flags)
{
	u8 b[6] = { uid, id };

	memcpy(b + 2, &flags, 4);
	madt_entry(0, 8, b, 6);
}

static void x2apic_entry(u32 id, u32 flags, u32 uid)
{
	u8 b[14] = { 0 };

	memcpy(b + 2, &id, 4);
	memcpy(b + 6, &flags, 4);
	memcpy(b + 10, &uid, 4);
	madt_entry(9, 16, b, 14);
}

static void madt_begin(void)
{
	hdr(MADT_AT, "APIC", 0);
	put32(MADT_AT + 36, 0xfee00000);
	put32(MADT_AT + 40, 1);
	madt_len = 44;
}

static void madt_end(void)
{
	put32(MADT_AT + 4, madt_len);
	seal(MADT_AT);
}

static void make_madt(void)
{
	u8 ioapic[10] = { 7, 0 };
	u8 iso[8] = { 0, 0 };
	u8 nmi[4] = { 0xff, 0x05, 0x00, 1 };	/* all CPUs, active high edge, LINT1 */
	u8 ovr[10] = { 0 };
	u32 v;

	madt_begin();
	lapic_entry(0, 0, 1);
	lapic_entry(1, 1, 1);
	lapic_entry(2, 2, 0);		/* disabled: not counted */
	lapic_entry(3, 3, 2);		/* online-capable only: not for boot */
	x2apic_entry(300, 1, 40);	/* an APIC id above 255 */
	x2apic_entry(1, 1, 1);		/* duplicate of a type 0 entry */
	v = 0xfec00000; memcpy(ioapic + 2, &v, 4);
	v = 0; memcpy(ioapic + 6, &v, 4);
	madt_entry(1, 12, ioapic, 10);
	v = 2; memcpy(iso + 2, &v, 4);
	madt_entry(2, 10, iso, 8);
	madt_entry(4, 6, nmi, 4);
	u64 lp = 0xfee00000ull;
	memcpy(ovr + 2, &lp, 8);
	madt_entry(5, 12, ovr, 10);
	madt_entry(0x7f, 4, (const u8 *)"\0\0", 2);	/* unknown type: skipped */
	madt_end();
}

static void make_hpet(void)
{
	hdr(HPET_AT, "HPET", 56);
	mem[HPET_AT + 40] = 0;
	put64(HPET_AT + 44, 0xfed00000);
	seal(HPET_AT);
}

static void make_fadt(u32 len, u32 flags)
{
	hdr(FADT_AT, "FACP", len);
	put32(FADT_AT + 76, 0x608);
	mem[FADT_AT + 91] = 4;
	if (len >= 111)
		put16(FADT_AT + 109, 0x3);
	if (len >= 116)
		put32(FADT_AT + 112, flags);
	seal(FADT_AT);
}

static void make_roots(void)
{
	u64 tabs[3] = { MADT_AT, HPET_AT, FADT_AT };

	hdr(XSDT_AT, "XSDT", 36 + 3 * 8);
	for (int i = 0; i < 3; i++)
		put64(XSDT_AT + 36 + i * 8, tabs[i]);
	seal(XSDT_AT);
	hdr(RSDT_AT, "RSDT", 36 + 3 * 4);
	for (int i = 0; i < 3; i++)
		put32(RSDT_AT + 36 + i * 4, (u32)tabs[i]);
	seal(RSDT_AT);
}

static void make_good(void)
{
	memset(mem, 0, MEM_SIZE);
	make_madt();
	make_hpet();
	make_fadt(244, 1u << 8);
	make_roots();
	make_rsdp(RSDP_AT, 2, RSDT_AT, XSDT_AT);
}

static struct acpi_info info;
static int on_heap(int (*fn)(const void *, size_t, struct acpi_info *),
		   const void *src, size_t len);

static int parse_tag(void)
{
	return acpi_parse(rsdp_copy, 36, NULL, 0, false, map, &info);
}

static void test_good(void)
{
	make_good();
	EXPECT(parse_tag() == 0);
	EXPECT(info.present && info.revision == 2);
	EXPECT(strcmp(info.oem_id, "RCUKRN") == 0);
	EXPECT(info.have_madt && info.pcat_compat);
	EXPECT(info.lapic_phys == 0xfee00000ull);
	EXPECT(info.nr_cpus == 3);
	EXPECT(info.cpus[0].apic_id == 0 && info.cpus[1].apic_id == 1);
	EXPECT(info.cpus[2].apic_id == 300 && info.cpus[2].from_x2apic &&
	      info.cpus[2].acpi_uid == 40);
	EXPECT(info.nr_ioapics == 1 && info.ioapics[0].id == 7 &&
	      info.ioapics[0].phys == 0xfec00000);
	EXPECT(info.nr_isos == 1 && info.isos[0].source == 0 && info.isos[0].gsi == 2);
	EXPECT(info.nr_lapic_nmis == 1 && info.lapic_nmis[0].lint == 1 &&
	      info.lapic_nmis[0].acpi_uid == ACPI_UID_ALL &&
	      info.lapic_nmis[0].flags == 5);
	EXPECT(info.madt_errors == 0 && info.tables_bad == 0);
	EXPECT(info.have_hpet && info.hpet_phys == 0xfed00000);
	EXPECT(info.have_fadt && info.pm_tmr_port == 0x608 && info.pm_tmr_32bit);
	EXPECT(info.boot_arch == 3 && !info.hw_reduced);
	EXPECT(info.rsdp_source == ACPI_RSDP_MB2_NEW);
}

static void test_rsdp_sources(void)
{
	u8 bad[36];

	make_good();
	memcpy(bad, rsdp_copy, 36);
	bad[8] ^= 1;				/* bad v1 checksum in the new tag */
	EXPECT(acpi_parse(bad, 36, rsdp_copy, 20, false, map, &info) == 0);
	EXPECT(info.present && info.have_madt && info.rsdp_source == ACPI_RSDP_MB2_OLD);

	/* Both tags bad, no scan: no ACPI, cleanly. */
	EXPECT(acpi_parse(bad, 36, bad, 20, false, map, &info) == -ENODEV);
	EXPECT(!info.present && info.nr_cpus == 0);

	/* Both tags bad, BIOS scan finds the copy at 0xe0010. */
	EXPECT(acpi_parse(bad, 36, NULL, 0, true, map, &info) == 0);
	EXPECT(info.present && info.nr_cpus == 3 && info.rsdp_source == ACPI_RSDP_BIOS_SCAN);

	/* An EBDA RSDP is found first. */
	put16(0x40e, 0x9fc0);			/* segment 0x9fc0 -> 0x9fc00 */
	make_rsdp(0x9fc00, 0, RSDT_AT, 0);
	memset(mem + RSDP_AT, 0, 36);
	EXPECT(acpi_parse(NULL, 0, NULL, 0, true, map, &info) == 0);
	EXPECT(info.present && info.revision == 0 && info.nr_cpus == 3);

	/* A v2 RSDP truncated by its tag, or with a bad extended checksum. */
	make_good();
	EXPECT(acpi_check_rsdp(rsdp_copy, 36) == 36);
	EXPECT(acpi_check_rsdp(rsdp_copy, 24) == -EINVAL);
	memcpy(bad, rsdp_copy, 36);
	bad[33] ^= 0x40;
	EXPECT(acpi_check_rsdp(bad, 36) == -EINVAL);
	memcpy(bad, rsdp_copy, 36);
	bad[20] = 200;				/* length past the tag */
	EXPECT(acpi_check_rsdp(bad, 36) == -EINVAL);
	EXPECT(acpi_check_rsdp(NULL, 36) == -EINVAL);
	EXPECT(acpi_check_rsdp("RSD PTX xxxxxxxxxxxxxxxxxxxxxxx", 30) == -EINVAL);

	/* Nothing anywhere. */
	memset(mem, 0, MEM_SIZE);
	EXPECT(acpi_parse(NULL, 0, NULL, 0, true, map, &info) == -ENODEV);
}

static void test_root_fallback(void)
{
	/* XSDT with a wrong signature: the RSDT is used instead. */
	make_good();
	mem[XSDT_AT + 1] = 'x';
	EXPECT(parse_tag() == 0);
	EXPECT(info.present && info.nr_cpus == 3 && info.have_hpet);

	/* XSDT pointing outside memory, RSDT fine. */
	make_good();
	make_rsdp(RSDP_AT, 2, RSDT_AT, 0x123456789ull);
	EXPECT(parse_tag() == 0 && info.nr_cpus == 3);

	/* Both broken: no ACPI. */
	make_good();
	mem[XSDT_AT] = 'x';
	mem[RSDT_AT] = 'x';
	EXPECT(parse_tag() == -ENODEV && !info.present);

	/* Root table claiming 4 GiB. */
	make_good();
	put32(XSDT_AT + 4, 0xffffffffu);
	put32(RSDT_AT + 4, 0xffffffffu);
	EXPECT(parse_tag() == -ENODEV);

	/* Root table claiming less than its header. */
	make_good();
	put32(XSDT_AT + 4, 10);
	put32(RSDT_AT + 4, 0);
	EXPECT(parse_tag() == -ENODEV);
}

static void test_rsdt_outside(void)
{
	/* One entry points outside memory, one at a range crossing its end:
	 * both skipped, the rest parsed. */
	make_good();
	hdr(XSDT_AT, "XSDT", 36 + 5 * 8);
	put64(XSDT_AT + 36, 0xdead00000000ull);
	put64(XSDT_AT + 44, MEM_SIZE - 8);
	put64(XSDT_AT + 52, MADT_AT);
	put64(XSDT_AT + 60, 0);
	put64(XSDT_AT + 68, HPET_AT);
	seal(XSDT_AT);
	EXPECT(parse_tag() == 0);
	EXPECT(info.nr_cpus == 3 && info.have_hpet && !info.have_fadt);
	EXPECT(info.tables_bad == 2);

	/* A table at the end of memory whose length runs past it. */
	make_good();
	hdr(MEM_SIZE - 64, "APIC", 200);
	hdr(XSDT_AT, "XSDT", 36 + 8);
	put64(XSDT_AT + 36, MEM_SIZE - 64);
	seal(XSDT_AT);
	EXPECT(parse_tag() == 0 && !info.have_madt && info.tables_bad == 1);
}

/* A bad checksum is reported and the table used anyway, as Linux
 * (ACPICA without ACPI_CHECKSUM_ABORT) does: losing the MADT to one
 * wrong byte would cost every AP. */
static void test_bad_checksum_used(void)
{
	make_good();
	mem[MADT_AT + 50] ^= 1;
	EXPECT(parse_tag() == 0);
	EXPECT(info.have_madt && info.nr_cpus == 3 && info.tables_bad == 0);
	EXPECT_EQ(info.tables_bad_checksum, 1);
	EXPECT(info.have_hpet && info.have_fadt);

	/* The same for a root table: the XSDT is walked. */
	make_good();
	mem[XSDT_AT + 20] ^= 0x55;
	EXPECT(parse_tag() == 0 && info.nr_cpus == 3);
	EXPECT_EQ(info.tables_bad_checksum, 1);
}

#define DMAR_AT 0x5000

/* An XSDT listing the standard tables and a DMAR of len bytes. */
static void make_dmar(u32 len, u8 flags)
{
	u64 tabs[4] = { MADT_AT, HPET_AT, FADT_AT, DMAR_AT };

	make_good();
	hdr(DMAR_AT, "DMAR", len);
	if (len > 36)
		mem[DMAR_AT + 36] = 38;		/* host address width - 1 */
	if (len > 37)
		mem[DMAR_AT + 37] = flags;
	seal(DMAR_AT);
	hdr(XSDT_AT, "XSDT", 36 + 4 * 8);
	for (int i = 0; i < 4; i++)
		put64(XSDT_AT + 36 + i * 8, tabs[i]);
	seal(XSDT_AT);
}

static void test_dmar(void)
{
	make_good();
	EXPECT(parse_tag() == 0 && !info.have_dmar);

	make_dmar(48, ACPI_DMAR_INTR_REMAP | ACPI_DMAR_X2APIC_OPT_OUT);
	EXPECT(parse_tag() == 0 && info.have_dmar);
	EXPECT_EQ(info.dmar_flags, ACPI_DMAR_INTR_REMAP | ACPI_DMAR_X2APIC_OPT_OUT);
	EXPECT(info.nr_cpus == 3 && info.tables_bad == 0);

	make_dmar(48, ACPI_DMAR_INTR_REMAP);
	EXPECT(parse_tag() == 0 && info.have_dmar && info.dmar_flags == ACPI_DMAR_INTR_REMAP);

	/* Too short for its flags: skipped, not read past its end. */
	make_dmar(37, 0);
	EXPECT(parse_tag() == 0 && !info.have_dmar && info.tables_bad == 1);
	EXPECT(on_heap(acpi_parse_dmar, mem + DMAR_AT, 37) == -EINVAL);
	make_dmar(48, ACPI_DMAR_X2APIC_OPT_OUT);
	EXPECT(on_heap(acpi_parse_dmar, mem + DMAR_AT, 48) == 0 && info.have_dmar &&
	       info.dmar_flags == ACPI_DMAR_X2APIC_OPT_OUT);
}

static void spcr(u8 type, u8 space, u8 access, u64 addr, u8 baud, u32 len)
{
	hdr(DMAR_AT, "SPCR", len);
	if (len >= 80) {
		mem[DMAR_AT + 36] = type;
		mem[DMAR_AT + 40] = space;
		mem[DMAR_AT + 41] = space == ACPI_SPACE_IO ? 8 : 32;
		mem[DMAR_AT + 43] = access;
		put64(DMAR_AT + 44, addr);
		mem[DMAR_AT + 58] = baud;
	}
	seal(DMAR_AT);
}

/* SPCR: the console a server's serial-over-LAN uses, often not COM1. */
static void test_spcr(void)
{
	spcr(0, ACPI_SPACE_IO, 1, 0x2f8, 7, 80);
	EXPECT(on_heap(acpi_parse_spcr, mem + DMAR_AT, 80) == 0);
	EXPECT(info.have_spcr && info.spcr_space == ACPI_SPACE_IO &&
	       info.spcr_addr == 0x2f8 && info.spcr_access == 1 && info.spcr_baud == 7);
	/* An MMIO 16550 with dword registers (a BMC's UART). */
	spcr(0x12, ACPI_SPACE_MEM, 3, 0xfe030000ull, 0, 88);
	EXPECT(on_heap(acpi_parse_spcr, mem + DMAR_AT, 88) == 0);
	EXPECT(info.have_spcr && info.spcr_space == ACPI_SPACE_MEM &&
	       info.spcr_addr == 0xfe030000ull && info.spcr_access == 4);
	/* Not a 16550 (an ARM PL011), no address, too short: refused. */
	spcr(3, ACPI_SPACE_MEM, 3, 0x9000000, 0, 80);
	EXPECT(on_heap(acpi_parse_spcr, mem + DMAR_AT, 80) == -EINVAL && !info.have_spcr);
	spcr(0, ACPI_SPACE_IO, 1, 0, 7, 80);
	EXPECT(on_heap(acpi_parse_spcr, mem + DMAR_AT, 80) == -EINVAL && !info.have_spcr);
	spcr(0, ACPI_SPACE_IO, 1, 0x3f8, 7, 79);
	EXPECT(on_heap(acpi_parse_spcr, mem + DMAR_AT, 79) == -EINVAL && !info.have_spcr);
	/* Through the root table walk. */
	make_dmar(48, 0);
	spcr(0, ACPI_SPACE_IO, 1, 0x3e8, 7, 80);
	EXPECT(parse_tag() == 0 && info.have_spcr && info.spcr_addr == 0x3e8 && !info.have_dmar);
}

static void test_madt_corrupt(void)
{

	/* A zero-length entry stops the walk instead of looping. */
	make_good();
	madt_begin();
	lapic_entry(0, 0, 1);
	madt_entry(0, 0, (const u8 *)"\0\0\0\0\0\0", 6);
	lapic_entry(1, 1, 1);
	madt_end();
	EXPECT(parse_tag() == 0);
	EXPECT(info.have_madt && info.nr_cpus == 1 && info.madt_errors == 1);

	/* A one-byte entry, likewise. */
	madt_begin();
	madt_entry(0, 1, (const u8 *)"\0\0\0\0\0\0", 6);
	madt_end();
	EXPECT(parse_tag() == 0 && info.nr_cpus == 0 && info.madt_errors == 1);

	/* An entry running past the table's end. */
	madt_begin();
	lapic_entry(0, 0, 1);
	madt_entry(9, 16, (const u8 *)"\0\0\x05\0\0\0\1\0\0\0", 10);
	madt_len -= 6;				/* cut the x2APIC entry short */
	madt_end();
	EXPECT(parse_tag() == 0 && info.nr_cpus == 1 && info.madt_errors == 1);

	/* An entry shorter than its type needs: skipped, walk goes on. */
	madt_begin();
	madt_entry(0, 4, (const u8 *)"\0\0", 2);
	madt_entry(9, 8, (const u8 *)"\0\0\0\0\0\0", 6);
	lapic_entry(1, 1, 1);
	madt_end();
	EXPECT(parse_tag() == 0 && info.nr_cpus == 1 && info.madt_errors == 2);
	EXPECT(info.cpus[0].apic_id == 1);

	/* A single stray byte after the last entry. */
	madt_begin();
	lapic_entry(0, 0, 1);
	madt_len += 1;
	madt_end();
	EXPECT(parse_tag() == 0 && info.nr_cpus == 1 && info.madt_errors == 1);

	/* MADT too short for its fixed fields. */
	hdr(MADT_AT, "APIC", 40);
	seal(MADT_AT);
	EXPECT(parse_tag() == 0 && !info.have_madt && info.tables_bad == 1);

	/* NMI on LINT2 is refused. */
	madt_begin();
	madt_entry(4, 6, (const u8 *)"\0\0\0\2", 4);
	madt_end();
	EXPECT(parse_tag() == 0 && info.nr_lapic_nmis == 0 && info.madt_errors == 1);
}

static void test_madt_many_cpus(void)
{
	make_good();
	madt_begin();
	for (u32 i = 0; i < ACPI_MAX_CPUS + 10; i++)
		x2apic_entry(i * 2, 1, i);
	madt_end();
	EXPECT(parse_tag() == 0);
	EXPECT(info.nr_cpus == ACPI_MAX_CPUS && info.nr_cpus_dropped == 10);
	EXPECT(info.cpus[ACPI_MAX_CPUS - 1].apic_id == (ACPI_MAX_CPUS - 1) * 2);
}

/* The direct parsers on an exactly-sized heap copy: ASan catches any read
 * past len. */
static int on_heap(int (*fn)(const void *, size_t, struct acpi_info *),
		   const void *src, size_t len)
{
	void *p = malloc(len ? len : 1);
	int r;

	memcpy(p, src, len);
	memset(&info, 0, sizeof(info));
	r = fn(p, len, &info);
	free(p);
	return r;
}

static void test_direct(void)
{
	make_good();
	EXPECT(on_heap(acpi_parse_madt, mem + MADT_AT, madt_len) == 0 && info.nr_cpus == 3);
	/* Stated length longer than the buffer given. */
	EXPECT(on_heap(acpi_parse_madt, mem + MADT_AT, madt_len - 1) == -EINVAL);
	EXPECT(on_heap(acpi_parse_madt, mem + MADT_AT, 20) == -EINVAL);
	EXPECT(on_heap(acpi_parse_madt, mem + MADT_AT, 0) == -EINVAL);
	EXPECT(on_heap(acpi_parse_madt, mem + HPET_AT, 56) == -EINVAL);	/* wrong sig */
	EXPECT(on_heap(acpi_parse_hpet, mem + HPET_AT, 56) == 0 && info.have_hpet);

	/* HPET in I/O space is unusable. */
	mem[HPET_AT + 40] = 1;
	seal(HPET_AT);
	EXPECT(on_heap(acpi_parse_hpet, mem + HPET_AT, 56) == -EINVAL && !info.have_hpet);

	/* HPET table too short. */
	hdr(HPET_AT, "HPET", 48);
	seal(HPET_AT);
	EXPECT(on_heap(acpi_parse_hpet, mem + HPET_AT, 48) == -EINVAL);

	/* ACPI 1.0 FADT (116 bytes), 24-bit timer. */
	make_fadt(116, 0);
	EXPECT(on_heap(acpi_parse_fadt, mem + FADT_AT, 116) == 0);
	EXPECT(info.pm_tmr_port == 0x608 && !info.pm_tmr_32bit);
	/* A truncated FADT: no PM timer field at all. */
	make_fadt(60, 0);
	EXPECT(on_heap(acpi_parse_fadt, mem + FADT_AT, 60) == 0 && info.pm_tmr_port == 0);
	/* Hardware-reduced: no PM timer whatever it says. */
	make_fadt(244, 1u << 20);
	EXPECT(on_heap(acpi_parse_fadt, mem + FADT_AT, 244) == 0 && info.hw_reduced &&
	      info.pm_tmr_port == 0);
	/* Bad PM_TMR_LEN. */
	make_fadt(116, 0);
	mem[FADT_AT + 91] = 2;
	seal(FADT_AT);
	EXPECT(on_heap(acpi_parse_fadt, mem + FADT_AT, 116) == 0 && info.pm_tmr_port == 0);
	/* X_PM_TMR_BLK in I/O space overrides the 32-bit field. */
	make_fadt(244, 0);
	mem[FADT_AT + 208] = 1;
	put64(FADT_AT + 212, 0x1808);
	seal(FADT_AT);
	EXPECT(on_heap(acpi_parse_fadt, mem + FADT_AT, 244) == 0 && info.pm_tmr_port == 0x1808);
}

static void test_random_garbage(void)
{
	/* Random bytes where every table is, seeded for reproducibility:
	 * whatever comes out must be bounded and not crash. */
	srand(12345);
	for (int round = 0; round < 2000; round++) {
		make_good();
		u64 at = (round & 1) ? MADT_AT : XSDT_AT;
		int n = 1 + rand() % 8;

		for (int i = 0; i < n; i++)
			mem[at + rand() % 120] = (u8)rand();
		if (round & 2)
			seal(at);
		int r = parse_tag();
		if (r != 0 && r != -ENODEV) {
			EXPECT(!"unexpected return");
			break;
		}
		if (info.nr_cpus < 0 || info.nr_cpus > ACPI_MAX_CPUS) {
			EXPECT(!"nr_cpus out of range");
			break;
		}
	}
	EXPECT(1);
}

/* The FADT's reset register: taken only with RESET_REG_SUP, in I/O or
 * memory space, from a table long enough to hold RESET_VALUE. */
static void fadt_reset(u32 len, u32 flags, u8 space, u64 addr, u8 value)
{
	make_fadt(len, flags);
	if (len >= 129) {
		mem[FADT_AT + 116] = space;
		mem[FADT_AT + 117] = 8;
		put64(FADT_AT + 120, addr);
		mem[FADT_AT + 128] = value;
	}
	seal(FADT_AT);
	memset(&info, 0, sizeof(info));
}

static void test_fadt_reset(void)
{
	const u32 sup = 1u << 10;

	fadt_reset(244, sup, 1, 0xcf9, 0x06);
	EXPECT(on_heap(acpi_parse_fadt, mem + FADT_AT, 244) == 0);
	EXPECT(info.have_reset_reg && info.reset_space == ACPI_SPACE_IO &&
	      info.reset_addr == 0xcf9 && info.reset_value == 0x06);
	fadt_reset(244, sup, 0, 0xfed00100, 0x0e);
	EXPECT(on_heap(acpi_parse_fadt, mem + FADT_AT, 244) == 0);
	EXPECT(info.have_reset_reg && info.reset_space == ACPI_SPACE_MEM &&
	      info.reset_addr == 0xfed00100 && info.reset_value == 0x0e);
	/* RESET_REG_SUP clear: the field is not to be trusted. */
	fadt_reset(244, 0, 1, 0xcf9, 0x06);
	EXPECT(on_heap(acpi_parse_fadt, mem + FADT_AT, 244) == 0 && !info.have_reset_reg);
	/* Too short for RESET_VALUE (an ACPI 1.0 FADT). */
	fadt_reset(128, sup, 1, 0xcf9, 0x06);
	EXPECT(on_heap(acpi_parse_fadt, mem + FADT_AT, 128) == 0 && !info.have_reset_reg);
	/* PCI configuration space, a port past 0xffff, address 0: refused. */
	fadt_reset(244, sup, 2, 0xcf9, 0x06);
	EXPECT(on_heap(acpi_parse_fadt, mem + FADT_AT, 244) == 0 && !info.have_reset_reg);
	fadt_reset(244, sup, 1, 0x10000, 0x06);
	EXPECT(on_heap(acpi_parse_fadt, mem + FADT_AT, 244) == 0 && !info.have_reset_reg);
	fadt_reset(244, sup, 1, 0, 0x06);
	EXPECT(on_heap(acpi_parse_fadt, mem + FADT_AT, 244) == 0 && !info.have_reset_reg);
}

int main(int argc, char **argv)
{
	static const struct { const char *name; void (*fn)(void); } tests[] = {
		{ "acpi_good_tables", test_good },
		{ "acpi_rsdp_sources", test_rsdp_sources },
		{ "acpi_root_fallback", test_root_fallback },
		{ "acpi_rsdt_outside", test_rsdt_outside },
		{ "acpi_bad_checksum_used", test_bad_checksum_used },
		{ "acpi_dmar", test_dmar },
		{ "acpi_spcr", test_spcr },
		{ "acpi_madt_corrupt", test_madt_corrupt },
		{ "acpi_madt_many_cpus", test_madt_many_cpus },
		{ "acpi_direct_parsers", test_direct },
		{ "acpi_random_garbage", test_random_garbage },
		{ "acpi_fadt_reset_register", test_fadt_reset },
	};

	if (argc > 1 && !strcmp(argv[1], "-v"))
		acpi_shim_quiet = 0;
	mem = calloc(1, MEM_SIZE);
	for (size_t i = 0; i < ARRAY_SIZE(tests); i++)
		ktest_run(tests[i].name, tests[i].fn);
	free(mem);
	return ktest_summary();
}
