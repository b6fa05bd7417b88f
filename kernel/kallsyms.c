/* kernel/kallsyms.c: address-to-name lookup over the generated table.
 * The table (build/kallsyms.c, made by tools/kallsyms.py) holds text
 * symbols sorted by address; the first of the kernel's two links has an
 * empty one (Makefile). */
#include "kernel/kallsyms.h"
#include "kernel/printk.h"
#include "kernel/string.h"

extern const unsigned long kallsyms_addresses[];
extern const unsigned int kallsyms_name_offsets[];
extern const char kallsyms_names[];
extern const unsigned int kallsyms_num;
extern char __text_start[], __text_end[];

const char *kallsyms_lookup(unsigned long addr, unsigned long *offset)
{
	if (!kallsyms_num)
		return NULL;
	if (addr < (unsigned long)__text_start || addr >= (unsigned long)__text_end)
		return NULL;
	unsigned int lo = 0, hi = kallsyms_num;
	while (hi - lo > 1) {		/* last symbol with address <= addr */
		unsigned int mid = (lo + hi) / 2;
		if (kallsyms_addresses[mid] <= addr)
			lo = mid;
		else
			hi = mid;
	}
	if (kallsyms_addresses[lo] > addr)
		return NULL;
	if (offset)
		*offset = addr - kallsyms_addresses[lo];
	return &kallsyms_names[kallsyms_name_offsets[lo]];
}

unsigned long kallsyms_lookup_name(const char *name)
{
	for (unsigned int i = 0; i < kallsyms_num; i++)
		if (!strcmp(&kallsyms_names[kallsyms_name_offsets[i]], name))
			return kallsyms_addresses[i];
	return 0;
}

void sprint_symbol(char *buf, size_t size, unsigned long addr)
{
	unsigned long off;
	const char *name = kallsyms_lookup(addr, &off);
	if (name)
		snprintf(buf, size, "%s+0x%lx", name, off);
	else
		snprintf(buf, size, "0x%016lx", addr);
}
