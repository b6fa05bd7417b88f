/* tests/host/test_apicmode.c: arch/x86_64/apic_mode.c, the xAPIC/x2APIC
 * choice, over every combination of its inputs: QEMU 7.2's TCG has no
 * x2APIC, so firmware-enabled x2APIC, APIC ids above 254, bare metal
 * without interrupt remapping and the DMAR opt-out are only seen here.
 * The DMAR cases go through the ACPI parser (arch/x86_64/acpi.c) from
 * real table images, so the flag the decision reads is the one a
 * firmware's table carries.  Uses ktest.h; exits non-zero on a failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arch/x86_64/acpi.h"
#include "arch/x86_64/lapic.h"
#include "ktest.h"

int acpi_shim_quiet = 1;

/* The rule, as Linux applies it without interrupt remapping
 * (try_to_enable_x2apic(), dmar_x2apic_optout()), which this kernel never
 * sets up: firmware's x2APIC is kept; else x2APIC only when an APIC id
 * needs it, or under a hypervisor (whose virtual APIC needs no
 * remapping); a DMAR opt-out or apic=xapic keeps xAPIC; ids above 254
 * then stay unreachable. */
static bool want_x2(const struct apic_mode_in *in)
{
	bool opt_out = in->have_dmar && (in->dmar_flags & ACPI_DMAR_X2APIC_OPT_OUT);

	if (in->fw_x2apic)
		return true;
	if (!in->has_x2apic || in->want_xapic || opt_out)
		return false;
	return in->need_x2apic || in->hypervisor;
}

static void apicmode_every_case(void)
{
	static const u8 flag_sets[] = {
		0, ACPI_DMAR_INTR_REMAP, ACPI_DMAR_X2APIC_OPT_OUT,
		ACPI_DMAR_INTR_REMAP | ACPI_DMAR_X2APIC_OPT_OUT,
	};

	for (int bits = 0; bits < 64; bits++)
		for (unsigned f = 0; f < sizeof(flag_sets); f++) {
			struct apic_mode_in in = {
				.has_x2apic = bits & 1, .fw_x2apic = bits & 2,
				.want_xapic = bits & 4, .need_x2apic = bits & 8,
				.hypervisor = bits & 16, .have_dmar = bits & 32,
				.dmar_flags = flag_sets[f],
			};
			struct apic_mode_out out;
			bool x2 = want_x2(&in);

			apic_choose_mode(&in, &out);
			EXPECT_MSG(out.x2apic == x2 &&
				   out.ids_unreachable == (in.need_x2apic && !x2) &&
				   out.param_ignored == (in.fw_x2apic && in.want_xapic) &&
				   out.why && *out.why,
				   "has_x2=%d fw_x2=%d want_xapic=%d need_x2=%d hv=%d dmar=%d flags=%u -> x2apic=%d unreachable=%d ignored=%d (%s)",
				   in.has_x2apic, in.fw_x2apic, in.want_xapic, in.need_x2apic,
				   in.hypervisor, in.have_dmar, in.dmar_flags, out.x2apic,
				   out.ids_unreachable, out.param_ignored, out.why ? out.why : "-");
		}
}

/* The common PC since 2011: a CPU with x2APIC, firmware left xAPIC on,
 * no hypervisor.  Without interrupt remapping Linux stays in xAPIC. */
static void apicmode_bare_metal_stays_xapic(void)
{
	struct apic_mode_in in = { .has_x2apic = true };
	struct apic_mode_out out;

	apic_choose_mode(&in, &out);
	EXPECT(!out.x2apic && !out.ids_unreachable);
	in.need_x2apic = true;			/* ids above 254: x2APIC */
	apic_choose_mode(&in, &out);
	EXPECT(out.x2apic && !out.ids_unreachable);
	in = (struct apic_mode_in){ .has_x2apic = true, .fw_x2apic = true, .need_x2apic = true };
	apic_choose_mode(&in, &out);
	EXPECT(out.x2apic && !out.ids_unreachable);
}

/* ---- DMAR tables through the parser ---- */

#define MEM_SIZE (64 * 1024)
static unsigned char mem[MEM_SIZE];
#define XSDT_AT 0x1000
#define DMAR_AT 0x2000

