/* asm/nmi.h: NMI handlers.  Every NMI calls each registered handler in
 * turn (an NMI IPI, the profiler's, the backtrace request: one NMI may
 * carry several reasons).  A handler returns NMI_HANDLED if the NMI was
 * (also) for it.  Handlers run on the NMI stack, in NMI context: no
 * locks, no sleeping; printk only buffers. */
#pragma once

#include "kernel/types.h"
#include "kernel/percpu.h"
#include "asm/ptrace.h"

#define NMI_DONE 0
#define NMI_HANDLED 1

struct nmiaction {
	int (*handler)(struct pt_regs *regs, void *data);
	void *data;
	const char *name;
};

#define NMI_MAX_HANDLERS 16

/* Publishes a (caller-owned, static or long-lived) action: it may be
 * called on any CPU from the next NMI on.  -EBUSY if already registered,
 * -ENOSPC if the table is full. */
int register_nmi_handler(struct nmiaction *a);
/* Withdraws it and waits until no CPU is still running it (every CPU
 * that was inside an NMI has left it), so the caller may then free or
 * reuse it.  Must not be called from NMI context. */
void unregister_nmi_handler(struct nmiaction *a);

DECLARE_PER_CPU(u64, nmi_count);	/* NMIs taken on this CPU */
DECLARE_PER_CPU(u64, nmi_unknown);	/* ... that no handler claimed */
DECLARE_PER_CPU(u64, nmi_nested);	/* ... that arrived inside another */
DECLARE_PER_CPU(int, nmi_depth);	/* NMIs this CPU is inside right now */
