/* kernel/pmm.c: the physical page allocator (see pmm.h for the boot steps).
 *
 * Before the bitmap exists, free memory is a short sorted table of
 * disjoint page-aligned ranges; reserving memory cuts it out of the table,
 * so nothing can be handed out twice whatever order the firmware's memory
 * map comes in.  After pmm_late_init, one bit per page (set = not free)
 * over [0, usable end) is the whole truth.  Allocation is next-fit for
 * single pages and first-fit for runs: simple, and fast enough for a
 * kernel that allocates at boot and for tests.  Pure logic on top of
 * phys_to_virt(), so tests/host builds it unchanged. */
#include "kernel/pmm.h"
#include "kernel/shrinker.h"
#include "kernel/preempt.h"
#include "kernel/printk.h"
#include "kernel/slab.h"
#include "kernel/spinlock.h"
#include "kernel/string.h"
#include "asm/page.h"

#define PMM_MAX_RANGES	256
#define LOW_MEMORY_END	0x100000ul	/* real-mode area, BIOS, trampoline */

#define PMM_MAX_COVER	64
#define COVER_ALIGN	PAGE_SIZE	/* the direct map splits at range edges */

static struct pmm_range ranges[PMM_MAX_RANGES];	/* page-aligned, sorted, disjoint */
static struct pmm_range cover[PMM_MAX_COVER];	/* page-aligned, sorted, disjoint */
static unsigned int nr_cover;
static unsigned int nr_ranges;
static u64 usable_bytes;	/* before reservations */
static unsigned long dropped_bytes;	/* lost to a full range table */

static DEFINE_SPINLOCK(pmm_lock);
static u64 *bitmap;		/* bit set: page not free */
static u8 *page_tags;
static unsigned long bitmap_pages;	/* pages the bitmap describes */
static unsigned long managed_pages, free_pages;
static unsigned long next_hint;	/* word to start the next single-page search */
static unsigned long low_hint;	/* every page below it is in use */
static unsigned long bad_frees;
static bool late_done;

/* Clamp [base, base+len) to the physical address space; false if empty. */
static bool clamp_range(u64 base, u64 len, u64 *start, u64 *end)
{
	if (len == 0 || base >= PHYS_ADDR_MAX)
		return false;
	if (len > PHYS_ADDR_MAX - base)
		len = PHYS_ADDR_MAX - base;
	*start = base;
	*end = base + len;
	return true;
}

static void remove_range(unsigned int i)
{
	memmove(&ranges[i], &ranges[i + 1], (nr_ranges - i - 1) * sizeof(ranges[0]));
	nr_ranges--;
}

/* With the table full, a range of `size` bytes may take the slot of the
 * smallest one if that is smaller: whatever is lost is the least memory. */
static bool make_room(u64 start, u64 end)
{
	unsigned int small = 0;

	if (nr_ranges < PMM_MAX_RANGES)
		return true;
	for (unsigned int i = 1; i < nr_ranges; i++)
		if (ranges[i].end - ranges[i].start < ranges[small].end - ranges[small].start)
			small = i;
	if (ranges[small].end - ranges[small].start < end - start) {
		start = ranges[small].start;
		end = ranges[small].end;
		remove_range(small);
	}
	dropped_bytes += end - start;
	pr_warn("pmm: too many memory ranges; ignoring 0x%lx-0x%lx\n",
		(unsigned long)start, (unsigned long)end);
	return nr_ranges < PMM_MAX_RANGES;
}

/* Insert keeping the table sorted, then merge neighbours that touch. */
static void insert_range(u64 start, u64 end)
{
	unsigned int i = 0;

	if (!make_room(start, end))
		return;
	while (i < nr_ranges && ranges[i].start < start)
		i++;
	memmove(&ranges[i + 1], &ranges[i], (nr_ranges - i) * sizeof(ranges[0]));
	ranges[i] = (struct pmm_range){ start, end };
	nr_ranges++;

	/* merge backwards once, then forwards as far as the new end reaches */
	if (i > 0 && ranges[i - 1].end >= ranges[i].start) {
		if (ranges[i].end > ranges[i - 1].end)
			ranges[i - 1].end = ranges[i].end;
		remove_range(i);
		i--;
	}
	while (i + 1 < nr_ranges && ranges[i].end >= ranges[i + 1].start) {
		if (ranges[i + 1].end > ranges[i].end)
			ranges[i].end = ranges[i + 1].end;
		remove_range(i + 1);
	}
}

