/* kernel/kmalloc.c: kmalloc/kfree (contract in slab.h) on top of the page
 * allocator.
 *
 * Each size class owns whole pages (tagged in pmm's per-page byte, which
 * is how kfree finds an object's class) and a LIFO free list threaded
 * through the free objects' first 8 bytes; the rest of a free object holds
 * 0x6b, checked on the way out.  The link is stored XORed with its own
 * address and a constant, and checked to point into a page of the same
 * class, so a stray write over it is reported instead of followed.
 * Class pages are never given back: the kernel's working set is small
 * and this keeps kfree O(1) with no per-page counts. */
#include "kernel/slab.h"
#include "kernel/pmm.h"
#include "kernel/preempt.h"
#include "kernel/printk.h"
#include "kernel/spinlock.h"
#include "kernel/string.h"
#include "asm/page.h"

#define TAG_CLASS(c)	((u8)(1 + (c)))		/* 1..KMALLOC_NR_CLASSES */
#define TAG_LARGE_HEAD	0x80
#define TAG_LARGE_TAIL	0x81
#define LARGE_HDR_SIZE	64	/* keeps large payloads 64-byte aligned */
#define LARGE_MAGIC	0x6b6d616c6c6f6321ul
#define LARGE_MAX_SIZE	(1ul << 40)
#define FREELIST_KEY	0x9e3779b97f4a7c15ul

struct kmem_class {
	spinlock_t lock;
	unsigned int size;
	void *freelist;
	unsigned long in_use, nfree, pages;
};

struct large_hdr {
	u64 magic;
	u64 npages;
	u64 size;
};

static struct kmem_class classes[KMALLOC_NR_CLASSES];
static bool classes_ready;
static DEFINE_SPINLOCK(init_lock);
static unsigned long large_in_use;
static unsigned long poison_errors;
static unsigned long bad_frees;

static void classes_init(void)
{
	unsigned long flags;

	spin_lock_irqsave(&init_lock, flags);
	if (!classes_ready) {
		for (unsigned int i = 0; i < KMALLOC_NR_CLASSES; i++) {
			spin_lock_init(&classes[i].lock);
			classes[i].size = KMALLOC_MIN_SIZE << i;
		}
		__atomic_store_n(&classes_ready, true, __ATOMIC_RELEASE);
	}
	spin_unlock_irqrestore(&init_lock, flags);
}

static unsigned int class_of(size_t size)
{
	unsigned int c = 0;

	while ((size_t)(KMALLOC_MIN_SIZE << c) < size)
		c++;
	return c;
}

static inline void *link_decode(void *obj)
{
	return (void *)(*(u64 *)obj ^ FREELIST_KEY ^ (u64)obj);
}

static inline void link_encode(void *obj, void *next)
{
	*(u64 *)obj = (u64)next ^ FREELIST_KEY ^ (u64)obj;
}

/* Could p be an object of class c (right page, right alignment)? */
static bool valid_object(unsigned int c, const void *p)
{
	if (!virt_addr_direct(p))
		return false;
	if (pmm_page_tag(virt_to_phys(p)) != TAG_CLASS(c))
		return false;
	return ((u64)p & (PAGE_SIZE - 1)) % classes[c].size == 0;
}

static void report_modified(unsigned int c, const void *obj, size_t off, u8 val)
{
	__atomic_fetch_add(&poison_errors, 1, __ATOMIC_RELAXED);
	printk(KERN_ERR "kmalloc: kmalloc-%u object %p modified after free: byte %zu is 0x%x, not 0x%x\n",
	       classes[c].size, obj, off, val, POISON_FREE);
	dump_stack();
}

