# tests/host/locks.mk: host tests of the lock headers (kernel/spinlock.h,
# rwlock.h, seqlock.h and their .c slow paths), included by
# tests/host/Makefile.  Built twice: ASan+UBSan, and TSan (the locks'
# atomics must order the plain data they guard).  The sources are the
# kernel's own; tests/host/thread_shim stands in for preempt/smp/cmdline
# and the clock, locks_shim/relax.h makes cpu_relax() yield.
LOCKS_ROOT ?= ../..
LOCKS_BUILD ?= build
LOCKS_CFLAGS = -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter -g -O1 -pthread \
	-I$(THREAD_SHIM) -I$(LOCKS_ROOT) -include $(LOCKS_ROOT)/tests/host/locks_shim/relax.h
LOCKS_SRC = $(LOCKS_ROOT)/kernel/spinlock.c $(LOCKS_ROOT)/kernel/rwlock.c $(THREAD_SHIM)/shim.c
LOCKS_DEPS = test_locks.c $(LOCKS_SRC) $(THREAD_SHIM_DEPS) $(LOCKS_ROOT)/tests/host/locks_shim/relax.h \
	$(LOCKS_ROOT)/kernel/rwlock.h $(LOCKS_ROOT)/kernel/seqlock.h $(LOCKS_ROOT)/tests/kernel/lock_hammer.h

HOST_TESTS += $(LOCKS_BUILD)/test_locks $(LOCKS_BUILD)/test_locks_tsan

$(LOCKS_BUILD)/test_locks: $(LOCKS_DEPS)
	$(call host_cc,$(LOCKS_CFLAGS) $(HOST_ASAN),test_locks.c $(LOCKS_SRC))
$(LOCKS_BUILD)/test_locks_tsan: $(LOCKS_DEPS)
	$(call host_cc,$(LOCKS_CFLAGS) -DLOCKS_ITERS=10000 $(HOST_TSAN),test_locks.c $(LOCKS_SRC))