static void cut_range(u64 start, u64 end)
{
	for (unsigned int i = 0; i < nr_ranges;) {
		struct pmm_range *r = &ranges[i];

		if (r->end <= start || r->start >= end) {
			i++;
		} else if (r->start >= start && r->end <= end) {
			remove_range(i);
		} else if (r->start < start && r->end > end) {
			/* a hole in the middle: the upper piece needs a slot */
			u64 upper_end = r->end;

			r->end = start;
			/* may move the table: re-insert the upper piece by value */
			insert_range(end, upper_end);
			return;
		} else if (r->start < start) {
			r->end = start;
			i++;
		} else {
			r->start = end;
			i++;
		}
	}
}

static void remove_cover(unsigned int i)
{
	memmove(&cover[i], &cover[i + 1], (nr_cover - i - 1) * sizeof(cover[0]));
	nr_cover--;
}

/* Widens cover[i] to include [start, end), then swallows the ranges it
 * now reaches. */
static void widen_cover(unsigned int i, u64 start, u64 end)
{
	if (start < cover[i].start)
		cover[i].start = start;
	if (end > cover[i].end)
		cover[i].end = end;
	while (i + 1 < nr_cover && cover[i + 1].start <= cover[i].end) {
		if (cover[i + 1].end > cover[i].end)
			cover[i].end = cover[i + 1].end;
		remove_cover(i + 1);
	}
	while (i > 0 && cover[i - 1].end >= cover[i].start) {
		if (cover[i].end > cover[i - 1].end)
			cover[i - 1].end = cover[i].end;
		remove_cover(i);
		i--;
	}
}

/* What the direct map must reach.  A full table merges the range into a
 * neighbour: that maps a hole too, which costs tables, not correctness. */
void pmm_note_physical(u64 base, u64 len)
{
	u64 start, end;
	unsigned int i = 0;

	if (!clamp_range(base, len, &start, &end))
		return;
	start = ALIGN_DOWN(start, COVER_ALIGN);
	end = ALIGN_UP(end, COVER_ALIGN);
	while (i < nr_cover && cover[i].end < start)
		i++;
	if (i < nr_cover && cover[i].start <= end) {
		widen_cover(i, start, end);
	} else if (nr_cover == PMM_MAX_COVER) {
		widen_cover(i > 0 ? i - 1 : 0, start, end);
	} else {
		memmove(&cover[i + 1], &cover[i], (nr_cover - i) * sizeof(cover[0]));
		cover[i] = (struct pmm_range){ start, end };
		nr_cover++;
	}
}

unsigned int pmm_physical_ranges(const struct pmm_range **out)
{
	*out = cover;
	return nr_cover;
}

void pmm_add_range(u64 base, u64 len)
{
	u64 start, end;

	if (late_done) {
		pr_err("pmm: pmm_add_range after the allocator is up; ignored\n");
		return;
	}
	if (!clamp_range(base, len, &start, &end))
		return;
	pmm_note_physical(base, len);
	start = ALIGN_UP(start, PAGE_SIZE);
	end = ALIGN_DOWN(end, PAGE_SIZE);
	if (start >= end)
		return;
	/* count only what no earlier range already covered */
	u64 before = 0, after = 0;
	for (unsigned int i = 0; i < nr_ranges; i++)
		before += ranges[i].end - ranges[i].start;
	insert_range(start, end);
	for (unsigned int i = 0; i < nr_ranges; i++)
		after += ranges[i].end - ranges[i].start;
	usable_bytes += after - before;
}

static void bitmap_set_used(unsigned long pfn, unsigned long n);

void pmm_reserve(u64 base, u64 len)
{
	u64 start, end;

	if (!clamp_range(base, len, &start, &end))
		return;
	start = ALIGN_DOWN(start, PAGE_SIZE);
	end = ALIGN_UP(end, PAGE_SIZE);
	if (!late_done) {
		cut_range(start, end);
		return;
	}
	if (start >= (u64)bitmap_pages << PAGE_SHIFT)
		return;
	if (end > (u64)bitmap_pages << PAGE_SHIFT)
		end = (u64)bitmap_pages << PAGE_SHIFT;
	unsigned long flags;
	spin_lock_irqsave(&pmm_lock, flags);
	bitmap_set_used(start >> PAGE_SHIFT, (end - start) >> PAGE_SHIFT);
	spin_unlock_irqrestore(&pmm_lock, flags);
}

u64 pmm_early_alloc(u64 npages, u64 limit)
{
	u64 size = npages << PAGE_SHIFT;

	if (late_done || npages == 0)
		return 0;
	for (unsigned int i = 0; i < nr_ranges; i++) {
		struct pmm_range *r = &ranges[i];

		if (r->end - r->start >= size && r->start + size <= limit) {
			u64 p = r->start;

			r->start += size;
			if (r->start == r->end)
				remove_range(i);
			return p;
		}
	}
	return 0;
}

static inline bool test_used(unsigned long pfn)
{
	return bitmap[pfn / 64] & (1ull << (pfn % 64));
}

/* Marks free pages in [pfn, pfn+n) used; pages already used stay so.
 * Caller holds pmm_lock (or runs before anyone else can). */
