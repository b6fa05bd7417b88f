/* kernel/slab.h: kmalloc, the kernel's general-purpose allocator.
 *
 * Power-of-two size classes from 16 B to 2 KiB carved from pages; larger
 * requests get a run of whole pages with a small header in front.  Memory
 * comes back poisoned with 0x6b (not zeroed: kzalloc zeroes), and a freed
 * object is checked for that poison when it is handed out again, so a
 * write after free is reported ("kmalloc: ... modified after free").
 * Objects are aligned to their size class (up to 64 bytes; large ones to
 * 64).  Safe from any CPU and from irq handlers; never from an NMI (an
 * NMI could land while this CPU holds the allocator's lock). */
#pragma once

#include "kernel/types.h"

typedef unsigned int gfp_t;

#define GFP_KERNEL	0x0u	/* may not sleep anyway: nothing here sleeps */
#define GFP_ATOMIC	0x1u	/* from irq context or with locks held */
#define __GFP_ZERO	0x100u

#define KMALLOC_MIN_SIZE	16
#define KMALLOC_MAX_CACHE_SIZE	2048
#define KMALLOC_NR_CLASSES	8	/* 16, 32, ..., 2048 */
#define POISON_FREE		0x6b

/* Fills n bytes (a multiple of 8, 8-byte aligned) with word stores: the
 * allocators poison every free, so this is on their fast paths. */
static inline void fill_words(void *p, u64 word, size_t n)
{
	u64 *w = p;

	for (size_t i = 0; i < n / sizeof(u64); i++)
		w[i] = word;
}
#define POISON_FREE_WORD	(POISON_FREE * 0x0101010101010101ul)
/* What the test build (CONFIG_SANITIZE) fills a new object with, as
 * Linux's slab debugging does: freed memory (POISON_FREE) and memory
 * handed out but not yet written then differ (rcu/debug_head.c). */
#define POISON_INUSE		0x5a
#define POISON_INUSE_WORD	(POISON_INUSE * 0x0101010101010101ul)

void *kmalloc(size_t size, gfp_t flags);
void kfree(const void *p);

static inline void *kzalloc(size_t size, gfp_t flags)
{
	return kmalloc(size, flags | __GFP_ZERO);
}

static inline void *kcalloc(size_t n, size_t size, gfp_t flags)
{
	if (size && n > (size_t)-1 / size)
		return NULL;
	return kzalloc(n * size, flags);
}

/* Usable size of an allocation (its class size, or the run's payload). */
size_t ksize(const void *p);

/* Statistics for tests and reports. */
struct kmalloc_class_stats {
	unsigned int size;
	unsigned long in_use, free, pages;
};
void kmalloc_class_stats(unsigned int idx, struct kmalloc_class_stats *st);
unsigned long kmalloc_large_in_use(void);	/* page runs live */
unsigned long kmalloc_poison_errors(void);	/* use-after-free writes seen */
unsigned long kmalloc_bad_frees(void);		/* invalid or double kfree */

/* Physical pages free and kmalloc classes in use, one printk line each. */
void mm_report(void);
void kmalloc_reset(void);