static void *map(u64 phys, size_t len)
{
	if (phys >= MEM_SIZE || len > MEM_SIZE - phys)
		return NULL;
	return mem + phys;
}

static void table(u64 at, const char *sig, u32 len)
{
	memset(mem + at, 0, len);
	memcpy(mem + at, sig, 4);
	memcpy(mem + at + 4, &len, 4);
	mem[at + 8] = 1;
}

static void seal(u64 at, u8 sum_off, u32 len)
{
	mem[at + sum_off] = 0;
	mem[at + sum_off] = (u8)(0x100 - acpi_checksum(mem + at, len));
}

/* Firmware with a DMAR table (dmar_len 0: none) and an XSDT; returns
 * what the kernel's parse makes of it. */
static struct acpi_info parse_firmware(u32 dmar_len, u8 flags)
{
	u8 rsdp[36] = "RSD PTR ";
	struct acpi_info info;
	u64 dmar = DMAR_AT;

	memset(mem, 0, sizeof(mem));
	table(XSDT_AT, "XSDT", 36 + (dmar_len ? 8 : 0));
	if (dmar_len) {
		memcpy(mem + XSDT_AT + 36, &dmar, 8);
		table(DMAR_AT, "DMAR", dmar_len);
		mem[DMAR_AT + 36] = 45;		/* host address width - 1 */
		if (dmar_len > 37)
			mem[DMAR_AT + 37] = flags;
		seal(DMAR_AT, 9, dmar_len);
	}
	seal(XSDT_AT, 9, 36 + (dmar_len ? 8 : 0));
	rsdp[15] = 2;
	u32 v = 36; memcpy(rsdp + 20, &v, 4);
	u64 x = XSDT_AT; memcpy(rsdp + 24, &x, 8);
	rsdp[8] = (u8)(0x100 - acpi_checksum(rsdp, 20));
	rsdp[32] = (u8)(0x100 - acpi_checksum(rsdp, 36));
	EXPECT(acpi_parse(rsdp, 36, NULL, 0, false, map, &info) == 0);
	return info;
}

static bool choose_from(const struct acpi_info *info, bool need_x2, bool hv)
{
	struct apic_mode_in in = {
		.has_x2apic = true, .need_x2apic = need_x2, .hypervisor = hv,
		.have_dmar = info->have_dmar, .dmar_flags = info->dmar_flags,
	};
	struct apic_mode_out out;

	apic_choose_mode(&in, &out);
	return out.x2apic;
}

static void apicmode_dmar_opt_out(void)
{
	struct acpi_info none = parse_firmware(0, 0);
	struct acpi_info ir = parse_firmware(48, ACPI_DMAR_INTR_REMAP);
	struct acpi_info opt = parse_firmware(48, ACPI_DMAR_INTR_REMAP | ACPI_DMAR_X2APIC_OPT_OUT);
	/* Opt-out without INTR_REMAP: the VT-d spec says the bit is then
	 * not valid; Linux checks the bit alone, and so do we. */
	struct acpi_info bare = parse_firmware(48, ACPI_DMAR_X2APIC_OPT_OUT);
	struct acpi_info shorty = parse_firmware(37, ACPI_DMAR_X2APIC_OPT_OUT);

	EXPECT(!none.have_dmar && ir.have_dmar && opt.have_dmar && !shorty.have_dmar);
	/* Under a hypervisor x2APIC is used unless the DMAR opts out. */
	EXPECT(choose_from(&none, false, true));
	EXPECT(choose_from(&ir, false, true));
	EXPECT(!choose_from(&opt, false, true));
	EXPECT(!choose_from(&bare, false, true));
	EXPECT(choose_from(&shorty, false, true));	/* unreadable: ignored */
	/* On bare metal ids above 254 need x2APIC, unless firmware opted out. */
	EXPECT(choose_from(&ir, true, false));
	EXPECT(!choose_from(&opt, true, false));
	EXPECT(!choose_from(&ir, false, false));
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "-v"))
		acpi_shim_quiet = 0;
	RUN(apicmode_every_case);
	RUN(apicmode_bare_metal_stays_xapic);
	RUN(apicmode_dmar_opt_out);
	return ktest_summary();
}
