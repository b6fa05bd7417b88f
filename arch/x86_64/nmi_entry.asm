; arch/x86_64/nmi_entry.asm: the NMI entry, made safe against nesting.
;
; NMIs arrive on the IST_NMI stack, and the CPU always puts the hardware
; frame at the top of that stack.  Normally the next NMI is held back until
; our iretq, but any exception taken inside the NMI handler ends with an
; iretq too, which unblocks NMIs early: a second NMI would then write its
; frame over ours.  So before anything can fault, this stub copies the
; frame away from the top and runs the handler below it:
;   - outermost NMI (interrupted RSP outside the NMI stack): the copy goes
;     NMI_TOP_RESERVE bytes below the top; the top slot is left for the
;     frames of nested NMIs, which are never read after their own copy;
;   - nested NMI (interrupted RSP inside the NMI stack): the copy goes
;     below the interrupted RSP, so nothing live of the outer NMI is hit,
;     wherever in its code (first instruction to final iretq) it was.
; The stub itself takes no exceptions, so no NMI can land inside it.
; Then it builds the same struct pt_regs as entry.asm (PT_REGS_CALL,
; asm/ptrace.inc) and calls x86_trap.

IST_STACK_SIZE  equ 16384	; asm/desc.h
NMI_TOP_RESERVE equ 256

%include "asm/ptrace.inc"

bits 64
section .text
global nmi_entry
extern x86_trap
nmi_entry:
	push rax
	push rdx
	; [rsp+16] rip, +24 cs, +32 rflags, +40 rsp, +48 ss; top = rsp + 56
	lea rdx, [rsp + 56]		; top of the NMI stack
	mov rax, [rsp + 40]		; interrupted RSP
	cmp rax, rdx
	ja .outer
	sub rdx, IST_STACK_SIZE
	cmp rax, rdx
	jb .outer
	sub rax, 128			; nested: below the interrupted frame
	jmp .copy
.outer:
	lea rax, [rsp + 56 - NMI_TOP_RESERVE]
.copy:
	and rax, -16
	mov rdx, [rsp + 48]
	mov [rax - 8], rdx		; ss
	mov rdx, [rsp + 40]
	mov [rax - 16], rdx		; rsp
	mov rdx, [rsp + 32]
	mov [rax - 24], rdx		; rflags
	mov rdx, [rsp + 24]
	mov [rax - 32], rdx		; cs
	mov rdx, [rsp + 16]
	mov [rax - 40], rdx		; rip
	mov rdx, [rsp + 8]
	mov [rax - 48], rdx		; saved rax
	mov rdx, [rsp]
	mov [rax - 56], rdx		; saved rdx
	lea rsp, [rax - 56]
	pop rdx
	pop rax
	; now exactly as if the CPU had pushed the frame here
	push qword 0			; error code
	push qword 2			; vector
	PT_REGS_CALL x86_trap
	iretq
