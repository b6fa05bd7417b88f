/*
 * kernel/seqlock.h - sequence counters and seqlocks (Linux API).
 *
 * Writers (serialised by the spinlock) make the count odd while they
 * write; readers never write shared memory: they note the count, read,
 * and retry if it was odd or changed.  Readers must tolerate reading a
 * torn value before the retry tells them to throw it away, so they read
 * the protected data with READ_ONCE (or relaxed atomics) and use nothing
 * they read until read_seqretry() says it is good.
 */
#pragma once

#include "kernel/types.h"
#include "kernel/atomic.h"
#include "kernel/spinlock.h"

typedef struct {
	unsigned sequence;
} seqcount_t;

#define SEQCNT_ZERO(x)	{ .sequence = 0 }
static inline void seqcount_init(seqcount_t *s) { s->sequence = 0; }

static inline unsigned raw_read_seqcount(const seqcount_t *s)
{
	return __atomic_load_n(&s->sequence, __ATOMIC_ACQUIRE);
}

/* Wait out a writer in progress; acquire orders the data reads after. */
static inline unsigned read_seqcount_begin(const seqcount_t *s)
{
	unsigned seq;

	while ((seq = raw_read_seqcount(s)) & 1)
		cpu_relax();
	return seq;
}

/* smp_rmb(): the data reads are done before the count is read again. */
static inline bool read_seqcount_retry(const seqcount_t *s, unsigned start)
{
	smp_rmb();
	return __atomic_load_n(&s->sequence, __ATOMIC_RELAXED) != start;
}

/* smp_wmb(): the odd count is visible before any data store. */
static inline void write_seqcount_begin(seqcount_t *s)
{
	__atomic_store_n(&s->sequence, s->sequence + 1, __ATOMIC_RELAXED);
	smp_wmb();
}

/* smp_wmb(): every data store is visible before the even count. */
static inline void write_seqcount_end(seqcount_t *s)
{
	smp_wmb();
	__atomic_store_n(&s->sequence, s->sequence + 1, __ATOMIC_RELAXED);
}

typedef struct {
	seqcount_t seqcount;
	spinlock_t lock;
} seqlock_t;

#define __SEQLOCK_UNLOCKED(x)	{ .seqcount = SEQCNT_ZERO(x), \
				  .lock = __SPIN_LOCK_UNLOCKED(x) }
#define DEFINE_SEQLOCK(x)	seqlock_t x = __SEQLOCK_UNLOCKED(x)
static inline void seqlock_init(seqlock_t *sl)
{
	seqcount_init(&sl->seqcount);
	spin_lock_init(&sl->lock);
}

static inline unsigned read_seqbegin(const seqlock_t *sl)
{
	return read_seqcount_begin(&sl->seqcount);
}

static inline bool read_seqretry(const seqlock_t *sl, unsigned start)
{
	return read_seqcount_retry(&sl->seqcount, start);
}

static inline void write_seqlock(seqlock_t *sl)
{
	spin_lock(&sl->lock);
	write_seqcount_begin(&sl->seqcount);
}

static inline void write_sequnlock(seqlock_t *sl)
{
	write_seqcount_end(&sl->seqcount);
	spin_unlock(&sl->lock);
}

#define write_seqlock_irqsave(sl, flags)				\
	do { spin_lock_irqsave(&(sl)->lock, flags);			\
	     write_seqcount_begin(&(sl)->seqcount); } while (0)
#define write_sequnlock_irqrestore(sl, flags)				\
	do { write_seqcount_end(&(sl)->seqcount);			\
	     spin_unlock_irqrestore(&(sl)->lock, flags); } while (0)
