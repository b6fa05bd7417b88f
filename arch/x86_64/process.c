/* arch/x86_64/process.c: what a CPU does when it has nothing to run
 * (Linux's arch_cpu_idle()): halt until an interrupt, having first made
 * sure its tick will come (a lost deadline interrupt would leave it
 * halted for good) and, on AMD CPUs with erratum 400, that C1E is off. */
#include "asm/cpu.h"
#include "arch/x86_64/timer.h"

void arch_cpu_idle(void)
{
	timer_check_tick(true);
	if (amd_c1e_clear_on_halt)
		amd_c1e_clear();
	arch_safe_halt();
}
