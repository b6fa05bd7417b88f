/* arch/x86_64/pic.c: the legacy 8259 pair.  We use the I/O APIC and the
 * LAPICs, so the 8259s are remapped away from the exception vectors (a
 * spurious 8259 interrupt must not look like a #DF) and fully masked. */
#include "arch/x86_64/pic.h"
#include "asm/cpu.h"

#define PIC1_CMD  0x20
#define PIC1_DATA 0x21
#define PIC2_CMD  0xa0
#define PIC2_DATA 0xa1

static void io_wait(void) { outb(0x80, 0); }

void pic_disable(void)
{
	/* ICW1: init, ICW4 follows.  ICW2: vector bases 0x20/0x28 (masked
	 * anyway).  ICW3: cascade on IRQ2.  ICW4: 8086 mode. */
	outb(PIC1_CMD, 0x11); io_wait();
	outb(PIC2_CMD, 0x11); io_wait();
	outb(PIC1_DATA, 0x20); io_wait();
	outb(PIC2_DATA, 0x28); io_wait();
	outb(PIC1_DATA, 4); io_wait();
	outb(PIC2_DATA, 2); io_wait();
	outb(PIC1_DATA, 1); io_wait();
	outb(PIC2_DATA, 1); io_wait();
	outb(PIC1_DATA, 0xff);
	outb(PIC2_DATA, 0xff);
}
