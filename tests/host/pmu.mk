# tests/host/pmu.mk: the PMU counter's MSR and period (arch/x86_64/
# pmu_period.c, tests/host/test_pmu.c); included by tests/host/Makefile.
HOST_TESTS += $(BUILD)/test_pmu

$(BUILD)/test_pmu: test_pmu.c ktest.h $(ROOT)/arch/x86_64/pmu_period.c $(ROOT)/arch/x86_64/pmu.h
	@mkdir -p $(BUILD)
	$(CC) $(HOST_CFLAGS) -I$(ROOT) -I$(ROOT)/arch/x86_64/include -o $@ test_pmu.c $(ROOT)/arch/x86_64/pmu_period.c
