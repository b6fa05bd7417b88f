# tests/host/acpi.mk: host tests of the ACPI parser (arch/x86_64/acpi.c),
# included by tests/host/Makefile.  `make -C tests/host fuzz` runs the
# libFuzzer MADT target for FUZZ_SECONDS (not part of `make test`).
ACPI_ROOT ?= ../..
ACPI_BUILD ?= build
ACPI_CFLAGS = -std=gnu11 -Wall -Wextra -Werror -g -O1 \
	-fsanitize=address,undefined -fno-sanitize-recover=all \
	-I$(ACPI_ROOT)/tests/host/acpi_shim -I$(ACPI_ROOT)
ACPI_SRC = $(ACPI_ROOT)/arch/x86_64/acpi.c $(ACPI_ROOT)/arch/x86_64/acpi.h
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_CFLAGS ?= -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined

HOST_TESTS += $(ACPI_BUILD)/test_acpi

$(ACPI_BUILD)/test_acpi: test_acpi.c ktest.h $(ACPI_SRC) acpi_shim/kernel/printk.h
	@mkdir -p $(ACPI_BUILD)
	$(CC) $(ACPI_CFLAGS) -o $@ test_acpi.c $(ACPI_ROOT)/arch/x86_64/acpi.c

$(ACPI_BUILD)/fuzz_madt: fuzz_madt.c $(ACPI_SRC)
	@mkdir -p $(ACPI_BUILD)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -I$(ACPI_ROOT)/tests/host/acpi_shim -I$(ACPI_ROOT) \
		-o $@ fuzz_madt.c $(ACPI_ROOT)/arch/x86_64/acpi.c

.PHONY: fuzz fuzz-madt
fuzz: fuzz-madt
fuzz-madt: $(ACPI_BUILD)/fuzz_madt
	@mkdir -p $(ACPI_BUILD)/fuzz_madt_corpus
	$(ACPI_BUILD)/fuzz_madt -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
		$(ACPI_BUILD)/fuzz_madt_corpus
