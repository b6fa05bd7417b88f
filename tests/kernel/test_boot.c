/* tests/kernel/test_boot.c: what the boot-input parsers (kernel/multiboot2.c,
 * kernel/cmdline.c) made of this boot, checked in the kernel itself.  The
 * host tests cover the corrupt inputs; these check that the real loader's
 * information came through (GRUB always gives a memory map, a loader
 * name, the command line and an RSDP on the machines QEMU emulates). */
#include "kernel/ktap.h"
#include "kernel/multiboot2.h"
#include "kernel/cmdline.h"
#include "kernel/string.h"

extern struct boot_info boot_info;

static void memory_map_present(void)
{
	const struct boot_info *bi = &boot_info;
	u64 usable = 0;

	KTAP_ASSERT(bi->mmap_count > 0);
	for (size_t i = 0; i < bi->mmap_count; i++)
		if (bi->mmap[i].type == MB2_MEMORY_AVAILABLE)
			usable += bi->mmap[i].len;
	KTAP_EXPECT(usable >= 16ull << 20);
	KTAP_EXPECT(bi->tags_seen & (1u << MB2_TAG_MMAP));
	ktap_log("%zu memory map entries, %llu MiB usable", bi->mmap_count,
		 (unsigned long long)(usable >> 20));
}

static void loader_and_cmdline(void)
{
	KTAP_EXPECT(boot_info.loader_name[0] != '\0');
	KTAP_EXPECT(boot_info.tags_seen & (1u << MB2_TAG_CMDLINE));
	KTAP_EXPECT(boot_info.info_size >= 16);
	KTAP_EXPECT(boot_info.info_addr != 0);
	ktap_log("loader '%s', info %u bytes at 0x%llx", boot_info.loader_name,
		 boot_info.info_size, (unsigned long long)boot_info.info_addr);
}

static void rsdp_present(void)
{
	KTAP_EXPECT(boot_info.rsdp_old_len >= 20 || boot_info.rsdp_new_len >= 36);
	if (boot_info.rsdp_new_len)
		KTAP_EXPECT(!memcmp(boot_info.rsdp_new, "RSD PTR ", 8));
	if (boot_info.rsdp_old_len)
		KTAP_EXPECT(!memcmp(boot_info.rsdp_old, "RSD PTR ", 8));
	ktap_log("RSDP tags: old %zu bytes, new %zu bytes", boot_info.rsdp_old_len,
		 boot_info.rsdp_new_len);
	if (boot_info.has_efi64)
		ktap_log("EFI64 system table at 0x%llx",
			 (unsigned long long)boot_info.efi64_systab);
}

/* The parser in the kernel build behaves as on the host. */
static int t_int = 3;
static unsigned int t_uint = 4;
static bool t_bool;
static char *t_str;

static void cmdline_in_kernel(void)
{
	const struct kernel_param table[] = {
		{ "t.int", KPARAM_int, &t_int, "test int" },
		{ "t.uint", KPARAM_uint, &t_uint, "test uint" },
		{ "t.bool", KPARAM_bool, &t_bool, "test bool" },
		{ "t.str", KPARAM_charp, &t_str, "test string" },
	};
	char line[] = "t.int=-5 t.uint=0x10 t.bool t.str=\"a b\" t.uint=-1 t.nope";

	KTAP_EXPECT_EQ(cmdline_parse(line, table, table + ARRAY_SIZE(table)), 2);
	KTAP_EXPECT_EQ(t_int, -5);
	KTAP_EXPECT_EQ(t_uint, 16);
	KTAP_EXPECT(t_bool);
	KTAP_ASSERT(t_str != NULL);
	KTAP_EXPECT(!strcmp(t_str, "a b"));
}

KTAP_SUITE(boot,
	   KTAP_CASE(memory_map_present),
	   KTAP_CASE(loader_and_cmdline),
	   KTAP_CASE(rsdp_present),
	   KTAP_CASE(cmdline_in_kernel));
