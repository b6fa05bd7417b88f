; arch/x86_64/entry.asm: the 256 interrupt entry stubs and the common path.
;
; Each stub makes the stack look the same whatever the vector (a zero is
; pushed where the CPU pushes no error code), pushes its vector number and
; jumps to the common path, which saves every general register into a
; struct pt_regs (asm/ptrace.h) and calls x86_trap(regs).  The kernel runs
; only in ring 0, so there is no swapgs: GS base always holds this CPU's
; per-CPU offset.

%include "asm/ptrace.inc"

bits 64
section .text

%macro STUB_NOERR 1
isr_stub_%1:
	push qword 0
	push qword %1
	jmp isr_common
%endmacro

%macro STUB_ERR 1
isr_stub_%1:
	push qword %1
	jmp isr_common
%endmacro

; vectors for which the CPU pushes an error code (SDM vol 3, table 6-1)
%assign v 0
%rep 256
%if v == 8 || (v >= 10 && v <= 14) || v == 17 || v == 21 || v == 29 || v == 30
	STUB_ERR v
%else
	STUB_NOERR v
%endif
%assign v v + 1
%endrep

extern x86_trap
isr_common:
	PT_REGS_CALL x86_trap
	iretq

section .rodata
global isr_stub_table
isr_stub_table:
%assign v 0
%rep 256
	dq isr_stub_ %+ v
%assign v v + 1
%endrep
