# tests/host/errata.mk: CPU errata keyed on identity and microcode
# (arch/x86_64/errata.c, tests/host/test_errata.c); included by
# tests/host/Makefile.
HOST_TESTS += $(BUILD)/test_errata

$(BUILD)/test_errata: test_errata.c ktest.h $(ROOT)/arch/x86_64/errata.c $(ROOT)/arch/x86_64/errata.h \
		$(ROOT)/arch/x86_64/include/asm/cpufeature.h
	@mkdir -p $(BUILD)
	$(CC) $(HOST_CFLAGS) -I$(ROOT) -I$(ROOT)/arch/x86_64/include -o $@ test_errata.c $(ROOT)/arch/x86_64/errata.c
