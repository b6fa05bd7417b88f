/* kernel/console.h: where printk's text goes.  Consoles (serial, the
 * framebuffer) register themselves; a memory log keeps everything so a run
 * on a machine with no console at all still has its output. */
#pragma once

#include "kernel/types.h"

struct console {
	const char *name;
	void (*write)(const char *s, size_t n);
	struct console *next;
};

void register_console(struct console *c);
/* Writes to every console, holding the console lock, irqs off. */
void console_write(const char *s, size_t n);
bool serial_init(void);
/* Once the command line and ACPI are read: move the serial console to
 * the port serial= or the ACPI SPCR table names, replaying the log. */
void serial_late_init(void);
/* The serial console's transmit FIFO in bytes (0: no serial console),
 * and since boot: its writes, the bytes sent (a "\r" added before "\n"
 * included), and the waits for the transmitter to empty, each followed
 * by up to a FIFO's worth of bytes. */
void serial_stats(unsigned int *fifo, u64 *writes, u64 *bytes, u64 *waits);
