/* arch/x86_64/errata.c: CPU errata keyed on vendor, family, model,
 * stepping and microcode revision, the way Linux keys them.  Pure code:
 * the host test (tests/host/test_errata.c) walks CPUs that QEMU cannot
 * be; the callers (timer.c) read the identity and apply the answer. */
#include "arch/x86_64/errata.h"

/* Intel family 6 model numbers (Linux's asm/intel-family.h). */
#define INTEL_HASWELL      0x3c
#define INTEL_HASWELL_X    0x3f
#define INTEL_HASWELL_L    0x45
#define INTEL_HASWELL_G    0x46
#define INTEL_BROADWELL    0x3d
#define INTEL_BROADWELL_G  0x47
#define INTEL_BROADWELL_X  0x4f
#define INTEL_BROADWELL_D  0x56
#define INTEL_SKYLAKE_L    0x4e
#define INTEL_SKYLAKE      0x5e
#define INTEL_SKYLAKE_X    0x55
#define INTEL_KABYLAKE_L   0x8e
#define INTEL_KABYLAKE     0x9e

/* Server parts: the fixed revision depends on the stepping.  A stepping
 * the table does not name is not in it, as in Linux (x86_match_cpu()
 * finds no entry): no erratum known, the timer is used. */
static u32 hsx_deadline_rev(u8 stepping)
{
	switch (stepping) {
	case 0x02: return 0x3a;		/* EP */
	case 0x04: return 0x0f;		/* EX */
	}
	return 0;
}

static u32 bdx_deadline_rev(u8 stepping)
{
	switch (stepping) {
	case 0x02: return 0x00000011;
	case 0x03: return 0x0700000e;
	case 0x04: return 0x0f00000c;
	case 0x05: return 0x0e000003;
	}
	return 0;
}

static u32 skx_deadline_rev(u8 stepping)
{
	switch (stepping) {
	case 0x03: return 0x01000136;
	case 0x04: return 0x02000014;
	}
	return 0;		/* 5 and later: fixed in silicon */
}

u32 tsc_deadline_min_microcode(const struct cpuinfo_x86 *c)
{
	if (c->x86_vendor != X86_VENDOR_INTEL || c->x86 != 6)
		return 0;
	switch (c->x86_model) {
	case INTEL_HASWELL_X:	return hsx_deadline_rev(c->x86_stepping);
	case INTEL_BROADWELL_X:	return 0x0b000020;
	case INTEL_BROADWELL_D:	return bdx_deadline_rev(c->x86_stepping);
	case INTEL_SKYLAKE_X:	return skx_deadline_rev(c->x86_stepping);
	case INTEL_HASWELL:	return 0x22;
	case INTEL_HASWELL_L:	return 0x20;
	case INTEL_HASWELL_G:	return 0x17;
	case INTEL_BROADWELL:	return 0x25;
	case INTEL_BROADWELL_G:	return 0x17;
	case INTEL_SKYLAKE_L:
	case INTEL_SKYLAKE:	return 0xb2;
	case INTEL_KABYLAKE_L:
	case INTEL_KABYLAKE:	return 0x52;
	}
	return 0;
}

bool tsc_deadline_usable(const struct cpuinfo_x86 *c, bool has_deadline, bool hypervisor)
{
	if (!has_deadline)
		return false;
	if (hypervisor)
		return true;
	return c->microcode >= tsc_deadline_min_microcode(c);
}

/* Linux's AMD_MODEL_RANGE(family, model/stepping from, to), inclusive. */
static bool in_range(const struct cpuinfo_x86 *c, u8 family, u32 from, u32 to)
{
	u32 ms = ((u32)c->x86_model << 4) | c->x86_stepping;

	return c->x86 == family && ms >= from && ms <= to;
}

bool amd_erratum_400(const struct cpuinfo_x86 *c, bool osvw_valid, bool osvw_bit)
{
	if (c->x86_vendor != X86_VENDOR_AMD)
		return false;
	/* OSVW id 1, where the CPU reports it, is authoritative. */
	if (osvw_valid)
		return osvw_bit;
	return in_range(c, 0xf, 0x412, 0xfff) || in_range(c, 0x10, 0x021, 0xfff);
}