/* A fresh page for class c, poisoned and pushed on its free list. */
static bool grow(unsigned int c)
{
	struct kmem_class *k = &classes[c];
	unsigned long flags, n = PAGE_SIZE / k->size;
	u64 phys = pmm_alloc_page();
	char *page;

	if (!phys)
		return false;
	page = phys_to_virt(phys);
	pmm_set_page_tag(phys, 1, TAG_CLASS(c));
	memset(page, POISON_FREE, PAGE_SIZE);
	for (unsigned long i = 0; i + 1 < n; i++)
		link_encode(page + i * k->size, page + (i + 1) * k->size);

	spin_lock_irqsave(&k->lock, flags);
	link_encode(page + (n - 1) * k->size, k->freelist);
	k->freelist = page;
	k->nfree += n;
	k->pages++;
	spin_unlock_irqrestore(&k->lock, flags);
	return true;
}

static void *class_alloc(unsigned int c)
{
	struct kmem_class *k = &classes[c];
	unsigned long flags;
	void *obj, *next;
	bool link_bad = false;

	spin_lock_irqsave(&k->lock, flags);
	while (!k->freelist) {
		spin_unlock_irqrestore(&k->lock, flags);
		if (!grow(c))
			return NULL;
		spin_lock_irqsave(&k->lock, flags);
	}
	obj = k->freelist;
	next = link_decode(obj);
	if (next && !valid_object(c, next)) {
		/* the rest of the list is lost: leaking it is the safe choice */
		link_bad = true;
		k->nfree = 1;
		next = NULL;
	}
	k->freelist = next;
	k->nfree--;
	k->in_use++;
	spin_unlock_irqrestore(&k->lock, flags);

	if (link_bad)
		report_modified(c, obj, 0, *(u8 *)obj);
	*(u64 *)obj = POISON_FREE * 0x0101010101010101ul;
	for (size_t i = sizeof(u64); i < k->size; i++) {
		u8 v = ((u8 *)obj)[i];

		if (v != POISON_FREE) {
			report_modified(c, obj, i, v);
			break;
		}
	}
	return obj;
}

static void *large_alloc(size_t size)
{
	unsigned long npages = (size + LARGE_HDR_SIZE + PAGE_SIZE - 1) >> PAGE_SHIFT;
	u64 phys = pmm_alloc_pages(npages);
	struct large_hdr *h;

	if (!phys)
		return NULL;
	pmm_set_page_tag(phys, 1, TAG_LARGE_HEAD);
	pmm_set_page_tag(phys + PAGE_SIZE, npages - 1, TAG_LARGE_TAIL);
	h = phys_to_virt(phys);
	h->magic = LARGE_MAGIC;
	h->npages = npages;
	h->size = size;
	__atomic_fetch_add(&large_in_use, 1, __ATOMIC_RELAXED);
	return (char *)h + LARGE_HDR_SIZE;
}

void *kmalloc(size_t size, gfp_t flags)
{
	void *p;

	if (in_nmi()) {
		WARN_ONCE(1, "kmalloc from NMI context");
		return NULL;
	}
	if (!pmm_ready()) {
		pr_err("kmalloc(%zu): before the page allocator is up\n", size);
		return NULL;
	}
	if (!__atomic_load_n(&classes_ready, __ATOMIC_ACQUIRE))
		classes_init();
	if (size > LARGE_MAX_SIZE)
		return NULL;
	if (size <= KMALLOC_MAX_CACHE_SIZE) {
		p = class_alloc(class_of(size));
		if (p && (flags & __GFP_ZERO))
			memset(p, 0, size);
	} else {
		p = large_alloc(size);
		if (p)
			memset(p, (flags & __GFP_ZERO) ? 0 : POISON_FREE, size);
	}
	return p;
}

static void bad_free(const void *p, const char *why)
{
	__atomic_fetch_add(&bad_frees, 1, __ATOMIC_RELAXED);
	WARN(1, "kfree(%p): %s", p, why);
}

