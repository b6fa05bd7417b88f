# tests/host/benchrows.mk: every benchmark row goes through printk_bench(),
# which marks it with the TSC skew (tests/host/test_benchrows.py);
# included by tests/host/Makefile.
HOST_TESTS += $(BUILD)/test_benchrows

$(BUILD)/test_benchrows: test_benchrows.py
	@mkdir -p $(BUILD)
	@printf '#!/bin/sh\nexec python3 %s "$$@"\n' "$(abspath test_benchrows.py)" > $@
	@chmod +x $@
