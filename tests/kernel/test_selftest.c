/* tests/kernel/test_selftest.c: tests of the test machinery itself.
 * `selftest` must pass; `selftest_crash` must crash the kernel, so that
 * the runner is seen to report a crash with registers and function names
 * (tests/qemu-configs expects it to fail in exactly that way). */
#include "kernel/ktap.h"
#include "kernel/kallsyms.h"
#include "kernel/printk.h"
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

/* A message longer than printk's line buffer is cut, yet still ends in
 * "\n" and says so: the line after it must stay a line of its own, or a
 * KTAP result printed next would be lost to the judge. */
static char cut_log[128 * 1024 + 1];

static void printk_cut_line_still_ends_in_newline(void)
{
	static char big[700];
	const char *p, *last = NULL, *eol;
	size_t n;

	memset(big, 'x', sizeof(big) - 1);
	printk("printk-cut-test %s never-seen\n", big);
	printk_raw("# printk-cut-test: the next line\n");
	n = printk_log_read(cut_log, sizeof(cut_log) - 1, 0);
	cut_log[n] = '\0';
	for (p = cut_log; *p; p++)
		if (*p == 'p' && !strncmp(p, "printk-cut-test x", 17))
			last = p;
	KTAP_ASSERT(last != NULL);
	eol = strchr(last, '\n');
	KTAP_ASSERT(eol != NULL);
	KTAP_EXPECT(eol - last > 400);
	KTAP_EXPECT(!strncmp(eol - 10, "[line cut]", 10));
	KTAP_EXPECT(!strncmp(eol + 1, "# printk-cut-test: the next line\n", 33));
	ktap_log("the cut line is %d bytes up to its \"\\n\"", (int)(eol - last));
}

KTAP_SUITE(selftest,
	   KTAP_CASE(ktap_expect_works),
	   KTAP_CASE(kallsyms_names_functions),
	   KTAP_CASE(probe_fault_catches_page_fault),
	   KTAP_CASE(printk_cut_line_still_ends_in_newline));

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
