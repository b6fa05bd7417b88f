/* asm/ptrace.h: the registers saved at interrupt entry (entry.asm's
 * push order, lowest address first). */
#pragma once

#include "kernel/types.h"

struct pt_regs {
	u64 r15, r14, r13, r12, rbp, rbx, r11, r10, r9, r8;
	u64 rax, rcx, rdx, rsi, rdi;
	u64 vector, error_code;
	u64 rip, cs, rflags, rsp, ss;	/* pushed by the CPU */
};

#define instruction_pointer(regs) ((regs)->rip)
#define regs_irqs_enabled(regs) (((regs)->rflags & 0x200) != 0)
