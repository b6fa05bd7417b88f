/* tests/host/acpi_shim/kernel/printk.h: printk for the host build of the
 * ACPI parser (arch/x86_64/acpi.c); messages go to stderr so a test's
 * stdout stays its result lines.  ACPI_SHIM_QUIET silences them. */
#pragma once
#include <stdio.h>

extern int acpi_shim_quiet;
#define printk(...) do { if (!acpi_shim_quiet) fprintf(stderr, __VA_ARGS__); } while (0)
#define pr_err(...) printk(__VA_ARGS__)
#define pr_warn(...) printk(__VA_ARGS__)
#define pr_info(...) printk(__VA_ARGS__)
#define pr_debug(...) do { } while (0)
