/* tests/host/test_multiboot2.c: host tests of the multiboot2 parser
 * (kernel/multiboot2.c), built with ASan and UBSan.  Every info is built
 * by hand and copied into a heap block of exactly the bytes the parser
 * may read, so a read past them is an ASan error, not a silent pass. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernel/multiboot2.h"
#include "kernel/printk.h"
#include "ktest.h"
#include "printk_log.h"	/* the parser's printk: tests check what it said */

/* An info under construction. */
struct mb {
	_Alignas(8) unsigned char b[16384];
	size_t len;
};

static void put32(struct mb *m, size_t off, uint32_t v) { memcpy(m->b + off, &v, 4); }

static void mb_init(struct mb *m)
{
	memset(m, 0, sizeof(*m));
	m->len = 8;
}

/* Appends a tag with a payload; returns its offset.  `size` 0: the honest
 * size, else the size written in the header (the lie under test). */
static size_t mb_tag_sized(struct mb *m, uint32_t type, const void *pl, size_t plen, uint32_t size)
{
	size_t off = m->len;
	put32(m, off, type);
	put32(m, off + 4, size ? size : (uint32_t)(8 + plen));
	if (plen)
		memcpy(m->b + off + 8, pl, plen);
	m->len = (off + 8 + plen + 7) & ~(size_t)7;
	return off;
}

static size_t mb_tag(struct mb *m, uint32_t type, const void *pl, size_t plen)
{
	return mb_tag_sized(m, type, pl, plen, 0);
}

static void mb_end(struct mb *m)
{
	mb_tag(m, MB2_TAG_END, NULL, 0);
	put32(m, 0, (uint32_t)m->len);
}

/* A memory map tag of n entries of entry_size bytes (>= 24 written). */
static size_t mb_mmap(struct mb *m, uint32_t entry_size, uint32_t n)
{
	unsigned char pl[8192] = { 0 };
	size_t plen = 8 + (size_t)entry_size * n;
	memcpy(pl, &entry_size, 4);
	for (uint32_t i = 0; i < n && entry_size >= 24; i++) {
		uint64_t addr = 0x100000ull * (i + 1), len = 0x1000ull * (i + 1);
		uint32_t type = i % 2 ? MB2_MEMORY_RESERVED : MB2_MEMORY_AVAILABLE;
		memcpy(pl + 8 + i * entry_size, &addr, 8);
		memcpy(pl + 8 + i * entry_size + 8, &len, 8);
		memcpy(pl + 8 + i * entry_size + 16, &type, 4);
	}
	return mb_tag(m, MB2_TAG_MMAP, pl, plen);
}

static struct boot_info bi;

/* Parses m with exactly `avail` readable bytes (all of it if avail is 0). */
static int parse_avail(const struct mb *m, size_t avail)
{
	void *copy = malloc(avail ? avail : 1);
	memcpy(copy, m->b, avail);
	log_clear();
	int r = mb2_parse(copy, avail, &bi);
	free(copy);
	return r;
}

static int parse(const struct mb *m) { return parse_avail(m, m->len); }

static void build_full(struct mb *m)
{
	unsigned char rsdp1[20], rsdp2[36], fb[24] = { 0 };
	uint64_t efi64 = 0x7f000000ull;
	uint32_t base = 0x200000, elf[3] = { 12, 64, 11 };
	memset(rsdp1, 'A', sizeof(rsdp1));
	memset(rsdp2, 'B', sizeof(rsdp2));
	uint64_t fbaddr = 0xfd000000ull;
	uint32_t pitch = 4096, w = 1024, h = 768;
	memcpy(fb, &fbaddr, 8);
	memcpy(fb + 8, &pitch, 4);
	memcpy(fb + 12, &w, 4);
	memcpy(fb + 16, &h, 4);
	fb[20] = 32;
	fb[21] = MB2_FRAMEBUFFER_RGB;

	mb_init(m);
	mb_tag(m, MB2_TAG_CMDLINE, "test=all hz=100", 16);
	mb_tag(m, MB2_TAG_LOADER_NAME, "GRUB 2.06", 10);
	mb_mmap(m, 24, 3);
	mb_tag(m, MB2_TAG_FRAMEBUFFER, fb, sizeof(fb));
	mb_tag(m, MB2_TAG_ELF_SECTIONS, elf, sizeof(elf));
	mb_tag(m, MB2_TAG_ACPI_OLD, rsdp1, sizeof(rsdp1));
	mb_tag(m, MB2_TAG_ACPI_NEW, rsdp2, sizeof(rsdp2));
	mb_tag(m, MB2_TAG_EFI64, &efi64, 8);
	mb_tag(m, MB2_TAG_EFI_BS, NULL, 0);
	mb_tag(m, MB2_TAG_LOAD_BASE_ADDR, &base, 4);
	mb_tag(m, 99, "future tag", 10);
	mb_end(m);
}

