; boot/entry.asm: from GRUB's 32-bit protected mode to kmain() in 64-bit
; long mode at the higher half.
;
; GRUB enters _start with EAX = multiboot2 magic, EBX = physical address of
; the boot information, paging off, interrupts off, no usable stack.  We
; check the magic and the CPU, build early page tables that identity-map
; the first 4 GiB and map physical 0..2 GiB again at 0xffffffff80000000
; (2 MiB pages; page 0 left unmapped), set CR4 to PAE alone, enable long
; mode and paging, and jump high.
; arch/x86_64/paging.c replaces these tables with the kernel's own.

KERNEL_VMA   equ 0xffffffff80000000
MB2_BOOT_MAGIC equ 0x36d76289
COM1         equ 0x3f8
CR4_PAE      equ 1 << 5
CR4_MCE      equ 1 << 6
CR4_LA57     equ 1 << 12

bits 32
section .boot.text progbits alloc exec nowrite
global _start
_start:
	cli
	cld
	mov esp, boot_stack32_top
	mov edi, eax			; keep magic and info for kmain
	mov esi, ebx

	cmp eax, MB2_BOOT_MAGIC
	jne .bad_magic

	; long mode needs CPUID leaf 0x80000001 EDX bit 29
	mov eax, 0x80000000
	cpuid
	cmp eax, 0x80000001
	jb .no_long_mode
	mov eax, 0x80000001
	cpuid
	test edx, 1 << 29
	jz .no_long_mode
	mov ebp, edx			; bit 20: NX available

	call build_page_tables

	mov eax, boot_pml4
	mov cr3, eax
	; CR4 is written outright, not ORed into: firmware or the loader may
	; leave bits set that would break the switch (LA57 makes the 4-level
	; tables below be read as 5-level: a triple fault; PCIDE, PKE...).
	; MCE is kept, as Linux's head_64.S keeps it: clearing it faults in
	; some guests, and a machine check crashes us either way.  What the
	; loader left is kept for the boot log (boot_cr4_at_entry).
%ifdef CONFIG_SANITIZE
	call test_dirty_cr4
%endif
	mov eax, cr4
	mov [boot_cr4_entry32], eax
	and eax, CR4_MCE
	or eax, CR4_PAE
	mov cr4, eax
	mov ecx, 0xc0000080		; EFER
	rdmsr
	or eax, (1 << 8)		; LME
	test ebp, 1 << 20
	jz .no_nx
	or eax, (1 << 11)		; NXE, so later page tables may use NX
.no_nx:
	wrmsr
	mov eax, cr0
	and eax, 0x9fffffff			; caches on: clear CD and NW
	or eax, (1 << 31) | (1 << 16) | 1	; PG, WP, PE
	mov cr0, eax

	lgdt [boot_gdt_ptr]
	jmp 0x08:long_mode_low

.bad_magic:
	mov ebx, eax
	mov esi, msg_bad_magic
	call serial_puts32
	call serial_hex32
	jmp halt32
.no_long_mode:
	mov esi, msg_no_lm
	call serial_puts32
	jmp halt32

halt32:
	cli
	hlt
	jmp halt32

; Early COM1 output for the two errors that happen before C can run.
serial_puts32:
	mov dx, COM1 + 5
.wait:
	in al, dx
	test al, 0x20
	jz .wait
	lodsb
	test al, al
	jz .done
	mov dx, COM1
	out dx, al
	jmp serial_puts32
.done:
	ret

serial_hex32:				; prints EBX as 8 hex digits + newline
	mov ecx, 8
.next:
	rol ebx, 4
	mov eax, ebx
	and eax, 0xf
	mov al, [hexdigits + eax]
	mov [hexbuf], al
	push ecx
	mov esi, hexbuf
	call serial_puts32
	pop ecx
	loop .next
	mov esi, msg_nl
	call serial_puts32
	ret

%ifdef CONFIG_SANITIZE
; Test build: set CR4.LA57 first on a CPU with 5-level paging, as a loader
; may leave it, so that a run on one (hw-cr4-la57, -cpu max) boots only
; if the write above clears it.
test_dirty_cr4:
	xor eax, eax
	cpuid
	cmp eax, 7
	jb .done
	mov eax, 7
	xor ecx, ecx
	cpuid
	test ecx, 1 << 16		; LA57
	jz .done
	mov eax, cr4
	or eax, CR4_LA57
	mov cr4, eax
