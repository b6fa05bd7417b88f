/*
 * kernel/shrinker.c - the shrinker list of kernel/shrinker.h: pushed
 * with cmpxchg, never shortened, so a walk needs no lock.
 */
#include "kernel/shrinker.h"
#include "kernel/atomic.h"

static struct shrinker *shrinker_list;
static unsigned long shrinker_nr_runs;

void register_shrinker(struct shrinker *s)
{
	struct shrinker *old = __atomic_load_n(&shrinker_list, __ATOMIC_RELAXED);

	do {
		s->next = old;
	} while (!__atomic_compare_exchange_n(&shrinker_list, &old, s, false,
					      __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}

unsigned long shrink_all_caches(unsigned long nr)
{
	unsigned long freed = 0;

	__atomic_fetch_add(&shrinker_nr_runs, 1, __ATOMIC_RELAXED);
	for (struct shrinker *s = __atomic_load_n(&shrinker_list, __ATOMIC_ACQUIRE); s;
	     s = s->next)
		if (s->count_objects())
			freed += s->scan_objects(nr);
	return freed;
}

unsigned long shrinker_runs(void)
{
	return __atomic_load_n(&shrinker_nr_runs, __ATOMIC_RELAXED);
}
