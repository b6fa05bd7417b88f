/* arch/x86_64/acpi.c: the ACPI table parser (RSDP, RSDT/XSDT, MADT, HPET,
 * FADT, DMAR, SPCR).  Pure code: physical memory is reached only through the caller's
 * map callback, so the same file runs in the kernel and in the host tests.
 * Firmware tables are untrusted: every length is bounded, and a table
 * whose lengths do not hold is reported and skipped rather than believed.
 * A wrong checksum alone is reported and the table used, as Linux does. */
#include "arch/x86_64/acpi.h"
#include "kernel/printk.h"
#include "kernel/string.h"

#define SDT_HEADER_LEN 36
#define RSDP_V1_LEN    20
#define RSDP_V2_LEN    36

/* Tables are byte streams with unaligned fields: read them with memcpy. */
static u8 rd8(const u8 *p, size_t off) { return p[off]; }
static u16 rd16(const u8 *p, size_t off) { u16 v; memcpy(&v, p + off, 2); return v; }
static u32 rd32(const u8 *p, size_t off) { u32 v; memcpy(&v, p + off, 4); return v; }
static u64 rd64(const u8 *p, size_t off) { u64 v; memcpy(&v, p + off, 8); return v; }

u8 acpi_checksum(const void *p, size_t len)
{
	const u8 *b = p;
	u8 sum = 0;

	for (size_t i = 0; i < len; i++)
		sum += b[i];
	return sum;
}

/* Printable 4-char signature for messages, whatever bytes the table has. */
static void sig_str(const u8 *p, char out[5])
{
	for (int i = 0; i < 4; i++)
		out[i] = (p[i] >= 0x20 && p[i] < 0x7f) ? (char)p[i] : '?';
	out[4] = 0;
}

/* Common checks on a whole table in memory: header fits, stated length
 * fits what we have.  A wrong checksum is only reported: Linux (ACPICA,
 * built without ACPI_CHECKSUM_ABORT) warns and uses the table, and
 * firmware that ships one is far more common than a table that is
 * otherwise corrupt; every field read is bounded by the length anyway. */
static int check_sdt(const void *table, size_t len, const char *want,
		     struct acpi_info *out)
{
	const u8 *t = table;
	char sig[5];
	u32 tlen;

	if (len < SDT_HEADER_LEN) {
		pr_err("ACPI: %s: %zu bytes is shorter than a table header\n", want, len);
		return -EINVAL;
	}
	sig_str(t, sig);
	if (memcmp(t, want, 4) != 0) {
		pr_err("ACPI: expected %s, found signature '%s'\n", want, sig);
		return -EINVAL;
	}
	tlen = rd32(t, 4);
	if (tlen < SDT_HEADER_LEN || tlen > len) {
		pr_err("ACPI: %s: length %u outside [%d, %zu]\n", sig, tlen,
		       SDT_HEADER_LEN, len);
		return -EINVAL;
	}
	if (acpi_checksum(t, tlen) != 0) {
		pr_warn("ACPI: %s: incorrect checksum (firmware bug), using the table anyway\n", sig);
		out->tables_bad_checksum++;
	}
	return (int)tlen;
}

/* v1_only: the multiboot2 "old" tag holds just the ACPI 1.0 part. */
static int check_rsdp(const void *p, size_t avail, bool v1_only)
{
	const u8 *r = p;
	u32 len;

	if (!p || avail < RSDP_V1_LEN || memcmp(r, "RSD PTR ", 8) != 0)
		return -EINVAL;
	if (acpi_checksum(r, RSDP_V1_LEN) != 0) {
		pr_err("ACPI: RSDP: bad checksum\n");
		return -EINVAL;
	}
	if (rd8(r, 15) < 2 || v1_only)
		return RSDP_V1_LEN;
	if (avail < RSDP_V2_LEN) {
		pr_err("ACPI: RSDP rev %u truncated to %zu bytes\n", rd8(r, 15), avail);
		return -EINVAL;
	}
	len = rd32(r, 20);
	if (len < RSDP_V2_LEN || len > avail) {
		pr_err("ACPI: RSDP: length %u outside [%d, %zu]\n", len, RSDP_V2_LEN, avail);
		return -EINVAL;
	}
	if (acpi_checksum(r, len) != 0) {
		pr_err("ACPI: RSDP: bad extended checksum\n");
		return -EINVAL;
	}
	return (int)len;
}

