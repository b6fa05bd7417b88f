/* arch/x86_64/serial.c: the 16550 UART console every run is judged from.
 * COM1 from the first instruction; once the command line and ACPI are
 * read (serial_late_init()), `serial=` or, failing that, the ACPI SPCR
 * table may name another port (server serial-over-LAN is rarely COM1,
 * and may be an MMIO UART), and the log so far is replayed there.  A PC
 * without the port (common on new boards) must not hang the kernel: the
 * loopback self-test finds out, and then output goes only to the other
 * consoles.  Output fills the transmit FIFO (16 bytes on a 16550A) per
 * wait for it to empty, not one byte per wait. */
#include "kernel/console.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "arch/x86_64/acpi.h"
#include "asm/cpu.h"
#include "asm/io.h"

#define COM1 0x3f8
#define UART_THR 0
#define UART_IER 1
#define UART_FCR 2
#define UART_IIR 2
#define UART_LCR 3
#define UART_MCR 4
#define UART_LSR 5
#define LSR_THRE 0x20
#define IIR_FIFO_ENABLED 0xc0
#define UART_FIFO_SIZE 16
/* Bounded wait for the transmitter: a FIFO of 16 bytes at 115200 baud
 * drains in 1.4 ms, so this many LSR reads (each ~1 us on a PC) is long. */
#define TX_SPIN_LIMIT 100000

struct uart {
	bool mmio;
	u16 port;
	volatile u8 *mem;
	u8 width;		/* MMIO register width in bytes (1 or 4) */
	u64 addr;		/* for messages */
};

static struct uart uart = { .port = COM1, .addr = COM1 };
static bool serial_present;
static unsigned int fifo_size = 1;
/* For serial_stats(); written under the console lock. */
static u64 tx_writes, tx_bytes, tx_waits;

static u8 uart_in(int reg)
{
	if (!uart.mmio)
		return inb(uart.port + reg);
	if (uart.width == 4)
		return (u8)*(volatile u32 *)(uart.mem + reg * 4);
	return uart.mem[reg];
}

static void uart_out(int reg, u8 v)
{
	if (!uart.mmio)
		outb(uart.port + reg, v);
	else if (uart.width == 4)
		*(volatile u32 *)(uart.mem + reg * 4) = v;
	else
		uart.mem[reg] = v;
}

static void serial_write(const char *s, size_t n)
{
	size_t i = 0;
	bool cr_sent = false;

	if (!serial_present)
		return;
	tx_writes++;
	while (i < n) {
		for (int spin = 0; !(uart_in(UART_LSR) & LSR_THRE); spin++)
			if (spin > TX_SPIN_LIMIT)
				return;
		tx_waits++;
		/* THRE with the FIFO on: the whole FIFO is empty. */
		for (unsigned int k = 0; k < fifo_size && i < n; k++) {
			tx_bytes++;
			if (s[i] == '\n' && !cr_sent) {
				uart_out(UART_THR, '\r');
				cr_sent = true;
				continue;
			}
			uart_out(UART_THR, (u8)s[i++]);
			cr_sent = false;
		}
	}
}

void serial_stats(unsigned int *fifo, u64 *writes, u64 *bytes, u64 *waits)
{
	*fifo = serial_present ? fifo_size : 0;
	*writes = READ_ONCE(tx_writes);
	*bytes = READ_ONCE(tx_bytes);
	*waits = READ_ONCE(tx_waits);
}

static struct console serial_console = {
	.name = "ttyS0",
	.write = serial_write,
};

/* Programs the UART (divisor unless keep_baud, 8n1, FIFO) and runs the
 * loopback self-test; true if a UART answered. */
static bool uart_setup(bool keep_baud)
{
	bool ok;

	uart_out(UART_IER, 0x00);
	if (!keep_baud) {
		uart_out(UART_LCR, 0x80);	/* DLAB: divisor follows */
		uart_out(0, 1);			/* 115200 baud */
		uart_out(1, 0);
	}
	uart_out(UART_LCR, 0x03);		/* 8n1 */
	uart_out(UART_FCR, 0xc7);		/* FIFOs on, cleared */
	uart_out(UART_MCR, 0x1e);		/* loopback for the self-test */
	uart_out(UART_THR, 0xae);
	for (int spin = 0; spin < 1000 && !(uart_in(UART_LSR) & 1); spin++)
		;
	ok = uart_in(UART_THR) == 0xae;
	uart_out(UART_MCR, 0x0f);		/* normal operation */
	/* A 16550A reports its FIFO on in IIR bits 7:6; an 8250/16450 has
	 * none and takes one byte per THRE. */
	fifo_size = (uart_in(UART_IIR) & IIR_FIFO_ENABLED) == IIR_FIFO_ENABLED ?
		UART_FIFO_SIZE : 1;
	return ok;
}

