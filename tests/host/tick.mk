# tests/host/tick.mk: when a CPU's tick must be restarted (arch/x86_64/
# tick_check.c, tests/host/test_tick.c); included by tests/host/Makefile.
HOST_TESTS += $(BUILD)/test_tick

$(BUILD)/test_tick: test_tick.c ktest.h $(ROOT)/arch/x86_64/tick_check.c $(ROOT)/arch/x86_64/timer.h
	@mkdir -p $(BUILD)
	$(CC) $(HOST_CFLAGS) -I$(ROOT) -I$(ROOT)/arch/x86_64/include -o $@ test_tick.c $(ROOT)/arch/x86_64/tick_check.c
