/* arch/x86_64/topology_bits.c: the pure parts of topology.c, for
 * tests/host/test_topology.c.  The APIC id fields of AMD and Hygon CPUs
 * without leaf 0xb (everything before Zen 2), where leaf 4 is reserved and
 * leaf 1/4 would count every core as a thread.  As Linux's
 * amd_detect_cmp()/amd_get_topology(): 0x80000008 ECX gives the APIC id
 * bits of a package (ApicIdCoreIdSize, or from the core count NC), and
 * 0x8000001E EBX the threads per core, on Zen (family 17h) and later only
 * (family 15h's compute units are cores with shared parts).  topology.c
 * reads CPUID. */
#include "arch/x86_64/topology.h"

unsigned int topology_bits_for(unsigned int n)
{
	unsigned int b = 0;

	while ((1u << b) < n && b < 31)
		b++;
	return b;
}

void amd_topology_bits(unsigned int family, bool topoext, u32 ecx_80000008,
		       u32 ebx_8000001e, unsigned int *smt_bits, unsigned int *core_bits)
{
	unsigned int pkg_bits = (ecx_80000008 >> 12) & 0xf, threads = 1;

	if (!pkg_bits)
		pkg_bits = topology_bits_for((ecx_80000008 & 0xff) + 1);
	if (family >= 0x17 && topoext)
		threads = ((ebx_8000001e >> 8) & 0xff) + 1;
	*smt_bits = topology_bits_for(threads);
	*core_bits = pkg_bits > *smt_bits ? pkg_bits - *smt_bits : 0;
}
