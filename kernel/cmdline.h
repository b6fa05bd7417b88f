/* kernel/cmdline.h: kernel command-line options.
 *
 * A file declares an option beside the variable it sets:
 *
 *   static unsigned int hz = 1000;
 *   core_param(hz, hz, uint, "timer ticks per second");
 *   static bool no_deadline;
 *   core_param(timer.no_deadline, no_deadline, bool, "...");
 *
 * and `hz=250 timer.no_deadline` on the command line sets them.  Types:
 * int, uint, bool, charp (char * or const char *).  The entries land in
 * the `__param` section, between __start___param and __stop___param
 * (linker.ld on the kernel, GCC itself on the host).  Pure C, shared with
 * the host tests. */
#pragma once

#include "kernel/types.h"

enum kernel_param_type {
	KPARAM_int,
	KPARAM_uint,
	KPARAM_bool,
	KPARAM_charp,
};

struct kernel_param {
	const char *name;
	enum kernel_param_type type;
	void *var;
	const char *help;
};

#define __kparam_is_int(v) __builtin_types_compatible_p(__typeof__(v), int)
#define __kparam_is_uint(v) __builtin_types_compatible_p(__typeof__(v), unsigned int)
#define __kparam_is_bool(v) __builtin_types_compatible_p(__typeof__(v), bool)
#define __kparam_is_charp(v) (__builtin_types_compatible_p(__typeof__(v), char *) || \
			      __builtin_types_compatible_p(__typeof__(v), const char *))

#define __kparam_paste2(a, b) a##b
#define __kparam_paste(a, b) __kparam_paste2(a, b)

/* `name` is written as it appears on the command line (dots allowed);
 * '-' and '_' in it match each other, as in Linux. */
#define core_param(name, var, type, help)                                      \
	_Static_assert(__kparam_is_##type(var),                                \
		       "core_param " #name ": " #var " is not of type " #type); \
	static const struct kernel_param __kparam_paste(__param_, __COUNTER__) \
		__used __section("__param") __aligned(8) =                     \
		{ #name, KPARAM_##type, (void *)&(var), help }

extern const struct kernel_param __start___param[], __stop___param[];

/* Applies the options on `cmdline` to the table [start, stop).  Tokens,
 * separated by spaces, are `name=value`, `name="quoted value"` or a bare
 * `name` (bool: true).  The string is cut into tokens in place and charp
 * options point into it, so it must outlive their use.  A bad token is
 * reported and skipped, leaving that option's default; the count of bad
 * tokens is returned. */
int cmdline_parse(char *cmdline, const struct kernel_param *start,
		  const struct kernel_param *stop);
/* The kernel's own command line (kmain()): cmdline_parse() on the whole
 * table, keeping the unknown names (pointers into the string) for
 * cmdline_unknown_report(). */
int cmdline_parse_kernel(char *cmdline);

/* Says again each unknown option of cmdline_parse_kernel(), for the
 * end of the run (system_exit()), and returns true when the run must fail
 * for them: `cmdline.unknown=fail`, the default; `cmdline.unknown=ignore`
 * lets the run's own status stand.  False, silent, when there were none. */
bool cmdline_unknown_report(void);

/* Prints every option the kernel has, its type, current value and help. */
void cmdline_help(void);
/* The same for the table [start, stop). */
void cmdline_print_table(const struct kernel_param *start,
			 const struct kernel_param *stop);
