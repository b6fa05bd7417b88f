/* tests/host/test_pmm.c: host tests of the page allocator (kernel/pmm.c)
 * and kmalloc (kernel/kmalloc.c), built from the kernel's own sources
 * against tests/host/mm_shim.  "Physical memory" is a lazily-backed
 * anonymous mapping; untrusted memory maps (unsorted, overlapping, empty,
 * overflowing, too many entries) are fed in and every page handed out is
 * checked against a shadow model.  Prints one line per test; exits
 * non-zero if any failed. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/mman.h>

#include "kernel/pmm.h"
#include "kernel/slab.h"
#include "kernel/printk.h"
#include "asm/page.h"
#include "ktest.h"

#define MiB (1ul << 20)
#define GiB (1ul << 30)

unsigned char *host_phys_base;
u64 host_phys_size = 8 * GiB;	/* reserved address space, touched lazily */
__thread int shim_in_nmi;
__thread int shim_cpu;

static unsigned long warnings;
static bool quiet = true;

int printk(const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return 0;
	va_start(ap, fmt);
	int n = vprintf(fmt, ap);
	va_end(ap);
	return n;
}

void warn_slowpath(const char *file, int line, const char *fmt, ...)
{
	(void)file; (void)line; (void)fmt;
	__atomic_fetch_add(&warnings, 1, __ATOMIC_RELAXED);
}

void dump_stack(void) {}

