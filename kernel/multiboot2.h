/* kernel/multiboot2.h: what the kernel keeps of the multiboot2 boot
 * information GRUB leaves in memory, and the parser that fills it.
 *
 * The information is untrusted input: mb2_parse() checks every tag's size
 * against the bytes that remain and the tag type's minimum, copies what it
 * keeps into struct boot_info (so the loader's memory may be reused), and
 * never reads past `avail` bytes.  Pure C, shared with the host tests. */
#pragma once

#include "kernel/types.h"

/* Tag types (multiboot2 specification, section 3.6). */
#define MB2_TAG_END			0
#define MB2_TAG_CMDLINE			1
#define MB2_TAG_LOADER_NAME		2
#define MB2_TAG_MODULE			3
#define MB2_TAG_BASIC_MEMINFO		4
#define MB2_TAG_BOOTDEV			5
#define MB2_TAG_MMAP			6
#define MB2_TAG_VBE			7
#define MB2_TAG_FRAMEBUFFER		8
#define MB2_TAG_ELF_SECTIONS		9
#define MB2_TAG_APM			10
#define MB2_TAG_EFI32			11
#define MB2_TAG_EFI64			12
#define MB2_TAG_SMBIOS			13
#define MB2_TAG_ACPI_OLD		14
#define MB2_TAG_ACPI_NEW		15
#define MB2_TAG_NETWORK			16
#define MB2_TAG_EFI_MMAP		17
#define MB2_TAG_EFI_BS			18
#define MB2_TAG_EFI32_IH		19
#define MB2_TAG_EFI64_IH		20
#define MB2_TAG_LOAD_BASE_ADDR		21

/* Memory map entry types. */
#define MB2_MEMORY_AVAILABLE		1
#define MB2_MEMORY_RESERVED		2
#define MB2_MEMORY_ACPI_RECLAIMABLE	3
#define MB2_MEMORY_NVS			4
#define MB2_MEMORY_BADRAM		5

/* Framebuffer types. */
#define MB2_FRAMEBUFFER_INDEXED		0
#define MB2_FRAMEBUFFER_RGB		1
#define MB2_FRAMEBUFFER_TEXT		2

/* Bounds on what is copied; longer input is cut with a warning. */
#define MB2_CMDLINE_MAX		1024
#define MB2_LOADER_NAME_MAX	64
#define MB2_MMAP_MAX		128
#define MB2_RSDP_MAX		64	/* ACPI 2.0+ RSDP is 36 bytes, 1.0 is 20 */

struct mb2_mmap_entry {
	u64 addr;
	u64 len;
	u32 type;			/* MB2_MEMORY_* (others: treat as reserved) */
};

struct mb2_framebuffer {
	u64 addr;			/* physical */
	u32 pitch;			/* bytes per line */
	u32 width, height;		/* pixels, or characters for TEXT */
	u8 bpp;
	u8 type;			/* MB2_FRAMEBUFFER_* */
	/* RGB only (the tag's color_info; kernel/fbcon.c): bit position and
	 * width of each channel in a pixel.  has_rgb false: not given. */
	bool has_rgb;
	u8 red_pos, red_size, green_pos, green_size, blue_pos, blue_size;
};

struct boot_info {
	/* Where the information itself lies, so memory setup can keep it. */
	u64 info_addr;
	u32 info_size;			/* bytes walked: total_size, cut to avail */
	u32 tags_seen;			/* bit n set: a valid tag of type n < 32 */

	char cmdline[MB2_CMDLINE_MAX];	/* always NUL-terminated, "" if none */
	char loader_name[MB2_LOADER_NAME_MAX];

	struct mb2_mmap_entry mmap[MB2_MMAP_MAX];
	size_t mmap_count;
	size_t mmap_dropped;		/* entries beyond MB2_MMAP_MAX */

	/* Copies of the RSDP GRUB found; len 0 = no such tag.  The old tag
	 * holds the ACPI 1.0 RSDP, the new one the 2.0+ RSDP with XSDT. */
	u8 rsdp_old[MB2_RSDP_MAX];
	size_t rsdp_old_len;
	u8 rsdp_new[MB2_RSDP_MAX];
	size_t rsdp_new_len;

	bool has_framebuffer;
	struct mb2_framebuffer fb;

	bool has_efi32, has_efi64;
	u64 efi32_systab, efi64_systab;	/* physical addresses */
	bool efi_bs_not_terminated;	/* tag 18: boot services still running */

	bool has_load_base;
	u64 load_base_addr;		/* tag 21: where the image was loaded */

	bool has_elf_sections;		/* tag 9: the image's section headers */
	u32 elf_num, elf_entsize, elf_shndx;
};

/* Parses the boot information at `info`, of which at most `avail` bytes
 * may be read.  Clears *bi first.  Returns 0, or -EINVAL after printing
 * what was wrong; *bi then holds what was read before the damage. */
int mb2_parse(const void *info, size_t avail, struct boot_info *bi);

/* A name for a tag type, for messages. */
const char *mb2_tag_name(u32 type);
