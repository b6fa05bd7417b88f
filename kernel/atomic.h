/*
 * kernel/atomic.h - memory barriers and atomic_t / atomic_long_t.
 *
 * Pure C on GCC's __atomic builtins so the same file builds in the kernel
 * and in the host tests (where ThreadSanitizer understands every access).
 * Names and semantics follow Linux: value-returning RMW ops are fully
 * ordered, plain atomic_inc/dec/add/sub/set/read are unordered (relaxed).
 * On x86 smp_rmb()/smp_wmb() cost nothing but a compiler barrier; smp_mb()
 * is a real fence because x86 reorders a store with a later load.
 */
#pragma once

#include "kernel/types.h"
#include "kernel/jitter.h"

#define smp_mb()	__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_rmb()	__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb()	__atomic_thread_fence(__ATOMIC_RELEASE)
#define smp_store_release(p, v)						\
	do { __atomic_store_n((p), (v), __ATOMIC_RELEASE);		\
	     jitter_site(JITTER_RELEASE); } while (0)
#define smp_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
/* Order a preceding RMW (already a full barrier on x86) with what follows. */
#define smp_mb__after_atomic()	barrier()
#define smp_mb__before_atomic()	barrier()

/*
 * cpu_relax(): the spin-wait hint.  `pause` on x86; a plain compiler
 * barrier elsewhere so a port only loses the hint, not correctness.
 * A host test may define its own first (a yield: with more threads than
 * cores a ticket lock otherwise waits whole host time slices per handoff).
 */
#if defined(cpu_relax)
/* the includer's */
#elif defined(__x86_64__) || defined(__i386__)
#define cpu_relax()	__builtin_ia32_pause()
#else
#define cpu_relax()	barrier()
#endif

typedef struct { int counter; } atomic_t;
typedef struct { long counter; } atomic_long_t;

#define ATOMIC_INIT(i)		{ (i) }
#define ATOMIC_LONG_INIT(i)	{ (i) }

/*
 * One macro body per operation, instantiated for atomic_ (int) and
 * atomic_long_ (long), so the two families cannot drift apart.
 */
#define __ATOMIC_OPS(pfx, type, T)					\
static inline T pfx##read(const type *v)				\
{ return __atomic_load_n(&v->counter, __ATOMIC_RELAXED); }		\
static inline void pfx##set(type *v, T i)				\
{ __atomic_store_n(&v->counter, i, __ATOMIC_RELAXED); }		\
static inline void pfx##add(T i, type *v)				\
{ __atomic_fetch_add(&v->counter, i, __ATOMIC_RELAXED); }		\
static inline void pfx##sub(T i, type *v)				\
{ __atomic_fetch_sub(&v->counter, i, __ATOMIC_RELAXED); }		\
static inline void pfx##inc(type *v) { pfx##add(1, v); }		\
static inline void pfx##dec(type *v) { pfx##sub(1, v); }		\
static inline T pfx##add_return(T i, type *v)				\
{ T r = __atomic_add_fetch(&v->counter, i, __ATOMIC_SEQ_CST);		\
  jitter_site(JITTER_RMW); return r; }					\
static inline T pfx##sub_return(T i, type *v)				\
{ T r = __atomic_sub_fetch(&v->counter, i, __ATOMIC_SEQ_CST);		\
  jitter_site(JITTER_RMW); return r; }					\
static inline T pfx##fetch_add(T i, type *v)				\
{ T r = __atomic_fetch_add(&v->counter, i, __ATOMIC_SEQ_CST);		\
  jitter_site(JITTER_RMW); return r; }					\
static inline T pfx##inc_return(type *v) { return pfx##add_return(1, v); } \
static inline T pfx##dec_return(type *v) { return pfx##sub_return(1, v); } \
static inline bool pfx##dec_and_test(type *v)				\
{ return pfx##sub_return(1, v) == 0; }					\
static inline bool pfx##inc_and_test(type *v)				\
{ return pfx##add_return(1, v) == 0; }					\
/* Returns the value found, like Linux: success iff it equals @old. */	\
static inline T pfx##cmpxchg(type *v, T old, T new)			\
{									\
	__atomic_compare_exchange_n(&v->counter, &old, new, false,	\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
	jitter_site(JITTER_RMW);					\
	return old;							\
}									\
static inline T pfx##xchg(type *v, T new)				\
{ T r = __atomic_exchange_n(&v->counter, new, __ATOMIC_SEQ_CST);	\
  jitter_site(JITTER_RMW); return r; }					\
static inline void pfx##or(T i, type *v)				\
{ __atomic_fetch_or(&v->counter, i, __ATOMIC_SEQ_CST); }		\
static inline void pfx##andnot(T i, type *v)				\
{ __atomic_fetch_and(&v->counter, ~i, __ATOMIC_SEQ_CST); }		\
static inline T pfx##fetch_or(T i, type *v)				\
{ return __atomic_fetch_or(&v->counter, i, __ATOMIC_SEQ_CST); }	\
static inline T pfx##fetch_andnot(T i, type *v)				\
{ return __atomic_fetch_and(&v->counter, ~i, __ATOMIC_SEQ_CST); }

__ATOMIC_OPS(atomic_, atomic_t, int)
__ATOMIC_OPS(atomic_long_, atomic_long_t, long)

#undef __ATOMIC_OPS

#define atomic_read_acquire(v)		smp_load_acquire(&(v)->counter)
#define atomic_long_read_acquire(v)	smp_load_acquire(&(v)->counter)

/* Generic cmpxchg/xchg on a plain scalar, for code that has no atomic_t. */
#define cmpxchg(ptr, old, new) ({					\
	__typeof__(*(ptr)) __o = (old);					\
	__atomic_compare_exchange_n((ptr), &__o, (new), false,		\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
	jitter_site(JITTER_RMW);					\
	__o; })
#define xchg(ptr, v) ({							\
	__typeof__(*(ptr)) __x = __atomic_exchange_n((ptr), (v), __ATOMIC_SEQ_CST); \
	jitter_site(JITTER_RMW);					\
	__x; })
