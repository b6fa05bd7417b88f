; arch/x86_64/entry.asm: the 256 interrupt entry stubs and the common path.
;
; Each stub makes the stack look the same whatever the vector (a zero is
; pushed where the CPU pushes no error code), pushes its vector number and
; jumps to the common path, which saves every general register into a
; struct pt_regs (asm/ptrace.h) and calls x86_trap(regs).  The kernel runs
; only in ring 0, so there is no swapgs: GS base always holds this CPU's
; per-CPU offset.

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
	push rdi
	push rsi
	push rdx
	push rcx
	push rax
	push r8
	push r9
	push r10
	push r11
	push rbx
	push rbp
	push r12
	push r13
	push r14
	push r15
	cld
	; a frame record linking the interrupted code, so backtraces taken
	; inside a handler walk on into the code that was interrupted
	push qword [rsp + 17 * 8]	; interrupted RIP
	push rbp
	mov rbp, rsp
	lea rdi, [rsp + 16]
	call x86_trap
	add rsp, 16
	pop r15
	pop r14
	pop r13
	pop r12
	pop rbp
	pop rbx
	pop r11
	pop r10
	pop r9
	pop r8
	pop rax
	pop rcx
	pop rdx
	pop rsi
	pop rdi
	add rsp, 16			; vector and error code
	iretq

section .rodata
global isr_stub_table
isr_stub_table:
%assign v 0
%rep 256
	dq isr_stub_ %+ v
%assign v v + 1
%endrep
