/* arch/x86_64/stacktrace.c: walking the frame-pointer chain (the kernel
 * is built with -fno-omit-frame-pointer): at each frame, [rbp] holds the
 * caller's rbp and [rbp+8] the return address.  A backtrace is taken when
 * things are already wrong, so every step is checked before it is read:
 * frames must lie in the kernel half, be mapped and aligned, and climb
 * the stack by less than a stack's size.
 *
 * A fault's own frame needs care: if the faulting function has not set up
 * its frame yet (RIP in its prologue), has already torn it down (RIP on
 * its `ret`), or never makes one (an asm leaf), rbp still points at its
 * caller's frame, and the plain walk would skip the caller.  Then the
 * return address is on the stack itself, at [rsp] (or [rsp+8] once `push
 * %rbp` ran), and save_stack_trace_regs() puts it first, after RIP.  For
 * a function without the standard prologue, [rsp] is only a guess: it is
 * kept (marked "?" when printed, as Linux does) when a call instruction
 * precedes it.  The panic backtrace (show_stack_sp) and the NMI backtrace
 * snapshot of another CPU (arch/x86_64/nmi.c) both walk with it; it only
 * reads checked memory and the symbol table, so it is safe in NMI. */
#include "kernel/stacktrace.h"
#include "kernel/kallsyms.h"
#include "kernel/printk.h"
#include "kernel/types.h"
#include "arch/x86_64/paging.h"

#define MAX_FRAMES 32
#define MAX_FRAME_STEP (64 * 1024)
#define KERNEL_HALF 0xffff800000000000ul

extern char __text_start[], __text_end[];

static bool readable(unsigned long addr, size_t len)
{
	return addr >= KERNEL_HALF && addr + len > addr &&
	       paging_lookup(addr, NULL) && paging_lookup(addr + len - 1, NULL);
}

static bool frame_ok(unsigned long fp, unsigned long prev)
{
	if (fp < KERNEL_HALF || (fp & 7) || !readable(fp, 16))
		return false;
	return !prev || (fp > prev && fp - prev < MAX_FRAME_STEP);
}

static bool in_text(unsigned long a, size_t len)
{
	return a >= (unsigned long)__text_start && a + len <= (unsigned long)__text_end;
}

static void print_frame(unsigned long ip, bool guess)
{
	char sym[96];
	sprint_symbol(sym, sizeof(sym), ip);
	printk(KERN_EMERG " [<%016lx>] %s%s\n", ip, guess ? "? " : "", sym);
}

/* True if a call instruction ends at ret: e8 rel32, or ff /2 in the
 * register, [reg], [rip+disp32] and SIB forms, with or without REX. */
static bool after_call(unsigned long ret)
{
	const u8 *p = (const u8 *)ret;

	if (!in_text(ret - 7, 7) || !in_text(ret, 1))
		return false;
	if (p[-5] == 0xe8)
		return true;
	for (int len = 2; len <= 7; len++) {
		const u8 *op = p - len;
		u8 modrm = op[1];

		if (op[0] == 0xff && ((modrm >> 3) & 7) == 2) {
			int mod = modrm >> 6, rm = modrm & 7;
			bool sib = rm == 4 && mod != 3;
			int want = 2 + sib + (mod == 1 ? 1 : mod == 2 ? 4 : 0) +
				   (mod == 0 && rm == 5 ? 4 : 0) +
				   (sib && mod == 0 && (op[2] & 7) == 5 ? 4 : 0);
			if (want == len)
				return true;
		}
	}
	return false;
}

/* Where the faulting function's return address is, if rbp is not yet
 * (or no longer) its frame: 0 = rbp is its frame, 1 = [sp] for sure,
 * 2 = [sp+8] for sure, 3 = [sp] as a guess. */
static int own_frame_state(unsigned long ip)
{
	unsigned long off;

	if (!in_text(ip, 1) || !kallsyms_lookup(ip, &off))
		return 0;
	const u8 *fn = (const u8 *)(ip - off), *p = fn;

	if (!in_text((unsigned long)fn, 8))
		return 0;
	if (p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa)
		p += 4;				/* endbr64 */
	if (*(const u8 *)ip == 0xc3)
		return 1;			/* on `ret`: frame already popped */
	if (p[0] == 0x55 && p[1] == 0x48 && p[2] == 0x89 && p[3] == 0xe5) {
		if (ip <= (unsigned long)p)
			return 1;		/* push %rbp not yet run */
		if (ip == (unsigned long)p + 1)
			return 2;		/* pushed, mov %rsp,%rbp not yet */
		return 0;
	}
	return 3;				/* no frame of its own */
}

int save_stack_trace_regs(unsigned long fp, unsigned long ip, unsigned long sp,
			  unsigned long *ips, u64 *guess, int max)
{
	int n = 0;

	*guess = 0;
	if (max > 64)
		max = 64;
	if (ip && sp && n < max) {
		int state = own_frame_state(ip);
		unsigned long slot = state == 2 ? sp + 8 : sp;

		if (state && readable(slot, 8)) {
			unsigned long ret = *(const unsigned long *)slot;
			unsigned long next = frame_ok(fp, 0) ? ((unsigned long *)fp)[1] : 0;

			if (ret != next && in_text(ret, 1) && (state != 3 || after_call(ret))) {
				if (state == 3)
					*guess |= 1ull << n;
				ips[n++] = ret;
			}
		}
	}
	for (int i = 0; i < MAX_FRAMES && n < max && frame_ok(fp, 0); i++) {
		unsigned long *frame = (unsigned long *)fp;
		unsigned long ret = frame[1];
		if (!ret)
			break;
		ips[n++] = ret;
		if (!frame_ok(frame[0], fp))
			break;
		fp = frame[0];
	}
	return n;
}

void show_stack_sp(unsigned long fp, unsigned long ip, unsigned long sp)
{
	unsigned long ips[MAX_FRAMES + 1];
	u64 guess;
	int n = save_stack_trace_regs(fp, ip, sp, ips, &guess, MAX_FRAMES + 1);

	printk(KERN_EMERG "Call Trace:\n");
	if (ip)
		print_frame(ip, false);
	for (int i = 0; i < n; i++)
		print_frame(ips[i], guess >> i & 1);
}

void show_stack(unsigned long fp, unsigned long ip)
{
	show_stack_sp(fp, ip, 0);
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
