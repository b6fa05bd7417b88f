# tests/host/grubcfg.mk: boot/grub.cfg's menu against the kernel's
# options (tests/host/test_grubcfg.py), included by tests/host/Makefile.
HOST_TESTS += $(BUILD)/test_grubcfg

$(BUILD)/test_grubcfg: test_grubcfg.py $(ROOT)/boot/grub.cfg
	@mkdir -p $(BUILD)
	@printf '#!/bin/sh\nexec python3 %s "$$@"\n' "$(abspath test_grubcfg.py)" > $@
	@chmod +x $@
