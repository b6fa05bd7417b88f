/* kernel/time.c: jiffies, the hz= parameter, and the TSC-based clock and
 * delays.  The arch calibrates the TSC (arch/x86_64/tsc.c) and calls
 * time_set_tsc_khz(); before that, delays assume a fast 8 GHz TSC so that
 * they err long, which is the safe side for hardware waits. */
#include "kernel/time.h"
#include "kernel/cmdline.h"
#include "asm/cpu.h"

volatile u64 jiffies;
unsigned int hz = 1000;
core_param(hz, hz, uint, "timer ticks per second on every CPU (10-10000)");

u64 tsc_khz = 8000000;
u64 tsc_sync_skew;
static u64 ns_mult;		/* ns = cycles * ns_mult >> 32 */
static u64 cyc_mult;		/* cycles = ns * cyc_mult >> 32 */
static u64 tsc_boot;

u64 get_cycles(void) { return rdtsc(); }
u64 get_cycles_ordered(void) { return rdtsc_ordered(); }

void time_set_tsc_khz(u64 khz)
{
	if (!khz)
		return;
	tsc_khz = khz;
	ns_mult = (1000000ull << 32) / khz;
	cyc_mult = (khz << 32) / 1000000;
	if (!tsc_boot)
		tsc_boot = rdtsc();
}

u64 cycles_to_ns(u64 c)
{
	if (!ns_mult)
		time_set_tsc_khz(tsc_khz);
	return (u64)(((unsigned __int128)c * ns_mult) >> 32);
}

u64 ns_to_cycles(u64 ns)
{
	if (!cyc_mult)
		time_set_tsc_khz(tsc_khz);
	/* Rounded up: a delay computed from this is never short. */
	return (u64)((((unsigned __int128)ns * cyc_mult) + 0xffffffffu) >> 32) + 1;
}

/* Signed, clamped at 0: a CPU whose TSC is a little behind CPU 0's
 * (the skew the boot measured) must read 0, not a time near 2^64. */
u64 ktime_get_ns(void)
{
	s64 d = (s64)(rdtsc() - tsc_boot);

	return d > 0 ? cycles_to_ns((u64)d) : 0;
}

u64 cycles_to_ktime_ns(u64 tsc)
{
	s64 d = (s64)(tsc - tsc_boot);

	return d > 0 ? cycles_to_ns((u64)d) : 0;
}

void ndelay(unsigned long ns)
{
	u64 start = rdtsc_ordered(), n = ns_to_cycles(ns);

	while (rdtsc_ordered() - start < n)
		arch_cpu_relax();
}

/* One wait, not a loop of short ones: a vCPU the host deschedules would
 * overshoot each short wait by the whole gap. */
void udelay(unsigned long us) { ndelay(us * 1000ull); }
void mdelay(unsigned long ms) { ndelay(ms * 1000000ull); }