.done:
	ret
%endif

build_page_tables:
	; clear the tables (they live in .boot.bss, which the ELF loader
	; zeroes, but a careful loader is not something to depend on)
	push edi
	mov edi, boot_pml4
	mov ecx, (boot_tables_end - boot_pml4) / 4
	xor eax, eax
	rep stosd
	pop edi

	mov eax, boot_pdpt_low
	or eax, 3
	mov [boot_pml4], eax
	mov eax, boot_pdpt_high
	or eax, 3
	mov [boot_pml4 + 511 * 8], eax

	; four page directories of 2 MiB pages cover 0..4 GiB
	mov ebx, 0			; page directory index 0..2047
.pd:
	mov eax, ebx
	shl eax, 21
	or eax, 0x83			; present, writable, 2 MiB
	mov [boot_pd + ebx * 8], eax
	mov eax, ebx
	shr eax, 11			; high dword of phys = (index * 2 MiB) >> 32
	mov [boot_pd + ebx * 8 + 4], eax
	inc ebx
	cmp ebx, 2048
	jne .pd

	; the first 2 MiB through 4 KiB pages, leaving page 0 unmapped so
	; that a null pointer dereference faults from the first instruction
	mov ecx, 1
.pt:
	mov eax, ecx
	shl eax, 12
	or eax, 3
	mov [boot_pt0 + ecx * 8], eax
	inc ecx
	cmp ecx, 512
	jne .pt
	mov eax, boot_pt0
	or eax, 3
	mov [boot_pd], eax
	mov dword [boot_pd + 4], 0

	mov ecx, 0
.pdpt:
	mov eax, ecx
	shl eax, 12
	add eax, boot_pd
	or eax, 3
	mov [boot_pdpt_low + ecx * 8], eax
	inc ecx
	cmp ecx, 4
	jne .pdpt

	; 0xffffffff80000000 is PML4 slot 511, PDPT slot 510: phys 0..2 GiB
	mov eax, boot_pd
	or eax, 3
	mov [boot_pdpt_high + 510 * 8], eax
	add eax, 4096
	mov [boot_pdpt_high + 511 * 8], eax
	ret

bits 64
long_mode_low:
	mov rax, higher_half
	jmp rax

section .boot.data progbits alloc noexec write
align 16
boot_gdt:
	dq 0
	dq 0x00209a0000000000		; 0x08: 64-bit code
	dq 0x0000920000000000		; 0x10: data
boot_gdt_end:
boot_gdt_ptr:
	dw boot_gdt_end - boot_gdt - 1
	dd boot_gdt

msg_bad_magic: db "rcukern: not booted by a multiboot2 loader (bad magic 0x", 0
msg_no_lm:     db "rcukern: this CPU has no 64-bit long mode; halting", 13, 10, 0
msg_nl:        db ")", 13, 10, 0
hexdigits:     db "0123456789abcdef"
hexbuf:        db 0, 0

section .boot.bss nobits alloc noexec write
alignb 4096
global boot_pml4
boot_pml4:      resb 4096
boot_pdpt_low:  resb 4096
boot_pdpt_high: resb 4096
boot_pd:        resb 4096 * 4
boot_pt0:       resb 4096
boot_tables_end:
boot_stack32:   resb 1024
boot_stack32_top:
boot_cr4_entry32: resd 1

; ---- 64-bit, higher half ----
section .text
extern kmain, boot_cr4_at_entry
higher_half:
	mov eax, [boot_cr4_entry32]	; low, still identity-mapped
	mov [rel boot_cr4_at_entry], eax
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	xor eax, eax
	mov fs, ax
	mov gs, ax
	mov rsp, boot_stack_top
	xor ebp, ebp			; ends the backtrace
	; rdi = magic, rsi = info phys (zero-extended by the 32-bit moves)
	mov edi, edi
	mov esi, esi
	call kmain
.hang:
	cli
	hlt
	jmp .hang

section .bss
alignb 4096
global boot_stack_guard, boot_stack_bottom, boot_stack_top
boot_stack_guard:		; left unmapped by paging.c: overflow faults
	resb 4096
boot_stack_bottom:
	resb 16384
boot_stack_top:
