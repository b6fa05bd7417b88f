# tests/host/runner.mk: the self-tests of the test judge (tests/runner.py
# and its modules) and of the report tool (tools/report.py), included by
# tests/host/Makefile.
# They are Python (standard library only): the "program" added to
# HOST_TESTS is a small script that runs them with python3 -m unittest.
# `make -C tests/host runner-test` runs them alone.
RUNNER_ROOT ?= ../..
RUNNER_BUILD ?= build
RUNNER_PYTHON ?= python3
RUNNER_SRCS = $(wildcard $(RUNNER_ROOT)/tests/*.py) \
	$(RUNNER_ROOT)/tools/report.py $(wildcard $(RUNNER_ROOT)/tools/report/*.py) \
	$(RUNNER_ROOT)/tools/benchrows.py \
	$(RUNNER_ROOT)/tests/qemu-configs $(wildcard $(RUNNER_ROOT)/tests/runner-fixtures/*)

HOST_TESTS += $(RUNNER_BUILD)/runner_test

$(RUNNER_BUILD)/runner_test: $(RUNNER_SRCS) runner.mk
	@mkdir -p $(RUNNER_BUILD)
	@printf '#!/bin/sh\n# made by tests/host/runner.mk\ncd "%s" && exec %s -m unittest tests/runner_test.py tests/report_test.py\n' \
		"$(abspath $(RUNNER_ROOT))" "$(RUNNER_PYTHON)" > $@
	@chmod +x $@

.PHONY: runner-test
runner-test: $(RUNNER_BUILD)/runner_test
	$(RUNNER_BUILD)/runner_test

# The generated blocks of tests/qemu-configs and tests/verify-configs
# (tools/scenarios.py) must match tests/torture-scenarios.
HOST_TESTS += $(RUNNER_BUILD)/scenarios_check
$(RUNNER_BUILD)/scenarios_check: $(RUNNER_ROOT)/tools/scenarios.py runner.mk
	@mkdir -p $(RUNNER_BUILD)
	@printf '#!/bin/sh\n# made by tests/host/runner.mk\ncd "%s" && exec %s tools/scenarios.py --check\n' \
		"$(abspath $(RUNNER_ROOT))" "$(RUNNER_PYTHON)" > $@
	@chmod +x $@