int acpi_check_rsdp(const void *p, size_t avail)
{
	return check_rsdp(p, avail, false);
}

/* ---- MADT ---- */

static void madt_add_cpu(struct acpi_info *out, u32 apic_id, u32 uid,
			 u32 flags, bool x2)
{
	/* Bit 0 enabled; bit 1 online-capable (hot-add later): not for boot. */
	if (!(flags & 1))
		return;
	for (int i = 0; i < out->nr_cpus; i++) {
		if (out->cpus[i].apic_id == apic_id) {
			/* Some firmware lists a CPU as both type 0 and type 9. */
			return;
		}
	}
	if (out->nr_cpus >= ACPI_MAX_CPUS) {
		out->nr_cpus_dropped++;
		return;
	}
	out->cpus[out->nr_cpus++] = (struct acpi_cpu){
		.apic_id = apic_id, .acpi_uid = uid, .from_x2apic = x2,
	};
}

static void madt_add_nmi(struct acpi_info *out, u32 uid, u16 flags, u8 lint)
{
	if (lint > 1) {
		pr_warn("ACPI: MADT: LAPIC NMI on LINT%u ignored\n", lint);
		out->madt_errors++;
		return;
	}
	if (out->nr_lapic_nmis >= ACPI_MAX_LNMIS) {
		out->madt_errors++;
		return;
	}
	out->lapic_nmis[out->nr_lapic_nmis++] = (struct acpi_lapic_nmi){
		.acpi_uid = uid, .flags = flags, .lint = lint,
	};
}

/* The smallest length each entry type we read must have. */
static const u8 madt_min_len[] = {
	[0] = 8, [1] = 12, [2] = 10, [3] = 8, [4] = 6, [5] = 12,
	[9] = 16, [10] = 12,
};

int acpi_parse_madt(const void *table, size_t len, struct acpi_info *out)
{
	const u8 *t = table;
	int tlen = check_sdt(table, len, "APIC", out);
	size_t off;

	if (tlen < 0)
		return tlen;
	if (tlen < SDT_HEADER_LEN + 8) {
		pr_err("ACPI: MADT: %d bytes, too short for its fixed fields\n", tlen);
		return -EINVAL;
	}
	out->have_madt = true;
	out->lapic_phys = rd32(t, 36);
	out->pcat_compat = rd32(t, 40) & 1;

	for (off = SDT_HEADER_LEN + 8; off < (size_t)tlen;) {
		const u8 *e = t + off;
		u8 type, elen;

		if ((size_t)tlen - off < 2) {
			pr_err("ACPI: MADT: stray byte at offset %zu\n", off);
			out->madt_errors++;
			break;
		}
		type = e[0];
		elen = e[1];
		/* A zero or one-byte entry would never advance: stop here. */
		if (elen < 2 || elen > (size_t)tlen - off) {
			pr_err("ACPI: MADT: entry type %u at offset %zu has bad length %u, rest ignored\n",
			       type, off, elen);
			out->madt_errors++;
			break;
		}
		off += elen;
		if (type < ARRAY_SIZE(madt_min_len) && madt_min_len[type] &&
		    elen < madt_min_len[type]) {
			pr_err("ACPI: MADT: entry type %u length %u < %u, skipped\n",
			       type, elen, madt_min_len[type]);
			out->madt_errors++;
			continue;
		}
		switch (type) {
		case 0:		/* processor local APIC */
			madt_add_cpu(out, rd8(e, 3), rd8(e, 2), rd32(e, 4), false);
			break;
		case 1:		/* I/O APIC */
			if (out->nr_ioapics < ACPI_MAX_IOAPICS)
				out->ioapics[out->nr_ioapics++] = (struct acpi_ioapic){
					.id = rd8(e, 2), .phys = rd32(e, 4),
					.gsi_base = rd32(e, 8),
				};
			else
				out->madt_errors++;
			break;
		case 2:		/* interrupt source override */
			if (out->nr_isos < ACPI_MAX_ISOS)
				out->isos[out->nr_isos++] = (struct acpi_iso){
					.bus = rd8(e, 2), .source = rd8(e, 3),
					.gsi = rd32(e, 4), .flags = rd16(e, 8),
				};
			else
				out->madt_errors++;
			break;
		case 4:		/* local APIC NMI; uid 0xff means all */
			madt_add_nmi(out, rd8(e, 2) == 0xff ? ACPI_UID_ALL : rd8(e, 2),
				     rd16(e, 3), rd8(e, 5));
			break;
		case 5:		/* 64-bit local APIC address override */
			out->lapic_phys = rd64(e, 4);
			break;
		case 9:		/* processor local x2APIC */
			madt_add_cpu(out, rd32(e, 4), rd32(e, 12), rd32(e, 8), true);
			break;
		case 10:	/* local x2APIC NMI */
			madt_add_nmi(out, rd32(e, 4), rd16(e, 2), rd8(e, 8));
			break;
		default:	/* NMI sources, SAPIC, GIC...: not ours */
			break;
		}
	}
	return 0;
}

