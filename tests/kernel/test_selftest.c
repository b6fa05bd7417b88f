/* tests/kernel/test_selftest.c: tests of the test machinery itself.
 * `selftest` must pass; `selftest_crash` must crash the kernel, so that
 * the runner is seen to report a crash with registers and function names
 * (tests/qemu-configs expects it to fail in exactly that way). */
#include "kernel/ktap.h"
#include "kernel/kallsyms.h"
#include "kernel/string.h"
#include "asm/irq.h"

static void ktap_expect_works(void)
{
	KTAP_EXPECT(1 + 1 == 2);
	KTAP_EXPECT_EQ(strlen("rcu"), 3);
}

static void kallsyms_names_functions(void)
{
	unsigned long off;
	const char *name = kallsyms_lookup((unsigned long)ktap_expect_works + 1, &off);
	KTAP_ASSERT(name != NULL);
	KTAP_EXPECT(!strcmp(name, "ktap_expect_works"));
	KTAP_EXPECT_EQ(off, 1);
	KTAP_EXPECT_EQ(kallsyms_lookup_name("kallsyms_names_functions"),
		       (unsigned long)kallsyms_names_functions);
}

/* Faults on purpose: UBSan would report the null load before the fault. */
static __attribute__((no_sanitize_undefined)) void read_null(void *arg)
{
	(void)arg;
	volatile int *p = NULL;
	__asm__("" : "+r"(p));
	(void)*p;
}

static void read_noncanonical(void *arg)
{
	(void)arg;
	volatile int *p = (volatile int *)0x8000000000000000ul;
	__asm__("" : "+r"(p));
	(void)*p;
}

static void probe_fault_catches_page_fault(void)
{
	KTAP_EXPECT_EQ(probe_fault(read_null, NULL), 14);
	KTAP_EXPECT_EQ(probe_fault(read_noncanonical, NULL), 13);
}

KTAP_SUITE(selftest,
	   KTAP_CASE(ktap_expect_works),
	   KTAP_CASE(kallsyms_names_functions),
	   KTAP_CASE(probe_fault_catches_page_fault));

static __attribute__((noinline)) void crash_null_dereference(void)
{
	volatile int *p = (volatile int *)8;
	__asm__("" : "+r"(p));	/* hide the constant from the optimiser */
	*p = 1;
}

static void null_dereference(void)
{
	crash_null_dereference();
	ktap_fail("survived a write through a null pointer");
}

KTAP_SUITE(selftest_crash, KTAP_CASE(null_dereference));
