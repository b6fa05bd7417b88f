/* tests/kernel/test_stacktrace.c: backtraces of faults whose function has
 * no frame of its own at the faulting instruction.  `stacktrace` (passes)
 * checks that a return address at [rsp] is recognised as one; the suite
 * `selftest_crash_leaf` crashes on purpose in an asm leaf that never
 * pushes rbp, so the panic's trace must still name the leaf's caller
 * (tests/qemu-configs: selftest-crash-leaf requires leaf_fault_caller). */
#include "kernel/ktap.h"
#include "kernel/kallsyms.h"
#include "kernel/string.h"

/* A leaf without a frame: stores to address 8 (unmapped page 0). */
__asm__(".pushsection .text\n"
	".globl crash_frameless_leaf\n"
	".type crash_frameless_leaf, @function\n"
	"crash_frameless_leaf:\n"
	"	movl $1, 0x8\n"
	"	ret\n"
	".size crash_frameless_leaf, .-crash_frameless_leaf\n"
	".popsection\n");
void crash_frameless_leaf(void);

static __attribute__((noinline)) void leaf_fault_caller(void)
{
	crash_frameless_leaf();
	__asm__ __volatile__("" ::: "memory");	/* not a tail call */
}

static void frameless_leaf_fault(void)
{
	leaf_fault_caller();
	ktap_fail("survived a store to address 8");
}

KTAP_SUITE(selftest_crash_leaf, KTAP_CASE(frameless_leaf_fault));

/* The asm leaf is a symbol of its own, so a trace can name it. */
static void frameless_leaf_is_named(void)
{
	unsigned long off = 1;
	const char *name = kallsyms_lookup((unsigned long)crash_frameless_leaf, &off);

	KTAP_ASSERT(name != NULL);
	KTAP_EXPECT(!strcmp(name, "crash_frameless_leaf"));
	KTAP_EXPECT_EQ(off, 0);
}

KTAP_SUITE(stacktrace, KTAP_CASE(frameless_leaf_is_named));
