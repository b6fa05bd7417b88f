/* arch/x86_64/paging.c: builds the kernel's own page tables (layout in
 * paging.h) to replace boot/entry.asm's early ones, and hands out the
 * mappings made later: guarded kernel stacks and ioremap.
 *
 * Until the switch, tables are reached through the boot map of physical
 * 0..2 GiB at KERNEL_VMA, so the early ones come from below 2 GiB; after
 * it, through the direct map.  W^X: no page is both writable and
 * executable, including the direct map's alias of the kernel image
 * (while the AP trampoline's low 1 MiB is mapped is the one exception). */
#include "arch/x86_64/paging.h"
#include "arch/x86_64/mmio.h"
#include "asm/cpu.h"
#include "asm/cpufeature.h"
#include "kernel/pmm.h"
#include "kernel/printk.h"
#include "kernel/spinlock.h"
#include "kernel/string.h"

#define SZ_1M	(1ul << 20)
#define SZ_2M	(1ul << 21)
#define SZ_1G	(1ul << 30)
#define EARLY_TABLE_LIMIT (2ul << 30)	/* boot map at KERNEL_VMA covers this */
#define LOW_IDENTITY_END SZ_1M

#define CR0_WP	(1ul << 16)
#define MSR_PAT	0x277
/* The power-on PAT with entry 1 (PWT alone) turned from write-through into
 * write-combining, as Linux does: WB, WC, UC-, UC, then the same again.
 * No mapping uses PWT alone before this is loaded. */
#define PAT_VALUE 0x0007010600070106ul
#define CR4_PGE	(1ul << 7)

extern char __text_start[], __text_end[], __rodata_start[], __rodata_end[];
extern char __data_start[], __bss_end[], __kernel_end[];
/* The page boot/entry.asm reserves below the boot CPU's stack; left
 * unmapped in the image mapping, it is that stack's guard. */
extern char boot_stack_guard[];

struct paging_features paging_features;

static u64 kernel_pml4_phys;
static u64 low_pdpt_phys;	/* the trampoline identity map, built once */
static bool tables_live;	/* CR3 holds kernel_pml4_phys on the boot CPU */
static DEFINE_SPINLOCK(paging_lock);	/* table updates, region cursors */
static u64 stack_next = STACK_REGION_START;
static u64 ioremap_next = IOREMAP_REGION_START;

/* Freed stacks, linked through their own lowest bytes. */
struct free_stack {
	struct free_stack *next;
	size_t size;
};
static struct free_stack *free_stacks;

static void *table_va(u64 phys)
{
	return tables_live ? phys_to_virt(phys) : (void *)(phys + KERNEL_VMA);
}

/* Strip what this CPU cannot take: NX is a reserved bit without EFER.NXE. */
static u64 fix_flags(u64 flags)
{
	if (!paging_features.nx)
		flags &= ~PTE_NX;
	if (!paging_features.pge)
		flags &= ~PTE_GLOBAL;
	return flags;
}

static u64 alloc_table(void)
{
	u64 p;

	if (!pmm_ready()) {
		p = pmm_early_alloc(1, EARLY_TABLE_LIMIT);
		if (!p)
			panic("paging: no free page below 2 GiB for the page tables");
	} else {
		p = pmm_alloc_page();
		if (!p)
			return 0;
	}
	memset(table_va(p), 0, PAGE_SIZE);
	return p;
}

static inline unsigned int pt_index(u64 virt, int level)
{
	return (virt >> (PAGE_SHIFT + 9 * (level - 1))) & 511;
}

/* The entry for virt at `level` (1 = page table), making the tables above
 * it; NULL if out of memory or a huge page is in the way. */
static u64 *walk_create(u64 virt, int level)
{
	u64 *table = table_va(kernel_pml4_phys);

	for (int l = 4; l > level; l--) {
		u64 *e = &table[pt_index(virt, l)];

		if (!(*e & PTE_PRESENT)) {
			u64 t = alloc_table();

			if (!t)
				return NULL;
			/* the zeroed table before the entry that publishes it
			 * (lockless walkers: paging_lookup, the CPU itself) */
			barrier();
			/* upper levels allow everything: the leaf decides */
			WRITE_ONCE(*e, t | PTE_PRESENT | PTE_WRITE);
		} else if (*e & PTE_HUGE) {
			return NULL;
		}
		table = table_va(*e & PTE_ADDR_MASK);
	}
	return &table[pt_index(virt, level)];
}

static void map_one(u64 virt, u64 phys, u64 flags, int level)
{
	u64 *e = walk_create(virt, level);

	if (!e)
		panic("paging: cannot map 0x%lx (out of memory or huge page in the way)",
		      (unsigned long)virt);
	WRITE_ONCE(*e, phys | fix_flags(flags | PTE_PRESENT | (level > 1 ? PTE_HUGE : 0)));
}

