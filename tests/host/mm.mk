# tests/host/mm.mk: host tests of the page allocator and kmalloc
# (kernel/pmm.c, kernel/kmalloc.c), included by tests/host/Makefile.
# Built from the kernel's own sources against tests/host/mm_shim (a fake
# physical memory, a plain spinlock); twice: ASan+UBSan, and TSan (several
# threads allocate at once).
MM_ROOT ?= ../..
MM_BUILD ?= build
MM_CFLAGS = -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter -g -O1 -pthread \
	-I$(MM_ROOT)/tests/host/mm_shim -I$(MM_ROOT)
MM_SRC = $(MM_ROOT)/kernel/pmm.c $(MM_ROOT)/kernel/kmalloc.c $(MM_ROOT)/kernel/shrinker.c
MM_DEPS = test_pmm.c ktest.h $(MM_SRC) $(MM_ROOT)/kernel/pmm.h $(MM_ROOT)/kernel/slab.h \
	$(wildcard $(MM_ROOT)/tests/host/mm_shim/*/*.h)

HOST_TESTS += $(MM_BUILD)/test_pmm $(MM_BUILD)/test_pmm_tsan

$(MM_BUILD)/test_pmm: $(MM_DEPS)
	$(call host_cc,$(MM_CFLAGS) $(HOST_ASAN),test_pmm.c $(MM_SRC))
$(MM_BUILD)/test_pmm_tsan: $(MM_DEPS)
	$(call host_cc,$(MM_CFLAGS) $(HOST_TSAN),test_pmm.c $(MM_SRC))
