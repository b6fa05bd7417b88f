/* arch/x86_64/topology.c: which package, core and SMT thread each CPU is,
 * decoded from its APIC id.  CPUID says how many low bits of an APIC id
 * number the threads of a core and how many more the cores of a package:
 * leaf 0xb (x2APIC topology, which also holds for ids above 255), else
 * on AMD 0x80000008's core-id size with 0x8000001E's threads per core,
 * else leaf 1's logical-processor count with leaf 4's core count (older
 * Intel).  The ids need not be dense
 * (-smp 12,sockets=2,cores=3,threads=2 leaves holes), which is why the
 * fields are bit ranges, not divisions.  The boot CPU's answer is used
 * for every CPU: x86 machines do not mix CPU models across sockets. */
#include "asm/topology.h"
#include "asm/cpu.h"
#include "asm/cpufeature.h"
#include "asm/smp.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "arch/x86_64/topology.h"

static unsigned int smt_bits, core_bits;	/* core_bits: above smt_bits */
static const char *topo_source = "none";

static bool from_leaf_b(u32 max)
{
	u32 a, b, c, d;
	int smt = -1, pkg = -1;

	if (max < 0xb)
		return false;
	cpuid_count(0xb, 0, &a, &b, &c, &d);
	if (!b)
		return false;			/* leaf not implemented */
	for (u32 sub = 0; sub < 8; sub++) {
		cpuid_count(0xb, sub, &a, &b, &c, &d);
		u32 type = (c >> 8) & 0xff, shift = a & 0x1f;

		if (type == 0)
			break;
		if (type == 1)
			smt = shift;
		pkg = shift;			/* the last level ends the package */
	}
	if (pkg < 0)
		return false;
	if (smt < 0)
		smt = 0;
	smt_bits = smt;
	core_bits = pkg > smt ? pkg - smt : 0;
	topo_source = "CPUID leaf 0xb";
	return true;
}

/* AMD and Hygon without leaf 0xb: arch/x86_64/topology_bits.c decides. */
static bool from_amd(void)
{
	u32 a, b, c, d, ext_b = 0;
	bool topoext = boot_cpu_has(X86_FEATURE_TOPOEXT) &&
		       cpuid_max_leaf(0x80000000) >= 0x8000001e;

	if (boot_cpu_data.x86_vendor != X86_VENDOR_AMD &&
	    boot_cpu_data.x86_vendor != X86_VENDOR_HYGON)
		return false;
	if (cpuid_max_leaf(0x80000000) < 0x80000008)
		return false;
	if (topoext)
		cpuid(0x8000001e, &a, &ext_b, &c, &d);
	cpuid(0x80000008, &a, &b, &c, &d);
	amd_topology_bits(boot_cpu_data.x86, topoext, c, ext_b, &smt_bits, &core_bits);
	topo_source = "CPUID 0x80000008/0x8000001e (AMD)";
	return true;
}

static bool from_leaf_1_4(u32 max)
{
	u32 a, b, c, d;
	unsigned int logical, cores = 1;

	if (!boot_cpu_has(X86_FEATURE_HT))	/* the count field is valid */
		return false;
	cpuid(1, &a, &b, &c, &d);
	logical = (b >> 16) & 0xff;
	if (max >= 4) {
		cpuid_count(4, 0, &a, &b, &c, &d);
		if (a & 0x1f)
			cores = (a >> 26) + 1;
	} else {
		u32 xmax;

		cpuid(0x80000000, &xmax, &b, &c, &d);
		if (xmax >= 0x80000008) {
			cpuid(0x80000008, &a, &b, &c, &d);
			cores = ((c >> 12) & 0xf) ? 1u << ((c >> 12) & 0xf) : (c & 0xff) + 1;
		}
	}
	if (!logical)
		return false;
	unsigned int threads = logical / cores ? logical / cores : 1;

	smt_bits = topology_bits_for(threads);
	core_bits = topology_bits_for(cores);
	topo_source = "CPUID leaf 1/4";
	return true;
}

void topology_init(void)
{
	u32 max, b, c, d;

	cpuid(0, &max, &b, &c, &d);
	if (!from_leaf_b(max) && !from_amd() && !from_leaf_1_4(max)) {
		smt_bits = core_bits = 0;
		topo_source = "none (one thread per package)";
	}
	pr_info("topology: APIC id bits: %u for the SMT thread, %u for the core (%s)\n",
		smt_bits, core_bits, topo_source);
}

void topology_of_apic(u32 apic_id, struct cpu_topology *t)
{
	t->thread = apic_id & ((1u << smt_bits) - 1);
	t->core = (apic_id >> smt_bits) & ((1u << core_bits) - 1);
	t->package = apic_id >> (smt_bits + core_bits);
}

void topology_of_cpu(int cpu, struct cpu_topology *t)
{
	topology_of_apic(cpu_apic_id[cpu], t);
}

u32 topology_x2apic_id(void)
{
	u32 max, a, b, c, d;

	cpuid(0, &max, &b, &c, &d);
	if (max < 0xb)
		return ~0u;
	cpuid_count(0xb, 0, &a, &b, &c, &d);
	return b ? d : ~0u;
}
