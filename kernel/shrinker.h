/*
 * kernel/shrinker.h - Linux's shrinkers, reduced to one list: caches that
 * hold memory they could give back register here, and the page allocator
 * asks them to before it fails an allocation (kernel/pmm.c).
 *
 * scan_objects() may be called from any context but NMI, with irqs off
 * and any lock that an allocating caller holds: it must only free (never
 * allocate), and take only locks no allocation is made under.
 */
#pragma once

#include "kernel/types.h"

struct shrinker {
	const char *name;
	/* What could be freed now (objects of the cache's own unit). */
	unsigned long (*count_objects)(void);
	/* Free up to nr; return how many were freed. */
	unsigned long (*scan_objects)(unsigned long nr);
	struct shrinker *next;
};

/* Once, for good (there is no unregister). */
void register_shrinker(struct shrinker *s);
/* Ask every shrinker for up to nr each; returns the total freed. */
unsigned long shrink_all_caches(unsigned long nr);
/* Calls of shrink_all_caches() so far (tests read it). */
unsigned long shrinker_runs(void);
