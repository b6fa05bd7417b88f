/* arch/x86_64/gdt.c: each CPU's GDT and TSS.  Long mode ignores segment
 * bases, so the GDT holds just kernel code and data; the TSS matters for
 * its Interrupt Stack Table, which gives NMI, double fault and machine
 * check a known-good stack of their own.
 *
 * The IST stacks come from alloc_kernel_stack (kernel/vmstack.h), each
 * above an unmapped guard page: an NMI handler that recurses too deep
 * then hits the guard, the #PF cannot be pushed there, and the #DF (on
 * its own IST stack) reports the overflow and names the stack, instead
 * of the NMI silently writing over whatever lay below.  The boot CPU
 * needs its IST before there is a page allocator, so it starts on static
 * stacks and moves to guarded ones in ist_stacks_guard(0). */
#include "asm/desc.h"
#include "asm/page.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "kernel/vmstack.h"

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
static u8 boot_ist_stacks[3][IST_STACK_SIZE] __aligned(16);
/* Top of each CPU's IST stacks; 0 until ist_stacks_guard(cpu). */
static unsigned long ist_top[NR_CPUS][3];
static const char *const ist_names[3] = { "NMI", "double-fault", "machine-check" };

static unsigned long ist_top_of(int cpu, int i)
{
	if (ist_top[cpu][i])
		return ist_top[cpu][i];
	return cpu == 0 ? (unsigned long)boot_ist_stacks[i] + IST_STACK_SIZE : 0;
}

void ist_stack_bounds(int cpu, int ist, unsigned long *bottom, unsigned long *top)
{
	*top = ist_top_of(cpu, ist - 1);
	*bottom = *top ? *top - IST_STACK_SIZE : 0;
}

int ist_stacks_guard(int cpu)
{
	unsigned long top[3];

	if (cpu < 0 || cpu >= NR_CPUS)
		return -EINVAL;
	if (ist_top[cpu][0])
		return 0;
	for (int i = 0; i < 3; i++) {
		top[i] = (unsigned long)alloc_kernel_stack(IST_STACK_SIZE);
		if (!top[i]) {
			pr_err("gdt: no memory for CPU %d's %s stack\n", cpu, ist_names[i]);
			while (i--)
				free_kernel_stack((void *)top[i], IST_STACK_SIZE);
			return -ENOMEM;
		}
	}
	for (int i = 0; i < 3; i++) {
		ist_top[cpu][i] = top[i];
		/* A CPU already running on this TSS (the boot CPU) takes the
		 * new stack at its next NMI/#DF/#MC: the CPU reads the IST slot
		 * at each delivery.  The slots are not 8-aligned (the TSS is
		 * packed) but the 64-byte aligned cpu_gdt keeps each within one
		 * cache line, where one 8-byte store is atomic (SDM 9.1.1);
		 * written in asm, as a C store would be a misaligned access. */
		__asm__ __volatile__("movq %1, %0" : "=m"(gdts[cpu].tss.ist[i]) : "r"(top[i]));
	}
	return 0;
}

const char *ist_stack_guard_name(unsigned long addr, int *cpu)
{
	for (int c = 0; c < NR_CPUS; c++)
		for (int i = 0; i < 3; i++) {
			unsigned long top = ist_top[c][i];

			if (top && addr < top - IST_STACK_SIZE &&
			    addr >= top - IST_STACK_SIZE - PAGE_SIZE) {
				*cpu = c;
				return ist_names[i];
			}
		}
	return NULL;
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
		g->tss.ist[i] = ist_top_of(cpu, i);
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
