/* kernel/multiboot2.c: the multiboot2 boot-information parser.
 *
 * The information is a fixed 8-byte header (total_size, reserved) and a
 * list of tags, each starting 8-byte aligned with (type, size), ending in
 * a tag of type 0.  Nothing in it is trusted: every read goes through
 * rd32()/rd64() at an offset already checked against the tag's size, and
 * the tag's size against what remains of min(total_size, avail).  A tag
 * too small for its type is skipped; a tag whose size cannot be believed
 * ends the walk, since the next tag's position is then unknown.  Shared
 * as-is with the host tests (tests/host/test_multiboot2.c). */
#include "kernel/multiboot2.h"
#include "kernel/string.h"
#include "kernel/printk.h"

#define TAG_HDR 8u

/* Tags are 8-byte aligned but fields inside them (mmap entries with an odd
 * entry_size) need not be: copy, never dereference a cast. */
static u32 rd32(const u8 *p)
{
	u32 v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static u64 rd64(const u8 *p)
{
	u64 v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static const char *const tag_names[] = {
	[MB2_TAG_END] = "end",
	[MB2_TAG_CMDLINE] = "cmdline",
	[MB2_TAG_LOADER_NAME] = "boot loader name",
	[MB2_TAG_MODULE] = "module",
	[MB2_TAG_BASIC_MEMINFO] = "basic meminfo",
	[MB2_TAG_BOOTDEV] = "boot device",
	[MB2_TAG_MMAP] = "memory map",
	[MB2_TAG_VBE] = "VBE info",
	[MB2_TAG_FRAMEBUFFER] = "framebuffer",
	[MB2_TAG_ELF_SECTIONS] = "ELF sections",
	[MB2_TAG_APM] = "APM table",
	[MB2_TAG_EFI32] = "EFI32 system table",
	[MB2_TAG_EFI64] = "EFI64 system table",
	[MB2_TAG_SMBIOS] = "SMBIOS tables",
	[MB2_TAG_ACPI_OLD] = "ACPI old RSDP",
	[MB2_TAG_ACPI_NEW] = "ACPI new RSDP",
	[MB2_TAG_NETWORK] = "network",
	[MB2_TAG_EFI_MMAP] = "EFI memory map",
	[MB2_TAG_EFI_BS] = "EFI boot services not terminated",
	[MB2_TAG_EFI32_IH] = "EFI32 image handle",
	[MB2_TAG_EFI64_IH] = "EFI64 image handle",
	[MB2_TAG_LOAD_BASE_ADDR] = "image load base",
};

/* The smallest size (header included) each tag type can honestly have:
 * the fixed fields the specification gives it. */
static const u32 tag_min_size[] = {
	[MB2_TAG_END] = TAG_HDR,
	[MB2_TAG_CMDLINE] = TAG_HDR,
	[MB2_TAG_LOADER_NAME] = TAG_HDR,
	[MB2_TAG_MODULE] = TAG_HDR + 8,
	[MB2_TAG_BASIC_MEMINFO] = TAG_HDR + 8,
	[MB2_TAG_BOOTDEV] = TAG_HDR + 12,
	[MB2_TAG_MMAP] = TAG_HDR + 8,
	[MB2_TAG_VBE] = TAG_HDR + 8 + 512 + 256,
	[MB2_TAG_FRAMEBUFFER] = TAG_HDR + 23,	/* addr..type, GRUB adds padding */
	[MB2_TAG_ELF_SECTIONS] = TAG_HDR + 12,	/* GRUB writes u32 num/entsize/shndx */
	[MB2_TAG_APM] = TAG_HDR + 20,
	[MB2_TAG_EFI32] = TAG_HDR + 4,
	[MB2_TAG_EFI64] = TAG_HDR + 8,
	[MB2_TAG_SMBIOS] = TAG_HDR + 8,
	[MB2_TAG_ACPI_OLD] = TAG_HDR + 20,
	[MB2_TAG_ACPI_NEW] = TAG_HDR + 36,
	[MB2_TAG_NETWORK] = TAG_HDR,
	[MB2_TAG_EFI_MMAP] = TAG_HDR + 8,
	[MB2_TAG_EFI_BS] = TAG_HDR,
	[MB2_TAG_EFI32_IH] = TAG_HDR + 4,
	[MB2_TAG_EFI64_IH] = TAG_HDR + 8,
	[MB2_TAG_LOAD_BASE_ADDR] = TAG_HDR + 4,
};

const char *mb2_tag_name(u32 type)
{
	if (type < ARRAY_SIZE(tag_names) && tag_names[type])
		return tag_names[type];
	return "unknown";
}

/* Copies a string field of `len` bytes into dst[size], stopping at its NUL;
 * says so when the field has none or does not fit. */
static void copy_string(char *dst, size_t size, const u8 *src, size_t len,
			const char *what, size_t off)
{
	size_t n = 0;
	while (n < len && src[n])
		n++;
	if (n == len)
		printk(KERN_WARNING "multiboot2: %s tag at offset %zu: string not NUL-terminated\n",
		       what, off);
	if (n >= size) {
		printk(KERN_WARNING "multiboot2: %s tag at offset %zu: %zu bytes, keeping %zu\n",
		       what, off, n, size - 1);
		n = size - 1;
	}
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* Tag 6.  entry_version is ignored as the specification allows; entry_size
 * is honoured so a newer, longer entry still parses. */
static int parse_mmap(struct boot_info *bi, const u8 *t, u32 size, size_t off)
{
	u32 entry_size = rd32(t + 8);

	if (entry_size < 24) {
		printk(KERN_ERR "multiboot2: memory map tag at offset %zu: entry_size %u < 24; map ignored\n",
		       off, entry_size);
		return -EINVAL;
	}
	u32 n = (size - 16) / entry_size;
	if ((size - 16) % entry_size)
		printk(KERN_WARNING "multiboot2: memory map tag at offset %zu: %u stray bytes after %u entries\n",
		       off, (size - 16) % entry_size, n);
	for (u32 i = 0; i < n; i++) {
		const u8 *e = t + 16 + (size_t)i * entry_size;
		if (bi->mmap_count == MB2_MMAP_MAX) {
			bi->mmap_dropped += n - i;
			printk(KERN_WARNING "multiboot2: memory map tag at offset %zu: more than %d entries, %u dropped\n",
			       off, MB2_MMAP_MAX, n - i);
			break;
		}
		struct mb2_mmap_entry *m = &bi->mmap[bi->mmap_count++];
		m->addr = rd64(e);
		m->len = rd64(e + 8);
		m->type = rd32(e + 16);
	}
	return 0;
}

static size_t copy_rsdp(u8 *dst, const u8 *src, size_t len, size_t off)
{
	if (len > MB2_RSDP_MAX) {
		printk(KERN_WARNING "multiboot2: ACPI tag at offset %zu: %zu bytes, keeping %d\n",
		       off, len, MB2_RSDP_MAX);
		len = MB2_RSDP_MAX;
	}
	memcpy(dst, src, len);
	return len;
}

/* One tag whose size is known to fit and to be at least its type's
 * minimum.  Returns 0 or -EINVAL (the tag was rejected, the walk goes on). */
static int parse_tag(struct boot_info *bi, u32 type, const u8 *t, u32 size, size_t off)
{
	const u8 *p = t + TAG_HDR;
	u32 plen = size - TAG_HDR;

	switch (type) {
	case MB2_TAG_CMDLINE:
		copy_string(bi->cmdline, sizeof(bi->cmdline), p, plen, "cmdline", off);
		break;
	case MB2_TAG_LOADER_NAME:
		copy_string(bi->loader_name, sizeof(bi->loader_name), p, plen,
			    "boot loader name", off);
		break;
	case MB2_TAG_MMAP:
		return parse_mmap(bi, t, size, off);
	case MB2_TAG_FRAMEBUFFER:
		bi->has_framebuffer = true;
		bi->fb.addr = rd64(p);
		bi->fb.pitch = rd32(p + 8);
		bi->fb.width = rd32(p + 12);
		bi->fb.height = rd32(p + 16);
		bi->fb.bpp = p[20];
		bi->fb.type = p[21];
		/* color_info follows a 16-bit reserved field (fbcon needs it
		 * for 15/16 bpp and for BGR-ordered pixels) */
		if (bi->fb.type == MB2_FRAMEBUFFER_RGB && plen >= 30) {
			bi->fb.has_rgb = true;
			bi->fb.red_pos = p[24];
			bi->fb.red_size = p[25];
			bi->fb.green_pos = p[26];
			bi->fb.green_size = p[27];
			bi->fb.blue_pos = p[28];
			bi->fb.blue_size = p[29];
		}
		break;
	case MB2_TAG_ELF_SECTIONS:
		bi->has_elf_sections = true;
		bi->elf_num = rd32(p);
		bi->elf_entsize = rd32(p + 4);
		bi->elf_shndx = rd32(p + 8);
		break;
	case MB2_TAG_EFI32:
		bi->has_efi32 = true;
		bi->efi32_systab = rd32(p);
		break;
	case MB2_TAG_EFI64:
		bi->has_efi64 = true;
		bi->efi64_systab = rd64(p);
		break;
	case MB2_TAG_ACPI_OLD:
		bi->rsdp_old_len = copy_rsdp(bi->rsdp_old, p, plen, off);
		break;
	case MB2_TAG_ACPI_NEW:
		bi->rsdp_new_len = copy_rsdp(bi->rsdp_new, p, plen, off);
		break;
	case MB2_TAG_EFI_BS:
		bi->efi_bs_not_terminated = true;
		break;
	case MB2_TAG_LOAD_BASE_ADDR:
		bi->has_load_base = true;
		bi->load_base_addr = rd32(p);
		break;
	default:
		break;	/* known but unused, or unknown: skipped by size */
	}
	return 0;
}

int mb2_parse(const void *info, size_t avail, struct boot_info *bi)
{
	const u8 *base = info;
	int err = 0;

	memset(bi, 0, sizeof(*bi));
	bi->info_addr = (u64)(uintptr_t)info;
	if (!info || avail < TAG_HDR) {
		printk(KERN_ERR "multiboot2: no boot information (%zu bytes readable)\n",
		       info ? avail : 0);
		return -EINVAL;
	}
	if ((uintptr_t)info & 7) {
		printk(KERN_ERR "multiboot2: boot information at %p is not 8-byte aligned\n", info);
		return -EINVAL;
	}

	size_t limit = rd32(base);
	if (limit < TAG_HDR) {
		printk(KERN_ERR "multiboot2: total_size %zu is smaller than its header\n", limit);
		return -EINVAL;
	}
	if (limit > avail) {
		printk(KERN_ERR "multiboot2: total_size %zu is larger than the %zu bytes readable; reading those\n",
		       limit, avail);
		limit = avail;
		err = -EINVAL;
	}
	bi->info_size = (u32)limit;

	size_t off = TAG_HDR;
	for (;;) {
		if (limit - off < TAG_HDR) {
			printk(KERN_ERR "multiboot2: no end tag within %zu bytes\n", limit);
			return -EINVAL;
		}
		const u8 *t = base + off;
		u32 type = rd32(t), size = rd32(t + 4);

		if (size < TAG_HDR || size > limit - off) {
			printk(KERN_ERR "multiboot2: tag type %u (%s) at offset %zu: size %u %s; stopping\n",
			       type, mb2_tag_name(type), off, size,
			       size < TAG_HDR ? "is smaller than a tag header"
					      : "runs past the end of the information");
			return -EINVAL;
		}
		if (type == MB2_TAG_END) {
			if (size != TAG_HDR) {
				printk(KERN_ERR "multiboot2: end tag at offset %zu has size %u, not 8\n",
				       off, size);
				err = -EINVAL;
			}
			return err;
		}
		if (type < ARRAY_SIZE(tag_min_size) && size < tag_min_size[type]) {
			printk(KERN_ERR "multiboot2: tag type %u (%s) at offset %zu: size %u < %u; tag ignored\n",
			       type, mb2_tag_name(type), off, size, tag_min_size[type]);
			err = -EINVAL;
		} else if (parse_tag(bi, type, t, size, off)) {
			err = -EINVAL;
		} else if (type < 32) {
			bi->tags_seen |= 1u << type;
		}

		/* The next tag starts 8-byte aligned; size <= limit - off, so
		 * this cannot wrap. */
		off = ALIGN_UP(off + size, (size_t)8);
		if (off > limit) {
			printk(KERN_ERR "multiboot2: no end tag within %zu bytes\n", limit);
			return -EINVAL;
		}
	}
}
