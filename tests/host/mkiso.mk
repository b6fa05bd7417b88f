# tests/host/mkiso.mk: the hybrid boot image of tools/mkiso.sh, checked
# with xorriso's system-area report (tests/host/test_mkiso.py); included
# by tests/host/Makefile.  The "program" is a wrapper that runs the script.
HOST_TESTS += $(BUILD)/test_mkiso

$(BUILD)/test_mkiso: test_mkiso.py $(ROOT)/tools/mkiso.sh
	@mkdir -p $(BUILD)
	@printf '#!/bin/sh\nexec python3 %s "$$@"\n' "$(abspath test_mkiso.py)" > $@
	@chmod +x $@
