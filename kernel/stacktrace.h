/* kernel/stacktrace.h: frame-pointer backtraces. */
#pragma once

#include "kernel/types.h"

/* Prints "Call Trace:" and one symbolized line per frame, starting at the
 * frame whose pointer is fp and whose code address is ip. */
void show_stack(unsigned long fp, unsigned long ip);
/* The same for a fault, with its stack pointer: when the faulting
 * function had no frame of its own at ip (prologue, epilogue, frameless
 * leaf), its caller is found at sp and printed too. */
void show_stack_sp(unsigned long fp, unsigned long ip, unsigned long sp);
/* The return addresses show_stack_sp() prints after ip, into ips[] (at
 * most max, at most 64); bit i of *guess is set when ips[i] is only a
 * guess (printed with "?").  Prints nothing, takes no lock: safe in NMI,
 * where the NMI backtrace snapshot uses it.  Returns the count. */
int save_stack_trace_regs(unsigned long fp, unsigned long ip, unsigned long sp,
			  unsigned long *ips, u64 *guess, int max);
/* Fills ips[] with up to max return addresses from here; returns count. */
int save_stack_trace(unsigned long *ips, int max);