/* ---- HPET ---- */

int acpi_parse_hpet(const void *table, size_t len, struct acpi_info *out)
{
	const u8 *t = table;
	int tlen = check_sdt(table, len, "HPET", out);
	u64 base;

	if (tlen < 0)
		return tlen;
	if (tlen < 56) {
		pr_err("ACPI: HPET: %d bytes, too short\n", tlen);
		return -EINVAL;
	}
	base = rd64(t, 44);
	/* Generic address: space 0 is memory, the only kind an HPET uses. */
	if (rd8(t, 40) != 0 || base == 0 || (base & 0x3ff)) {
		pr_err("ACPI: HPET: unusable base 0x%llx (space %u)\n",
		       (unsigned long long)base, rd8(t, 40));
		return -EINVAL;
	}
	out->have_hpet = true;
	out->hpet_phys = base;
	return 0;
}

/* ---- FADT (the PM timer, the reset register, the legacy-hardware flags) ---- */

int acpi_parse_fadt(const void *table, size_t len, struct acpi_info *out)
{
	const u8 *t = table;
	int tlen = check_sdt(table, len, "FACP", out);
	u32 port = 0;
	u32 flags = 0;

	if (tlen < 0)
		return tlen;
	out->have_fadt = true;
	if (tlen >= 80)
		port = rd32(t, 76);		/* PM_TMR_BLK */
	if (tlen >= 92 && port && rd8(t, 91) != 4) {
		pr_warn("ACPI: FADT: PM_TMR_LEN %u, PM timer ignored\n", rd8(t, 91));
		port = 0;
	}
	if (tlen >= 111)
		out->boot_arch = rd16(t, 109);
	if (tlen >= 116)
		flags = rd32(t, 112);
	/* X_PM_TMR_BLK wins when it is an I/O-space address that fits a port. */
	if (tlen >= 220 && rd64(t, 212) != 0) {
		u64 xa = rd64(t, 212);

		if (rd8(t, 208) == 1 && xa <= 0xfffc)
			port = (u32)xa;
		else if (!port)
			pr_warn("ACPI: FADT: PM timer in address space %u not supported\n",
				rd8(t, 208));
	}
	if (port > 0xfffc) {
		pr_warn("ACPI: FADT: PM timer port 0x%x out of range\n", port);
		port = 0;
	}
	/* RESET_REG (a GAS at 116) and RESET_VALUE (128), valid when
	 * RESET_REG_SUP is set: how a legacy-free PC (no 8042) reboots. */
	if (tlen >= 129 && (flags & (1u << 10))) {
		u8 space = rd8(t, 116);
		u64 addr = rd64(t, 120);

		if ((space == ACPI_SPACE_IO && addr && addr <= 0xffff) ||
		    (space == ACPI_SPACE_MEM && addr && addr < (1ull << 52))) {
			out->reset_space = space;
			out->reset_addr = addr;
			out->reset_value = rd8(t, 128);
			out->have_reset_reg = true;
		} else {
			pr_warn("ACPI: FADT: reset register in space %u at 0x%llx not supported\n",
				space, (unsigned long long)addr);
		}
	}
	out->pm_tmr_port = port;
	out->pm_tmr_32bit = flags & (1u << 8);		/* TMR_VAL_EXT */
	out->hw_reduced = flags & (1u << 20);		/* HW_REDUCED_ACPI */
	if (out->hw_reduced)
		out->pm_tmr_port = 0;	/* no fixed hardware, whatever it says */
	return 0;
}

/* ---- DMAR (Intel VT-d): only its flags, for the x2APIC decision ---- */

