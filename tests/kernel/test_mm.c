/* tests/kernel/test_mm.c: KTAP suite `mm`, the memory code on the real
 * machine: pages, kmalloc classes and poisoning, the page tables' W^X
 * (each checked by the fault it must raise, through probe_fault), guarded
 * stacks, ioremap, kmalloc from every CPU at once, and the cost of an
 * allocation (bench rows `name=kmalloc` and `name=page_alloc`).  `selftest_mm_crash` overflows a guarded stack on
 * purpose; tests/qemu-configs expects the "kernel stack overflow" report. */
#include "kernel/ktap.h"
#include "kernel/pmm.h"
#include "kernel/slab.h"
#include "kernel/string.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "arch/x86_64/paging.h"
#include "asm/irq.h"
#include "kernel/math.h"

#define PF_VECTOR 14
#define NPAGES 64

extern char __text_start[], __rodata_start[], __data_start[], __kernel_end[];

static void pages_alloc_free(void)
{
	u64 pages[NPAGES];
	unsigned long before = pmm_free_count();

	KTAP_ASSERT(pmm_ready());
	for (int i = 0; i < NPAGES; i++) {
		pages[i] = pmm_alloc_page();
		KTAP_ASSERT(pages[i] != 0);
		KTAP_EXPECT((pages[i] & (PAGE_SIZE - 1)) == 0);
		KTAP_EXPECT(pages[i] >= 0x100000);
		/* not inside the kernel image */
		KTAP_EXPECT(pages[i] + PAGE_SIZE <= (u64)__text_start - KERNEL_VMA ||
			    pages[i] >= (u64)__kernel_end - KERNEL_VMA);
		memset(phys_to_virt(pages[i]), i, PAGE_SIZE);
	}
	KTAP_EXPECT_EQ(pmm_free_count(), before - NPAGES);
	for (int i = 0; i < NPAGES; i++) {
		const u8 *v = phys_to_virt(pages[i]);

		for (int j = 0; j < i; j++)
			KTAP_EXPECT(pages[i] != pages[j]);
		KTAP_EXPECT(v[0] == (u8)i && v[PAGE_SIZE - 1] == (u8)i);
	}
	for (int i = 0; i < NPAGES; i++)
		pmm_free_page(pages[i]);
	KTAP_EXPECT_EQ(pmm_free_count(), before);
	/* freed pages are poisoned */
	KTAP_EXPECT(*(u8 *)phys_to_virt(pages[0]) == POISON_FREE);

	u64 run = pmm_alloc_pages(16);
	KTAP_ASSERT(run != 0);
	memset(phys_to_virt(run), 0x5a, 16 * PAGE_SIZE);
	pmm_free_pages(run, 16);
	KTAP_EXPECT_EQ(pmm_free_count(), before);

	unsigned long bad = pmm_bad_free_count();
	ktap_expect_warnings(1, "a page freed twice");
	pmm_free_page(run);	/* double free: reported (WARNING), ignored */
	KTAP_EXPECT_EQ(pmm_bad_free_count(), bad + 1);
	KTAP_EXPECT_EQ(pmm_free_count(), before);
	ktap_log("pmm: %lu of %lu pages free", pmm_free_count(), pmm_managed_count());
}

static void kmalloc_all_classes(void)
{
	static const size_t sizes[] = { 1, 16, 17, 32, 48, 64, 100, 128, 255, 256,
					500, 512, 1000, 1024, 1500, 2048, 2049, 5000,
					70000 };
	void *p[ARRAY_SIZE(sizes)];
	struct kmalloc_class_stats st[KMALLOC_NR_CLASSES];
	unsigned long large = kmalloc_large_in_use();

	for (unsigned int c = 0; c < KMALLOC_NR_CLASSES; c++)
		kmalloc_class_stats(c, &st[c]);
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		p[i] = kmalloc(sizes[i], GFP_KERNEL);
		KTAP_ASSERT(p[i] != NULL);
		size_t ks = ksize(p[i]);
		KTAP_EXPECT(ks >= sizes[i]);
		KTAP_EXPECT(((u64)p[i] & ((ks < 64 ? ks : 64) - 1)) == 0);
		memset(p[i], (int)i + 1, sizes[i]);
	}
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		const u8 *b = p[i];
		bool intact = true;

		for (size_t j = 0; j < sizes[i]; j++)
			if (b[j] != (u8)(i + 1))
				intact = false;
		KTAP_EXPECT(intact);
	}
	KTAP_EXPECT_EQ(kmalloc_large_in_use(), large + 3);
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++)
		kfree(p[i]);
	for (unsigned int c = 0; c < KMALLOC_NR_CLASSES; c++) {
		struct kmalloc_class_stats now;

		kmalloc_class_stats(c, &now);
		KTAP_EXPECT_EQ(now.in_use, st[c].in_use);
	}
	KTAP_EXPECT_EQ(kmalloc_large_in_use(), large);

	u8 *z = kzalloc(3000, GFP_ATOMIC);
	KTAP_ASSERT(z != NULL);
	bool zero = true;
	for (int i = 0; i < 3000; i++)
		zero &= z[i] == 0;
	KTAP_EXPECT(zero);
	kfree(z);
}

