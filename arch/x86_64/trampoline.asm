; arch/x86_64/trampoline.asm: where an application processor starts.
;
; INIT-SIPI-SIPI starts an AP in real mode at TRAMPOLINE_PHYS (the SIPI
; vector 0x08 means CS = 0x0800, IP = 0).  smpboot.c copies the bytes from
; trampoline_start to trampoline_end there and fills in the parameters at
; the end.  The AP claims the parameters (an AP that answers late, after
; the BSP gave up on it, finds no claim and halts instead of running on
; another CPU's stack), goes to protected mode, then to long mode on the
; kernel's page tables (the first 1 MiB is identity-mapped while APs
; start), and jumps to ap_entry64 in the higher half.

TRAMPOLINE_PHYS equ 0x8000
%define TR(x) (TRAMPOLINE_PHYS + (x) - trampoline_start)

section .rodata
align 16
global trampoline_start, trampoline_end
global tr_ticket, tr_cr3, tr_efer, tr_entry
bits 16
trampoline_start:
	cli
	cld
	mov ax, cs
	mov ds, ax
	xor eax, eax
	xchg eax, [tr_ticket - trampoline_start]	; xchg is locked
	test eax, eax
	jz .stale
	o32 lgdt [tr_gdtr - trampoline_start]
	mov eax, cr0
	or eax, 1				; PE
	mov cr0, eax
	jmp dword 0x08:TR(pm32)
.stale:
	cli
	hlt
	jmp .stale

bits 32
pm32:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	mov eax, cr4				; PAE alone (MCE kept), as the BSP's
	and eax, 1 << 6				; boot/entry.asm: whatever INIT or
	or eax, 1 << 5				; firmware left must not reach paging
	mov cr4, eax
	mov eax, [TR(tr_cr3)]
	mov cr3, eax
	mov ecx, 0xc0000080			; EFER: LME, and NXE if the BSP has it
	rdmsr
	or eax, [TR(tr_efer)]
	wrmsr
	mov eax, cr0
	and eax, 0x9fffffff			; INIT leaves CD and NW set: caches on
	or eax, 0x80010001			; PG, WP, PE
	mov cr0, eax
	jmp 0x18:TR(lm64)

bits 64
lm64:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	mov rax, [TR(tr_entry)]
	jmp rax

align 8
tr_gdt:
	dq 0
	dq 0x00cf9a000000ffff			; 0x08: 32-bit code, flat
	dq 0x00cf92000000ffff			; 0x10: data, flat
	dq 0x00209a0000000000			; 0x18: 64-bit code
tr_gdtr:
	dw 4 * 8 - 1
	dd TR(tr_gdt)
align 8
tr_ticket:	dd 0		; non-zero: parameters ready for one AP
tr_cr3:		dd 0		; kernel PML4, below 4 GiB
tr_efer:	dd 0
		dd 0
tr_entry:	dq 0		; ap_entry64
trampoline_end:

; ---- in the kernel image, higher half ----
section .text
global ap_entry64
extern smp_ap_entry, ap_boot_stack, ap_boot_cpu
ap_entry64:
	mov rsp, [rel ap_boot_stack]
	mov edi, [rel ap_boot_cpu]
	xor ebp, ebp				; ends backtraces
	call smp_ap_entry
.hang:
	cli
	hlt
	jmp .hang