void panic(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("panic: ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	exit(2);
}

static void reset(void)
{
	pmm_reset();
	kmalloc_reset();
	warnings = 0;
}

/* A shadow of which pages the allocator may hand out. */
static u8 *allowed;	/* 1 per page: usable and not reserved */
static u8 *owned;	/* 1 per page: handed out by the test's allocations */

static void shadow_init(void)
{
	size_t n = host_phys_size >> PAGE_SHIFT;

	free(allowed);
	free(owned);
	allowed = calloc(n, 1);
	owned = calloc(n, 1);
}

static void shadow_mark(u64 start, u64 end, u8 v)
{
	for (u64 p = start; p < end && p < host_phys_size; p += PAGE_SIZE)
		allowed[p >> PAGE_SHIFT] = v;
}

static void test_ranges(void)
{
	reset();
	/* unsorted, overlapping, touching, empty, unaligned */
	pmm_add_range(64 * MiB, 16 * MiB);
	pmm_add_range(1 * MiB, 31 * MiB);
	pmm_add_range(16 * MiB, 32 * MiB);	/* overlaps both sides of nothing: joins 1..48 */
	pmm_add_range(100 * MiB, 0);
	pmm_add_range(70 * MiB, 4 * MiB);	/* inside an existing range */
	pmm_add_range(200 * MiB + 123, 3 * PAGE_SIZE);	/* shrinks to 2 pages */
	pmm_add_range(300 * MiB + 1, PAGE_SIZE);	/* shrinks to nothing */
	EXPECT(pmm_usable_bytes() == 47 * MiB + 16 * MiB + 2 * PAGE_SIZE);
	EXPECT(pmm_usable_end() == 200 * MiB + 3 * PAGE_SIZE);

	/* overflowing and out-of-range entries are clamped or dropped */
	pmm_add_range(~0ul - PAGE_SIZE, 10 * PAGE_SIZE);
	pmm_add_range(PHYS_ADDR_MAX - PAGE_SIZE, ~0ul);
	pmm_note_physical(3 * GiB, ~0ul);
	EXPECT(pmm_physical_end() == PHYS_ADDR_MAX);
	EXPECT(pmm_usable_bytes() == 47 * MiB + 16 * MiB + 3 * PAGE_SIZE);
}

/* The direct map's ranges: every noted range covered, sorted, disjoint,
 * however many and in whatever order they come. */
static void test_cover(void)
{
	static u64 base[300], len[300];
	const struct pmm_range *c;
	unsigned int n;

	reset();
	pmm_note_physical(0xfd00000000ul, 12 * GiB);
	pmm_note_physical(1 * MiB, 255 * MiB);
	pmm_note_physical(0, 640 * 1024);
	pmm_note_physical(0, 0);
	n = pmm_physical_ranges(&c);
	/* page-aligned, not widened: the hole at 640 KiB stays out */
	EXPECT(n == 3);
	EXPECT(c[0].start == 0 && c[0].end == 640 * 1024);
	EXPECT(c[1].start == 1 * MiB && c[1].end == 256 * MiB);
	EXPECT(c[2].start == 0xfd00000000ul && c[2].end == 0xfd00000000ul + 12 * GiB);

	srand(99);
	for (int i = 0; i < 300; i++) {
		base[i] = ((u64)rand() << 20) ^ (u64)rand();
		len[i] = (u64)(rand() % 5000) << 12;
		pmm_note_physical(base[i], len[i]);
	}
	n = pmm_physical_ranges(&c);
	EXPECT(n <= 64);
	bool sorted = true, covered = true;
	for (unsigned int i = 0; i + 1 < n; i++)
		if (c[i].end >= c[i + 1].start || c[i].start >= c[i].end)
			sorted = false;
	for (int i = 0; i < 300; i++) {
		bool in = len[i] == 0;
		for (unsigned int k = 0; k < n && !in; k++)
			in = c[k].start <= base[i] && base[i] + len[i] <= c[k].end;
		if (!in)
			covered = false;
	}
	EXPECT(sorted);
	EXPECT(covered);
}

/* The usual boot: ranges, reservations, early pages, bitmap; then every
 * free page must be handed out exactly once and only allowed ones. */
static void test_alloc_all(void)
{
	reset();
	shadow_init();
	pmm_add_range(0, 640 * 1024);
	pmm_add_range(1 * MiB, 127 * MiB);
	pmm_add_range(256 * MiB, 64 * MiB);
	pmm_add_range(4 * GiB, 256 * MiB);
	pmm_reserve(0, 1 * MiB);		/* low memory */
	pmm_reserve(1 * MiB, 3 * MiB + 17);	/* "kernel", grows outward */
	pmm_reserve(260 * MiB + 5, 10);		/* a page in the middle: splits */
	pmm_reserve(4 * GiB + 128 * MiB, 512 * MiB);	/* runs past the end */
	shadow_mark(1 * MiB, 128 * MiB, 1);
	shadow_mark(256 * MiB, 320 * MiB, 1);
	shadow_mark(4 * GiB, 4 * GiB + 256 * MiB, 1);
	shadow_mark(0, 4 * MiB + PAGE_SIZE, 0);
	shadow_mark(260 * MiB, 260 * MiB + PAGE_SIZE, 0);
	shadow_mark(4 * GiB + 128 * MiB, 5 * GiB, 0);

	u64 early[8];
	for (int i = 0; i < 8; i++) {
		early[i] = pmm_early_alloc(1, 2 * GiB);
		EXPECT(early[i] && early[i] < 2 * GiB && allowed[early[i] >> PAGE_SHIFT]);
		allowed[early[i] >> PAGE_SHIFT] = 0;
	}
	EXPECT(pmm_early_alloc(1, 1 * MiB) == 0);	/* nothing free below 1 MiB */
	pmm_late_init();
	EXPECT(pmm_ready());
	EXPECT(pmm_early_alloc(1, 2 * GiB) == 0);	/* only before the bitmap */

	unsigned long expect = 0;
	for (u64 p = 0; p < host_phys_size; p += PAGE_SIZE)
		expect += allowed[p >> PAGE_SHIFT];
	/* the bitmap took some pages: free count is a little below */
	unsigned long nfree = pmm_free_count();
	EXPECT(nfree <= expect && nfree + 512 > expect);

	unsigned long got = 0;
	bool bad = false;
	u64 p;
	while ((p = pmm_alloc_page()) != 0) {
		u64 pfn = p >> PAGE_SHIFT;

		if ((p & (PAGE_SIZE - 1)) || p >= host_phys_size || !allowed[pfn] || owned[pfn])
			bad = true;
		else
			owned[pfn] = 1;
		got++;
		if (got > expect)
			break;
	}
	EXPECT(!bad);
	EXPECT(got == nfree);
	EXPECT(pmm_free_count() == 0);
	EXPECT(pmm_alloc_pages(2) == 0);

	/* free every other owned page: no run of 2 can exist... */
	unsigned long freed = 0;
	int parity = 0;
	for (u64 q = 0; q < host_phys_size; q += PAGE_SIZE)
		if (owned[q >> PAGE_SHIFT] && (parity++ & 1)) {
			pmm_free_page(q);
			owned[q >> PAGE_SHIFT] = 0;
			freed++;
		}
	EXPECT(pmm_free_count() == freed);
	EXPECT(pmm_alloc_pages(2) == 0);
	/* ...and freed memory is poisoned */
	for (u64 q = 0; q < host_phys_size; q += PAGE_SIZE)
		if (allowed[q >> PAGE_SHIFT] && !owned[q >> PAGE_SHIFT] && q >= 256 * MiB) {
			const u8 *v = phys_to_virt(q);
			EXPECT(v[0] == 0x6b && v[PAGE_SIZE - 1] == 0x6b);
			break;
		}

	/* then free the rest: a long run appears, and is really free */
	for (u64 q = 0; q < host_phys_size; q += PAGE_SIZE)
		if (owned[q >> PAGE_SHIFT]) {
			pmm_free_page(q);
			owned[q >> PAGE_SHIFT] = 0;
		}
	EXPECT(pmm_free_count() == nfree);
	EXPECT(pmm_bad_free_count() == 0);
	u64 run = pmm_alloc_pages(1000);
	EXPECT(run != 0);
	for (u64 q = run; q < run + 1000 * PAGE_SIZE; q += PAGE_SIZE)
		EXPECT(allowed[q >> PAGE_SHIFT]);
	EXPECT(pmm_free_count() == nfree - 1000);
	pmm_free_pages(run, 1000);
	EXPECT(pmm_free_count() == nfree);
}

static void test_bad_frees(void)
{
	reset();
	pmm_add_range(1 * MiB, 15 * MiB);
	pmm_late_init();
	unsigned long nfree = pmm_free_count();
	u64 p = pmm_alloc_page();

	EXPECT(p);
	pmm_free_page(p);
	EXPECT(pmm_bad_free_count() == 0);
	pmm_free_page(p);			/* double free */
	EXPECT(pmm_bad_free_count() == 1);
	pmm_free_page(p + 5);			/* unaligned */
	EXPECT(pmm_bad_free_count() == 2);
	pmm_free_page(1 * GiB);			/* outside managed memory */
	EXPECT(pmm_bad_free_count() == 3);
	pmm_free_pages(15 * MiB, ~0ul);		/* length overflow */
	EXPECT(pmm_bad_free_count() == 4);
	EXPECT(pmm_free_count() == nfree);
	EXPECT(warnings == 4);
	EXPECT(pmm_alloc_pages(0) == 0);
	EXPECT(pmm_alloc_pages(nfree + 1) == 0);
}

/* More entries than the range table holds: memory is lost, never misused. */
static void test_too_many_ranges(void)
{
	reset();
	for (int i = 0; i < 1000; i++)
		pmm_add_range(1 * MiB + (u64)i * 2 * PAGE_SIZE, PAGE_SIZE);
	/* and holes punched into one big range */
	pmm_add_range(1 * GiB, 64 * MiB);
	for (int i = 0; i < 1000; i++)
		pmm_reserve(1 * GiB + (u64)i * 2 * PAGE_SIZE, 1);
	pmm_late_init();
	u64 p;
	bool bad = false;
	unsigned long n = 0;
	while ((p = pmm_alloc_page()) != 0) {
		n++;
		if (p >= 1 * GiB && p < 1 * GiB + 2000 * PAGE_SIZE && !((p >> PAGE_SHIFT) & 1))
			bad = true;	/* a reserved page */
		if (p < 1 * MiB)
			bad = true;
	}
	EXPECT(!bad);
	EXPECT(n > 1000);
}

/* Random allocations and frees against the shadow. */
static void test_random(void)
{
	reset();
	shadow_init();
	pmm_add_range(1 * MiB, 63 * MiB);
	pmm_late_init();
	unsigned long nfree = pmm_free_count();
	struct { u64 p; unsigned long n; } live[512];
	int nlive = 0;
	bool bad = false;
	srand(1234);
	for (int it = 0; it < 20000; it++) {
		if (nlive < 512 && (rand() % 3 != 0 || nlive == 0)) {
			unsigned long n = rand() % 8 == 0 ? 1 + rand() % 64 : 1;
			u64 p = pmm_alloc_pages(n);
			if (!p)
				continue;
			for (unsigned long i = 0; i < n; i++) {
				u64 pfn = (p >> PAGE_SHIFT) + i;
				if (owned[pfn] || p < 1 * MiB || p + n * PAGE_SIZE > 64 * MiB)
					bad = true;
				owned[pfn] = 1;
			}
			live[nlive].p = p;
			live[nlive++].n = n;
		} else {
			int k = rand() % nlive;
			for (unsigned long i = 0; i < live[k].n; i++)
				owned[(live[k].p >> PAGE_SHIFT) + i] = 0;
			pmm_free_pages(live[k].p, live[k].n);
			live[k] = live[--nlive];
		}
	}
	EXPECT(!bad);
	while (nlive) {
		nlive--;
		pmm_free_pages(live[nlive].p, live[nlive].n);
	}
	EXPECT(pmm_free_count() == nfree);
	EXPECT(pmm_bad_free_count() == 0);
}

static void boot_small(void)
{
	reset();
	pmm_add_range(1 * MiB, 255 * MiB);
	pmm_late_init();
}

static void test_kmalloc_classes(void)
{
	boot_small();
	size_t sizes[] = { 0, 1, 8, 15, 16, 17, 31, 32, 33, 64, 100, 128, 200, 256,
			   300, 512, 513, 1000, 1024, 1025, 2047, 2048, 2049, 4000,
			   4032, 4033, 8192, 100000, 3 * MiB };
	void *p[ARRAY_SIZE(sizes)];

	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		p[i] = kmalloc(sizes[i], GFP_KERNEL);
		EXPECT(p[i] != NULL);
		if (!p[i])
			continue;
		size_t ks = ksize(p[i]);
		EXPECT(ks >= sizes[i]);
		size_t align = ks < 64 ? ks : 64;
		EXPECT(((u64)p[i] & (align - 1)) == 0);
		/* fresh memory is poison, not zero and not garbage */
		bool poisoned = true;
		for (size_t b = 0; b < sizes[i]; b++)
			if (((u8 *)p[i])[b] != 0x6b)
				poisoned = false;
		EXPECT(poisoned);
		memset(p[i], (int)i, sizes[i]);
	}
	/* no two allocations overlap: each still holds its own pattern */
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		bool ok = true;
		for (size_t b = 0; p[i] && b < sizes[i]; b++)
			if (((u8 *)p[i])[b] != (u8)i)
				ok = false;
		EXPECT(ok);
	}
	struct kmalloc_class_stats st;
	kmalloc_class_stats(0, &st);
	EXPECT(st.size == 16 && st.in_use == 5);	/* 0, 1, 8, 15, 16 */
	kmalloc_class_stats(7, &st);
	EXPECT(st.size == 2048 && st.in_use == 3);	/* 1025, 2047, 2048 */
	EXPECT(kmalloc_large_in_use() == 7);
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++)
		kfree(p[i]);
	for (unsigned int c = 0; c < KMALLOC_NR_CLASSES; c++) {
		kmalloc_class_stats(c, &st);
		EXPECT(st.in_use == 0);
	}
	EXPECT(kmalloc_large_in_use() == 0);
	EXPECT(kmalloc_poison_errors() == 0 && kmalloc_bad_frees() == 0);

	u8 *z = kzalloc(777, GFP_KERNEL);
	bool zero = z != NULL;
	for (int b = 0; z && b < 777; b++)
		if (z[b])
			zero = false;
	EXPECT(zero);
	kfree(z);
	z = kzalloc(50000, GFP_ATOMIC);
	zero = z != NULL;
	for (int b = 0; z && b < 50000; b++)
		if (z[b])
			zero = false;
	EXPECT(zero);
	kfree(z);
	EXPECT(kcalloc(~0ul / 2, 4, GFP_KERNEL) == NULL);	/* overflow */
	EXPECT(kmalloc(1ul << 50, GFP_KERNEL) == NULL);
	kfree(NULL);
	EXPECT(kmalloc_bad_frees() == 0);
}

