# tests/host/locks.mk: host tests of the lock headers (kernel/spinlock.h,
# rwlock.h, seqlock.h and their .c slow paths), included by
# tests/host/Makefile.  Built twice: ASan+UBSan, and TSan (the locks'
# atomics must order the plain data they guard).  The sources are the
# kernel's own; tests/host/thread_shim stands in for preempt/smp/cmdline
# and the clock, locks_shim/relax.h makes cpu_relax() yield.
LOCKS_ROOT ?= ../..
LOCKS_BUILD ?= build
LOCKS_CFLAGS = -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter -g -O1 -pthread \
	-I$(LOCKS_ROOT)/tests/host/thread_shim -I$(LOCKS_ROOT) \
	-include $(LOCKS_ROOT)/tests/host/locks_shim/relax.h
LOCKS_SRC = $(LOCKS_ROOT)/kernel/spinlock.c $(LOCKS_ROOT)/kernel/rwlock.c \
	$(LOCKS_ROOT)/tests/host/thread_shim/shim.c
LOCKS_DEPS = test_locks.c ktest.h $(LOCKS_SRC) $(wildcard $(LOCKS_ROOT)/tests/host/thread_shim/kernel/*.h) \
	$(LOCKS_ROOT)/tests/host/locks_shim/relax.h $(LOCKS_ROOT)/kernel/time.h \
	$(LOCKS_ROOT)/kernel/preempt_mask.h \
	$(LOCKS_ROOT)/kernel/spinlock.h $(LOCKS_ROOT)/kernel/rwlock.h \
	$(LOCKS_ROOT)/kernel/seqlock.h $(LOCKS_ROOT)/kernel/atomic.h

HOST_TESTS += $(LOCKS_BUILD)/test_locks $(LOCKS_BUILD)/test_locks_tsan

$(LOCKS_BUILD)/test_locks: $(LOCKS_DEPS)
	@mkdir -p $(LOCKS_BUILD)
	$(CC) $(LOCKS_CFLAGS) -fsanitize=address,undefined -fno-sanitize-recover=all \
		-o $@ test_locks.c $(LOCKS_SRC)

# GCC warns that TSan does not model standalone fences; the data the
# tests race on is accessed through atomics, so the warning is moot.
$(LOCKS_BUILD)/test_locks_tsan: $(LOCKS_DEPS)
	@mkdir -p $(LOCKS_BUILD)
	$(CC) $(LOCKS_CFLAGS) -DLOCKS_ITERS=10000 -fsanitize=thread -Wno-tsan -o $@ test_locks.c $(LOCKS_SRC)