static void kmalloc_poison_after_free(void)
{
	unsigned long errors = kmalloc_poison_errors();
	u8 *p = kmalloc(96, GFP_KERNEL);	/* class 128 */

	KTAP_ASSERT(p != NULL);
	memset(p, 0x11, 96);
	kfree(p);
	/* freed memory reads as poison (the first 8 bytes hold the link) */
	bool poisoned = true;
	for (int i = 8; i < 128; i++)
		poisoned &= p[i] == POISON_FREE;
	KTAP_EXPECT(poisoned);

	/* a write after free shows up when the object is handed out again */
	p[40] = 0;
	u8 *q = kmalloc(100, GFP_KERNEL);
	KTAP_EXPECT(q == p);
	KTAP_EXPECT_EQ(kmalloc_poison_errors(), errors + 1);
	kfree(q);

	/* honest reuse raises nothing */
	q = kmalloc(128, GFP_KERNEL);
	KTAP_EXPECT_EQ(kmalloc_poison_errors(), errors + 1);
	kfree(q);

	unsigned long bad = kmalloc_bad_frees();
	ktap_expect_warnings(2, "kfree() twice and kfree() of a non-kmalloc pointer");
	kfree(q);				/* double free: reported, ignored */
	KTAP_EXPECT_EQ(kmalloc_bad_frees(), bad + 1);
	kfree((void *)__data_start);		/* not kmalloc's */
	KTAP_EXPECT_EQ(kmalloc_bad_frees(), bad + 2);
}

/* Each probe rewrites a byte with the value it already holds, so if the
 * protection were missing nothing would change but the verdict. */
static void rewrite_byte(void *addr)
{
	volatile u8 *p = addr;

	*p = *p;
}

static void call_code(void *addr)
{
	((void (*)(void))addr)();
}

static const u8 rodata_byte = 0xc3;
static u8 data_ret[16] __aligned(16) = { 0xc3 };	/* ret */

static void wx_text_readonly(void)
{
	int level;
	u64 pte = paging_lookup((u64)pages_alloc_free, &level);

	KTAP_EXPECT(pte & PTE_PRESENT);
	KTAP_EXPECT(!(pte & PTE_WRITE));
	KTAP_EXPECT(!(pte & PTE_NX));
	KTAP_EXPECT_EQ(level, 1);
	KTAP_EXPECT_EQ(probe_fault(rewrite_byte, (void *)pages_alloc_free), PF_VECTOR);
	/* nor through its alias in the direct map */
	void *alias = phys_to_virt(virt_to_phys((void *)pages_alloc_free));
	KTAP_EXPECT_EQ(probe_fault(rewrite_byte, alias), PF_VECTOR);
}

static void wx_rodata_readonly_noexec(void)
{
	u64 pte = paging_lookup((u64)&rodata_byte, NULL);

	KTAP_EXPECT(pte & PTE_PRESENT);
	KTAP_EXPECT(!(pte & PTE_WRITE));
	KTAP_EXPECT_EQ(probe_fault(rewrite_byte, (void *)&rodata_byte), PF_VECTOR);
	if (!paging_features.nx) {
		ktap_skip("no NX on this CPU");
		return;
	}
	KTAP_EXPECT(pte & PTE_NX);
	KTAP_EXPECT_EQ(probe_fault(call_code, (void *)&rodata_byte), PF_VECTOR);
}

static void wx_data_noexec(void)
{
	if (!paging_features.nx) {
		ktap_skip("no NX on this CPU");
		return;
	}
	u64 pte = paging_lookup((u64)data_ret, NULL);
	KTAP_EXPECT((pte & PTE_PRESENT) && (pte & PTE_WRITE) && (pte & PTE_NX));
	KTAP_EXPECT_EQ(probe_fault(call_code, data_ret), PF_VECTOR);
	KTAP_EXPECT_EQ(probe_fault(rewrite_byte, data_ret), 0);

	/* heap (direct map) memory is not executable either */
	u8 *heap = kmalloc(16, GFP_KERNEL);
	KTAP_ASSERT(heap != NULL);
	heap[0] = 0xc3;
	KTAP_EXPECT_EQ(probe_fault(call_code, heap), PF_VECTOR);
	kfree(heap);
}

