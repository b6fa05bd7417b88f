/* tests/kernel/test_serial.c: KTAP suite `serial`, the serial console's
 * output path (arch/x86_64/serial.c): on a 16550A each wait for the
 * transmitter to empty is followed by a whole FIFO of bytes, not one (at
 * 115200 baud a wait per byte is 87 us with irqs off; QEMU makes it
 * instant, so the waits are counted, not timed). */
#include "kernel/ktap.h"
#include "kernel/console.h"

static void serial_fills_the_fifo(void)
{
	static const char line[] =
		"serial: a long line, so that it takes many transmit FIFOs: "
		"0123456789abcdefghijklmnopqrstuvwxyz 0123456789abcdefghijklmnopqrstuvwxyz";
	unsigned int fifo;
	u64 w0, b0, t0, w1, b1, t1;

	serial_stats(&fifo, &w0, &b0, &t0);
	if (!fifo) {
		ktap_skip("no serial console");
		return;
	}
	for (int i = 0; i < 8; i++)
		ktap_log("%s", line);
	serial_stats(&fifo, &w1, &b1, &t1);
	u64 writes = w1 - w0, bytes = b1 - b0, waits = t1 - t0;

	ktap_log("serial: %u-byte FIFO, %llu bytes in %llu writes took %llu waits", fifo,
		 (unsigned long long)bytes, (unsigned long long)writes,
		 (unsigned long long)waits);
	/* QEMU's UART is a 16550A, as a PC's is */
	KTAP_EXPECT_EQ(fifo, 16);
	KTAP_EXPECT(bytes >= 8 * (sizeof(line) - 1));
	/* Each write's waits: its bytes in whole FIFOs, and one part-filled. */
	KTAP_EXPECT(waits <= bytes / 16 + writes);
}

KTAP_SUITE(serial, KTAP_CASE(serial_fills_the_fifo));
