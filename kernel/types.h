/* kernel/types.h: the basic types and compiler helpers every file uses.
 * Pure C, shared as-is by the host builds (tests/host). */
#pragma once

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

#define __aligned(x) __attribute__((aligned(x)))
#define __packed __attribute__((packed))
#define __used __attribute__((used))
#define __noreturn __attribute__((noreturn))
#define __section(s) __attribute__((section(s)))
/*
 * A per-call fast path (call_rcu() and its kin): linked first, at .text's
 * page-aligned start (linker.ld), so that where its blocks fall depends
 * on the fast-path code alone, and checked by the build (tools/tbjc.py
 * --check): no two of a fast path's jump-cache lookups share a slot.
 * docs/design.md, "call_rcu()'s cost and QEMU's jump cache".  Placement
 * only: the code is what it would be in .text.
 */
#define __fastpath __section(".text.hot")
#define __printf(a, b) __attribute__((format(printf, a, b)))
#define __maybe_unused __attribute__((unused))
#define SMP_CACHE_BYTES 64
#define ____cacheline_aligned __aligned(SMP_CACHE_BYTES)

/* Stops the compiler from moving memory accesses across this point. */
#define barrier() __asm__ __volatile__("" ::: "memory")

/* One load or store the compiler may neither tear, fuse nor repeat.
 * A host build may define its own first: tests/host/rcu makes them relaxed
 * atomics, so ThreadSanitizer treats them as the marked (intentionally
 * concurrent) accesses they are, as KCSAN does in Linux. */
#ifndef READ_ONCE
#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#endif
#ifndef WRITE_ONCE
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
#endif

#define ALIGN_UP(x, a) (((x) + ((a) - 1)) & ~((__typeof__(x))(a) - 1))
#define ALIGN_DOWN(x, a) ((x) & ~((__typeof__(x))(a) - 1))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

#define EPERM 1
#define ENOENT 2
#define EINTR 4
#define EIO 5
#define E2BIG 7
#define EAGAIN 11
#define ENOMEM 12
#define EFAULT 14
#define EBUSY 16
#define EEXIST 17
#define ENODEV 19
#define EINVAL 22
#define ENOSPC 28
#define ERANGE 34
#define ENOSYS 38
#define ETIMEDOUT 110
