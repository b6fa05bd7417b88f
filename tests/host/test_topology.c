/* tests/host/test_topology.c: arch/x86_64/topology_bits.c, the APIC id
 * field widths of AMD CPUs without leaf 0xb, from the CPUID values real
 * parts report.  QEMU shows K10 (hw-amd-k10-4) but its TCG has no
 * TOPOEXT, so Zen's threads per core (leaf 0x8000001E) are only seen
 * here.  Uses ktest.h. */
#include <stdio.h>
#include "arch/x86_64/topology.h"
#include "ktest.h"

/* What real parts report, and the widths they mean. */
static const struct amd_case {
	const char *cpu;
	unsigned int family;
	bool topoext;
	u32 ecx_80000008, ebx_8000001e;
	unsigned int smt, core;
} before_zen[] = {
	{ "Phenom II X4 (10h): ApicIdCoreIdSize 2, NC 3", 0x10, false, 0x2003, 0, 0, 2 },
	{ "Phenom II X6 (10h): ApicIdCoreIdSize 3, NC 5", 0x10, false, 0x3005, 0, 0, 3 },
	{ "Athlon 64 X2 (K8): no ApicIdCoreIdSize, NC 1", 0xf, false, 0x0001, 0, 0, 1 },
	{ "FX-8350 (15h): a compute unit's two cores are cores", 0x15, true, 0x4007, 0x0100, 0, 4 },
}, zen[] = {
	{ "Ryzen 7 1700 (17h, no leaf 0xb): two threads a core", 0x17, true, 0x400f, 0x0100, 1, 3 },
	{ "the same without TOPOEXT (QEMU's TCG): no SMT known", 0x17, false, 0x400f, 0x0100, 0, 4 },
	{ "Ryzen with SMT off in the firmware", 0x17, true, 0x3007, 0x0000, 0, 3 },
};

static void check(const struct amd_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned int smt = 99, core = 99;

		amd_topology_bits(c[i].family, c[i].topoext, c[i].ecx_80000008,
				  c[i].ebx_8000001e, &smt, &core);
		EXPECT_MSG(smt == c[i].smt && core == c[i].core, "%s: smt %u core %u, want %u %u",
			   c[i].cpu, smt, core, c[i].smt, c[i].core);
	}
}

static void topology_amd_before_zen(void)
{
	check(before_zen, sizeof(before_zen) / sizeof(before_zen[0]));
}

static void topology_amd_zen_smt(void)
{
	check(zen, sizeof(zen) / sizeof(zen[0]));
}

static void topology_bits_for_counts(void)
{
	EXPECT_EQ(topology_bits_for(0), 0);
	EXPECT_EQ(topology_bits_for(1), 0);
	EXPECT_EQ(topology_bits_for(2), 1);
	EXPECT_EQ(topology_bits_for(3), 2);
	EXPECT_EQ(topology_bits_for(6), 3);
	EXPECT_EQ(topology_bits_for(256), 8);
}

int main(void)
{
	RUN(topology_amd_before_zen);
	RUN(topology_amd_zen_smt);
	RUN(topology_bits_for_counts);
	return ktest_summary();
}
