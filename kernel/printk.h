/* kernel/printk.h: formatted output to the consoles, with Linux's levels,
 * and the warning/bug macros built on it. */
#pragma once

#include <stdarg.h>
#include "kernel/types.h"

#define KERN_SOH "\001"
#define KERN_EMERG KERN_SOH "0"
#define KERN_ALERT KERN_SOH "1"
#define KERN_CRIT KERN_SOH "2"
#define KERN_ERR KERN_SOH "3"
#define KERN_WARNING KERN_SOH "4"
#define KERN_NOTICE KERN_SOH "5"
#define KERN_INFO KERN_SOH "6"
#define KERN_DEBUG KERN_SOH "7"
#define KERN_CONT KERN_SOH "c"

/* Lines print as "[cN] text"; a level below console_loglevel is shown. */
int printk(const char *fmt, ...) __printf(1, 2);
int vprintk(const char *fmt, va_list ap);
/* Raw text, no prefix: KTAP lines must start at their own column. */
void printk_raw(const char *fmt, ...) __printf(1, 2);
/* printk_raw() to the consoles only, not the memory log: a trace dump's
 * lines (kernel/trace.c), which would push out of the log everything
 * before them (the report a test then looks for). */
void printk_raw_nolog(const char *fmt, ...) __printf(1, 2);
/* A benchmark row, "<indent># <row>" where fmt gives "bench name=...".
 * Measured while the CPUs' TSCs disagree (the boot's tsc_sync_skew), it
 * ends in tsc_skew_cycles=N: its times may be off by that.  Every row is
 * printed through here (tests/host/test_benchrows.py checks). */
void printk_bench(const char *indent, const char *fmt, ...) __printf(2, 3);
int snprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
/* Writes out what NMI handlers printed on this CPU (NMIs only buffer). */
void printk_nmi_flush(void);
/* From panic(): take the console even if a stuck CPU holds its lock. */
void printk_bust_locks(void);
/* The whole log since boot, kept in memory. */
size_t printk_log_read(char *buf, size_t size, size_t from);

extern int console_loglevel;

#define pr_emerg(fmt, ...) printk(KERN_EMERG fmt, ##__VA_ARGS__)
#define pr_err(fmt, ...) printk(KERN_ERR fmt, ##__VA_ARGS__)
#define pr_warn(fmt, ...) printk(KERN_WARNING fmt, ##__VA_ARGS__)
#define pr_notice(fmt, ...) printk(KERN_NOTICE fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...) printk(KERN_INFO fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...) printk(KERN_DEBUG fmt, ##__VA_ARGS__)

__noreturn void panic(const char *fmt, ...) __printf(1, 2);
void dump_stack(void);
void warn_slowpath(const char *file, int line, const char *fmt, ...) __printf(3, 4);
extern unsigned long warn_count;

#define WARN(cond, fmt, ...) ({                                         \
	bool __c = !!(cond);                                            \
	if (unlikely(__c))                                              \
		warn_slowpath(__FILE__, __LINE__, fmt, ##__VA_ARGS__);  \
	__c; })
#define WARN_ON(cond) WARN(cond, "WARN_ON(%s)", #cond)
#define WARN_ONCE(cond, fmt, ...) ({                                    \
	static bool __warned;                                           \
	bool __c = !!(cond);                                            \
	if (unlikely(__c) && !__warned) {                               \
		__warned = true;                                        \
		warn_slowpath(__FILE__, __LINE__, fmt, ##__VA_ARGS__);  \
	}                                                               \
	__c; })
#define WARN_ON_ONCE(cond) WARN_ONCE(cond, "WARN_ON_ONCE(%s)", #cond)
#define BUG() panic("BUG at %s:%d", __FILE__, __LINE__)
#define BUG_ON(cond) do { if (unlikely(cond)) panic("BUG_ON(%s) at %s:%d", #cond, __FILE__, __LINE__); } while (0)
