# tests/host/apicmode.mk: the xAPIC/x2APIC mode choice
# (arch/x86_64/apic_mode.c, tests/host/test_apicmode.c), included by
# tests/host/Makefile.
HOST_TESTS += $(BUILD)/test_apicmode

$(BUILD)/test_apicmode: test_apicmode.c $(ROOT)/arch/x86_64/apic_mode.c $(ROOT)/arch/x86_64/lapic.h
	@mkdir -p $(BUILD)
	$(CC) $(HOST_CFLAGS) -I$(ROOT) -o $@ test_apicmode.c $(ROOT)/arch/x86_64/apic_mode.c
