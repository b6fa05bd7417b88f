/* kernel/kmalloc.c: kmalloc/kfree (contract in slab.h) on top of the page
 * allocator.
 *
 * Each size class owns whole pages (tagged in pmm's per-page byte, which
 * is how kfree finds an object's class) and a LIFO free list threaded
 * through the free objects' first 8 bytes.  In front of it each CPU keeps
 * a small stack of free objects per class, used with irqs off and no
 * lock: the shared list and its lock are touched once per batch, which
 * matters when many (virtual) CPUs allocate at once and a lock holder can
 * be descheduled by the host.  A free object holds 0x6b everywhere except
 * a list link; every word is checked on the way out.  The test build
 * (CONFIG_SANITIZE) hands it out filled with 0x5a, POISON_INUSE, so that
 * memory freed and memory not yet written differ (rcu/debug_head.c).  The link is stored
 * XORed with its own address and a constant, and checked to point into a
 * page of the same class, so a stray write over it is reported instead of
 * followed.  Class pages are never given back: the kernel's working set
 * is small and this keeps kfree O(1). */
#include "kernel/slab.h"
#include "kernel/pmm.h"
#include "kernel/preempt.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
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
#define POISON_WORD	POISON_FREE_WORD
#ifdef CONFIG_SANITIZE
#define IS_ENABLED_SANITIZE	1
#else
#define IS_ENABLED_SANITIZE	0
#endif
#define PCP_MAX		32	/* objects a CPU keeps per class */
#define PCP_BATCH	16	/* moved to or from the shared list at once */

struct kmem_class {
	spinlock_t lock;
	unsigned int size;
	void *freelist;		/* written under lock; kfree peeks at the head */
	unsigned long nfree, pages;	/* on the shared list; pages owned */
};

#define WRITE_FREELIST(k, v) __atomic_store_n(&(k)->freelist, (v), __ATOMIC_RELAXED)

/* One CPU's objects of one class; only that CPU, irqs off, touches it. */
struct kmem_cpu_cache {
	unsigned int count;
	long in_use;		/* allocated here minus freed here */
	void *objs[PCP_MAX];
};

struct large_hdr {
	u64 magic;
	u64 npages;
	u64 size;
};

static struct kmem_class classes[KMALLOC_NR_CLASSES];
static struct kmem_cpu_cache cpu_caches[NR_CPUS][KMALLOC_NR_CLASSES];
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

/* The whole object must still be poison, a word at a time (objects are
 * 8-byte multiples and aligned); the byte is found once a word differs. */
static void check_poison(unsigned int c, u64 *obj)
{
	for (size_t w = 0; w < classes[c].size / sizeof(u64); w++) {
		if (obj[w] != POISON_WORD) {
			size_t i = w * sizeof(u64);

			while (((u8 *)obj)[i] == POISON_FREE)
				i++;
			report_modified(c, obj, i, ((u8 *)obj)[i]);
			return;
		}
	}
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
	fill_words(page, POISON_WORD, PAGE_SIZE);
	for (unsigned long i = 0; i + 1 < n; i++)
		link_encode(page + i * k->size, page + (i + 1) * k->size);

	spin_lock_irqsave(&k->lock, flags);
	link_encode(page + (n - 1) * k->size, k->freelist);
	WRITE_FREELIST(k, page);
	k->nfree += n;
	k->pages++;
	spin_unlock_irqrestore(&k->lock, flags);
	return true;
}

/* Moves up to PCP_BATCH objects from the shared list into pc (irqs off).
 * A bad link is reported once the lock is dropped. */
static void refill(unsigned int c, struct kmem_cpu_cache *pc)
{
	struct kmem_class *k = &classes[c];
	void *bad = NULL;

	lockdep_assert_irqs_disabled();
	spin_lock(&k->lock);
	while (pc->count < PCP_BATCH && k->freelist) {
		void *obj = k->freelist, *next = link_decode(obj);

		if (next && !valid_object(c, next)) {
			/* the rest of the list is lost: leaking it is the safe choice */
			bad = obj;
			k->nfree = 1;
			next = NULL;
		}
		WRITE_FREELIST(k, next);
		k->nfree--;
		/* the link becomes poison again: the object's check covers it,
		 * unless it was the bad one, whose check reports it */
		if (obj != bad)
			*(u64 *)obj = POISON_WORD;
		pc->objs[pc->count++] = obj;
	}
	spin_unlock(&k->lock);
	if (bad) {
		report_modified(c, bad, 0, *(u8 *)bad);
		*(u64 *)bad = POISON_WORD;
	}
}

/* Gives PCP_BATCH of pc's oldest objects back to the shared list. */
static void drain(unsigned int c, struct kmem_cpu_cache *pc)
{
	struct kmem_class *k = &classes[c];

	spin_lock(&k->lock);
	for (unsigned int i = 0; i < PCP_BATCH; i++) {
		link_encode(pc->objs[i], k->freelist);
		WRITE_FREELIST(k, pc->objs[i]);
	}
	k->nfree += PCP_BATCH;
	spin_unlock(&k->lock);
	pc->count -= PCP_BATCH;
	memmove(&pc->objs[0], &pc->objs[PCP_BATCH], pc->count * sizeof(void *));
}

static void *class_alloc(unsigned int c)
{
	unsigned long flags;
	struct kmem_cpu_cache *pc;
	void *obj = NULL;

	local_irq_save(flags);
	pc = &cpu_caches[smp_processor_id()][c];
	if (!pc->count)
		refill(c, pc);
	while (!pc->count) {
		local_irq_restore(flags);
		if (!grow(c))
			return NULL;
		local_irq_save(flags);
		pc = &cpu_caches[smp_processor_id()][c];
		if (!pc->count)
			refill(c, pc);
	}
	obj = pc->objs[--pc->count];
	pc->in_use++;
	local_irq_restore(flags);

	check_poison(c, obj);
	return obj;
}

/* Returns obj to this CPU's cache; false if it is already free there or
 * at the head of the shared list (a double free). */
static bool class_free(unsigned int c, void *obj)
{
	unsigned long flags;
	struct kmem_cpu_cache *pc;

	local_irq_save(flags);
	pc = &cpu_caches[smp_processor_id()][c];
	for (unsigned int i = 0; i < pc->count; i++)
		if (pc->objs[i] == obj)
			goto double_free;
	if (__atomic_load_n(&classes[c].freelist, __ATOMIC_RELAXED) == obj)
		goto double_free;
	fill_words(obj, POISON_WORD, classes[c].size);
	if (pc->count == PCP_MAX)
		drain(c, pc);
	pc->objs[pc->count++] = obj;
	pc->in_use--;
	local_irq_restore(flags);
	return true;
double_free:
	local_irq_restore(flags);
	return false;
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
			fill_words(p, 0, ALIGN_UP(size, sizeof(u64)));
		else if (p && IS_ENABLED_SANITIZE)
			fill_words(p, POISON_INUSE_WORD, ALIGN_UP(size, sizeof(u64)));
	} else {
		p = large_alloc(size);
		if (p)
			fill_words(p, (flags & __GFP_ZERO) ? 0 :
				   IS_ENABLED_SANITIZE ? POISON_INUSE_WORD : POISON_WORD,
				   ALIGN_UP(size, sizeof(u64)));
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
	u8 tag;

	if (!p)
		return;
	if (in_nmi()) {
		/* the lock may be held by the code this NMI interrupted */
		WARN_ONCE(1, "kfree from NMI context: %p leaked", p);
		return;
	}
	if (!virt_addr_direct(p) || !pmm_ready()) {
		bad_free(p, "not a kmalloc address");
		return;
	}
	tag = pmm_page_tag(virt_to_phys(p));
	if (tag >= TAG_CLASS(0) && tag <= TAG_CLASS(KMALLOC_NR_CLASSES - 1)) {
		unsigned int c = tag - TAG_CLASS(0);
		void *obj = (void *)p;

		if (!valid_object(c, obj)) {
			bad_free(p, "not the start of an object");
			return;
		}
		if (!class_free(c, obj))
			bad_free(p, "double free");
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
	long in_use = 0;

	memset(st, 0, sizeof(*st));
	if (idx >= KMALLOC_NR_CLASSES)
		return;
	st->size = KMALLOC_MIN_SIZE << idx;
	if (!__atomic_load_n(&classes_ready, __ATOMIC_ACQUIRE))
		return;
	k = &classes[idx];
	spin_lock_irqsave(&k->lock, flags);
	st->free = k->nfree;
	st->pages = k->pages;
	spin_unlock_irqrestore(&k->lock, flags);
	/* other CPUs' counts move meanwhile: a snapshot, exact when quiet */
	for (int cpu = 0; cpu < NR_CPUS; cpu++) {
		in_use += READ_ONCE(cpu_caches[cpu][idx].in_use);
		st->free += READ_ONCE(cpu_caches[cpu][idx].count);
	}
	st->in_use = in_use > 0 ? (unsigned long)in_use : 0;
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
	memset(cpu_caches, 0, sizeof(cpu_caches));
	classes_ready = false;
	large_in_use = poison_errors = bad_frees = 0;
}
