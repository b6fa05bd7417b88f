/* tests/kernel/test_topology.c: KTAP suite `topology`: the package/core/
 * thread each CPU was given (arch/x86_64/topology.c) against the machine.
 * Every online CPU must have a place of its own, the CPU's own CPUID
 * leaf 0xb must report the APIC id the MADT gave it, and with
 * `topology.expect=SOCKETS,CORES,THREADS` (what QEMU's -smp said) the
 * counts must match: e.g. 2,4,2 for -smp 16,sockets=2,cores=4,threads=2. */
#include "kernel/ktap.h"
#include "kernel/cmdline.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "asm/smp.h"
#include "asm/topology.h"

static char *expect_param = "";
core_param(topology.expect, expect_param, charp,
	   "test: SOCKETS,CORES,THREADS the machine has (-smp ...,sockets=,cores=,threads=)");

static bool parse_expect(u32 v[3])
{
	const char *p = expect_param;

	for (int i = 0; i < 3; i++) {
		v[i] = 0;
		if (*p < '0' || *p > '9')
			return false;
		while (*p >= '0' && *p <= '9')
			v[i] = v[i] * 10 + (u32)(*p++ - '0');
		if (i < 2 && *p++ != ',')
			return false;
	}
	return *p == 0 && v[0] && v[1] && v[2];
}

static void topology_places_unique(void)
{
	struct cpu_topology t[NR_CPUS];
	int a, b;

	for_each_online_cpu(a)
		topology_of_cpu(a, &t[a]);
	for_each_online_cpu(a)
		for_each_online_cpu(b)
			if (a < b && !memcmp(&t[a], &t[b], sizeof(t[a])))
				ktap_fail("CPUs %d and %d both are package %u core %u thread %u",
					  a, b, t[a].package, t[a].core, t[a].thread);
}

static void read_x2apic_id(void *p)
{
	*(u32 *)p = topology_x2apic_id();
}

static void topology_cpuid_ids_match(void)
{
	int cpu, checked = 0;

	for_each_online_cpu(cpu) {
		u32 id = ~0u;

		KTAP_ASSERT(smp_call_function_single(cpu, read_x2apic_id, &id, 1) == 0);
		if (id == ~0u)
			continue;
		checked++;
		if (id != cpu_apic_id[cpu])
			ktap_fail("CPU %d: CPUID leaf 0xb says APIC id %u, the MADT %u",
				  cpu, id, cpu_apic_id[cpu]);
	}
	if (!checked)
		ktap_skip("no CPUID leaf 0xb on this CPU");
}

static void topology_counts_as_expected(void)
{
	u32 want[3], pkgs = 0, max_core = 0, max_thread = 0;
	u64 pkg_seen = 0;
	int cpu;

	for_each_online_cpu(cpu) {
		struct cpu_topology t;

		topology_of_cpu(cpu, &t);
		if (t.package < 64 && !(pkg_seen & (1ull << t.package))) {
			pkg_seen |= 1ull << t.package;
			pkgs++;
		}
		max_core = MAX(max_core, t.core);
		max_thread = MAX(max_thread, t.thread);
	}
	ktap_log("%d CPUs: %u packages, cores 0..%u, threads 0..%u", num_online_cpus(),
		 pkgs, max_core, max_thread);
	if (!expect_param[0]) {
		ktap_skip("no topology.expect= given");
		return;
	}
	if (!parse_expect(want)) {
		ktap_fail("topology.expect=%s is not SOCKETS,CORES,THREADS", expect_param);
		return;
	}
	if (num_online_cpus() != (int)(want[0] * want[1] * want[2])) {
		ktap_skip("%d CPUs online, not all %u of the topology", num_online_cpus(),
			  want[0] * want[1] * want[2]);
		return;
	}
	KTAP_EXPECT_EQ(pkgs, want[0]);
	KTAP_EXPECT_EQ(max_core + 1, want[1]);
	KTAP_EXPECT_EQ(max_thread + 1, want[2]);
}

KTAP_SUITE(topology,
	   KTAP_CASE(topology_places_unique),
	   KTAP_CASE(topology_cpuid_ids_match),
	   KTAP_CASE(topology_counts_as_expected));
