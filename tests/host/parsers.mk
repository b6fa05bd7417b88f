# tests/host/parsers.mk: host tests of the boot-input parsers
# (kernel/multiboot2.c, kernel/cmdline.c), included by tests/host/Makefile.
# They build from the kernel's own sources against the real kernel headers;
# each test's printk (printk_log.h) keeps what the parser says, to check it.
# `make fuzz` also runs the libFuzzer target over both for FUZZ_SECONDS.
PARSERS_CFLAGS = $(HOST_CFLAGS) -I$(ROOT)
PARSERS_HDRS = $(ROOT)/kernel/types.h $(ROOT)/kernel/string.h $(ROOT)/kernel/printk.h ktest.h printk_log.h

HOST_TESTS += $(BUILD)/test_multiboot2 $(BUILD)/test_cmdline

$(BUILD)/test_multiboot2: test_multiboot2.c $(ROOT)/kernel/multiboot2.c $(ROOT)/kernel/multiboot2.h $(PARSERS_HDRS)
	@mkdir -p $(BUILD)
	$(CC) $(PARSERS_CFLAGS) -o $@ test_multiboot2.c $(ROOT)/kernel/multiboot2.c

$(BUILD)/test_cmdline: test_cmdline.c $(ROOT)/kernel/cmdline.c $(ROOT)/kernel/cmdline.h $(PARSERS_HDRS)
	@mkdir -p $(BUILD)
	$(CC) $(PARSERS_CFLAGS) -o $@ test_cmdline.c $(ROOT)/kernel/cmdline.c

$(BUILD)/fuzz_multiboot2: fuzz_multiboot2.c $(ROOT)/kernel/multiboot2.c $(ROOT)/kernel/cmdline.c \
		$(ROOT)/kernel/multiboot2.h $(ROOT)/kernel/cmdline.h $(PARSERS_HDRS)
	@mkdir -p $(BUILD)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -I$(ROOT) -o $@ fuzz_multiboot2.c \
		$(ROOT)/kernel/multiboot2.c $(ROOT)/kernel/cmdline.c

.PHONY: fuzz-multiboot2
fuzz: fuzz-multiboot2
fuzz-multiboot2: $(BUILD)/fuzz_multiboot2 $(BUILD)/test_multiboot2
	@mkdir -p $(BUILD)/fuzz_multiboot2_corpus
	$(BUILD)/test_multiboot2 --seed $(BUILD)/fuzz_multiboot2_corpus/seed-full
	$(BUILD)/fuzz_multiboot2 -max_total_time=$(FUZZ_SECONDS) -max_len=8192 \
		-artifact_prefix=$(BUILD)/fuzz_multiboot2- \
		$(BUILD)/fuzz_multiboot2_corpus
