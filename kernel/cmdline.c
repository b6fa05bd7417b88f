/* kernel/cmdline.c: the kernel command-line parser.
 *
 * kmain() hands it the command line from the boot information and the
 * table core_param() builds in the `__param` section.  The command line
 * is typed by people (or comes from an untrusted loader), so nothing in
 * it may stop the boot: a bad token is reported with what would have been
 * right and skipped, and the option keeps its default.  Shared as-is with
 * the host tests (tests/host/test_cmdline.c). */
#include "kernel/cmdline.h"
#include "kernel/string.h"
#include "kernel/printk.h"

static const char *const type_names[] = {
	[KPARAM_int] = "int",
	[KPARAM_uint] = "uint",
	[KPARAM_bool] = "bool",
	[KPARAM_charp] = "string",
};

/* The unknown options of the command line, said again when the run ends
 * (cmdline_unknown_report(), from system_exit()): at boot the one line
 * naming a typo sits above the whole option table and is easily missed,
 * and the run then does something else than was asked. */
#define UNKNOWN_KEPT 8
static const char *unknown_names[UNKNOWN_KEPT];	/* into the parsed string */
static unsigned int nr_unknown;

static char *unknown_policy = "fail";
core_param(cmdline.unknown, unknown_policy, charp,
	   "an unknown option: fail (said again at the end, the run exits 1) or ignore (said again, the run's status stands)");

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Option names match with '-' and '_' taken as the same character. */
static bool name_eq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		bool dash_a = *a == '-' || *a == '_', dash_b = *b == '-' || *b == '_';
		if (*a != *b && !(dash_a && dash_b))
			return false;
	}
	return *a == *b;
}

/* Decimal or 0x-hex, with a sign where `is_signed`, into [-max-1, max]
 * (signed) or [0, max].  Returns 0, -EINVAL or -ERANGE. */
static int parse_number(const char *s, bool is_signed, unsigned long long max,
			long long *out)
{
	bool neg = false;
	unsigned int base = 10;
	unsigned long long v = 0;

	if (*s == '-' && is_signed) {
		neg = true;
		s++;
	} else if (*s == '+') {
		s++;
	}
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s)
		return -EINVAL;
	/* A negative number may reach one past max (INT_MIN). */
	unsigned long long limit = neg ? max + 1 : max;
	for (; *s; s++) {
		unsigned int d;
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			return -EINVAL;
		/* limit < 2^33 and base <= 16: this cannot wrap. */
		v = v * base + d;
		if (v > limit)
			return -ERANGE;
	}
	*out = neg ? -(long long)v : (long long)v;
	return 0;
}

