/*
 * tests/kernel/lock_hammer.h - the critical sections the lock tests
 * hammer from every CPU, shared by the kernel's `locks` suite
 * (tests/kernel/test_locks.c) and the host test of the same lock code
 * (tests/host/test_locks.c).  Each section counts who is inside, so a
 * lock that lets two in at once is caught even when the guarded plain
 * (non-atomic) data happens to come out right.
 */
#pragma once

#include "kernel/spinlock.h"
#include "kernel/rwlock.h"

/* CPUs inside an exclusive section now, and the most ever at once. */
static int hammer_inside, hammer_max_inside;

static inline void hammer_note_max(int *max, int n)
{
	int m = __atomic_load_n(max, __ATOMIC_RELAXED);

	while (n > m && !__atomic_compare_exchange_n(max, &m, n, false,
						     __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

static inline void hammer_enter(void)
{
	hammer_note_max(&hammer_max_inside,
			__atomic_add_fetch(&hammer_inside, 1, __ATOMIC_RELAXED));
}

static inline void hammer_leave(void)
{
	__atomic_sub_fetch(&hammer_inside, 1, __ATOMIC_RELAXED);
}

/* Not atomic: the lock under test guards it, so it must come out exact. */
static long hammer_counter;

static inline void hammer_count(void)
{
	hammer_enter();
	hammer_counter++;
	hammer_leave();
}

/* Runs cs() under l taken in form i & 3 (spin_lock(), _irq, _irqsave,
 * _bh): a hammer cycles through all four. */
static inline void spin_hammer_section(spinlock_t *l, int i, void (*cs)(void))
{
	unsigned long flags;

	switch (i & 3) {
	case 0: spin_lock(l); cs(); spin_unlock(l); break;
	case 1: spin_lock_irq(l); cs(); spin_unlock_irq(l); break;
	case 2: spin_lock_irqsave(l, flags); cs(); spin_unlock_irqrestore(l, flags); break;
	case 3: spin_lock_bh(l); cs(); spin_unlock_bh(l); break;
	}
}

/*
 * The rwlock sections (either kind: read_lock() and friends take both).
 * A writer bumps both halves of a plain pair, so a reader that sees
 * them differ ran beside a writer; who is inside is counted too, so any
 * overlap of a writer with anyone is caught.
 */
static long hammer_pair_a, hammer_pair_b;
static int hammer_writers_in, hammer_readers_in, hammer_max_readers, hammer_overlap;

static inline void hammer_rw_reset(void)
{
	hammer_pair_a = hammer_pair_b = 0;
	hammer_max_readers = hammer_overlap = 0;
}

static inline void hammer_writer_in(void)
{
	if (__atomic_add_fetch(&hammer_writers_in, 1, __ATOMIC_RELAXED) != 1 ||
	    __atomic_load_n(&hammer_readers_in, __ATOMIC_RELAXED))
		__atomic_add_fetch(&hammer_overlap, 1, __ATOMIC_RELAXED);
	hammer_pair_a++;
	hammer_pair_b++;
	__atomic_sub_fetch(&hammer_writers_in, 1, __ATOMIC_RELAXED);
}

/* True if the pair was torn. */
static inline bool hammer_reader_in(void)
{
	bool torn;

	hammer_note_max(&hammer_max_readers,
			__atomic_add_fetch(&hammer_readers_in, 1, __ATOMIC_RELAXED));
	if (__atomic_load_n(&hammer_writers_in, __ATOMIC_RELAXED))
		__atomic_add_fetch(&hammer_overlap, 1, __ATOMIC_RELAXED);
	torn = READ_ONCE(hammer_pair_a) != READ_ONCE(hammer_pair_b);
	__atomic_sub_fetch(&hammer_readers_in, 1, __ATOMIC_RELAXED);
	return torn;
}

#define rw_hammer_write(rw) do {					\
	write_lock(rw);							\
	hammer_writer_in();						\
	write_unlock(rw);						\
} while (0)

#define rw_hammer_read(rw) ({						\
	bool __torn;							\
	read_lock(rw);							\
	__torn = hammer_reader_in();					\
	read_unlock(rw);						\
	__torn;								\
})
