# tests/host/timer.mk: host tests of kernel/timer.c (included by
# tests/host/Makefile).  The kernel's own file is built against
# tests/host/thread_shim (a pthread per CPU: kernel/smp.h, preempt.h,
# cmdline.h stand-ins, the clock) and timer_shim (kernel/sched.h stubs,
# jiffies and a counting cpu_relax()) with the real kernel/timer.h,
# time.h, spinlock.h and spinlock.c, in the test build
# (CONFIG_SANITIZE: timer_inject_hook exists).  Built twice: ASan+UBSan,
# and TSan (the base locks must order the lists and the handlers' data).
# TIMER_SRC=path tests another timer.c, e.g. the code before a fix.
TIMER_ROOT ?= ../..
TIMER_BUILD ?= build
TIMER_SRC ?= $(TIMER_ROOT)/kernel/timer.c
TIMER_SHIM = $(TIMER_ROOT)/tests/host/timer_shim
TIMER_CFLAGS = -std=gnu11 -Wall -Wextra -Werror -g -O1 -pthread -fno-omit-frame-pointer \
	-DCONFIG_SANITIZE=1 -I$(TIMER_SHIM) -I$(THREAD_SHIM) -I$(TIMER_ROOT) -include $(TIMER_SHIM)/relax.h
TIMER_KSRC = $(TIMER_SRC) $(TIMER_ROOT)/kernel/spinlock.c $(THREAD_SHIM)/shim.c
TIMER_DEPS = test_timer.c timer.mk $(TIMER_KSRC) $(THREAD_SHIM_DEPS) \
	$(wildcard $(TIMER_SHIM)/*.h $(TIMER_SHIM)/kernel/*.h) $(TIMER_ROOT)/kernel/timer.h \
	$(TIMER_ROOT)/tests/kernel/bounded_wait.h

HOST_TESTS += $(TIMER_BUILD)/test_timer $(TIMER_BUILD)/test_timer_tsan

$(TIMER_BUILD)/test_timer: $(TIMER_DEPS)
	$(call host_cc,$(TIMER_CFLAGS) $(HOST_ASAN),test_timer.c $(TIMER_KSRC))
$(TIMER_BUILD)/test_timer_tsan: $(TIMER_DEPS)
	$(call host_cc,$(TIMER_CFLAGS) -DSTRESS_ITERS=1000 $(HOST_TSAN),test_timer.c $(TIMER_KSRC))
