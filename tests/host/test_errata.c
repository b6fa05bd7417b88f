/* tests/host/test_errata.c: arch/x86_64/errata.c, the CPU errata keyed
 * on identity and microcode, for CPUs QEMU cannot be: the TSC-deadline
 * erratum on Haswell..Kaby Lake and their servers with old microcode
 * (Linux's deadline_match), and AMD erratum 400 (C1E stops the LAPIC
 * timer) on K8 rev F+ and family 10h.  Uses ktest.h. */
#include <stdio.h>
#include <string.h>
#include "arch/x86_64/errata.h"
#include "ktest.h"

/* Compound literals: an identity whose address the functions take. */
#define INTEL(model, stepping, ucode) (&(struct cpuinfo_x86){ .x86_vendor = X86_VENDOR_INTEL, \
	.x86 = 6, .x86_model = (model), .x86_stepping = (stepping), .microcode = (ucode) })
#define AMD(family, model, stepping) (&(struct cpuinfo_x86){ .x86_vendor = X86_VENDOR_AMD, \
	.x86 = (family), .x86_model = (model), .x86_stepping = (stepping) })

static void deadline_client_parts(void)
{
	/* Skylake desktop (0x5e) before and after 0xb2; Kaby Lake (0x9e)
	 * before and after 0x52; Haswell (0x3c) 0x22. */
	const struct cpuinfo_x86 *skl_old = INTEL(0x5e, 3, 0xb0), *skl_new = INTEL(0x5e, 3, 0xc6);
	const struct cpuinfo_x86 *kbl_old = INTEL(0x9e, 9, 0x48), *kbl_new = INTEL(0x9e, 9, 0x52);
	const struct cpuinfo_x86 *hsw_old = INTEL(0x3c, 3, 0x1c);

	EXPECT(!tsc_deadline_usable(skl_old, true, false));
	EXPECT(tsc_deadline_usable(skl_new, true, false));
	EXPECT(!tsc_deadline_usable(kbl_old, true, false));
	EXPECT(tsc_deadline_usable(kbl_new, true, false));
	EXPECT(!tsc_deadline_usable(hsw_old, true, false));
	EXPECT_EQ(tsc_deadline_min_microcode(skl_old), 0xb2);
	EXPECT_EQ(tsc_deadline_min_microcode(hsw_old), 0x22);
	EXPECT_EQ(tsc_deadline_min_microcode(INTEL(0x45, 1, 0)), 0x20);
	EXPECT_EQ(tsc_deadline_min_microcode(INTEL(0x47, 1, 0)), 0x17);
	/* Microcode 0: unknown (e.g. the MSR read nothing): not trusted. */
	EXPECT(!tsc_deadline_usable(INTEL(0x8e, 10, 0), true, false));
}

static void deadline_server_parts(void)
{
	/* Haswell-X: stepping 2 (EP) fixed in 0x3a, 4 (EX) in 0x0f;
	 * Skylake-X: stepping 3/4 fixed, 5 and later have no erratum. */
	EXPECT(!tsc_deadline_usable(INTEL(0x3f, 2, 0x39), true, false));
	EXPECT(tsc_deadline_usable(INTEL(0x3f, 2, 0x3a), true, false));
	EXPECT(tsc_deadline_usable(INTEL(0x3f, 4, 0x10), true, false));
	EXPECT(!tsc_deadline_usable(INTEL(0x55, 4, 0x02000013), true, false));
	EXPECT(tsc_deadline_usable(INTEL(0x55, 4, 0x02000014), true, false));
	EXPECT(tsc_deadline_usable(INTEL(0x55, 7, 0x05000001), true, false));
	EXPECT_EQ(tsc_deadline_min_microcode(INTEL(0x4f, 1, 0)), 0x0b000020);
	EXPECT_EQ(tsc_deadline_min_microcode(INTEL(0x56, 3, 0)), 0x0700000e);
}

/* A server stepping Linux's table does not name matches no entry there
 * (x86_match_cpu() returns NULL) and keeps the deadline timer. */
static void deadline_unlisted_steppings(void)
{
	EXPECT_EQ(tsc_deadline_min_microcode(INTEL(0x3f, 1, 0)), 0);	/* Haswell-X */
	EXPECT(tsc_deadline_usable(INTEL(0x3f, 1, 0x1), true, false));
	EXPECT_EQ(tsc_deadline_min_microcode(INTEL(0x56, 9, 0)), 0);	/* Broadwell-DE */
	EXPECT_EQ(tsc_deadline_min_microcode(INTEL(0x56, 1, 0)), 0);
	EXPECT_EQ(tsc_deadline_min_microcode(INTEL(0x55, 2, 0)), 0);	/* Skylake-X */
	EXPECT(tsc_deadline_usable(INTEL(0x55, 2, 0x1), true, false));
}

static void deadline_unaffected(void)
{
	/* Later Intel, AMD, a hypervisor, and a CPU without the timer. */
	EXPECT(tsc_deadline_usable(INTEL(0xa5, 5, 0), true, false));	/* Comet Lake */
	EXPECT(tsc_deadline_usable(AMD(0x19, 0x21, 0), true, false));
	EXPECT(tsc_deadline_usable(INTEL(0x5e, 3, 0), true, true));
	EXPECT(!tsc_deadline_usable(INTEL(0xa5, 5, 0), false, false));
	EXPECT_EQ(tsc_deadline_min_microcode(INTEL(0x9a, 3, 0)), 0);
}

static void amd_e400_ranges(void)
{
	/* K8 from model 0x41 stepping 2 (rev F), family 10h from model 2
	 * stepping 1: QEMU's Opteron_G3 (10h/2/3) and qemu64 (0xf/0x6b/1). */
	EXPECT(amd_erratum_400(AMD(0xf, 0x41, 2), false, false));
	EXPECT(!amd_erratum_400(AMD(0xf, 0x41, 1), false, false));
	EXPECT(amd_erratum_400(AMD(0xf, 0x6b, 1), false, false));
	EXPECT(!amd_erratum_400(AMD(0xf, 0x05, 8), false, false));
	EXPECT(amd_erratum_400(AMD(0x10, 0x02, 3), false, false));
	EXPECT(!amd_erratum_400(AMD(0x10, 0x02, 0), false, false));
	EXPECT(amd_erratum_400(AMD(0x10, 0x0a, 0), false, false));
	EXPECT(!amd_erratum_400(AMD(0x11, 0x03, 1), false, false));
	EXPECT(!amd_erratum_400(AMD(0x17, 0x71, 0), false, false));
	EXPECT(!amd_erratum_400(INTEL(0x0f, 2, 0), false, false));
	/* The CPU's own OSVW status decides where it is given. */
	EXPECT(!amd_erratum_400(AMD(0x10, 0x04, 2), true, false));
	EXPECT(amd_erratum_400(AMD(0x12, 0x01, 0), true, true));
}

int main(void)
{
	RUN(deadline_client_parts);
	RUN(deadline_server_parts);
	RUN(deadline_unlisted_steppings);
	RUN(deadline_unaffected);
	RUN(amd_e400_ranges);
	return ktest_summary();
}