static void valid_info(void)
{
	struct mb m;
	build_full(&m);
	EXPECT_EQ(parse(&m), 0);
	EXPECT_EQ(loglen, 0);
	EXPECT_STREQ(bi.cmdline, "test=all hz=100");
	EXPECT_STREQ(bi.loader_name, "GRUB 2.06");
	ASSERT(bi.mmap_count == 3);
	EXPECT_EQ(bi.mmap[0].addr, 0x100000);
	EXPECT_EQ(bi.mmap[0].len, 0x1000);
	EXPECT_EQ(bi.mmap[0].type, MB2_MEMORY_AVAILABLE);
	EXPECT_EQ(bi.mmap[1].type, MB2_MEMORY_RESERVED);
	EXPECT_EQ(bi.mmap[2].addr, 0x300000);
	EXPECT_EQ(bi.mmap_dropped, 0);
	EXPECT(bi.has_framebuffer);
	EXPECT_EQ(bi.fb.addr, 0xfd000000ull);
	EXPECT_EQ(bi.fb.pitch, 4096);
	EXPECT_EQ(bi.fb.width, 1024);
	EXPECT_EQ(bi.fb.height, 768);
	EXPECT_EQ(bi.fb.bpp, 32);
	EXPECT_EQ(bi.fb.type, MB2_FRAMEBUFFER_RGB);
	EXPECT(bi.has_elf_sections);
	EXPECT_EQ(bi.elf_num, 12);
	EXPECT_EQ(bi.elf_entsize, 64);
	EXPECT_EQ(bi.elf_shndx, 11);
	EXPECT_EQ(bi.rsdp_old_len, 20);
	EXPECT_EQ(bi.rsdp_old[19], 'A');
	EXPECT_EQ(bi.rsdp_new_len, 36);
	EXPECT_EQ(bi.rsdp_new[35], 'B');
	EXPECT(bi.has_efi64);
	EXPECT(!bi.has_efi32);
	EXPECT_EQ(bi.efi64_systab, 0x7f000000ull);
	EXPECT(bi.efi_bs_not_terminated);
	EXPECT(bi.has_load_base);
	EXPECT_EQ(bi.load_base_addr, 0x200000);
	EXPECT_EQ(bi.info_size, m.len);
	EXPECT(bi.tags_seen & (1u << MB2_TAG_MMAP));
	EXPECT(!(bi.tags_seen & (1u << MB2_TAG_MODULE)));
}

static void empty_info(void)
{
	struct mb m;
	mb_init(&m);
	mb_end(&m);
	EXPECT_EQ(parse(&m), 0);
	EXPECT_STREQ(bi.cmdline, "");
	EXPECT_STREQ(bi.loader_name, "");
	EXPECT_EQ(bi.mmap_count, 0);
	EXPECT_EQ(bi.rsdp_new_len, 0);
}

static void zero_size_tag(void)
{
	struct mb m;
	mb_init(&m);
	mb_mmap(&m, 24, 2);
	size_t off = mb_tag_sized(&m, MB2_TAG_CMDLINE, "x", 2, 0);
	put32(&m, off + 4, 0);
	mb_end(&m);
	EXPECT_EQ(parse(&m), -EINVAL);
	EXPECT(log_has("tag type 1 (cmdline) at offset 72: size 0"));
	EXPECT_EQ(bi.mmap_count, 2);	/* salvaged */
}

