/* kernel/kallsyms.h: function names for addresses, from the symbol table
 * tools/kallsyms.py generates at build time and links into the kernel. */
#pragma once

#include "kernel/types.h"

/* Name of the function containing addr, and addr's offset into it; NULL
 * when addr is outside kernel text. */
const char *kallsyms_lookup(unsigned long addr, unsigned long *offset);
/* Address of a function by name, 0 if unknown. */
unsigned long kallsyms_lookup_name(const char *name);
/* "name+0xoff" into buf. */
void sprint_symbol(char *buf, size_t size, unsigned long addr);
