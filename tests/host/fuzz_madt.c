/* tests/host/fuzz_madt.c: libFuzzer target over the MADT parser
 * (arch/x86_64/acpi.c).  The input is a whole table; the first input
 * byte chooses whether the header is patched to be well-formed (right
 * signature, length and checksum) so the fuzzer reaches the entry walk
 * instead of dying at the checksum.  Run: make -C tests/host fuzz */
#include <stdlib.h>
#include <string.h>
#include "arch/x86_64/acpi.h"

int acpi_shim_quiet = 1;

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static struct acpi_info info;
	u8 *t;

	if (size < 1)
		return 0;
	bool fixup = data[0] & 1;
	data++, size--;
	t = malloc(size ? size : 1);	/* exact size: ASan sees any overrun */
	memcpy(t, data, size);
	if (fixup && size >= 36) {
		u32 len = (u32)size;

		memcpy(t, "APIC", 4);
		memcpy(t + 4, &len, 4);
		t[9] = 0;
		t[9] = (u8)(0x100 - acpi_checksum(t, size));
	}
	memset(&info, 0, sizeof(info));
	acpi_parse_madt(t, size, &info);
	if (info.nr_cpus > ACPI_MAX_CPUS || info.nr_ioapics > ACPI_MAX_IOAPICS ||
	    info.nr_isos > ACPI_MAX_ISOS || info.nr_lapic_nmis > ACPI_MAX_LNMIS)
		abort();
	free(t);
	return 0;
}