static void read_byte(void *addr)
{
	(void)*(volatile u8 *)addr;
}

static void low_memory_unmapped(void)
{
	/* the boot identity map is gone: low virtual addresses fault */
	if (paging_lookup(0x100000, NULL)) {
		ktap_skip("the AP trampoline identity map is on");
		return;
	}
	KTAP_EXPECT_EQ(probe_fault(read_byte, (void *)0x100000), PF_VECTOR);
	KTAP_EXPECT_EQ(probe_fault(read_byte, (void *)0x200000000ul), PF_VECTOR);
	/* while the direct map reaches the same memory */
	KTAP_EXPECT_EQ(probe_fault(read_byte, phys_to_virt(0x100000)), 0);
}

static void write_top_word(void *top)
{
	((volatile u64 *)top)[-1] = 0x1234;
}

static void stack_guard_page(void)
{
	const size_t size = 16384;
	u8 *top = alloc_kernel_stack(size);

	KTAP_ASSERT(top != NULL);
	u8 *bottom = top - size;
	KTAP_EXPECT(((u64)top & (PAGE_SIZE - 1)) == 0);
	KTAP_EXPECT((u64)top >= STACK_REGION_START && (u64)top < STACK_REGION_END);
	KTAP_EXPECT_EQ(probe_fault(write_top_word, top), 0);
	KTAP_EXPECT_EQ(probe_fault(rewrite_byte, bottom), 0);
	KTAP_EXPECT(bottom[1] == 0 && top[-9] == 0);	/* zeroed */
	KTAP_EXPECT_EQ(probe_fault(read_byte, bottom - 1), PF_VECTOR);
	KTAP_EXPECT(is_stack_guard((unsigned long)(bottom - 1)));
	KTAP_EXPECT(is_stack_guard((unsigned long)(bottom - PAGE_SIZE)));
	KTAP_EXPECT(!is_stack_guard((unsigned long)bottom));
	KTAP_EXPECT(!is_stack_guard((unsigned long)__data_start));
	if (paging_features.nx)
		KTAP_EXPECT(paging_lookup((u64)bottom, NULL) & PTE_NX);

	/* a second stack has its own guard, and freed stacks are reused */
	u8 *top2 = alloc_kernel_stack(size);
	KTAP_ASSERT(top2 != NULL);
	KTAP_EXPECT(top2 - size - PAGE_SIZE >= top || top2 <= bottom - PAGE_SIZE);
	free_kernel_stack(top2, size);
	u8 *top3 = alloc_kernel_stack(size);
	KTAP_EXPECT(top3 == top2);
	KTAP_EXPECT(top3 && top3[-8] == 0);
	free_kernel_stack(top3, size);
	free_kernel_stack(top, size);
}

extern char boot_stack_guard[], boot_stack_bottom[];

static void boot_stack_guarded(void)
{
	unsigned long bottom = (unsigned long)boot_stack_bottom;

	KTAP_EXPECT((unsigned long)boot_stack_guard + PAGE_SIZE == bottom);
	KTAP_EXPECT(paging_lookup((u64)boot_stack_guard, NULL) == 0);
	KTAP_EXPECT(is_stack_guard(bottom - 1));
	KTAP_EXPECT(!is_stack_guard(bottom));
	KTAP_EXPECT_EQ(probe_fault(read_byte, (void *)(bottom - 8)), PF_VECTOR);
}

static void on_stack(void *arg)
{
	volatile u64 local = 42;

	*(u64 *)arg = (u64)&local;
	(void)local;
}

static void call_on_guarded_stack(void)
{
	u8 *top = alloc_kernel_stack(8192);
	u64 where = 0;

	KTAP_ASSERT(top != NULL);
	call_on_stack(top, on_stack, &where);
	KTAP_EXPECT(where < (u64)top && where >= (u64)top - 8192);
	free_kernel_stack(top, 8192);
}

