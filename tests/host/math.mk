# tests/host/math.mk: host test of kernel/math.c (int_sqrt, stats_compute),
# included by tests/host/Makefile; checked against libm in long double.
MATH_ROOT ?= ../..
HOST_TESTS += $(BUILD)/test_math

$(BUILD)/test_math: test_math.c $(MATH_ROOT)/kernel/math.c $(MATH_ROOT)/kernel/math.h ktest.h
	@mkdir -p $(BUILD)
	$(CC) $(HOST_CFLAGS) -I$(MATH_ROOT) -o $@ test_math.c $(MATH_ROOT)/kernel/math.c -lm