void kfree(const void *p)
{
	unsigned long flags;
	u8 tag;

	if (!p)
		return;
	if (!virt_addr_direct(p) || !pmm_ready()) {
		bad_free(p, "not a kmalloc address");
		return;
	}
	tag = pmm_page_tag(virt_to_phys(p));
	if (tag >= TAG_CLASS(0) && tag <= TAG_CLASS(KMALLOC_NR_CLASSES - 1)) {
		unsigned int c = tag - TAG_CLASS(0);
		struct kmem_class *k = &classes[c];
		void *obj = (void *)p;

		if (!valid_object(c, obj)) {
			bad_free(p, "not the start of an object");
			return;
		}
		spin_lock_irqsave(&k->lock, flags);
		if (obj == k->freelist) {
			spin_unlock_irqrestore(&k->lock, flags);
			bad_free(p, "double free");
			return;
		}
		memset(obj, POISON_FREE, k->size);
		link_encode(obj, k->freelist);
		k->freelist = obj;
		k->nfree++;
		k->in_use--;
		spin_unlock_irqrestore(&k->lock, flags);
		return;
	}
	if (tag == TAG_LARGE_HEAD) {
		struct large_hdr *h = (void *)ALIGN_DOWN((u64)p, PAGE_SIZE);

		if ((const char *)p != (char *)h + LARGE_HDR_SIZE || h->magic != LARGE_MAGIC) {
			bad_free(p, "not the start of a large allocation");
			return;
		}
		h->magic = 0;
		__atomic_fetch_sub(&large_in_use, 1, __ATOMIC_RELAXED);
		pmm_free_pages(virt_to_phys(h), h->npages);	/* poisons them */
		return;
	}
	bad_free(p, "not allocated by kmalloc, or already freed");
}

size_t ksize(const void *p)
{
	u8 tag;

	if (!p || !virt_addr_direct(p))
		return 0;
	tag = pmm_page_tag(virt_to_phys(p));
	if (tag >= TAG_CLASS(0) && tag <= TAG_CLASS(KMALLOC_NR_CLASSES - 1))
		return KMALLOC_MIN_SIZE << (tag - TAG_CLASS(0));
	if (tag == TAG_LARGE_HEAD) {
		struct large_hdr *h = (void *)ALIGN_DOWN((u64)p, PAGE_SIZE);

		return h->npages * PAGE_SIZE - LARGE_HDR_SIZE;
	}
	return 0;
}

void kmalloc_class_stats(unsigned int idx, struct kmalloc_class_stats *st)
{
	unsigned long flags;
	struct kmem_class *k;

	memset(st, 0, sizeof(*st));
	if (idx >= KMALLOC_NR_CLASSES)
		return;
	st->size = KMALLOC_MIN_SIZE << idx;
	if (!__atomic_load_n(&classes_ready, __ATOMIC_ACQUIRE))
		return;
	k = &classes[idx];
	spin_lock_irqsave(&k->lock, flags);
	st->in_use = k->in_use;
	st->free = k->nfree;
	st->pages = k->pages;
	spin_unlock_irqrestore(&k->lock, flags);
}

unsigned long kmalloc_large_in_use(void) { return __atomic_load_n(&large_in_use, __ATOMIC_RELAXED); }
unsigned long kmalloc_poison_errors(void) { return __atomic_load_n(&poison_errors, __ATOMIC_RELAXED); }
unsigned long kmalloc_bad_frees(void) { return __atomic_load_n(&bad_frees, __ATOMIC_RELAXED); }

void mm_report(void)
{
	struct kmalloc_class_stats st;

	pmm_report();
	for (unsigned int i = 0; i < KMALLOC_NR_CLASSES; i++) {
		kmalloc_class_stats(i, &st);
		pr_info("kmalloc: class=kmalloc-%u in_use=%lu free=%lu pages=%lu\n",
			st.size, st.in_use, st.free, st.pages);
	}
	pr_info("kmalloc: large_in_use=%lu poison_errors=%lu bad_frees=%lu\n",
		kmalloc_large_in_use(), kmalloc_poison_errors(), kmalloc_bad_frees());
}

/* Host tests start from an empty allocator (after pmm_reset). */
void kmalloc_reset(void)
{
	memset(classes, 0, sizeof(classes));
	classes_ready = false;
	large_in_use = poison_errors = bad_frees = 0;
}