static void tag_past_end(void)
{
	struct mb m;
	mb_init(&m);
	mb_mmap(&m, 24, 2);
	mb_tag_sized(&m, MB2_TAG_LOADER_NAME, "GRUB", 5, 4096);
	mb_end(&m);
	EXPECT_EQ(parse(&m), -EINVAL);
	EXPECT(log_has("tag type 2 (boot loader name) at offset 72: size 4096 runs past"));
	EXPECT_EQ(bi.mmap_count, 2);
	EXPECT_STREQ(bi.loader_name, "");

	/* A size that would wrap an unsigned sum. */
	mb_init(&m);
	mb_tag_sized(&m, MB2_TAG_MMAP, "\x18\0\0\0\0\0\0\0", 8, 0xfffffff8u);
	mb_end(&m);
	EXPECT_EQ(parse(&m), -EINVAL);
	EXPECT(log_has("runs past"));
	EXPECT_EQ(bi.mmap_count, 0);
}

static void total_size_beyond_avail(void)
{
	struct mb m;
	mb_init(&m);
	mb_mmap(&m, 24, 2);
	size_t cut = m.len;
	mb_tag(&m, MB2_TAG_CMDLINE, "never read", 11);
	mb_end(&m);
	EXPECT_EQ(parse_avail(&m, cut), -EINVAL);
	EXPECT(log_has("total_size"));
	EXPECT(log_has("larger than"));
	EXPECT_EQ(bi.mmap_count, 2);
	EXPECT_STREQ(bi.cmdline, "");
	EXPECT_EQ(bi.info_size, cut);

	/* total_size below its own header, and no room for the header. */
	put32(&m, 0, 4);
	EXPECT_EQ(parse(&m), -EINVAL);
	EXPECT(log_has("smaller than its header"));
	EXPECT_EQ(parse_avail(&m, 4), -EINVAL);
	log_clear();
	EXPECT_EQ(mb2_parse(NULL, 100, &bi), -EINVAL);
	EXPECT(log_has("no boot information"));
}

static void misaligned(void)
{
	struct mb m;
	build_full(&m);
	unsigned char *copy = malloc(m.len + 4);
	memcpy(copy + 4, m.b, m.len);
	log_clear();
	EXPECT_EQ(mb2_parse(copy + 4, m.len, &bi), -EINVAL);
	EXPECT(log_has("not 8-byte aligned"));
	EXPECT_EQ(bi.mmap_count, 0);
	free(copy);

	/* A tag's size need not be a multiple of 8: the next starts aligned. */
	mb_init(&m);
	mb_tag(&m, MB2_TAG_CMDLINE, "abc", 4);		/* size 12, padded to 16 */
	mb_tag(&m, MB2_TAG_LOADER_NAME, "L", 2);
	mb_end(&m);
	EXPECT_EQ(parse(&m), 0);
	EXPECT_STREQ(bi.cmdline, "abc");
	EXPECT_STREQ(bi.loader_name, "L");
}

static void missing_end_tag(void)
{
	struct mb m;
	mb_init(&m);
	mb_mmap(&m, 24, 1);
	put32(&m, 0, (uint32_t)m.len);
	EXPECT_EQ(parse(&m), -EINVAL);
	EXPECT(log_has("no end tag"));
	EXPECT_EQ(bi.mmap_count, 1);

	/* The last tag's padding runs past total_size. */
	mb_init(&m);
	mb_tag(&m, MB2_TAG_CMDLINE, "abc", 4);
	put32(&m, 0, 8 + 12);
	EXPECT_EQ(parse_avail(&m, 20), -EINVAL);
	EXPECT(log_has("no end tag"));
	EXPECT_STREQ(bi.cmdline, "abc");

	/* An end tag with a wrong size is still the end, but reported. */
	mb_init(&m);
	mb_tag(&m, MB2_TAG_END, "12345678", 8);
	put32(&m, 0, (uint32_t)m.len);
	EXPECT_EQ(parse(&m), -EINVAL);
	EXPECT(log_has("end tag at offset 8 has size 16"));
}