static void test_kmalloc_poison(void)
{
	boot_small();
	/* freed memory reads as poison */
	u8 *p = kmalloc(64, GFP_KERNEL);
	memset(p, 0x11, 64);
	kfree(p);
	EXPECT(p[8] == 0x6b && p[63] == 0x6b);

	/* a write after free is caught when the object is handed out again */
	p[20] = 0x42;
	u8 *q = kmalloc(64, GFP_KERNEL);
	EXPECT(q == p);			/* LIFO: the same object */
	EXPECT(kmalloc_poison_errors() == 1);
	kfree(q);

	/* the object's first word (a list link, on the shared list) written
	 * after free: caught, not followed.  200 objects overflow this CPU's
	 * cache, so some sit on the shared list, some in the cache. */
	static void *objs[200];
	unsigned long errs = kmalloc_poison_errors();
	for (int i = 0; i < 200; i++)
		objs[i] = kmalloc(128, GFP_KERNEL);
	for (int i = 0; i < 200; i++)
		kfree(objs[i]);
	for (int i = 0; i < 200; i++)
		((void **)objs[i])[0] = (void *)0x1234;
	bool all = true;
	for (int i = 0; i < 200; i++) {
		objs[i] = kmalloc(128, GFP_KERNEL);
		all &= objs[i] != NULL && objs[i] != (void *)0x1234;
	}
	EXPECT(all);
	/* each cached object reports; the list reports once and is dropped */
	EXPECT(kmalloc_poison_errors() > errs);
	EXPECT(kmalloc_poison_errors() <= errs + 200);
	for (int i = 0; i < 200; i++)
		kfree(objs[i]);

	/* no false alarms on honest use */
	unsigned long before = kmalloc_poison_errors();
	void *many[300];
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 300; i++)
			many[i] = kmalloc(16 << (i % 8), GFP_KERNEL);
		for (int i = 0; i < 300; i++)
			kfree(many[i]);
	}
	EXPECT(kmalloc_poison_errors() == before);

	/* large allocations are poisoned too on free (the pages are) */
	u8 *big = kmalloc(3 * PAGE_SIZE, GFP_KERNEL);
	memset(big, 0, 3 * PAGE_SIZE);
	kfree(big);
	EXPECT(big[100] == 0x6b && big[3 * PAGE_SIZE - 1] == 0x6b);
}

