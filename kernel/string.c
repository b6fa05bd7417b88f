/* kernel/string.c: freestanding implementations of kernel/string.h.
 * GCC may emit calls to memcpy/memset/memmove/memcmp itself, so these
 * must exist even where no file calls them by name. */
#include "kernel/string.h"

/* Word-at-a-time where both ends allow it: under QEMU TCG each guest
 * instruction is costly, and kzalloc/page poisoning clear whole pages. */
void *memcpy(void *dst, const void *src, size_t n)
{
	char *d = dst;
	const char *s = src;
	if ((((unsigned long)d | (unsigned long)s) & 7) == 0) {
		for (; n >= 8; n -= 8, d += 8, s += 8)
			*(unsigned long *)d = *(const unsigned long *)s;
	}
	while (n--)
		*d++ = *s++;
	return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
	char *d = dst;
	const char *s = src;
	if (d < s)
		return memcpy(dst, src, n);
	while (n--)
		d[n] = s[n];
	return dst;
}

void *memset(void *p, int c, size_t n)
{
	unsigned char *d = p;
	unsigned long word = 0x0101010101010101ul * (unsigned char)c;
	for (; n && ((unsigned long)d & 7); n--)
		*d++ = (unsigned char)c;
	for (; n >= 8; n -= 8, d += 8)
		*(unsigned long *)d = word;
	while (n--)
		*d++ = (unsigned char)c;
	return p;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;
	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

size_t strlen(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;
	while (n < max && s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		if (!*a)
			return 0;
	}
	return 0;
}

char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (!*s)
			return NULL;
	}
}

size_t strlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);
	if (size) {
		size_t n = len < size - 1 ? len : size - 1;
		memcpy(dst, src, n);
		dst[n] = 0;
	}
	return len;
}