u64 paging_lookup(u64 virt, int *level)
{
	u64 *table;

	if (!tables_live)
		return 0;
	table = phys_to_virt(kernel_pml4_phys);
	for (int l = 4; l >= 1; l--) {
		u64 e = READ_ONCE(table[pt_index(virt, l)]);

		if (!(e & PTE_PRESENT))
			return 0;
		if (l == 1 || (l <= 3 && (e & PTE_HUGE))) {
			if (level)
				*level = l;
			return e;
		}
		table = phys_to_virt(e & PTE_ADDR_MASK);
	}
	return 0;
}

static void detect_features(void)
{
	u32 a, b, c, d;

	paging_features.nx = boot_cpu_has(X86_FEATURE_NX);
	paging_features.gbpages = boot_cpu_has(X86_FEATURE_GBPAGES);
	paging_features.pge = boot_cpu_has(X86_FEATURE_PGE);
	paging_features.pat = boot_cpu_has(X86_FEATURE_PAT);
	paging_features.phys_bits = 36;
	if (cpuid_max_leaf(0x80000000) >= 0x80000008) {
		cpuid(0x80000008, &a, &b, &c, &d);
		if ((a & 0xff) >= 32 && (a & 0xff) <= 52)
			paging_features.phys_bits = a & 0xff;
	}
}

/* Flags for one 4 KiB page of the kernel image, by the section it is in;
 * exec says whether this is the image mapping or the direct-map alias. */
static u64 image_flags(u64 virt, bool exec)
{
	if (virt >= (u64)__text_start && virt < (u64)__text_end)
		return PTE_GLOBAL | (exec ? 0 : PTE_NX);
	if (virt >= (u64)__rodata_start && virt < (u64)__rodata_end)
		return PTE_GLOBAL | PTE_NX;
	return PTE_WRITE | PTE_GLOBAL | PTE_NX;
}

static u64 boot_guard_page(void)
{
	u64 g = (u64)boot_stack_guard;

	if ((g & (PAGE_SIZE - 1)) || g < (u64)__data_start || g >= (u64)__bss_end)
		return 0;
	return g;
}

static void map_kernel_image(void)
{
	u64 guard = boot_guard_page();

	for (u64 v = (u64)__text_start; v < (u64)__kernel_end; v += PAGE_SIZE)
		if (v != guard)
			map_one(v, v - KERNEL_VMA, image_flags(v, true), 1);
}

/* [start, end) of physical memory (page-aligned): huge pages where a
 * whole aligned 1 GiB or 2 MiB lies inside the range, 4 KiB pages at its
 * edges, so that no large page reaches past the range into a hole or a
 * reserved area (SDM 11.11.9: a large page over mixed memory types is
 * undefined).  The kernel image's alias gets 4 KiB pages so text and
 * rodata stay read-only there too. */
static void map_direct(u64 start, u64 end)
{
	u64 img_lo = ALIGN_DOWN((u64)__text_start - KERNEL_VMA, SZ_2M);
	u64 img_hi = ALIGN_UP((u64)__kernel_end - KERNEL_VMA, SZ_2M);
	u64 rw = PTE_WRITE | PTE_GLOBAL | PTE_NX;

	for (u64 p = start; p < end;) {
		if (p >= img_lo && p < img_hi) {
			u64 kv = p + KERNEL_VMA;
			bool in_image = kv >= (u64)__text_start && kv < (u64)__kernel_end;

			map_one(p + PAGE_OFFSET, p, in_image ? image_flags(kv, false) : rw, 1);
			p += PAGE_SIZE;
		} else if (paging_features.gbpages && !(p & (SZ_1G - 1)) && p + SZ_1G <= end &&
			   (p + SZ_1G <= img_lo || p >= img_hi)) {
			map_one(p + PAGE_OFFSET, p, rw, 3);
			p += SZ_1G;
		} else if (!(p & (SZ_2M - 1)) && p + SZ_2M <= end) {
			map_one(p + PAGE_OFFSET, p, rw, 2);
			p += SZ_2M;
		} else {
			map_one(p + PAGE_OFFSET, p, rw, 1);
			p += PAGE_SIZE;
		}
	}
}

/* The trampoline's identity map, kept ready but unhooked: PML4 slot 0
 * points at it only while paging_identity_map_low(true).  Page 0 stays
 * unmapped so a null pointer still faults. */
static void build_low_identity(void)
{
	u64 pdpt = alloc_table(), pd = alloc_table(), pt = alloc_table();
	u64 *pdpt_v = table_va(pdpt), *pd_v = table_va(pd), *pt_v = table_va(pt);

	pdpt_v[0] = pd | PTE_PRESENT | PTE_WRITE;
	pd_v[0] = pt | PTE_PRESENT | PTE_WRITE;
	for (u64 p = PAGE_SIZE; p < LOW_IDENTITY_END; p += PAGE_SIZE)
		pt_v[p >> PAGE_SHIFT] = p | PTE_PRESENT | PTE_WRITE;
	low_pdpt_phys = pdpt;
}