static void bitmap_set_used(unsigned long pfn, unsigned long n)
{
	for (unsigned long p = pfn; p < pfn + n; p++) {
		if (!test_used(p)) {
			bitmap[p / 64] |= 1ull << (p % 64);
			free_pages--;
		}
	}
}

static void bitmap_clear_range(unsigned long pfn, unsigned long n)
{
	unsigned long p = pfn, end = pfn + n;

	for (; p < end && (p % 64); p++)
		bitmap[p / 64] &= ~(1ull << (p % 64));
	for (; p + 64 <= end; p += 64)
		bitmap[p / 64] = 0;
	for (; p < end; p++)
		bitmap[p / 64] &= ~(1ull << (p % 64));
}

void pmm_late_init(void)
{
	if (late_done)
		return;
	if (nr_ranges == 0)
		panic("pmm: the memory map has no usable RAM above 1 MiB");

	unsigned long pfns = ranges[nr_ranges - 1].end >> PAGE_SHIFT;
	unsigned long words = (pfns + 63) / 64;
	/* the bitmap and the tag bytes share one run of pages */
	u64 bytes = words * 8 + pfns;
	u64 npages = ALIGN_UP(bytes, PAGE_SIZE) >> PAGE_SHIFT;
	u64 phys = pmm_early_alloc(npages, PHYS_ADDR_MAX);
	if (!phys)
		panic("pmm: no %lu contiguous free pages for the page bitmap",
		      (unsigned long)npages);

	bitmap = phys_to_virt(phys);
	page_tags = (u8 *)(bitmap + words);
	memset(bitmap, 0xff, words * 8);
	memset(page_tags, 0, pfns);
	bitmap_pages = pfns;
	managed_pages = 0;
	for (unsigned int i = 0; i < nr_ranges; i++) {
		unsigned long s = ranges[i].start >> PAGE_SHIFT;
		unsigned long n = (ranges[i].end - ranges[i].start) >> PAGE_SHIFT;

		bitmap_clear_range(s, n);
		managed_pages += n;
	}
	free_pages = managed_pages;
	next_hint = low_hint = 0;
	__atomic_store_n(&late_done, true, __ATOMIC_RELEASE);
	pr_info("pmm: %lu MiB usable RAM, %lu MiB free for allocation (bitmap %lu KiB)\n",
		(unsigned long)(usable_bytes >> 20), free_pages >> (20 - PAGE_SHIFT),
		(unsigned long)(npages << PAGE_SHIFT) >> 10);
	if (dropped_bytes)
		pr_warn("pmm: %lu KiB of RAM lost to a full range table\n",
			dropped_bytes >> 10);
}

bool pmm_ready(void)
{
	return __atomic_load_n(&late_done, __ATOMIC_ACQUIRE);
}

/* First free page at or after word `from`, wrapping; -1 if none. */
static long find_free_page(unsigned long from)
{
	unsigned long words = (bitmap_pages + 63) / 64;

	for (unsigned long k = 0; k < words; k++) {
		unsigned long w = (from + k) % words;

		if (bitmap[w] != ~0ull) {
			unsigned long pfn = w * 64 + __builtin_ctzll(~bitmap[w]);

			if (pfn < bitmap_pages)
				return pfn;
		}
	}
	return -1;
}

static long find_free_run(unsigned long n)
{
	unsigned long run = 0;
	bool seen_free = false;

	for (unsigned long p = ALIGN_DOWN(low_hint, 64); p < bitmap_pages;) {
		if (run == 0 && p % 64 == 0 && bitmap[p / 64] == ~0ull) {
			p += 64;
			continue;
		}
		if (test_used(p)) {
			run = 0;
		} else {
			if (!seen_free) {
				seen_free = true;
				low_hint = p;
			}
			if (++run == n)
				return p + 1 - n;
		}
		p++;
	}
	return -1;
}

u64 pmm_alloc_pages(unsigned long npages)
{
	unsigned long flags;
	bool shrunk = false;
	long pfn;

	if (!pmm_ready()) {
		pr_err("pmm: allocation before pmm_late_init\n");
		return 0;
	}
	if (npages == 0 || npages > bitmap_pages)
		return 0;
	if (in_nmi()) {
		WARN_ONCE(1, "pmm: page allocation from NMI context");
		return 0;
	}
retry:
	spin_lock_irqsave(&pmm_lock, flags);
	if (npages > free_pages)
		pfn = -1;
	else if (npages == 1)
		pfn = find_free_page(next_hint);
	else
		pfn = find_free_run(npages);
	if (pfn >= 0) {
		bitmap_set_used(pfn, npages);
		if (npages == 1)
			next_hint = pfn / 64;
	}
	spin_unlock_irqrestore(&pmm_lock, flags);
	/* Out of pages: caches that can give some back (kernel/shrinker.h)
	 * are asked once, outside the lock, which their frees take. */
	if (pfn < 0 && !shrunk) {
		shrunk = true;
		if (shrink_all_caches(npages))
			goto retry;
	}
	return pfn < 0 ? 0 : (u64)pfn << PAGE_SHIFT;
}