static void ioremap_uncached(void)
{
	/* the LAPIC page: present on every PC, above RAM */
	u8 *a = ioremap(0xfee00000, 0x400);
	u8 *b = ioremap(0xfec00000 + 0x10, 0x20);

	KTAP_ASSERT(a != NULL && b != NULL);
	KTAP_EXPECT((u64)a >= IOREMAP_REGION_START && (u64)a < IOREMAP_REGION_END);
	KTAP_EXPECT(((u64)b & (PAGE_SIZE - 1)) == 0x10);
	u64 pte = paging_lookup((u64)a, NULL);
	KTAP_EXPECT((pte & PTE_ADDR_MASK) == 0xfee00000);
	KTAP_EXPECT((pte & PTE_PCD) && (pte & PTE_WRITE));
	if (paging_features.nx)
		KTAP_EXPECT(pte & PTE_NX);
	/* mappings do not touch: an overrun faults */
	KTAP_EXPECT(paging_lookup((u64)a + PAGE_SIZE, NULL) == 0);
	KTAP_EXPECT(ioremap(0, 0) == NULL);
	KTAP_EXPECT(ioremap(~0ul - 10, 100) == NULL);
}


/* Every CPU at once (the others from their call IPI, irqs off, so
 * GFP_ATOMIC): objects of random sizes, each filled with the CPU's mark
 * and checked before it is freed, so any object handed out twice shows. */
/* Bounded by a count and by time, so the run stays well inside the
 * cross-CPU call timeout even with 16 vCPUs on a 2-core host under TCG. */
#define STRESS_OPS 2000
#define STRESS_BUDGET_NS 2000000000ull
#define STRESS_SLOTS 32

struct stress_result {
	unsigned long bad, allocs;
	bool done;
} ____cacheline_aligned;
static struct stress_result stress_res[NR_CPUS];

static void kmalloc_stress_cpu(void *arg)
{
	int cpu = raw_smp_processor_id();
	u32 seed = (u32)cpu * 2654435761u + 1;
	u8 *live[STRESS_SLOTS] = { 0 };
	size_t len[STRESS_SLOTS];
	u8 mark = (u8)(cpu + 1);
	struct stress_result *r = &stress_res[cpu];

	u64 deadline = ktime_get_ns() + STRESS_BUDGET_NS;

	(void)arg;
	for (int it = 0; it < STRESS_OPS; it++) {
		if (it % 64 == 0 && ktime_get_ns() > deadline)
			break;
		seed = seed * 1103515245u + 12345u;
		unsigned int k = (seed >> 16) % STRESS_SLOTS;

		if (live[k]) {
			for (size_t i = 0; i < len[k]; i++)
				if (live[k][i] != mark) {
					r->bad++;
					break;
				}
			kfree(live[k]);
			live[k] = NULL;
		} else if (it % 97 == 0) {
			u64 pg = pmm_alloc_page();

			if (!pg) {
				r->bad++;
				continue;
			}
			memset(phys_to_virt(pg), mark, PAGE_SIZE);
			pmm_free_page(pg);
		} else {
			len[k] = 1 + (seed >> 4) % (it % 61 == 0 ? 9000 : KMALLOC_MAX_CACHE_SIZE);
			live[k] = kmalloc(len[k], GFP_ATOMIC);
			if (!live[k]) {
				r->bad++;
				continue;
			}
			memset(live[k], mark, len[k]);
			r->allocs++;
		}
	}
	for (int k = 0; k < STRESS_SLOTS; k++)
		kfree(live[k]);
	WRITE_ONCE(r->done, true);
}

static void kmalloc_all_cpus_at_once(void)
{
	unsigned long poison = kmalloc_poison_errors(), frees = kmalloc_bad_frees();
	unsigned long pbad = pmm_bad_free_count(), bad = 0, allocs = 0;
	int cpu, cpus = 0;

	memset(stress_res, 0, sizeof(stress_res));
	KTAP_EXPECT_EQ(on_each_cpu(kmalloc_stress_cpu, NULL, 1), 0);
	for_each_online_cpu(cpu) {
		KTAP_EXPECT(READ_ONCE(stress_res[cpu].done));
		KTAP_EXPECT(stress_res[cpu].allocs > 0);
		bad += stress_res[cpu].bad;
		allocs += stress_res[cpu].allocs;
		cpus++;
	}
	KTAP_EXPECT_EQ(bad, 0);
	KTAP_EXPECT_EQ(kmalloc_poison_errors(), poison);
	KTAP_EXPECT_EQ(kmalloc_bad_frees(), frees);
	KTAP_EXPECT_EQ(pmm_bad_free_count(), pbad);
	ktap_log("kmalloc from %d CPUs at once: %lu allocations checked", cpus, allocs);
}

