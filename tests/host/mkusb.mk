# tests/host/mkusb.mk: tools/mkusb's safety checks (tests/host/
# test_mkusb.py, on a fake sysfs/procfs/dev tree), included by
# tests/host/Makefile.  The "program" is a wrapper that runs the script.
HOST_TESTS += $(BUILD)/test_mkusb

$(BUILD)/test_mkusb: test_mkusb.py $(ROOT)/tools/mkusb
	@mkdir -p $(BUILD)
	@printf '#!/bin/sh\nexec python3 %s "$$@"\n' "$(abspath test_mkusb.py)" > $@
	@chmod +x $@
