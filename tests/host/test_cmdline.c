/* tests/host/test_cmdline.c: host tests of the command-line parser
 * (kernel/cmdline.c), built with ASan and UBSan.  The options are real
 * core_param() entries, so the __param section and its __start/__stop
 * bounds are exercised as the kernel uses them. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "ktest.h"
#include "printk_log.h"

static int count;
static unsigned int hz;
static bool verbose, quiet;
static char *test_sel;
static const char *label;
static int stall_timeout;

core_param(count, count, int, "how many");
core_param(hz, hz, uint, "ticks per second");
core_param(verbose, verbose, bool, "say more");
core_param(quiet, quiet, bool, "say less");
core_param(test, test_sel, charp, "suites to run");
core_param(label, label, charp, "a label");
core_param(rcu.stall_timeout, stall_timeout, int, "seconds before a stall warning");

static void reset(void)
{
	count = 7;
	hz = 1000;
	verbose = false;
	quiet = true;
	test_sel = NULL;
	label = "default";
	stall_timeout = 21;
	/* kernel/cmdline.c's own option may point into a freed copy. */
	for (const struct kernel_param *p = __start___param; p < __stop___param; p++)
		if (!strcmp(p->name, "cmdline.unknown"))
			*(const char **)p->var = "fail";
	log_clear();
}

/* Parses a copy (the parser cuts its string in place); the copy is leaked
 * on purpose until the next call, since charp options point into it. */
static int parse(const char *s)
{
	static char *copy;
	free(copy);
	copy = strdup(s);
	return cmdline_parse(copy, __start___param, __stop___param);
}

/* The same as the kernel's own command line (unknown names kept). */
static int parse_kernel(const char *s)
{
	static char *copy;
	free(copy);
	copy = strdup(s);
	return cmdline_parse_kernel(copy);
}

static void table_is_complete(void)
{
	/* Ours and kernel/cmdline.c's own cmdline.unknown. */
	EXPECT_EQ(__stop___param - __start___param, 8);
}

static void each_type(void)
{
	reset();
	EXPECT_EQ(parse("count=-42 hz=250 verbose quiet=0 test=all,mm label=x rcu.stall_timeout=5"), 0);
	EXPECT_EQ(count, -42);
	EXPECT_EQ(hz, 250);
	EXPECT(verbose);
	EXPECT(!quiet);
	EXPECT_STREQ(test_sel, "all,mm");
	EXPECT_STREQ(label, "x");
	EXPECT_EQ(stall_timeout, 5);
	EXPECT_EQ(loglen, 0);

	reset();
	EXPECT_EQ(parse("count=0x10 hz=0XfF verbose=yes quiet=off"), 0);
	EXPECT_EQ(count, 16);
	EXPECT_EQ(hz, 255);
	EXPECT(verbose);
	EXPECT(!quiet);

	reset();
	EXPECT_EQ(parse("verbose=on quiet=n"), 0);
	EXPECT(verbose && !quiet);
	EXPECT_EQ(parse("verbose=false quiet=true"), 0);
	EXPECT(!verbose && quiet);
}

static void limits(void)
{
	reset();
	EXPECT_EQ(parse("count=2147483647 hz=4294967295"), 0);
	EXPECT_EQ(count, 2147483647);
	EXPECT_EQ(hz, 4294967295u);
	EXPECT_EQ(parse("count=-2147483648 hz=+0"), 0);
	EXPECT_EQ(count, -2147483647 - 1);
	EXPECT_EQ(hz, 0);
}

static void dashes_match_underscores(void)
{
	reset();
	EXPECT_EQ(parse("rcu.stall-timeout=9"), 0);
	EXPECT_EQ(stall_timeout, 9);
}

static void unknown_option(void)
{
	reset();
	EXPECT_EQ(parse("hz=100 bogus=1 alsobogus count=3"), 2);
	EXPECT(log_has("cmdline: unknown option 'bogus'; valid options:\n"));
	EXPECT(log_has("rcu.stall_timeout"));
	EXPECT(log_has("seconds before a stall warning"));
	EXPECT(log_has("unknown option 'alsobogus'; valid options: see above"));
	/* The table is printed once, not per unknown option. */
	char *first = strstr(logbuf, "ticks per second");
	EXPECT(first && !strstr(first + 1, "ticks per second"));
	/* Good options around the bad ones still took effect. */
	EXPECT_EQ(hz, 100);
	EXPECT_EQ(count, 3);
	/* A prefix is not a match. */
	reset();
	EXPECT_EQ(parse("h=1 hzz=1 rcu=1"), 3);
	EXPECT_EQ(hz, 1000);
}

/* An unknown option is said again when the run ends and fails the run,
 * unless cmdline.unknown=ignore (anywhere on the line) says to go on. */
