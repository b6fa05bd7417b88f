/* arch/x86_64/serial.c: the 16550 UART on COM1, the console every run is
 * judged from.  A PC without COM1 (common on new boards) must not hang
 * the kernel: the loopback self-test at init finds out, and then output
 * goes only to the other consoles. */
#include "kernel/console.h"
#include "asm/cpu.h"

#define COM1 0x3f8
#define UART_THR 0
#define UART_IER 1
#define UART_FCR 2
#define UART_LCR 3
#define UART_MCR 4
#define UART_LSR 5
#define LSR_THRE 0x20
/* Bounded wait for the transmitter; ~115200 baud drains a byte in 87 us. */
#define TX_SPIN_LIMIT 100000

static bool serial_present;

static void serial_write(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			serial_write("\r", 1);
		for (int spin = 0; !(inb(COM1 + UART_LSR) & LSR_THRE); spin++)
			if (spin > TX_SPIN_LIMIT)
				return;
		outb(COM1 + UART_THR, (u8)s[i]);
	}
}

static struct console serial_console = {
	.name = "ttyS0",
	.write = serial_write,
};

bool serial_init(void)
{
	outb(COM1 + UART_IER, 0x00);
	outb(COM1 + UART_LCR, 0x80);	/* DLAB: divisor follows */
	outb(COM1 + 0, 1);		/* 115200 baud */
	outb(COM1 + 1, 0);
	outb(COM1 + UART_LCR, 0x03);	/* 8n1 */
	outb(COM1 + UART_FCR, 0xc7);	/* FIFOs on, cleared */
	outb(COM1 + UART_MCR, 0x1e);	/* loopback for the self-test */
	outb(COM1 + UART_THR, 0xae);
	for (int spin = 0; spin < 1000 && !(inb(COM1 + UART_LSR) & 1); spin++)
		;
	serial_present = inb(COM1 + UART_THR) == 0xae;
	outb(COM1 + UART_MCR, 0x0f);	/* normal operation */
	if (serial_present)
		register_console(&serial_console);
	return serial_present;
}
