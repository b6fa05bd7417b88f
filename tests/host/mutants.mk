# tests/host/mutants.mk: every tests/mutants patch still applies to the
# tree and names tests that exist (tools/mutants.py --check, seconds), so
# that a change to the code a mutant mutates cannot silently drop it from
# the mutation score; included by tests/host/Makefile.
HOST_TESTS += $(BUILD)/test_mutants_apply

$(BUILD)/test_mutants_apply: mutants.mk ../../tools/mutants.py
	@mkdir -p $(BUILD)
	@printf '#!/bin/sh\nexec python3 %s --check "$$@"\n' "$(abspath ../../tools/mutants.py)" > $@
	@chmod +x $@