static int parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "1", "y", "Y", "yes", "on", "true" };
	static const char *const no[] = { "0", "n", "N", "no", "off", "false" };

	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (!strcmp(s, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcmp(s, no[i])) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

/* Sets one option; `val` is NULL for a bare name. */
static int apply(const struct kernel_param *p, const char *val)
{
	long long n;
	int r;

	switch (p->type) {
	case KPARAM_int:
	case KPARAM_uint:
		if (!val || !*val) {
			printk(KERN_ERR "cmdline: option '%s' needs a value (%s); keeping %s=%lld\n",
			       p->name, type_names[p->type], p->name,
			       p->type == KPARAM_int ? (long long)*(int *)p->var
						     : (long long)*(unsigned int *)p->var);
			return -EINVAL;
		}
		if (p->type == KPARAM_int)
			r = parse_number(val, true, 0x7fffffffull, &n);
		else
			r = parse_number(val, false, 0xffffffffull, &n);
		if (r) {
			printk(KERN_ERR "cmdline: option '%s': '%s' is %s; keeping %s=%lld\n",
			       p->name, val,
			       r == -ERANGE ? (p->type == KPARAM_int ? "out of range for an int"
								    : "out of range for a uint")
					    : (p->type == KPARAM_int ? "not a number"
								    : "not an unsigned number"),
			       p->name,
			       p->type == KPARAM_int ? (long long)*(int *)p->var
						     : (long long)*(unsigned int *)p->var);
			return r;
		}
		if (p->type == KPARAM_int)
			*(int *)p->var = (int)n;
		else
			*(unsigned int *)p->var = (unsigned int)n;
		return 0;
	case KPARAM_bool: {
		bool b = true;
		if (val && parse_bool(val, &b)) {
			printk(KERN_ERR "cmdline: option '%s': '%s' is not a bool (1/0, y/n, yes/no, on/off, true/false); keeping %s=%d\n",
			       p->name, val, p->name, *(bool *)p->var);
			return -EINVAL;
		}
		*(bool *)p->var = b;
		return 0;
	}
	case KPARAM_charp:
		if (!val) {
			printk(KERN_ERR "cmdline: option '%s' needs a value (%s=...)\n",
			       p->name, p->name);
			return -EINVAL;
		}
		*(const char **)p->var = val;
		return 0;
	}
	printk(KERN_ERR "cmdline: option '%s' has a bad type %d\n", p->name, p->type);
	return -EINVAL;
}

void cmdline_print_table(const struct kernel_param *start,
			 const struct kernel_param *stop)
{
	for (const struct kernel_param *p = start; p < stop; p++) {
		char now[32];
		switch (p->type) {
		case KPARAM_int:
			snprintf(now, sizeof(now), "%d", *(int *)p->var);
			break;
		case KPARAM_uint:
			snprintf(now, sizeof(now), "%u", *(unsigned int *)p->var);
			break;
		case KPARAM_bool:
			snprintf(now, sizeof(now), "%s", *(bool *)p->var ? "1" : "0");
			break;
		case KPARAM_charp: {
			const char *s = *(const char **)p->var;
			snprintf(now, sizeof(now), "'%.24s%s'", s ? s : "",
				 s && strlen(s) > 24 ? "..." : "");
			break;
		}
		default:
			snprintf(now, sizeof(now), "?");
		}
		printk(KERN_INFO "  %-27s %-6s (now %s) %s\n", p->name,
		       (unsigned)p->type < ARRAY_SIZE(type_names) ? type_names[p->type] : "?",
		       now, p->help ? p->help : "");
	}
}

void cmdline_help(void)
{
	printk(KERN_INFO "cmdline: options (name type (current value) help):\n");
	cmdline_print_table(__start___param, __stop___param);
}

/* keep: remember the unknown names for cmdline_unknown_report(). */
static int parse(char *s, const struct kernel_param *start,
		 const struct kernel_param *stop, bool keep)
{
	int errors = 0;
	bool listed = false;

	if (!s)
		return 0;
	while (*s) {
		while (is_space(*s))
			s++;
		if (!*s)
			break;

		char *name = s, *val = NULL;
		bool bad = false;
		while (*s && !is_space(*s) && *s != '=')
			s++;
		if (*s == '=') {
			*s++ = '\0';
			if (*s == '"') {
				val = ++s;
				while (*s && *s != '"')
					s++;
				if (!*s) {
					printk(KERN_ERR "cmdline: option '%s': no closing quote\n", name);
					bad = true;
				} else {
					*s++ = '\0';
					if (*s && !is_space(*s)) {
						printk(KERN_ERR "cmdline: option '%s': text after the closing quote\n",
						       name);
						bad = true;
						while (*s && !is_space(*s))
							s++;
					}
				}
			} else {
				val = s;
				while (*s && !is_space(*s))
					s++;
			}
		}
		if (*s)
			*s++ = '\0';

		if (bad) {
			errors++;
			continue;
		}
		if (!*name) {
			printk(KERN_ERR "cmdline: '=%s' has no option name\n", val ? val : "");
			errors++;
			continue;
		}

		const struct kernel_param *p = start;
		while (p < stop && !name_eq(p->name, name))
			p++;
		if (p == stop) {
			if (listed) {
				printk(KERN_ERR "cmdline: unknown option '%s'; valid options: see above\n",
				       name);
			} else {
				printk(KERN_ERR "cmdline: unknown option '%s'; valid options:\n", name);
				cmdline_print_table(start, stop);
				listed = true;
			}
			if (keep && nr_unknown < UNKNOWN_KEPT)
				unknown_names[nr_unknown] = name;
			nr_unknown += keep;
			errors++;
			continue;
		}
		if (apply(p, val))
			errors++;
	}
	return errors;
}

int cmdline_parse(char *s, const struct kernel_param *start,
		  const struct kernel_param *stop)
{
	return parse(s, start, stop, false);
}

int cmdline_parse_kernel(char *cmdline)
{
	nr_unknown = 0;
	return parse(cmdline, __start___param, __stop___param, true);
}

bool cmdline_unknown_report(void)
{
	bool ignore = !strcmp(unknown_policy, "ignore");

	if (!nr_unknown)
		return false;
	if (!ignore && strcmp(unknown_policy, "fail"))
		printk_raw("# cmdline: cmdline.unknown=%s is not fail or ignore; using fail\n",
			   unknown_policy);
	for (unsigned int i = 0; i < nr_unknown && i < UNKNOWN_KEPT; i++) {
		if (ignore)
			printk_raw("# cmdline: unknown option '%s' was ignored (cmdline.unknown=ignore)\n",
				   unknown_names[i]);
		else
			printk_raw("# cmdline: unknown option '%s': the run fails (cmdline.unknown=ignore to go on)\n",
				   unknown_names[i]);
	}
	if (nr_unknown > UNKNOWN_KEPT)
		printk_raw("# cmdline: and %u more unknown options (listed at boot)\n",
			   nr_unknown - UNKNOWN_KEPT);
	return !ignore;
}
