/* tests/host/fuzz_multiboot2.c: libFuzzer target over the boot-input
 * parsers (kernel/multiboot2.c, kernel/cmdline.c).  The input is used as a
 * multiboot2 information of exactly its length (a heap copy, so ASan sees
 * a read past it), then as a command line, as is the command line the
 * multiboot2 parser copied out.  Run by `make -C tests/host fuzz`. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "kernel/multiboot2.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"

/* The parsers' messages are not the point here; format them anyway so a
 * bad format argument still shows up. */
int printk(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return n;
}

void printk_raw(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
}

static int f_int;
static unsigned int f_uint;
static bool f_bool;
static char *f_str;
core_param(a.int, f_int, int, "fuzzed int");
core_param(a.uint, f_uint, uint, "fuzzed uint");
core_param(b, f_bool, bool, "fuzzed bool");
core_param(s, f_str, charp, "fuzzed string");

static struct boot_info bi;

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	unsigned char *info = malloc(size ? size : 1);
	memcpy(info, data, size);
	mb2_parse(info, size, &bi);
	free(info);
	if (!memchr(bi.cmdline, 0, sizeof(bi.cmdline)) ||
	    !memchr(bi.loader_name, 0, sizeof(bi.loader_name)) ||
	    bi.mmap_count > MB2_MMAP_MAX || bi.rsdp_old_len > MB2_RSDP_MAX ||
	    bi.rsdp_new_len > MB2_RSDP_MAX || bi.info_size > size)
		abort();
	/* A charp option must point into the string it came from. */
	f_str = NULL;
	cmdline_parse(bi.cmdline, __start___param, __stop___param);
	if (f_str && (f_str < bi.cmdline || f_str >= bi.cmdline + sizeof(bi.cmdline)))
		abort();

	f_str = NULL;
	char *line = malloc(size + 1);
	memcpy(line, data, size);
	line[size] = '\0';
	cmdline_parse(line, __start___param, __stop___param);
	if (f_str && (f_str < line || f_str > line + size))
		abort();
	free(line);
	return 0;
}