static void mmap_bad_entry_size(void)
{
	struct mb m;
	uint32_t sizes[] = { 0, 16, 23 };
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		mb_init(&m);
		unsigned char pl[8 + 48] = { 0 };
		memcpy(pl, &sizes[i], 4);
		mb_tag(&m, MB2_TAG_MMAP, pl, sizeof(pl));
		mb_tag(&m, MB2_TAG_CMDLINE, "after", 6);
		mb_end(&m);
		EXPECT_EQ(parse(&m), -EINVAL);
		EXPECT(log_has("entry_size"));
		EXPECT_EQ(bi.mmap_count, 0);
		EXPECT_STREQ(bi.cmdline, "after");	/* the walk went on */
	}
}

static void mmap_larger_entries(void)
{
	/* A future entry_size is honoured: entries are found at its stride. */
	struct mb m;
	mb_init(&m);
	mb_mmap(&m, 40, 4);
	mb_end(&m);
	EXPECT_EQ(parse(&m), 0);
	ASSERT(bi.mmap_count == 4);
	EXPECT_EQ(bi.mmap[3].addr, 0x400000);
	EXPECT_EQ(bi.mmap[3].len, 0x4000);
	EXPECT_EQ(bi.mmap[3].type, MB2_MEMORY_RESERVED);

	/* An odd entry_size leaves the fields unaligned: read by copy (UBSan
	 * would report a misaligned load). */
	mb_init(&m);
	mb_mmap(&m, 28, 3);
	mb_end(&m);
	EXPECT_EQ(parse(&m), 0);
	ASSERT(bi.mmap_count == 3);
	EXPECT_EQ(bi.mmap[1].addr, 0x200000);
	EXPECT_EQ(bi.mmap[2].len, 0x3000);
}

static void mmap_huge_counts(void)
{
	struct mb m;
	mb_init(&m);
	mb_mmap(&m, 24, 200);
	mb_mmap(&m, 24, 5);
	mb_end(&m);
	EXPECT_EQ(parse(&m), 0);
	EXPECT_EQ(bi.mmap_count, MB2_MMAP_MAX);
	EXPECT_EQ(bi.mmap_dropped, 200 - MB2_MMAP_MAX + 5);
	EXPECT(log_has("dropped"));
	EXPECT_EQ(bi.mmap[MB2_MMAP_MAX - 1].addr, 0x100000ull * MB2_MMAP_MAX);

	/* Stray bytes after the last whole entry are reported, not read. */
	mb_init(&m);
	unsigned char pl[8 + 24 + 10] = { 24 };
	mb_tag(&m, MB2_TAG_MMAP, pl, sizeof(pl));
	mb_end(&m);
	EXPECT_EQ(parse(&m), 0);
	EXPECT_EQ(bi.mmap_count, 1);
	EXPECT(log_has("10 stray bytes"));
}

static void cmdline_without_nul(void)
{
	struct mb m;
	mb_init(&m);
	mb_tag(&m, MB2_TAG_CMDLINE, "abc", 3);	/* no NUL inside the tag */
	mb_end(&m);
	EXPECT_EQ(parse(&m), 0);
	EXPECT_STREQ(bi.cmdline, "abc");
	EXPECT(log_has("not NUL-terminated"));

	/* Longer than the copy: cut, still terminated. */
	static char longline[3000];
	memset(longline, 'x', sizeof(longline) - 1);
	mb_init(&m);
	mb_tag(&m, MB2_TAG_CMDLINE, longline, sizeof(longline));
	mb_tag(&m, MB2_TAG_LOADER_NAME, longline, 200);
	mb_end(&m);
	EXPECT_EQ(parse(&m), 0);
	EXPECT_EQ(strlen(bi.cmdline), MB2_CMDLINE_MAX - 1);
	EXPECT_EQ(strlen(bi.loader_name), MB2_LOADER_NAME_MAX - 1);
	EXPECT(log_has("keeping 1023"));
}