static void unknown_said_again(void)
{
	reset();
	EXPECT_EQ(parse_kernel("hz=100 count=3"), 0);
	log_clear();
	EXPECT(!cmdline_unknown_report());
	EXPECT_EQ(loglen, 0);

	reset();
	EXPECT_EQ(parse_kernel("tortue=sched hz=100"), 1);
	log_clear();
	EXPECT(cmdline_unknown_report());
	EXPECT(log_has("# cmdline: unknown option 'tortue': the run fails (cmdline.unknown=ignore to go on)\n"));

	reset();
	EXPECT_EQ(parse_kernel("foo=1 cmdline.unknown=ignore"), 1);
	log_clear();
	EXPECT(!cmdline_unknown_report());
	EXPECT(log_has("# cmdline: unknown option 'foo' was ignored (cmdline.unknown=ignore)\n"));

	reset();
	EXPECT_EQ(parse_kernel("foo cmdline.unknown=maybe"), 1);
	log_clear();
	EXPECT(cmdline_unknown_report());
	EXPECT(log_has("cmdline.unknown=maybe is not fail or ignore; using fail"));

	reset();
	EXPECT_EQ(parse_kernel("u1 u2 u3 u4 u5 u6 u7 u8 u9 u10 cmdline.unknown=fail"), 10);
	log_clear();
	EXPECT(cmdline_unknown_report());
	EXPECT(log_has("unknown option 'u8': the run fails"));
	EXPECT(!log_has("'u9'"));
	EXPECT(log_has("and 2 more unknown options"));

	/* A table of the caller's own (tests/kernel/test_boot.c) keeps none. */
	reset();
	EXPECT_EQ(parse_kernel("hz=1"), 0);
	EXPECT_EQ(parse("bogus"), 1);
	log_clear();
	EXPECT(!cmdline_unknown_report());
	EXPECT_EQ(loglen, 0);
}

static void bad_numbers(void)
{
	const char *bad[] = { "count=abc", "count=12x", "count=", "count", "count=--1",
			      "count=0x", "count=1.5", "hz=-1", "hz=", "hz=0xg" };
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		reset();
		EXPECT_EQ(parse(bad[i]), 1);
		EXPECT_EQ(count, 7);
		EXPECT_EQ(hz, 1000);
		EXPECT(log_has("cmdline: option '"));
	}
	reset();
	parse("count=abc");
	EXPECT(log_has("'abc' is not a number; keeping count=7"));
	reset();
	parse("count");
	EXPECT(log_has("option 'count' needs a value (int)"));
	reset();
	parse("hz=-5");
	EXPECT(log_has("'-5' is not an unsigned number; keeping hz=1000"));
	reset();
	EXPECT_EQ(parse("verbose=maybe"), 1);
	EXPECT(!verbose);
	EXPECT(log_has("'maybe' is not a bool"));
	reset();
	EXPECT_EQ(parse("test"), 1);
	EXPECT(test_sel == NULL);
	EXPECT(log_has("option 'test' needs a value"));
}

static void overflow(void)
{
	const char *bad[] = { "count=2147483648", "count=-2147483649", "count=99999999999999999999999",
			      "hz=4294967296", "hz=0x100000000", "hz=18446744073709551617" };
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		reset();
		EXPECT_EQ(parse(bad[i]), 1);
		EXPECT_EQ(count, 7);
		EXPECT_EQ(hz, 1000);
		EXPECT(log_has("out of range"));
	}
}

static void quotes(void)
{
	reset();
	EXPECT_EQ(parse("test=\"a b  c\" hz=5 label=\"\""), 0);
	EXPECT_STREQ(test_sel, "a b  c");
	EXPECT_EQ(hz, 5);
	EXPECT_STREQ(label, "");

	reset();
	EXPECT_EQ(parse("test=\"never closed hz=5"), 1);
	EXPECT(log_has("no closing quote"));
	EXPECT(test_sel == NULL);
	EXPECT_EQ(hz, 1000);	/* swallowed by the open quote */

	reset();
	EXPECT_EQ(parse("test=\"a\"b hz=6"), 1);
	EXPECT(log_has("text after the closing quote"));
	EXPECT(test_sel == NULL);
	EXPECT_EQ(hz, 6);

	reset();
	EXPECT_EQ(parse("count=\"12\""), 0);
	EXPECT_EQ(count, 12);
}

static void empty_and_spaces(void)
{
	reset();
	EXPECT_EQ(parse(""), 0);
	EXPECT_EQ(parse("   \t \n "), 0);
	EXPECT_EQ(cmdline_parse(NULL, __start___param, __stop___param), 0);
	EXPECT_EQ(parse("  hz=7\t\tcount=8  "), 0);
	EXPECT_EQ(hz, 7);
	EXPECT_EQ(count, 8);
	EXPECT_EQ(parse("=5"), 1);
	EXPECT(log_has("no option name"));
	EXPECT_EQ(loglen > 0, 1);
	/* An empty table: everything is unknown, nothing breaks. */
	reset();
	char s[] = "hz=1";
	EXPECT_EQ(cmdline_parse(s, __start___param, __start___param), 1);
	EXPECT_EQ(hz, 1000);
}

static void last_one_wins(void)
{
	reset();
	EXPECT_EQ(parse("hz=1 hz=2 verbose verbose=0"), 0);
	EXPECT_EQ(hz, 2);
	EXPECT(!verbose);
}

static void help_table(void)
{
	reset();
	cmdline_help();
	EXPECT(log_has("hz"));
	EXPECT(log_has("(now 1000) ticks per second"));
	EXPECT(log_has("(now 'default') a label"));
	EXPECT(log_has("(now 1) say less"));
	EXPECT(log_has("(now -)") == false);
}

int main(void)
{
	RUN(table_is_complete);
	RUN(each_type);
	RUN(limits);
	RUN(dashes_match_underscores);
	RUN(unknown_option);
	RUN(unknown_said_again);
	RUN(bad_numbers);
	RUN(overflow);
	RUN(quotes);
	RUN(empty_and_spaces);
	RUN(last_one_wins);
	RUN(help_table);
	return ktest_summary();
}