/* The control-register state the kernel tables need, on this CPU. */
static void enable_cpu_features(void)
{
	if (paging_features.nx)
		wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_NXE);
	write_cr0(read_cr0() | CR0_WP);
	if (paging_features.pat)
		wrmsr(MSR_PAT, PAT_VALUE);
	if (paging_features.pge)
		write_cr4(read_cr4() | CR4_PGE);
}

void paging_init(void)
{
	const struct pmm_range *cover;
	unsigned int n;
	u64 limit, mapped = 0;

	detect_features();
	if (!paging_features.nx)
		pr_warn("paging: this CPU has no NX bit; data and stacks stay executable\n");

	/* RAM and ACPI ranges of the memory map (pmm_init), split at their
	 * edges; devices and firmware areas are reached through ioremap. */
	n = pmm_physical_ranges(&cover);
	limit = MIN(1ul << paging_features.phys_bits, DIRECT_MAP_SIZE);

	kernel_pml4_phys = alloc_table();
	map_kernel_image();
	for (unsigned int i = 0; i < n; i++) {
		u64 start = cover[i].start, end = MIN(cover[i].end, limit);

		if (start >= end) {
			pr_warn("paging: physical range 0x%lx-0x%lx is beyond the CPU's %u address bits; not mapped\n",
				(unsigned long)cover[i].start, (unsigned long)cover[i].end,
				paging_features.phys_bits);
			continue;
		}
		map_direct(start, end);
		mapped += end - start;
	}
	build_low_identity();
	/* Pre-make the region tables so PML4 entries never change after APs
	 * have started (and the region entries exist in every CPU's view). */
	walk_create(STACK_REGION_START, 3);
	walk_create(IOREMAP_REGION_START, 3);

	enable_cpu_features();
	write_cr3(kernel_pml4_phys);
	tables_live = true;
	pr_info("paging: kernel tables at 0x%lx: direct map %lu MiB in %u ranges (RAM and ACPI; up to %s pages), NX %s, W^X image, boot identity map dropped\n",
		(unsigned long)kernel_pml4_phys, (unsigned long)(mapped >> 20), n,
		paging_features.gbpages ? "1 GiB" : "2 MiB",
		paging_features.nx ? "on" : "unavailable");
	pmm_late_init();
}

void paging_load_cpu(void)
{
	enable_cpu_features();
	write_cr3(kernel_pml4_phys);
}

u64 paging_kernel_cr3(void)
{
	return kernel_pml4_phys;
}

void paging_identity_map_low(bool on)
{
	u64 *pml4 = table_va(kernel_pml4_phys);

	WRITE_ONCE(pml4[0], on ? (low_pdpt_phys | PTE_PRESENT | PTE_WRITE) : 0);
	/* identity entries are not global: reloading CR3 drops them */
	write_cr3(read_cr3());
}

static void *ioremap_prot(u64 phys, size_t len, u64 cache)
{
	unsigned long flags;
	u64 start, end, virt;

	if (!tables_live) {
		pr_err("ioremap(0x%lx): called before paging_init\n", (unsigned long)phys);
		return NULL;
	}
	if (len == 0 || phys + len < phys || phys + len > (1ul << paging_features.phys_bits)) {
		pr_err("ioremap: bad range 0x%lx+0x%lx\n", (unsigned long)phys, (unsigned long)len);
		return NULL;
	}
	start = ALIGN_DOWN(phys, PAGE_SIZE);
	end = ALIGN_UP(phys + len, PAGE_SIZE);

	spin_lock_irqsave(&paging_lock, flags);
	/* one unmapped page after each mapping catches overruns */
	if (end - start + PAGE_SIZE > IOREMAP_REGION_END - ioremap_next) {
		spin_unlock_irqrestore(&paging_lock, flags);
		pr_err("ioremap: region full\n");
		return NULL;
	}
	virt = ioremap_next;
	ioremap_next += end - start + PAGE_SIZE;
	for (u64 p = start; p < end; p += PAGE_SIZE) {
		u64 *e = walk_create(virt + (p - start), 1);

		if (!e) {
			spin_unlock_irqrestore(&paging_lock, flags);
			pr_err("ioremap: out of memory for page tables\n");
			return NULL;
		}
		WRITE_ONCE(*e, p | fix_flags(PTE_PRESENT | PTE_WRITE | cache | PTE_GLOBAL | PTE_NX));
	}
	spin_unlock_irqrestore(&paging_lock, flags);
	return (void *)(virt + (phys - start));
}

