/* asm/topology.h: package, core and SMT thread of each CPU, decoded from
 * its APIC id with the field widths CPUID gives (arch/x86_64/topology.c).
 * Generic code and tests use these; Linux's topology_* names. */
#pragma once

#include "kernel/types.h"

struct cpu_topology {
	u32 package;	/* socket */
	u32 core;	/* within the package */
	u32 thread;	/* SMT sibling within the core */
};

/* Boot CPU, once: reads the field widths from CPUID and prints them. */
void topology_init(void);
void topology_of_apic(u32 apic_id, struct cpu_topology *t);
void topology_of_cpu(int cpu, struct cpu_topology *t);
/* The running CPU's 32-bit x2APIC id from CPUID leaf 0xb (~0u without
 * the leaf): matches the APIC id whatever the APIC mode. */
u32 topology_x2apic_id(void);
