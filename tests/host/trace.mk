# tests/host/trace.mk: tools/trace.py (trace dumps to Chrome JSON and
# ftrace text) on real dumps in tests/host/trace-fixtures and on bad
# input (tests/host/test_trace.py); included by tests/host/Makefile.
HOST_TESTS += $(BUILD)/test_trace

$(BUILD)/test_trace: test_trace.py trace.mk ../../tools/trace.py ../../tools/report/trace_events.py $(wildcard trace-fixtures/*)
	@mkdir -p $(BUILD)
	@printf '#!/bin/sh\nexec python3 %s "$$@"\n' "$(abspath test_trace.py)" > $@
	@chmod +x $@
