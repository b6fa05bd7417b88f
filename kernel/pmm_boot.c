/* kernel/pmm_boot.c: pmm_init(), step 1 of the page allocator (pmm.h):
 * from the multiboot2 memory map to the table of free ranges.  Kept apart
 * from pmm.c, which knows nothing of boot_info, so that the host tests
 * build the allocator alone.
 *
 * Usable entries are added first and everything else cut out after, so a
 * firmware-reserved entry wins over a "usable" one it overlaps whatever
 * the order of the map. */
#include "kernel/pmm.h"
#include "kernel/multiboot2.h"
#include "kernel/printk.h"
#include "asm/page.h"

extern char __kernel_phys_start[], __kernel_phys_end[];

#define LOW_MEMORY_END 0x100000ul

static const char *mmap_type_name(u32 type)
{
	switch (type) {
	case MB2_MEMORY_AVAILABLE: return "usable";
	case MB2_MEMORY_RESERVED: return "reserved";
	case MB2_MEMORY_ACPI_RECLAIMABLE: return "ACPI data";
	case MB2_MEMORY_NVS: return "ACPI NVS";
	case MB2_MEMORY_BADRAM: return "bad RAM";
	default: return "unknown (reserved)";
	}
}

void pmm_init(const struct boot_info *bi)
{
	size_t n = MIN(bi->mmap_count, (size_t)MB2_MMAP_MAX);

	if (n == 0)
		pr_err("pmm: the boot loader gave no memory map\n");
	if (bi->mmap_dropped)
		pr_warn("pmm: %zu memory map entries beyond the first %d ignored\n",
			bi->mmap_dropped, MB2_MMAP_MAX);
	for (size_t i = 0; i < n; i++) {
		const struct mb2_mmap_entry *e = &bi->mmap[i];

		pr_info("mem: [0x%016lx-0x%016lx] %s\n", (unsigned long)e->addr,
			(unsigned long)(e->addr + e->len - (e->len != 0)), mmap_type_name(e->type));
		/* The direct map covers RAM and the ACPI tables, never holes
		 * or reserved ranges (MMIO, SMM's TSEG): a cacheable mapping
		 * of those invites machine checks.  ioremap reaches the rest. */
		if (e->type == MB2_MEMORY_AVAILABLE || e->type == MB2_MEMORY_ACPI_RECLAIMABLE ||
		    e->type == MB2_MEMORY_NVS)
			pmm_note_physical(e->addr, e->len);
		if (e->type == MB2_MEMORY_AVAILABLE)
			pmm_add_range(e->addr, e->len);
	}
	for (size_t i = 0; i < n; i++)
		if (bi->mmap[i].type != MB2_MEMORY_AVAILABLE)
			pmm_reserve(bi->mmap[i].addr, bi->mmap[i].len);

	/* Real-mode memory: the BIOS data, EBDA, the AP trampoline. */
	pmm_reserve(0, LOW_MEMORY_END);
	pmm_reserve((u64)__kernel_phys_start,
		    (u64)__kernel_phys_end - (u64)__kernel_phys_start);
	if (bi->info_addr && bi->info_size)
		pmm_reserve(bi->info_addr, bi->info_size);
	pr_info("pmm: %lu MiB usable RAM in the memory map, up to 0x%lx\n",
		(unsigned long)(pmm_usable_bytes() >> 20), (unsigned long)pmm_usable_end());
}
