/* kernel/stacktrace.h: frame-pointer backtraces. */
#pragma once

/* Prints "Call Trace:" and one symbolized line per frame, starting at the
 * frame whose pointer is fp and whose code address is ip. */
void show_stack(unsigned long fp, unsigned long ip);
/* Fills ips[] with up to max return addresses from here; returns count. */
int save_stack_trace(unsigned long *ips, int max);