#define DMAR_FLAGS_OFF 37	/* after the header and the host address width */

int acpi_parse_dmar(const void *table, size_t len, struct acpi_info *out)
{
	const u8 *t = table;
	int tlen = check_sdt(table, len, "DMAR", out);

	if (tlen < 0)
		return tlen;
	if (tlen <= DMAR_FLAGS_OFF) {
		pr_err("ACPI: DMAR: %d bytes, too short for its flags\n", tlen);
		return -EINVAL;
	}
	out->have_dmar = true;
	out->dmar_flags = rd8(t, DMAR_FLAGS_OFF);
	return 0;
}

/* ---- SPCR: the serial port console redirection (Microsoft's spec) ---- */

#define SPCR_MIN_LEN 80		/* through the terminal type at 79 */

int acpi_parse_spcr(const void *table, size_t len, struct acpi_info *out)
{
	const u8 *t = table;
	int tlen = check_sdt(table, len, "SPCR", out);
	u8 type, space, access;
	u64 addr;

	if (tlen < 0)
		return tlen;
	if (tlen < SPCR_MIN_LEN) {
		pr_err("ACPI: SPCR: %d bytes, too short\n", tlen);
		return -EINVAL;
	}
	type = rd8(t, 36);
	space = rd8(t, 40);		/* generic address structure at 40 */
	access = rd8(t, 43);		/* 1 byte, 2 word, 3 dword, 4 qword */
	addr = rd64(t, 44);
	/* Only the 16550 family (full 16550, 16450, "16550-compatible"). */
	if (type != 0 && type != 1 && type != 0x12) {
		pr_warn("ACPI: SPCR: interface type 0x%x is not a 16550; not used\n", type);
		return -EINVAL;
	}
	if (!addr || (space != ACPI_SPACE_IO && space != ACPI_SPACE_MEM) ||
	    (space == ACPI_SPACE_IO && addr > 0xfff8) ||
	    (space == ACPI_SPACE_MEM && addr >= (1ull << 52))) {
		pr_warn("ACPI: SPCR: UART in space %u at 0x%llx not supported\n", space,
			(unsigned long long)addr);
		return -EINVAL;
	}
	out->have_spcr = true;
	out->spcr_type = type;
	out->spcr_space = space;
	/* Access size 0 (legacy): bytes; MMIO 16550s are often dwords. */
	out->spcr_access = access >= 1 && access <= 4 ? (u8)(1u << (access - 1)) : 1;
	out->spcr_baud = rd8(t, 58);
	out->spcr_addr = addr;
	return 0;
}

/* ---- the root table walk ---- */

/* Maps a table: its header first to learn its length, then all of it. */
static const void *map_table(acpi_map_fn map, u64 phys, size_t *len)
{
	const u8 *h;
	u32 tlen;
	char sig[5];

	if (phys == 0)
		return NULL;
	h = map(phys, SDT_HEADER_LEN);
	if (!h) {
		pr_err("ACPI: table at 0x%llx cannot be mapped\n", (unsigned long long)phys);
		return NULL;
	}
	tlen = rd32(h, 4);
	sig_str(h, sig);
	if (tlen < SDT_HEADER_LEN || tlen > ACPI_MAX_TABLE_LEN) {
		pr_err("ACPI: %s at 0x%llx: implausible length %u\n", sig,
		       (unsigned long long)phys, tlen);
		return NULL;
	}
	h = map(phys, tlen);
	if (!h) {
		pr_err("ACPI: %s at 0x%llx: %u bytes cannot be mapped\n", sig,
		       (unsigned long long)phys, tlen);
		return NULL;
	}
	*len = tlen;
	return h;
}

static void parse_one(acpi_map_fn map, u64 phys, struct acpi_info *out)
{
	size_t len;
	const u8 *t;
	int r = 0;

	if (phys == 0)		/* an empty slot, not an error */
		return;
	t = map_table(map, phys, &len);
	if (!t) {
		out->tables_bad++;
		return;
	}
	if (!memcmp(t, "APIC", 4) && !out->have_madt)
		r = acpi_parse_madt(t, len, out);
	else if (!memcmp(t, "HPET", 4) && !out->have_hpet)
		r = acpi_parse_hpet(t, len, out);
	else if (!memcmp(t, "FACP", 4) && !out->have_fadt)
		r = acpi_parse_fadt(t, len, out);
	else if (!memcmp(t, "DMAR", 4) && !out->have_dmar)
		r = acpi_parse_dmar(t, len, out);
	else if (!memcmp(t, "SPCR", 4) && !out->have_spcr)
		r = acpi_parse_spcr(t, len, out);
	if (r < 0)
		out->tables_bad++;
}