void *ioremap(u64 phys, size_t len)
{
	return ioremap_prot(phys, len, PTE_PCD | PTE_PWT);	/* PAT entry 3: UC */
}

void *ioremap_wc(u64 phys, size_t len)
{
	/* PAT entry 1 is WC once PAT_VALUE is loaded; without PAT, UC */
	return ioremap_prot(phys, len, paging_features.pat ? PTE_PWT : PTE_PCD | PTE_PWT);
}

void *alloc_kernel_stack(size_t size)
{
	unsigned long flags;
	struct free_stack **pp, *s;
	u64 base;

	if (!pmm_ready())
		return NULL;
	size = ALIGN_UP(size ? size : PAGE_SIZE, PAGE_SIZE);

	spin_lock_irqsave(&paging_lock, flags);
	for (pp = &free_stacks; (s = *pp) != NULL; pp = &s->next) {
		if (s->size == size) {
			*pp = s->next;
			spin_unlock_irqrestore(&paging_lock, flags);
			memset(s, 0, size);
			return (char *)s + size;
		}
	}
	if (size + PAGE_SIZE > STACK_REGION_END - stack_next) {
		spin_unlock_irqrestore(&paging_lock, flags);
		pr_err("alloc_kernel_stack: stack region full\n");
		return NULL;
	}
	base = stack_next + PAGE_SIZE;	/* stack_next itself: the guard */
	for (u64 off = 0; off < size; off += PAGE_SIZE) {
		u64 pa = pmm_alloc_page();
		u64 *e = pa ? walk_create(base + off, 1) : NULL;

		if (!e) {
			/* Never used, so no TLB anywhere holds these; undo locally. */
			if (pa)
				pmm_free_page(pa);
			for (u64 o = 0; o < off; o += PAGE_SIZE) {
				u64 *u = walk_create(base + o, 1);

				pmm_free_page(*u & PTE_ADDR_MASK);
				WRITE_ONCE(*u, 0);
				__asm__ __volatile__("invlpg (%0)" ::"r"(base + o) : "memory");
			}
			spin_unlock_irqrestore(&paging_lock, flags);
			pr_err("alloc_kernel_stack: out of memory for %zu bytes\n", size);
			return NULL;
		}
		WRITE_ONCE(*e, pa | fix_flags(PTE_PRESENT | PTE_WRITE | PTE_GLOBAL | PTE_NX));
	}
	/* published only now, so is_stack_guard never sees a half-made stack */
	WRITE_ONCE(stack_next, base + size);
	spin_unlock_irqrestore(&paging_lock, flags);
	memset((void *)base, 0, size);
	return (void *)(base + size);
}

void free_kernel_stack(void *top, size_t size)
{
	unsigned long flags;
	struct free_stack *s;

	if (!top)
		return;
	size = ALIGN_UP(size ? size : PAGE_SIZE, PAGE_SIZE);
	s = (struct free_stack *)((u64)top - size);
	if ((u64)s < STACK_REGION_START + PAGE_SIZE || (u64)top > READ_ONCE(stack_next) ||
	    ((u64)top & (PAGE_SIZE - 1)) || is_stack_guard((u64)s)) {
		WARN(1, "free_kernel_stack: %p (size %zu) is not a kernel stack", top, size);
		return;
	}
	s->size = size;
	spin_lock_irqsave(&paging_lock, flags);
	s->next = free_stacks;
	free_stacks = s;
	spin_unlock_irqrestore(&paging_lock, flags);
}

bool is_stack_guard(unsigned long addr)
{
	u64 guard = boot_guard_page();

	if (guard && addr >= guard && addr < guard + PAGE_SIZE)
		return true;
	if (addr < STACK_REGION_START || addr >= READ_ONCE(stack_next))
		return false;
	return !(paging_lookup(addr, NULL) & PTE_PRESENT);
}

/* rbx is callee-saved, so it carries the old stack pointer across fn;
 * the new stack starts 16-byte aligned, as the ABI wants at a call. */
__asm__(
	".pushsection .text\n"
	".globl call_on_stack\n"
	".type call_on_stack, @function\n"
	"call_on_stack:\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	push %rbx\n"
	"	sub $8, %rsp\n"
	"	mov %rsp, %rbx\n"
	"	and $-16, %rdi\n"
	"	mov %rdi, %rsp\n"
	"	mov %rsi, %rax\n"
	"	mov %rdx, %rdi\n"
	"	call *%rax\n"
	"	mov %rbx, %rsp\n"
	"	add $8, %rsp\n"
	"	pop %rbx\n"
	"	pop %rbp\n"
	"	ret\n"
	".size call_on_stack, .-call_on_stack\n"
	".popsection\n");

u64 paging_read_pat(void)
{
	return paging_features.pat ? rdmsr(MSR_PAT) : 0;
}
