/* arch/x86_64/gdt.c: each CPU's GDT and TSS.  Long mode ignores segment
 * bases, so the GDT holds just kernel code and data; the TSS matters for
 * its Interrupt Stack Table, which gives NMI, double fault and machine
 * check a known-good stack of their own. */
#include "asm/desc.h"
#include "kernel/percpu.h"
#include "kernel/string.h"

struct tss {
	u32 reserved0;
	u64 rsp[3];
	u64 reserved1;
	u64 ist[7];
	u64 reserved2;
	u16 reserved3;
	u16 iomap_base;
} __packed;

struct cpu_gdt {
	u64 entries[5];		/* null, code, data, TSS (two slots) */
	struct tss tss;
} __aligned(64);

static struct cpu_gdt gdts[NR_CPUS];
static u8 ist_stacks[NR_CPUS][3][IST_STACK_SIZE] __aligned(16);

void ist_stack_bounds(int cpu, int ist, unsigned long *bottom, unsigned long *top)
{
	*bottom = (unsigned long)ist_stacks[cpu][ist - 1];
	*top = *bottom + IST_STACK_SIZE;
}

void gdt_init_cpu(int cpu)
{
	struct cpu_gdt *g = &gdts[cpu];
	u64 tss = (u64)&g->tss;
	u64 limit = sizeof(g->tss) - 1;

	memset(g, 0, sizeof(*g));
	g->entries[1] = 0x00209a0000000000;	/* 64-bit code, DPL 0 */
	g->entries[2] = 0x0000920000000000;	/* data */
	g->entries[3] = (limit & 0xffff) | ((tss & 0xffffff) << 16) |
			(0x89ull << 40) | (((limit >> 16) & 0xf) << 48) |
			(((tss >> 24) & 0xff) << 56);
	g->entries[4] = tss >> 32;
	for (int i = 0; i < 3; i++)
		g->tss.ist[i] = (u64)ist_stacks[cpu][i] + IST_STACK_SIZE;
	g->tss.iomap_base = sizeof(g->tss);

	struct {
		u16 limit;
		u64 base;
	} __packed ptr = { sizeof(g->entries) - 1, (u64)g->entries };

	/* Reloading GS would zero its base: keep it across the data-segment
	 * reload, because the per-CPU offset lives there. */
	unsigned long gsbase = rdmsr(MSR_GS_BASE);
	__asm__ __volatile__(
		"lgdt %0\n\t"
		"pushq %1\n\t"
		"leaq 1f(%%rip), %%rax\n\t"
		"pushq %%rax\n\t"
		"lretq\n"
		"1:\n\t"
		"movw %w2, %%ax\n\t"
		"movw %%ax, %%ds\n\t"
		"movw %%ax, %%es\n\t"
		"movw %%ax, %%ss\n\t"
		"movw %%ax, %%fs\n\t"
		"movw %%ax, %%gs\n\t"
		"ltr %w3"
		:: "m"(ptr), "i"(KERNEL_CS), "r"(KERNEL_DS), "r"(TSS_SEL)
		: "rax", "memory");
	wrmsr(MSR_GS_BASE, gsbase);
}
