/* kernel/printk.c: printk and the consoles.
 *
 * One lock serialises whole lines across CPUs, so lines from different
 * CPUs never interleave.  Two contexts must never wait for that lock:
 * an NMI (it may have interrupted the holder on its own CPU) writes into a
 * per-CPU buffer that the next ordinary printk on that CPU writes out; and
 * a panic takes the console by force (printk_bust_locks).  Everything
 * printed is also kept in a memory log, for machines with no console. */
#include "kernel/printk.h"
#include "kernel/console.h"
#include "kernel/percpu.h"
#include "kernel/preempt_mask.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "asm/irqflags.h"

#define LOG_SIZE (128 * 1024)
#define NMI_BUF_SIZE 4096
#define LINE_MAX 512

int console_loglevel = 7;	/* show all but debug */

static struct console *consoles;
static volatile int console_owner = -1;	/* CPU holding the console */
static unsigned int console_next, console_serving;
static bool locks_busted;

static char log_buf[LOG_SIZE];
static size_t log_head;			/* total bytes ever logged */

struct nmi_buf {
	size_t len;
	char text[NMI_BUF_SIZE];
};
static struct nmi_buf nmi_bufs[NR_CPUS];

void register_console(struct console *c)
{
	c->next = consoles;
	consoles = c;
}

/* Ticket lock, private to printk so that printk works before (and
 * independently of) kernel/spinlock.c.  Re-entry from the owning CPU (an
 * exception raised while printing) is let through rather than deadlocked. */
static bool console_lock(unsigned long *flags)
{
	int cpu = raw_smp_processor_id();

	local_irq_save(*flags);
	if (console_owner == cpu || locks_busted)
		return false;
	unsigned int t = __atomic_fetch_add(&console_next, 1, __ATOMIC_RELAXED);
	while (__atomic_load_n(&console_serving, __ATOMIC_ACQUIRE) != t)
		arch_cpu_relax();
	console_owner = cpu;
	return true;
}

static void console_unlock(bool locked, unsigned long flags)
{
	if (locked) {
		console_owner = -1;
		__atomic_store_n(&console_serving, console_serving + 1, __ATOMIC_RELEASE);
	}
	local_irq_restore(flags);
}

static void log_store(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		log_buf[(log_head + i) % LOG_SIZE] = s[i];
	log_head += n;
}

static void emit(const char *s, size_t n)
{
	log_store(s, n);
	for (struct console *c = consoles; c; c = c->next)
		c->write(s, n);
}

void console_write(const char *s, size_t n)
{
	unsigned long flags;
	bool locked = console_lock(&flags);
	emit(s, n);
	console_unlock(locked, flags);
}

size_t printk_log_read(char *buf, size_t size, size_t from)
{
	size_t n = 0;
	if (log_head > LOG_SIZE && from < log_head - LOG_SIZE)
		from = log_head - LOG_SIZE;
	for (; from < log_head && n < size; from++)
		buf[n++] = log_buf[from % LOG_SIZE];
	return n;
}

/* Once a crash has busted the locks, NMI context prints directly too: an
 * exception inside an NMI handler (a fault, an IST stack overflow) must
 * be seen, and no later printk will come to flush its buffer. */
static bool in_nmi_context(void)
{
	return (this_cpu_read(__preempt_count) & NMI_MASK) && !locks_busted;
}

static void nmi_store(const char *s, size_t n)
{
	struct nmi_buf *b = &nmi_bufs[raw_smp_processor_id()];
	size_t room = NMI_BUF_SIZE - b->len;
	if (n > room)
		n = room;
	memcpy(b->text + b->len, s, n);
	__atomic_store_n(&b->len, b->len + n, __ATOMIC_RELEASE);
}

void printk_nmi_flush(void)
{
	struct nmi_buf *b = &nmi_bufs[raw_smp_processor_id()];
	unsigned long flags;

	if (in_nmi_context() || !__atomic_load_n(&b->len, __ATOMIC_ACQUIRE))
		return;
	bool locked = console_lock(&flags);
	/* irqs are off and NMIs append only; take what is there now. */
	size_t n = __atomic_load_n(&b->len, __ATOMIC_ACQUIRE);
	emit(b->text, n);
	memmove(b->text, b->text + n, b->len - n);
	b->len -= n;
	console_unlock(locked, flags);
}

static int format_line(char *line, const char *fmt, va_list ap, int *level)
{
	int n = 0;

	*level = 4;
	if (fmt[0] == KERN_SOH[0] && fmt[1]) {
		if (fmt[1] >= '0' && fmt[1] <= '7')
			*level = fmt[1] - '0';
		else if (fmt[1] == 'c') {
			return vsnprintf(line, LINE_MAX, fmt + 2, ap);
		}
		fmt += 2;
	}
	n = snprintf(line, LINE_MAX, "[c%d] ", raw_smp_processor_id());
	n += vsnprintf(line + n, LINE_MAX - n, fmt, ap);
	return n;
}

/*
 * A message longer than the line buffer is cut, but still ends in "\n"
 * and says so: otherwise the next line (a KTAP result, say) would be
 * glued onto it and lost to whoever reads the log.  n is the length the
 * whole message would have had; returns the length written.
 */
static int cut_line(char *line, int n)
{
	static const char tail[] = " [line cut]\n";

	if (n < LINE_MAX)
		return n;
	memcpy(line + LINE_MAX - sizeof(tail), tail, sizeof(tail));
	return LINE_MAX - 1;
}

int vprintk(const char *fmt, va_list ap)
{
	char line[LINE_MAX];
	int level;
	int n = cut_line(line, format_line(line, fmt, ap, &level));

	if (level > console_loglevel)
		return n;
	if (in_nmi_context()) {
		nmi_store(line, n);
		return n;
	}
	printk_nmi_flush();
	console_write(line, n);
	return n;
}

int printk(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vprintk(fmt, ap);
	va_end(ap);
	return n;
}

/* A KTAP or dump line: no "[cN] " prefix; into the memory log too, or not. */
static void vprintk_raw(bool log, const char *fmt, va_list ap)
{
	char line[LINE_MAX];
	unsigned long flags;
	int n = cut_line(line, vsnprintf(line, sizeof(line), fmt, ap));

	if (in_nmi_context()) {
		nmi_store(line, n);
		return;
	}
	printk_nmi_flush();
	if (log) {
		console_write(line, n);
		return;
	}
	bool locked = console_lock(&flags);
	for (struct console *c = consoles; c; c = c->next)
		c->write(line, n);
	console_unlock(locked, flags);
}

void printk_raw(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vprintk_raw(true, fmt, ap);
	va_end(ap);
}

void printk_raw_nolog(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vprintk_raw(false, fmt, ap);
	va_end(ap);
}

void printk_bench(const char *indent, const char *fmt, ...)
{
	char row[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(row, sizeof(row), fmt, ap);
	va_end(ap);
	if (tsc_sync_skew)
		printk_raw("%s# %s tsc_skew_cycles=%llu\n", indent, row,
			   (unsigned long long)tsc_sync_skew);
	else
		printk_raw("%s# %s\n", indent, row);
}

void printk_bust_locks(void)
{
	locks_busted = true;
}
