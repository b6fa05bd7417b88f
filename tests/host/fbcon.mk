# tests/host/fbcon.mk: host test of the framebuffer console
# (kernel/fbcon.c, kernel/font8x16.c) over memory buffers at 32/24/16/15
# bpp and in VGA text layout, its checks of bad framebuffer descriptions,
# and a cross-check of tests/fbcheck.py's screen model against the C one.
# Included by tests/host/Makefile.
FBCON_CFLAGS = $(HOST_CFLAGS) -I$(ROOT)/tests/host/fbcon_shim -I$(ROOT) -DROOT_DIR=\"$(abspath $(ROOT))\"
FBCON_SRC = $(ROOT)/kernel/fbcon.c $(ROOT)/kernel/font8x16.c $(ROOT)/kernel/multiboot2.c
FBCON_DEPS = test_fbcon.c $(FBCON_SRC) $(ROOT)/kernel/fbcon.h $(ROOT)/kernel/font.h \
	$(ROOT)/kernel/multiboot2.h $(wildcard $(ROOT)/tests/host/fbcon_shim/*/*.h \
	$(ROOT)/tests/host/fbcon_shim/*/*/*.h) ktest.h mb2_build.h $(ROOT)/tests/fbcheck.py

HOST_TESTS += $(BUILD)/test_fbcon

$(BUILD)/test_fbcon: $(FBCON_DEPS)
	@mkdir -p $(BUILD)
	$(CC) $(FBCON_CFLAGS) -o $@ test_fbcon.c $(FBCON_SRC)
