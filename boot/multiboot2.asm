; boot/multiboot2.asm: the multiboot2 header GRUB looks for in the first
; 32 KiB of the image.  It asks for the tags kmain() reads; every request is
; optional so that GRUB boots us even where a firmware cannot supply one,
; and the kernel then says what is missing.

MB2_MAGIC     equ 0xe85250d6
MB2_ARCH_I386 equ 0
MB2_OPTIONAL  equ 1

section .multiboot2
align 8
mb2_header:
	dd MB2_MAGIC
	dd MB2_ARCH_I386
	dd mb2_header_end - mb2_header
	dd -(MB2_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))

	; information request: cmdline(1), mmap(6), framebuffer(8),
	; ACPI old RSDP(14), ACPI new RSDP(15)
align 8
.info_req:
	dw 1, MB2_OPTIONAL
	dd .info_req_end - .info_req
	dd 1, 6, 8, 14, 15
.info_req_end:

	; framebuffer: any mode GRUB likes; the kernel draws its console on it
align 8
.fb:
	dw 5, MB2_OPTIONAL
	dd 20
	dd 0, 0, 32

align 8
	dw 0, 0
	dd 8
mb2_header_end:
