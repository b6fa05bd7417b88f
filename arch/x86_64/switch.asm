; arch/x86_64/switch.asm - the context switch and a new thread's first
; return (called from kernel/sched.c).
;
; __switch_to_asm(prev, next): saves the callee-saved registers on prev's
; stack, stores rsp in prev->sp (offset 0 of struct task), loads next->sp
; and pops next's registers.  It builds an ordinary rbp frame first, so a
; backtrace taken in a switched-out task (or inside here) walks through
; into __schedule and beyond.  Returns prev (rax) in the context of next:
; the C side needs it to finish the switch.  Everything else (rflags,
; caller-saved registers) the C caller already treats as clobbered.
;
; A new thread's stack is laid out by kthread_create so that its first
; switch-in "returns" into ret_from_kthread with rbp = 0 (the end of
; every backtrace) and rsp 16-byte aligned.

bits 64
section .text

global __switch_to_asm
__switch_to_asm:
	push rbp
	mov rbp, rsp
	push rbx
	push r12
	push r13
	push r14
	push r15
	mov [rdi], rsp		; prev->sp
	mov rsp, [rsi]		; next->sp
	pop r15
	pop r14
	pop r13
	pop r12
	pop rbx
	pop rbp
	mov rax, rdi		; prev, as seen by next
	ret

extern schedule_tail
extern kthread_main

global ret_from_kthread
ret_from_kthread:
	mov rdi, rax		; prev
	call schedule_tail	; finish the switch, preempt_count 0, irqs on
	call kthread_main	; runs current->fn(arg), never returns
	ud2
