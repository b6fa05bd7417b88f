/* arch/x86_64/topology.h: the pure parts of topology.c
 * (arch/x86_64/topology_bits.c, host-tested): the APIC id field widths on
 * AMD without leaf 0xb, for CPUs QEMU's TCG cannot be (it has no TOPOEXT,
 * so no leaf 0x8000001E). */
#pragma once

#include "kernel/types.h"

/* The bits that number n things: ceil(log2(n)). */
unsigned int topology_bits_for(unsigned int n);

/* family: the CPU's (extended) family; topoext: CPUID 0x80000001
 * ECX.TOPOEXT; ecx_80000008: CPUID 0x80000008 ECX; ebx_8000001e: CPUID
 * 0x8000001E EBX, read only with topoext.  *smt_bits: the APIC id bits of
 * the thread in a core; *core_bits: those of the core above them. */
void amd_topology_bits(unsigned int family, bool topoext, u32 ecx_80000008,
		       u32 ebx_8000001e, unsigned int *smt_bits, unsigned int *core_bits);
