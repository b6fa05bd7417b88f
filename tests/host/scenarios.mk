# tests/host/scenarios.mk: host checks of the paper scenarios
# (tests/scenarios), included by tests/host/Makefile.
#   scenarios_qq1   the article's Quick Quiz 1 (docs/article.md): the
#                   read-side benchmark's loops, compiled with the kernel's
#                   own flags, still contain their loop and their primitive
#                   (tests/host/scenarios_qq1.py reads the disassembly; it
#                   builds into build/qq1 at the top).
# `make -C tests/host scenarios-test` runs them alone.
SCEN_ROOT ?= ../..
SCEN_PYTHON ?= python3

HOST_TESTS += $(BUILD)/scenarios_qq1

$(BUILD)/scenarios_qq1: scenarios_qq1.py scenarios.mk
	@mkdir -p $(BUILD)
	@printf '#!/bin/sh\n# made by tests/host/scenarios.mk\nexec %s "%s" "%s"\n' \
		"$(SCEN_PYTHON)" "$(abspath scenarios_qq1.py)" "$(abspath $(SCEN_ROOT))" > $@
	@chmod +x $@

.PHONY: scenarios-test
scenarios-test: $(BUILD)/scenarios_qq1
	$(BUILD)/scenarios_qq1