void pmm_free_pages(u64 phys, unsigned long npages)
{
	unsigned long flags, pfn = phys >> PAGE_SHIFT, bad = 0;

	if (!pmm_ready() || npages == 0)
		return;
	if (in_nmi()) {
		WARN_ONCE(1, "pmm: page free from NMI context: 0x%lx leaked", (unsigned long)phys);
		return;
	}
	if ((phys & (PAGE_SIZE - 1)) || pfn >= bitmap_pages ||
	    npages > bitmap_pages - pfn) {
		__atomic_fetch_add(&bad_frees, 1, __ATOMIC_RELAXED);
		WARN(1, "pmm: free of %lu pages at 0x%lx: not a managed page address",
		     npages, (unsigned long)phys);
		return;
	}
	/* All the pages must be allocated, or nothing is touched: a double
	 * free's pages may already belong to someone else. */
	spin_lock_irqsave(&pmm_lock, flags);
	for (unsigned long p = pfn; p < pfn + npages; p++)
		bad += !test_used(p);
	spin_unlock_irqrestore(&pmm_lock, flags);
	if (bad)
		goto double_free;

	/* Poisoned while still allocated, so no new owner's data is hit. */
	fill_words(phys_to_virt(phys), POISON_FREE_WORD, npages << PAGE_SHIFT);

	spin_lock_irqsave(&pmm_lock, flags);
	for (unsigned long p = pfn; p < pfn + npages; p++) {
		if (!test_used(p)) {	/* freed by someone else meanwhile */
			bad++;
			continue;
		}
		bitmap[p / 64] &= ~(1ull << (p % 64));
		page_tags[p] = 0;
		free_pages++;
	}
	if (pfn < low_hint)
		low_hint = pfn;
	spin_unlock_irqrestore(&pmm_lock, flags);
	if (!bad)
		return;
double_free:
	__atomic_fetch_add(&bad_frees, bad, __ATOMIC_RELAXED);
	WARN(1, "pmm: double free: %lu of %lu pages at 0x%lx were already free",
	     bad, npages, (unsigned long)phys);
}

u8 pmm_page_tag(u64 phys)
{
	u64 pfn = phys >> PAGE_SHIFT;

	if (!pmm_ready() || pfn >= bitmap_pages)
		return 0;
	return READ_ONCE(page_tags[pfn]);
}

void pmm_set_page_tag(u64 phys, unsigned long npages, u8 tag)
{
	u64 pfn = phys >> PAGE_SHIFT;

	if (!pmm_ready() || pfn >= bitmap_pages || npages > bitmap_pages - pfn)
		return;
	for (unsigned long i = 0; i < npages; i++)
		WRITE_ONCE(page_tags[pfn + i], tag);
}

u64 pmm_usable_end(void)
{
	if (late_done)
		return (u64)bitmap_pages << PAGE_SHIFT;
	return nr_ranges ? ranges[nr_ranges - 1].end : 0;
}

u64 pmm_physical_end(void) { return nr_cover ? cover[nr_cover - 1].end : 0; }
u64 pmm_usable_bytes(void) { return usable_bytes; }
unsigned long pmm_free_count(void) { return READ_ONCE(free_pages); }
unsigned long pmm_managed_count(void) { return managed_pages; }
unsigned long pmm_bad_free_count(void) { return __atomic_load_n(&bad_frees, __ATOMIC_RELAXED); }

void pmm_report(void)
{
	if (!pmm_ready()) {
		pr_info("pmm: not initialised; %u free ranges, %lu MiB usable\n",
			nr_ranges, (unsigned long)(usable_bytes >> 20));
		return;
	}
	pr_info("pmm: usable_mib=%lu managed_pages=%lu free_pages=%lu free_mib=%lu bad_frees=%lu\n",
		(unsigned long)(usable_bytes >> 20), managed_pages, pmm_free_count(),
		pmm_free_count() >> (20 - PAGE_SHIFT), pmm_bad_free_count());
}

void pmm_reset(void)
{
	nr_ranges = 0;
	usable_bytes = 0;
	nr_cover = 0;
	dropped_bytes = 0;
	bitmap = NULL;
	page_tags = NULL;
	bitmap_pages = managed_pages = free_pages = next_hint = low_hint = bad_frees = 0;
	late_done = false;
}

/* pmm_init(bi) lives in kernel/pmm_boot.c: it is the only part that knows
 * the multiboot2 boot_info layout. */
