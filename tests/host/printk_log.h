/* tests/host/printk_log.h: the printk() of a host test that checks what
 * the code under test printed.  Every message is appended to one buffer
 * (cut, never overrun, once full); log_has() looks for a string in what
 * was printed since the last log_clear().  Defines printk and printk_raw: one test
 * program includes it once. */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static char logbuf[1 << 16];
static size_t loglen;

int printk(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(logbuf + loglen, sizeof(logbuf) - loglen, fmt, ap);
	va_end(ap);
	if (n > 0)
		loglen = loglen + n < sizeof(logbuf) ? loglen + n : sizeof(logbuf) - 1;
	return n;
}

/* The KTAP-column printk: the same buffer. */
void printk_raw(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(logbuf + loglen, sizeof(logbuf) - loglen, fmt, ap);
	va_end(ap);
	if (n > 0)
		loglen = loglen + n < sizeof(logbuf) ? loglen + n : sizeof(logbuf) - 1;
}

static inline void log_clear(void) { loglen = 0; logbuf[0] = '\0'; }
static inline bool log_has(const char *s) { return strstr(logbuf, s) != NULL; }