static void test_kfree_errors(void)
{
	boot_small();
	void *p = kmalloc(32, GFP_KERNEL);
	kfree(p);
	kfree(p);				/* double free (head of list) */
	EXPECT(kmalloc_bad_frees() == 1);
	void *q = kmalloc(32, GFP_KERNEL);
	kfree((char *)q + 4);			/* interior pointer */
	EXPECT(kmalloc_bad_frees() == 2);
	int on_stack;
	kfree(&on_stack);			/* not kmalloc memory */
	EXPECT(kmalloc_bad_frees() == 3);
	u64 page = pmm_alloc_page();
	kfree(phys_to_virt(page));		/* a page, not kmalloc's */
	EXPECT(kmalloc_bad_frees() == 4);
	u8 *big = kmalloc(10000, GFP_KERNEL);
	kfree(big + 64);
	EXPECT(kmalloc_bad_frees() == 5);
	kfree(big);
	kfree(big);				/* large double free */
	EXPECT(kmalloc_bad_frees() == 6);
	kfree(q);
	EXPECT(kmalloc_bad_frees() == 6);
	shim_in_nmi = 1;
	EXPECT(kmalloc(16, GFP_ATOMIC) == NULL);
	shim_in_nmi = 0;
}

/* Several "CPUs" at once: no object is handed to two threads. */
#define THREADS 4
#define ROUNDS 20000
static void *stress_thread(void *arg)
{
	unsigned int seed = (unsigned int)(uintptr_t)arg;

	shim_cpu = (int)(uintptr_t)arg;
	u8 *live[64] = { 0 };
	size_t len[64];
	long bad = 0;

	for (int it = 0; it < ROUNDS; it++) {
		int k = rand_r(&seed) % 64;
		if (live[k]) {
			for (size_t b = 0; b < len[k]; b++)
				if (live[k][b] != (u8)(uintptr_t)arg)
					bad++;
			kfree(live[k]);
			live[k] = NULL;
		} else {
			len[k] = 1 + rand_r(&seed) % (it % 50 == 0 ? 9000 : 2048);
			live[k] = kmalloc(len[k], GFP_KERNEL);
			if (live[k])
				memset(live[k], (u8)(uintptr_t)arg, len[k]);
		}
	}
	for (int k = 0; k < 64; k++)
		kfree(live[k]);
	return (void *)bad;
}

