/* tests/kernel/test_sanitizers.c: the kernel's UBSan runtime (kernel/ubsan.c)
 * and stack protector (kernel/stackprot.c) are seen to report.
 *
 * Both suites provoke reports on purpose, so their names start with
 * selftest_ and test=all leaves them out.  selftest_ubsan checks that each
 * kind of undefined behaviour is counted once per location (its
 * tests/qemu-configs line allows the UBSAN lines and checks their text);
 * selftest_stackprot smashes a stack buffer and must panic naming the
 * function.  In a build without SANITIZE=1 they skip. */
#include "kernel/ktap.h"
#include "kernel/string.h"
#include "kernel/ubsan.h"

#ifdef CONFIG_SANITIZE
#define NEED_SANITIZE() do { } while (0)
#else
#define NEED_SANITIZE() do { ktap_skip("needs the SANITIZE=1 build"); return; } while (0)
#endif

/* Hides a value from the optimiser, so the UB happens at run time. */
#define opaque(x) ({ __typeof__(x) __v = (x); __asm__("" : "+r"(__v)); __v; })

/* Each undefined behaviour sits in a function of its own, called through
 * reports_during(): GCC treats the UBSan handlers as touching no memory
 * of ours, so only a real call boundary orders the count around them. */
static volatile int sink;

static __attribute__((noinline)) void ub_add(void)
{
	sink = opaque(0x7fffffff) + opaque(1);
}

static __attribute__((noinline)) void ub_shift(void)
{
	sink = 1 << opaque(40);
}

static struct { int a[4]; int after; } oob_array = { { 1, 2, 3, 4 }, 5 };

static __attribute__((noinline)) void ub_index(void)
{
	sink = oob_array.a[opaque(4)];	/* lands on .after: no fault */
}

static __attribute__((noinline)) void ub_misaligned(void)
{
	static u64 words[2] = { 0x1122334455667788ull, 0 };
	u32 *p = (u32 *)opaque((char *)words + 1);
	sink = *p;			/* x86 allows it; C does not */
}

static __attribute__((noinline)) void ub_bool(void)
{
	unsigned char byte = opaque((unsigned char)5);
	bool b;
	memcpy(&b, &byte, 1);
	sink = opaque(&b)[0];
}

static __attribute__((noinline)) unsigned long reports_during(void (*fn)(void))
{
	unsigned long before = READ_ONCE(ubsan_reports);
	fn();
	return READ_ONCE(ubsan_reports) - before;
}

static void add_overflow_once(void)
{
	NEED_SANITIZE();
	KTAP_EXPECT_EQ(reports_during(ub_add), 1);
	/* The same location again: counted and printed only once. */
	KTAP_EXPECT_EQ(reports_during(ub_add), 0);
}

static void shift_out_of_bounds(void)
{
	NEED_SANITIZE();
	KTAP_EXPECT_EQ(reports_during(ub_shift), 1);
}

static void index_out_of_bounds(void)
{
	NEED_SANITIZE();
	KTAP_EXPECT_EQ(reports_during(ub_index), 1);
}

static void misaligned_load(void)
{
	NEED_SANITIZE();
	KTAP_EXPECT_EQ(reports_during(ub_misaligned), 1);
}

static void invalid_bool(void)
{
	NEED_SANITIZE();
	KTAP_EXPECT_EQ(reports_during(ub_bool), 1);
}

KTAP_SUITE(selftest_ubsan,
	   KTAP_CASE(add_overflow_once),
	   KTAP_CASE(shift_out_of_bounds),
	   KTAP_CASE(index_out_of_bounds),
	   KTAP_CASE(misaligned_load),
	   KTAP_CASE(invalid_bool));

/* Writes past buf up to and over the guard word above it, but not over
 * the saved frame pointer, so the backtrace after the report still reads
 * well.  The guard sits right above the highest local array. */
static __attribute__((noinline)) void smash_stack(size_t n)
{
	char buf[16];
	memset(buf, 'A', n);
	__asm__("" : : "r"(buf) : "memory");
}

static void stack_smash(void)
{
	NEED_SANITIZE();
	smash_stack(opaque((size_t)24));
	ktap_fail("a smashed stack guard went unnoticed");
}

KTAP_SUITE(selftest_stackprot, KTAP_CASE(stack_smash));
