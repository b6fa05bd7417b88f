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
