/* kernel/vsprintf.c: vsnprintf, the formatter under printk.  Handles the
 * conversions the kernel uses: %d %i %u %x %X %o %p %s %c %%, with flags
 * '-' '0' ' ' '+' '#' (0x/0 prefix), a width (or *), a precision for strings, and the
 * length modifiers hh h l ll z t. */
#include "kernel/printk.h"
#include "kernel/string.h"

struct out {
	char *buf;
	size_t size, len;
};

static void put(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void put_num(struct out *o, unsigned long long v, int base, bool upper,
		    bool neg, int width, bool left, char pad, char sign)
{
	char tmp[24];
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	int n = 0;

	do {
		tmp[n++] = digits[v % base];
		v /= base;
	} while (v);
	if (neg)
		sign = '-';
	int total = n + (sign ? 1 : 0);
	if (!left && pad == ' ')
		for (; width > total; width--)
			put(o, ' ');
	if (sign)
		put(o, sign);
	if (!left && pad == '0')
		for (; width > total; width--)
			put(o, '0');
	while (n)
		put(o, tmp[--n]);
	if (left)
		for (; width > total; width--)
			put(o, ' ');
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = { buf, size, 0 };

	for (; *fmt; fmt++) {
		if (*fmt != '%') {
			put(&o, *fmt);
			continue;
		}
		bool left = false, alt = false;
		char pad = ' ', sign = 0;
		int width = 0, prec = -1, lng = 0;
		for (;; fmt++) {
			char f = fmt[1];
			if (f == '-')
				left = true;
			else if (f == '0')
				pad = '0';
			else if (f == '+')
				sign = '+';
			else if (f == '#')
				alt = true;
			else if (f == ' ')
				sign = sign ? sign : ' ';
			else
				break;
		}
		fmt++;
		if (*fmt == '*') {
			width = va_arg(ap, int);
			fmt++;
		} else {
			while (*fmt >= '0' && *fmt <= '9')
				width = width * 10 + (*fmt++ - '0');
		}
		if (*fmt == '.') {
			fmt++;
			prec = 0;
			if (*fmt == '*') {
				prec = va_arg(ap, int);
				fmt++;
			} else {
				while (*fmt >= '0' && *fmt <= '9')
					prec = prec * 10 + (*fmt++ - '0');
			}
		}
		for (;; fmt++) {
			if (*fmt == 'l' || *fmt == 'z' || *fmt == 't')
				lng++;
			else if (*fmt == 'h')
				lng = lng > 0 ? lng : lng - 1;
			else
				break;
		}
		if (!*fmt)
			break;
		switch (*fmt) {
		case 'd':
		case 'i': {
			long long v = lng >= 1 ? va_arg(ap, long) : va_arg(ap, int);
			if (lng >= 2)
				;	/* long == long long on x86-64 */
			else if (lng == -1)
				v = (short)v;
			else if (lng <= -2)
				v = (signed char)v;
			bool neg = v < 0;
			put_num(&o, neg ? -(unsigned long long)v : (unsigned long long)v,
				10, false, neg, width, left, pad, sign);
			break;
		}
		case 'u':
		case 'x':
		case 'X':
		case 'o': {
			unsigned long long v = lng >= 1 ? va_arg(ap, unsigned long)
							: va_arg(ap, unsigned int);
			if (lng == -1)
				v = (unsigned short)v;
			else if (lng <= -2)
				v = (unsigned char)v;
			int base = *fmt == 'u' ? 10 : *fmt == 'o' ? 8 : 16;
			if (alt && base != 10 && v) {
				put(&o, '0');
				if (base == 16)
					put(&o, *fmt);
				width -= base == 16 ? 2 : 1;
			}
			put_num(&o, v, base, *fmt == 'X', false, width, left, pad, 0);
			break;
		}
		case 'p': {
			unsigned long v = (unsigned long)va_arg(ap, void *);
			put(&o, '0');
			put(&o, 'x');
			put_num(&o, v, 16, false, false, width ? width : 16, left, '0', 0);
			break;
		}
		case 's': {
			const char *s = va_arg(ap, const char *);
			if (!s)
				s = "(null)";
			int n = (int)strnlen(s, prec >= 0 ? (size_t)prec : (size_t)-1);
			if (!left)
				for (; width > n; width--)
					put(&o, ' ');
			for (int i = 0; i < n; i++)
				put(&o, s[i]);
			for (; left && width > n; width--)
				put(&o, ' ');
			break;
		}
		case 'c':
			put(&o, (char)va_arg(ap, int));
			break;
		case '%':
			put(&o, '%');
			break;
		default:
			put(&o, '%');
			put(&o, *fmt);
			break;
		}
	}
	if (size)
		buf[o.len < size ? o.len : size - 1] = 0;
	return (int)o.len;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
