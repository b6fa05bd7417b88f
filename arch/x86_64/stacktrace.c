/* arch/x86_64/stacktrace.c: walking the frame-pointer chain (the kernel
 * is built with -fno-omit-frame-pointer): at each frame, [rbp] holds the
 * caller's rbp and [rbp+8] the return address.  A backtrace is taken when
 * things are already wrong, so every step is checked before it is read:
 * frames must lie in the kernel half, be aligned, and climb the stack by
 * less than a stack's size. */
#include "kernel/stacktrace.h"
#include "kernel/kallsyms.h"
#include "kernel/printk.h"
#include "kernel/types.h"

#define MAX_FRAMES 32
#define MAX_FRAME_STEP (64 * 1024)
#define KERNEL_HALF 0xffff800000000000ul

static bool frame_ok(unsigned long fp, unsigned long prev)
{
	if (fp < KERNEL_HALF || (fp & 7))
		return false;
	return !prev || (fp > prev && fp - prev < MAX_FRAME_STEP);
}

static void print_frame(unsigned long ip)
{
	char sym[96];
	sprint_symbol(sym, sizeof(sym), ip);
	printk(KERN_EMERG " [<%016lx>] %s\n", ip, sym);
}

void show_stack(unsigned long fp, unsigned long ip)
{
	printk(KERN_EMERG "Call Trace:\n");
	if (ip)
		print_frame(ip);
	for (int i = 0; i < MAX_FRAMES && frame_ok(fp, 0); i++) {
		unsigned long *frame = (unsigned long *)fp;
		unsigned long ret = frame[1];
		if (!ret)
			break;
		print_frame(ret);
		if (!frame_ok(frame[0], fp))
			break;
		fp = frame[0];
	}
}

int save_stack_trace(unsigned long *ips, int max)
{
	unsigned long fp = (unsigned long)__builtin_frame_address(0);
	int n = 0;
	while (n < max && frame_ok(fp, 0)) {
		unsigned long *frame = (unsigned long *)fp;
		if (!frame[1])
			break;
		ips[n++] = frame[1];
		if (!frame_ok(frame[0], fp))
			break;
		fp = frame[0];
	}
	return n;
}