#define BENCH_RUNS 7
#define BENCH_OPS 2000

/* One alloc+free pair of `size` bytes (0: a page from pmm), BENCH_OPS
 * times; the row gives picosecond-resolved ns per pair. */
static void bench_alloc(const char *name, size_t size)
{
	static void *held[BENCH_OPS];
	u64 ps[BENCH_RUNS];
	struct stats st;

	for (int run = 0; run < BENCH_RUNS; run++) {
		u64 t0 = ktime_get_ns();

		for (int i = 0; i < BENCH_OPS; i++) {
			if (size) {
				held[i] = kmalloc(size, GFP_KERNEL);
				kfree(held[i]);
			} else {
				u64 p = pmm_alloc_page();

				held[i] = (void *)p;
				pmm_free_page(p);
			}
			barrier();	/* keep each pair a real call */
		}
		ps[run] = (ktime_get_ns() - t0) * 1000 / BENCH_OPS;
	}
	stats_compute(ps, BENCH_RUNS, &st);
	ktap_log("bench name=%s size=%zu cpus=1 ns_per_op=%llu.%03llu stddev=%llu.%03llu median_ns=%llu.%03llu runs=%d",
		 name, size ? size : PAGE_SIZE,
		 (unsigned long long)(st.mean / 1000), (unsigned long long)(st.mean % 1000),
		 (unsigned long long)(st.stddev / 1000), (unsigned long long)(st.stddev % 1000),
		 (unsigned long long)(st.median / 1000), (unsigned long long)(st.median % 1000), BENCH_RUNS);
}

static void bench_kmalloc_kfree(void)
{
	static const size_t sizes[] = { 16, 64, 256, 1024, 2048, 8192, 65536 };

	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++)
		bench_alloc("kmalloc", sizes[i]);
	bench_alloc("page_alloc", 0);
	KTAP_EXPECT(ktap_case_ok());
}

/* Write-combining through PAT entry 1 (PWT alone), for framebuffers. */
static void ioremap_write_combining(void)
{
	u8 *fb = ioremap_wc(0xfd000000, 3 * PAGE_SIZE);

	KTAP_ASSERT(fb != NULL);
	u64 pte = paging_lookup((u64)fb + 2 * PAGE_SIZE, NULL);
	KTAP_EXPECT((pte & PTE_ADDR_MASK) == 0xfd000000 + 2 * PAGE_SIZE);
	if (!paging_features.pat) {
		KTAP_EXPECT(pte & PTE_PCD);
		ktap_skip("no PAT on this CPU: write-combining falls back to UC");
		return;
	}
	KTAP_EXPECT((pte & (PTE_PCD | PTE_PWT)) == PTE_PWT);
	/* PAT entry 1 must really be WC (type 1) */
	KTAP_EXPECT_EQ((paging_read_pat() >> 8) & 7, 1);
}

static void report(void)
{
	mm_report();
	KTAP_EXPECT(pmm_free_count() > 0);
}

KTAP_SUITE(mm,
	   KTAP_CASE(pages_alloc_free),
	   KTAP_CASE(kmalloc_all_classes),
	   KTAP_CASE(kmalloc_poison_after_free),
	   KTAP_CASE(wx_text_readonly),
	   KTAP_CASE(wx_rodata_readonly_noexec),
	   KTAP_CASE(wx_data_noexec),
	   KTAP_CASE(low_memory_unmapped),
	   KTAP_CASE(stack_guard_page),
	   KTAP_CASE(boot_stack_guarded),
	   KTAP_CASE(call_on_guarded_stack),
	   KTAP_CASE(ioremap_uncached),
	   KTAP_CASE(ioremap_write_combining),
	   KTAP_CASE(kmalloc_all_cpus_at_once),
	   KTAP_CASE(bench_kmalloc_kfree),
	   KTAP_CASE(report));

static volatile int recurse_forever = 1;

static __attribute__((noinline)) int recurse(int depth)
{
	volatile char pad[200];

	pad[0] = (char)depth;
	if (recurse_forever)
		depth += recurse(depth + 1);
	return depth + pad[0];
}

static void overflow(void *arg)
{
	(void)arg;
	recurse(0);
}

static void stack_overflow(void)
{
	u8 *top = alloc_kernel_stack(8192);

	KTAP_ASSERT(top != NULL);
	call_on_stack(top, overflow, NULL);
	ktap_fail("survived a stack overflow");
}

KTAP_SUITE(selftest_mm_crash, KTAP_CASE(stack_overflow));