static void test_kmalloc_threads(void)
{
	boot_small();
	unsigned long nfree_before;
	pthread_t t[THREADS];
	long bad = 0;

	/* warm the classes so the free-page check below is exact */
	nfree_before = pmm_free_count();
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, stress_thread, (void *)(uintptr_t)(i + 1));
	for (int i = 0; i < THREADS; i++) {
		void *r;
		pthread_join(t[i], &r);
		bad += (long)r;
	}
	EXPECT(bad == 0);
	EXPECT(kmalloc_poison_errors() == 0 && kmalloc_bad_frees() == 0);
	EXPECT(kmalloc_large_in_use() == 0);
	struct kmalloc_class_stats st;
	unsigned long class_pages = 0;
	for (unsigned int c = 0; c < KMALLOC_NR_CLASSES; c++) {
		kmalloc_class_stats(c, &st);
		EXPECT(st.in_use == 0);
		class_pages += st.pages;
	}
	/* every page not now in a class came back to pmm */
	EXPECT(pmm_free_count() + class_pages == nfree_before);
}

int main(int argc, char **argv)
{
	static const struct { const char *name; void (*fn)(void); } tests[] = {
		{ "pmm_ranges", test_ranges },
		{ "pmm_cover", test_cover },
		{ "pmm_alloc_all", test_alloc_all },
		{ "pmm_bad_frees", test_bad_frees },
		{ "pmm_too_many_ranges", test_too_many_ranges },
		{ "pmm_random", test_random },
		{ "kmalloc_classes", test_kmalloc_classes },
		{ "kmalloc_poison", test_kmalloc_poison },
		{ "kfree_errors", test_kfree_errors },
		{ "kmalloc_threads", test_kmalloc_threads },
	};

	if (argc > 1 && !strcmp(argv[1], "-v"))
		quiet = false;
	host_phys_base = mmap(NULL, host_phys_size, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (host_phys_base == MAP_FAILED) {
		perror("test_pmm: mmap");
		return 1;
	}
	for (size_t i = 0; i < ARRAY_SIZE(tests); i++)
		ktest_run(tests[i].name, tests[i].fn);
	return ktest_summary();
}
