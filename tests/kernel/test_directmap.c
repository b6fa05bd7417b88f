/* tests/kernel/test_directmap.c: KTAP suite `directmap`: the direct map
 * covers the memory map's RAM and ACPI ranges and nothing else.  Reserved
 * ranges and holes (MMIO, firmware, SMM) must not be mapped cacheable,
 * and no large page may reach past a RAM/ACPI range into one: the SDM
 * leaves a large page over mixed memory types undefined (11.11.9). */
#include "kernel/ktap.h"
#include "kernel/multiboot2.h"
#include "asm/page.h"
#include "arch/x86_64/paging.h"

extern struct boot_info boot_info;

static bool is_ram(u32 type)
{
	return type == MB2_MEMORY_AVAILABLE || type == MB2_MEMORY_ACPI_RECLAIMABLE ||
	       type == MB2_MEMORY_NVS;
}

/* Is [p, p + len) inside the union of the RAM/ACPI entries? */
static bool all_ram(u64 p, u64 len)
{
	u64 end = p + len;

	while (p < end) {
		bool moved = false;

		for (size_t i = 0; i < boot_info.mmap_count; i++) {
			const struct mb2_mmap_entry *e = &boot_info.mmap[i];

			if (is_ram(e->type) && e->addr <= p && p < e->addr + e->len) {
				p = e->addr + e->len;
				moved = true;
			}
		}
		if (!moved)
			return false;
	}
	return true;
}

static bool any_ram(u64 p, u64 len)
{
	for (size_t i = 0; i < boot_info.mmap_count; i++) {
		const struct mb2_mmap_entry *e = &boot_info.mmap[i];

		if (is_ram(e->type) && e->addr < p + len && p < e->addr + e->len)
			return true;
	}
	return false;
}

static u64 level_size(int level)
{
	return level == 3 ? 1ul << 30 : level == 2 ? 1ul << 21 : PAGE_SIZE;
}

/* Pages inside reserved entries (not shared with a RAM entry) and in the
 * holes below 4 GiB are not in the direct map. */
static void directmap_skips_reserved_and_holes(void)
{
	int checked = 0, mapped = 0;

	for (u64 p = 0; p < (4ul << 30); p += 1ul << 21) {
		/* every 2 MiB below 4 GiB, and the last page of each */
		u64 probe[2] = { p, p + (1ul << 21) - PAGE_SIZE };

		for (int k = 0; k < 2; k++) {
			if (any_ram(probe[k], PAGE_SIZE))
				continue;
			checked++;
			if (paging_lookup((u64)phys_to_virt(probe[k]), NULL)) {
				if (mapped++ < 5)
					ktap_fail("phys 0x%lx is in no RAM/ACPI range but is direct-mapped",
						  (unsigned long)probe[k]);
			}
		}
	}
	ktap_log("%d pages outside RAM/ACPI below 4 GiB checked, %d mapped", checked, mapped);
	KTAP_EXPECT(checked > 0);
	KTAP_EXPECT_EQ(mapped, 0);
}

/* Every RAM/ACPI page is mapped, by a page that lies wholly in RAM/ACPI
 * ranges: checked at each entry's first and last page, where a large page
 * would spill over. */
static void directmap_ram_mapped_split_at_edges(void)
{
	int bad = 0, n = 0;

	for (size_t i = 0; i < boot_info.mmap_count; i++) {
		const struct mb2_mmap_entry *e = &boot_info.mmap[i];
		u64 first = ALIGN_UP(e->addr, PAGE_SIZE);
		u64 last = ALIGN_DOWN(e->addr + e->len, PAGE_SIZE) - PAGE_SIZE;

		if (!is_ram(e->type) || first > last || last >= PHYS_ADDR_MAX)
			continue;
		for (u64 p = first;; p = last) {
			int level = 0;
			u64 pte = paging_lookup((u64)phys_to_virt(p), &level);
			u64 size = level_size(level), base = ALIGN_DOWN(p, size);

			n++;
			if (!pte) {
				ktap_fail("RAM page 0x%lx is not direct-mapped", (unsigned long)p);
				bad++;
			} else if (!all_ram(base, size)) {
				ktap_fail("the %lu KiB page at 0x%lx reaches past RAM/ACPI ranges",
					  (unsigned long)(size >> 10), (unsigned long)base);
				bad++;
			}
			if (p == last)
				break;
		}
	}
	ktap_log("%d edge pages of RAM/ACPI ranges checked", n);
	KTAP_EXPECT_EQ(bad, 0);
}

KTAP_SUITE(directmap,
	   KTAP_CASE(directmap_skips_reserved_and_holes),
	   KTAP_CASE(directmap_ram_mapped_split_at_edges));