/* Walks an RSDT (4-byte entries) or XSDT (8-byte entries). */
static int walk_root(acpi_map_fn map, u64 phys, bool xsdt, struct acpi_info *out)
{
	const char *want = xsdt ? "XSDT" : "RSDT";
	size_t esz = xsdt ? 8 : 4;
	size_t len, n;
	const u8 *t = map_table(map, phys, &len);
	int tlen;

	if (!t)
		return -EINVAL;
	tlen = check_sdt(t, len, want, out);
	if (tlen < 0)
		return tlen;
	memcpy(out->oem_id, t + 10, 6);
	out->oem_id[6] = 0;
	n = ((size_t)tlen - SDT_HEADER_LEN) / esz;
	for (size_t i = 0; i < n; i++) {
		u64 entry = xsdt ? rd64(t, SDT_HEADER_LEN + i * 8)
				 : rd32(t, SDT_HEADER_LEN + i * 4);

		parse_one(map, entry, out);
	}
	return 0;
}

/* The BIOS areas where a legacy RSDP lives: the EBDA's first KiB, then
 * 0xE0000-0xFFFFF, on 16-byte boundaries. */
static const void *scan_bios(acpi_map_fn map, u8 *buf, size_t bufsz, int *rlen)
{
	u64 areas[2][2] = { { 0, 1024 }, { 0xe0000, 0x20000 } };
	const u8 *bda = map(0x40e, 2);

	if (bda) {
		u64 ebda = (u64)rd16(bda, 0) << 4;

		if (ebda >= 0x80000 && ebda < 0xa0000)
			areas[0][0] = ebda;
	}
	for (int a = 0; a < 2; a++) {
		if (!areas[a][0])
			continue;
		const u8 *p = map(areas[a][0], areas[a][1]);

		if (!p)
			continue;
		for (u64 off = 0; off + RSDP_V1_LEN <= areas[a][1]; off += 16) {
			if (memcmp(p + off, "RSD PTR ", 8) != 0)
				continue;
			int r = acpi_check_rsdp(p + off, MIN(areas[a][1] - off, (u64)bufsz));

			if (r > 0) {
				memcpy(buf, p + off, (size_t)r);
				*rlen = r;
				return buf;
			}
		}
	}
	return NULL;
}

int acpi_parse(const void *rsdp_new, size_t new_len,
	       const void *rsdp_old, size_t old_len,
	       bool bios_scan, acpi_map_fn map, struct acpi_info *out)
{
	u8 buf[64];
	const u8 *r = NULL;
	int rlen = -EINVAL;
	u64 xsdt = 0, rsdt;

	memset(out, 0, sizeof(*out));
	if (rsdp_new && (rlen = acpi_check_rsdp(rsdp_new, new_len)) > 0)
		r = rsdp_new, out->rsdp_source = ACPI_RSDP_MB2_NEW;
	else if (rsdp_old && (rlen = check_rsdp(rsdp_old, old_len, true)) > 0)
		r = rsdp_old, out->rsdp_source = ACPI_RSDP_MB2_OLD;
	else if (bios_scan && (r = scan_bios(map, buf, sizeof(buf), &rlen)))
		out->rsdp_source = ACPI_RSDP_BIOS_SCAN;
	if (!r) {
		pr_warn("ACPI: no valid RSDP found\n");
		return -ENODEV;
	}
	out->revision = rd8(r, 15);
	rsdt = rd32(r, 16);
	if (out->revision >= 2 && rlen >= RSDP_V2_LEN)
		xsdt = rd64(r, 24);

	/* Prefer the XSDT; fall back to the RSDT if the XSDT is broken. */
	if (xsdt && walk_root(map, xsdt, true, out) == 0)
		goto done;
	if (xsdt)
		pr_warn("ACPI: XSDT unusable, trying the RSDT\n");
	if (!rsdt || walk_root(map, rsdt, false, out) != 0) {
		pr_err("ACPI: no usable root table\n");
		return -ENODEV;
	}
done:
	out->present = true;
	return 0;
}
