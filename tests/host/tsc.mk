# tests/host/tsc.mk: which TSC rate the boot believes (arch/x86_64/
# tsc_pick.c, tests/host/test_tsc.c); included by tests/host/Makefile.
HOST_TESTS += $(BUILD)/test_tsc

$(BUILD)/test_tsc: test_tsc.c ktest.h $(ROOT)/arch/x86_64/tsc_pick.c $(ROOT)/arch/x86_64/tsc.h
	@mkdir -p $(BUILD)
	$(CC) $(HOST_CFLAGS) -I$(ROOT) -o $@ test_tsc.c $(ROOT)/arch/x86_64/tsc_pick.c