static void tag_below_min_size(void)
{
	struct mb m;
	unsigned char rsdp[20] = { 0 };
	mb_init(&m);
	mb_tag(&m, MB2_TAG_ACPI_NEW, rsdp, sizeof(rsdp));	/* needs 36 */
	mb_tag(&m, MB2_TAG_FRAMEBUFFER, rsdp, 8);
	mb_tag(&m, MB2_TAG_MMAP, rsdp, 4);
	mb_tag(&m, MB2_TAG_ACPI_OLD, rsdp, sizeof(rsdp));
	mb_end(&m);
	EXPECT_EQ(parse(&m), -EINVAL);
	EXPECT(log_has("tag type 15 (ACPI new RSDP) at offset 8: size 28 < 44"));
	EXPECT(log_has("tag type 8 (framebuffer)"));
	EXPECT(log_has("tag type 6 (memory map)"));
	EXPECT_EQ(bi.rsdp_new_len, 0);
	EXPECT(!bi.has_framebuffer);
	EXPECT_EQ(bi.rsdp_old_len, 20);		/* the walk went on */
	EXPECT(!(bi.tags_seen & (1u << MB2_TAG_ACPI_NEW)));
}

static void rsdp_overlong(void)
{
	struct mb m;
	unsigned char big[100];
	memset(big, 'R', sizeof(big));
	mb_init(&m);
	mb_tag(&m, MB2_TAG_ACPI_NEW, big, sizeof(big));
	mb_end(&m);
	EXPECT_EQ(parse(&m), 0);
	EXPECT_EQ(bi.rsdp_new_len, MB2_RSDP_MAX);
	EXPECT(log_has("keeping 64"));
}

/* Every prefix of a valid info, and every total_size, parse without a
 * read past the bytes given (ASan is the judge) and never claim success
 * for a cut info. */
static void every_truncation(void)
{
	struct mb m;
	build_full(&m);
	for (size_t avail = 0; avail < m.len; avail++)
		EXPECT_EQ(parse_avail(&m, avail), -EINVAL);
	for (uint32_t total = 0; total < m.len + 64; total++) {
		struct mb c = m;
		put32(&c, 0, total);
		int r = parse(&c);
		if (total == m.len)
			EXPECT_EQ(r, 0);
		else if (total < m.len)
			EXPECT_EQ(r, -EINVAL);
	}
}

/* Deterministic random corruption of a valid info: must never crash. */
static void random_corruption(void)
{
	struct mb m;
	uint64_t x = 0x9e3779b97f4a7c15ull;
	build_full(&m);
	for (int round = 0; round < 20000; round++) {
		struct mb c = m;
		int flips = 1 + round % 8;
		for (int i = 0; i < flips; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			c.b[x % m.len] = (unsigned char)(x >> 32);
		}
		parse(&c);
		EXPECT(memchr(bi.cmdline, 0, sizeof(bi.cmdline)) != NULL);
		EXPECT(bi.mmap_count <= MB2_MMAP_MAX);
		EXPECT(bi.info_size <= m.len);
	}
}

/* `test_multiboot2 --seed FILE` writes the full valid info to FILE: the
 * starting point of the fuzzer's corpus (make fuzz). */
static int write_seed(const char *path)
{
	struct mb m;
	build_full(&m);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(m.b, 1, m.len, f) != m.len || fclose(f)) {
		perror(path);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--seed"))
		return write_seed(argv[2]);
	RUN(valid_info);
	RUN(empty_info);
	RUN(zero_size_tag);
	RUN(tag_past_end);
	RUN(total_size_beyond_avail);
	RUN(misaligned);
	RUN(missing_end_tag);
	RUN(mmap_bad_entry_size);
	RUN(mmap_larger_entries);
	RUN(mmap_huge_counts);
	RUN(cmdline_without_nul);
	RUN(tag_below_min_size);
	RUN(rsdp_overlong);
	RUN(every_truncation);
	RUN(random_corruption);
	return ktest_summary();
}