bool serial_init(void)
{
	serial_present = uart_setup(false);
	if (serial_present)
		register_console(&serial_console);
	return serial_present;
}

static char *serial_param = "";
core_param(serial, serial_param, charp,
	   "the serial console: com1..com4, io:PORT, mmio:ADDR or mmio32:ADDR (hex), or off (default: the ACPI SPCR table's UART, else COM1)");

/* Parses serial=; false if it is not understood. */
static bool parse_serial(const char *p, struct uart *u, bool *off)
{
	static const u16 com[4] = { 0x3f8, 0x2f8, 0x3e8, 0x2e8 };
	unsigned long long v = 0;
	const char *num = NULL;

	*off = false;
	*u = (struct uart){ .width = 1 };
	if (!strcmp(p, "off")) {
		*off = true;
		return true;
	}
	if (!strncmp(p, "com", 3) && p[3] >= '1' && p[3] <= '4' && !p[4]) {
		u->port = com[p[3] - '1'];
		u->addr = u->port;
		return true;
	}
	if (!strncmp(p, "io:", 3))
		num = p + 3;
	else if (!strncmp(p, "mmio:", 5))
		num = p + 5, u->mmio = true;
	else if (!strncmp(p, "mmio32:", 7))
		num = p + 7, u->mmio = true, u->width = 4;
	if (!num)
		return false;
	if (num[0] == '0' && (num[1] == 'x' || num[1] == 'X'))
		num += 2;
	if (!*num)
		return false;
	for (; *num; num++) {
		int d = *num >= '0' && *num <= '9' ? *num - '0' :
			*num >= 'a' && *num <= 'f' ? *num - 'a' + 10 :
			*num >= 'A' && *num <= 'F' ? *num - 'A' + 10 : -1;

		if (d < 0 || v >> 60)
			return false;
		v = v * 16 + (unsigned)d;
	}
	if (!u->mmio && (v == 0 || v > 0xfff8))
		return false;
	if (u->mmio && (v == 0 || v >= (1ull << 52)))
		return false;
	u->addr = v;
	u->port = (u16)v;
	return true;
}

/* Writes the log so far to the (new) port: what it missed since boot. */
static void replay_log(void)
{
	static char buf[512];
	size_t from = 0, n;

	while ((n = printk_log_read(buf, sizeof(buf), from)) > 0) {
		serial_write(buf, n);
		from += n;
	}
}

void serial_late_init(void)
{
	struct uart want;
	bool off = false, keep_baud = false;
	const char *why;

	if (serial_param[0]) {
		if (!parse_serial(serial_param, &want, &off)) {
			pr_err("serial: serial=%s is not com1..com4, io:PORT, mmio:ADDR, mmio32:ADDR or off; keeping %s 0x%llx\n",
			       serial_param, uart.mmio ? "MMIO" : "port", (unsigned long long)uart.addr);
			return;
		}
		why = "serial=";
	} else if (acpi_info.have_spcr) {
		want = (struct uart){
			.mmio = acpi_info.spcr_space == ACPI_SPACE_MEM,
			.port = (u16)acpi_info.spcr_addr, .addr = acpi_info.spcr_addr,
			.width = acpi_info.spcr_access >= 4 ? 4 : 1,
		};
		/* SPCR baud 0: the firmware set it up; keep its divisor. */
		keep_baud = acpi_info.spcr_baud == 0;
		why = "ACPI SPCR";
	} else {
		return;
	}
	if (off) {
		if (serial_present)
			uart_out(UART_IER, 0);
		serial_present = false;
		pr_info("serial: console off (serial=off)\n");
		return;
	}
	if (want.mmio == uart.mmio && want.addr == uart.addr)
		return;			/* already there */
	if (want.mmio) {
		want.mem = ioremap(want.addr, 8 * want.width);
		if (!want.mem) {
			pr_err("serial: cannot map the UART at 0x%llx (%s)\n",
			       (unsigned long long)want.addr, why);
			return;
		}
	}
	struct uart old = uart;
	unsigned long flags = arch_local_irq_save();

	uart = want;
	if (!uart_setup(keep_baud)) {
		uart = old;
		fifo_size = 1;
		if (serial_present)
			uart_setup(false);
		arch_local_irq_restore(flags);
		pr_warn("serial: no UART answers at %s 0x%llx (%s); staying on %s 0x%llx\n",
			want.mmio ? "MMIO" : "port", (unsigned long long)want.addr, why,
			old.mmio ? "MMIO" : "port", (unsigned long long)old.addr);
		return;
	}
	bool registered = serial_present;

	serial_present = true;
	replay_log();
	if (!registered)
		register_console(&serial_console);
	arch_local_irq_restore(flags);
	pr_info("serial: console on %s 0x%llx (%s), %u-byte FIFO\n",
		uart.mmio ? "MMIO" : "port", (unsigned long long)uart.addr, why, fifo_size);
}
