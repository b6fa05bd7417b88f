# tests/host/apicmode.mk: the xAPIC/x2APIC mode choice
# (arch/x86_64/apic_mode.c, tests/host/test_apicmode.c), fed DMAR tables
# through the ACPI parser; included by tests/host/Makefile.
HOST_TESTS += $(BUILD)/test_apicmode

$(BUILD)/test_apicmode: test_apicmode.c ktest.h $(ROOT)/arch/x86_64/apic_mode.c $(ROOT)/arch/x86_64/lapic.h \
		$(ROOT)/arch/x86_64/acpi.c $(ROOT)/arch/x86_64/acpi.h
	@mkdir -p $(BUILD)
	$(CC) $(HOST_CFLAGS) -I$(ROOT)/tests/host/acpi_shim -I$(ROOT) -o $@ test_apicmode.c \
		$(ROOT)/arch/x86_64/apic_mode.c $(ROOT)/arch/x86_64/acpi.c
