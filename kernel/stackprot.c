/* kernel/stackprot.c: the stack protector's guard and its failure path.
 *
 * The test build compiles with -fstack-protector-strong and
 * -mstack-protector-guard=global: a function with an array or an
 * address-taken local puts __stack_chk_guard below its return address on
 * entry and calls __stack_chk_fail() if it changed on the way out, i.e.
 * something wrote past a local buffer.  The guard is global rather than
 * per CPU (%gs) so that it is valid from the first instruction of C, before
 * per-CPU areas exist.  Its value is fixed at build time: the protector is
 * here to catch bugs, not attackers, and changing it while protected frames
 * are live would report them falsely.  Its low byte is 0 so that a runaway
 * string copy stops at it rather than copying it. */
#include "kernel/types.h"
#include "kernel/printk.h"
#include "kernel/kallsyms.h"

unsigned long __stack_chk_guard = 0x5d4c3b2a19e8f700ul;

/* Never protected itself: it runs on the very stack that was smashed. */
__noreturn void __stack_chk_fail(void);
__attribute__((no_stack_protector)) __noreturn void __stack_chk_fail(void)
{
	char sym[128];

	/* The return address is inside the function whose frame was
	 * overwritten: it checked its guard just before calling here. */
	sprint_symbol(sym, sizeof(sym), (unsigned long)__builtin_return_address(0));
	panic("stack-protector: Kernel stack is corrupted in: %s", sym);
}
