; arch/x86_64/trampoline.asm: where an application processor starts.
;
; INIT-SIPI-SIPI starts an AP in real mode at TRAMPOLINE_PHYS (the SIPI
; vector 0x08 means CS = 0x0800, IP = 0).  smpboot.c copies the bytes from
; trampoline_start to trampoline_end there and fills in the parameters at
; the end.  Many APs run it at once, so it writes nothing of its own.  An
; AP halts if the gate is shut (no bring-up under way: the low identity
; map it needs may be gone); otherwise it goes to protected mode, reads
; its APIC id from its local APIC (paging is still off: the MMIO register
; at its physical address, or the x2APIC MSR), goes to long mode on the
; kernel's page tables (the first 1 MiB is identity-mapped while APs
; start) and jumps to ap_claim_slot in the higher half with the id in
; edi.  There the AP finds the slot smpboot.c made for that id and claims it
; (an AP that answers after the BSP gave up on it finds no slot to claim
; and halts instead of running on another CPU's stack), and takes its
; logical CPU number and stack from it.

TRAMPOLINE_PHYS equ 0x8000
%define TR(x) (TRAMPOLINE_PHYS + (x) - trampoline_start)

section .rodata
align 16
global trampoline_start, trampoline_end
global tr_gate, tr_cr3, tr_efer, tr_entry
bits 16
trampoline_start:
	cli
	cld
	mov ax, cs
	mov ds, ax
	cmp dword [tr_gate - trampoline_start], 0
	je .stale
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
	mov ecx, 0x1b				; IA32_APIC_BASE
	rdmsr
	test eax, 1 << 10			; EXTD: x2APIC mode
	jz .xapic
	mov ecx, 0x802				; the x2APIC id MSR
	rdmsr
	mov edi, eax
	jmp .have_id
.xapic:
	test edx, edx				; registers above 4 GiB: out of
	jnz .cpuid				; reach with paging off
	and eax, 0xfffff000
	mov edi, [eax + 0x20]			; the APIC ID register
	shr edi, 24
	jmp .have_id
.cpuid:
	mov eax, 1				; the initial APIC id
	cpuid
	mov edi, ebx
	shr edi, 24
.have_id:
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
tr_gate:	dd 0		; non-zero: a bring-up is under way
tr_cr3:		dd 0		; kernel PML4, below 4 GiB
tr_efer:	dd 0
		dd 0
tr_entry:	dq 0		; ap_entry64
trampoline_end:

; ---- in the kernel image, higher half ----
section .text
global ap_claim_slot
extern smp_ap_entry, ap_boot_slots, ap_boot_nr_slots
; struct ap_boot_slot (smpboot.c): u32 apic_id, u32 state, u64 stack
AP_SLOT_SIZE equ 16
AP_SLOT_WAITING equ 1
AP_SLOT_CLAIMED equ 2
ap_claim_slot:					; edi: this CPU's APIC id
	lea rbx, [rel ap_boot_slots]
	xor ecx, ecx
.slot:
	cmp dword [rbx + 4], AP_SLOT_WAITING
	jne .next
	cmp dword [rbx], edi
	jne .next
	mov eax, AP_SLOT_WAITING
	mov edx, AP_SLOT_CLAIMED
	lock cmpxchg [rbx + 4], edx
	je ap_entry64
.next:						; not ours, or withdrawn just now
	add rbx, AP_SLOT_SIZE
	inc ecx
	cmp ecx, [rel ap_boot_nr_slots]
	jb .slot
.hang:
	cli
	hlt
	jmp .hang

; rbx: the claimed slot, ecx: its logical CPU number
ap_entry64:
	mov rsp, [rbx + 8]
	mov edi, ecx
	xor ebp, ebp				; ends backtraces
	call smp_ap_entry
.hang:
	cli
	hlt
	jmp .hang
