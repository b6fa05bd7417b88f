# Makefile: one build for rcukern.
#   make            build/kernel.elf and build/rcukern.iso (BIOS + UEFI hybrid,
#                   tools/mkiso.sh)
#   make test       host unit tests, then QEMU runs judged from KTAP
#   make bench      the paper's full benchmark sweeps (long; ONLY=name,name: some
#                   of tests/bench-configs), then the report from their rows
#   make report     build/report/report.md with tables and plots (LOG="a.log b.txt": from
#                   saved logs, one or several; adds build/bench-logs/peer.txt when there)
#   make verify     long host torture and model checking, every mutant's test
#                   build, then the QEMU runs of tests/verify-configs
#                   (logs in build/verify-logs)
#   make fuzz       libFuzzer targets over the parsers
#   make mutants    the mutation score of tests/mutants (hours; ONLY=names)
#   make peer       Linux 6.1 (Debian's linux-source-6.1) in two images for
#                   `make bench` to compare with, into build/peer (not in make test)
# The test build (build/test, SANITIZE=1) adds UBSan, the stack protector and
# the lock validator (CONFIG_LOCKDEP: kernel/lockdep.c, RCU-lockdep) and
# Linux's CONFIG_DEBUG_PREEMPT (kernel/smp_processor_id.c: smp_processor_id()
# in preemptible code, preempt_count leaks at irq exit and in the idle loop).
# Every .c/.asm file in the kernel directories is built: adding a file needs
# no edit here.

BUILD ?= build
SANITIZE ?= 0
# PREEMPT_RCU=0: rcu_read_lock() is RCU-sched's preempt_disable() (rcu/rcupdate.h)
PREEMPT_RCU ?= 1
# RCU_STATS=1: count the QS-report path's node locks and waits (rcu/tree.h);
# on in the test build, off in the benchmark build, which pays nothing
RCU_STATS ?= $(SANITIZE)
CC := gcc
LD := ld
NASM := nasm
PYTHON ?= python3

SRC_DIRS := arch/x86_64 kernel rcu tests/kernel tests/scenarios
C_SRCS := $(foreach d,$(SRC_DIRS),$(wildcard $(d)/*.c))
ASM_SRCS := $(wildcard boot/*.asm) $(foreach d,$(SRC_DIRS),$(wildcard $(d)/*.asm))
OBJS := $(C_SRCS:%.c=$(BUILD)/%.o) $(ASM_SRCS:%.asm=$(BUILD)/%.o)

KCFLAGS := -std=gnu11 -ffreestanding -fno-pic -fno-pie -mcmodel=kernel \
	-mno-red-zone -mgeneral-regs-only -mno-mmx -mno-sse -mno-sse2 \
	-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
	-fno-strict-aliasing -fno-common -fno-asynchronous-unwind-tables \
	-O2 -g -Wall -Wextra -Werror -Wno-unused-parameter \
	-I. -Iarch/x86_64/include -MMD -MP
ifeq ($(PREEMPT_RCU),1)
KCFLAGS += -DCONFIG_PREEMPT_RCU=1
endif
ifeq ($(RCU_STATS),1)
KCFLAGS += -DCONFIG_RCU_STATS=1
endif
ifeq ($(SANITIZE),1)
KCFLAGS += -fsanitize=undefined -fno-sanitize=float-divide-by-zero,float-cast-overflow \
	-fstack-protector-strong -mstack-protector-guard=global -DCONFIG_SANITIZE=1 \
	-DCONFIG_LOCKDEP=1 -DCONFIG_DEBUG_PREEMPT=1 -DCONFIG_JITTER=1
else
KCFLAGS += -fno-stack-protector
endif
KLDFLAGS := -nostdlib -z max-page-size=4096 -z noexecstack --no-warn-rwx-segments -T linker.ld

.PHONY: all iso test host-test qemu-test bench report verify fuzz clean deps peer mutants help
all: iso

# The targets and their wall times on a 2-core host (README's first hour).
help:
	@echo "make            build/kernel.elf and build/rcukern.iso (~12 s)"
	@echo "make test       host unit tests, then the QEMU runs of tests/qemu-configs (~18-30 min)"
	@echo "make bench      the article's sweeps of tests/bench-configs, then the report (hours; ONLY=a,b)"
	@echo "make report     build/report/ from a run of the scenarios; LOG=\"a.log b.txt\": from saved logs"
	@echo "make verify     long host torture, model checking, tests/verify-configs (hours)"
	@echo "make mutants    the mutation score of tests/mutants (hours; ONLY=names)"
	@echo "make peer       Linux 6.1 in two images for make bench to compare with (tens of minutes)"
	@echo "make fuzz       libFuzzer targets over the parsers (FUZZ_SECONDS=60 each)"
	@echo "make clean      remove build/ and tests/host/build/"
	@echo "./run.sh --help, ./run.sh --list: booting it; README.md \"Your first hour\""

iso: $(BUILD)/rcukern.iso

ifeq ($(V),1)
Q :=
say := @true
else
Q := @
say := @echo
endif

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(say) "  CC      $<"
	$(Q)$(CC) $(KCFLAGS) -c $< -o $@

# The dependencies come from a separate -M pass: NASM 2.16's -MD, made
# while assembling, leaves out the %include files (asm/ptrace.inc).
NASMFLAGS := -f elf64 -g -F dwarf -Iarch/x86_64/include/
ifeq ($(SANITIZE),1)
NASMFLAGS += -DCONFIG_SANITIZE=1
endif
$(BUILD)/%.o: %.asm
	@mkdir -p $(dir $@)
	$(say) "  NASM    $<"
	$(Q)$(NASM) $(NASMFLAGS) -M -MT $@ -MF $(@:.o=.d) -MP $<
	$(Q)$(NASM) $(NASMFLAGS) -o $@ $<

# Two links: the first, with an empty symbol table, finds where every
# function is; the second has the real table.  The table lives in .rodata,
# after .text, so no function moves between the links (checked).
# The benchmark build first places the __fastpath code (kernel/types.h):
# tools/tbjc.py --place picks the pad before .text.hot that keeps each
# fast path's QEMU jump-cache lookups in slots of their own, and --check
# fails the build if the final image has two in one slot.  The test build
# (sanitizers: other code) links with no pad and is not checked.
$(BUILD)/kernel.elf: $(OBJS) linker.ld tools/kallsyms.py tools/tbjc.py
	$(say) "  LD      $@"
	$(Q)$(PYTHON) tools/kallsyms.py < /dev/null > $(BUILD)/kallsyms0.c
	$(Q)$(CC) $(KCFLAGS) -c $(BUILD)/kallsyms0.c -o $(BUILD)/kallsyms0.o
	$(Q)echo 0 > $(BUILD)/fastpath_pad
ifneq ($(SANITIZE),1)
	$(Q)$(LD) $(KLDFLAGS) --defsym=fastpath_pad=0 -o $(BUILD)/kernel.pass0.elf $(OBJS) $(BUILD)/kallsyms0.o
	$(Q)$(PYTHON) tools/tbjc.py --place $(BUILD)/kernel.pass0.elf > $(BUILD)/fastpath_pad
endif
	$(Q)$(LD) $(KLDFLAGS) --defsym=fastpath_pad=$$(cat $(BUILD)/fastpath_pad) -o $(BUILD)/kernel.pass1.elf $(OBJS) $(BUILD)/kallsyms0.o
	$(Q)nm -n $(BUILD)/kernel.pass1.elf | $(PYTHON) tools/kallsyms.py > $(BUILD)/kallsyms.c
	$(Q)$(CC) $(KCFLAGS) -c $(BUILD)/kallsyms.c -o $(BUILD)/kallsyms.o
	$(Q)$(LD) $(KLDFLAGS) --defsym=fastpath_pad=$$(cat $(BUILD)/fastpath_pad) -o $@ $(OBJS) $(BUILD)/kallsyms.o
ifneq ($(SANITIZE),1)
	$(Q)$(PYTHON) tools/tbjc.py --check $@ > $(BUILD)/fastpath.txt || { cat $(BUILD)/fastpath.txt >&2; rm -f $@; exit 1; }
endif
	@nm -n $(BUILD)/kernel.pass1.elf | grep ' [tT] ' > $(BUILD)/syms1.txt
	@nm -n $@ | grep ' [tT] ' > $(BUILD)/syms2.txt
	@cmp -s $(BUILD)/syms1.txt $(BUILD)/syms2.txt || { echo "kallsyms: text moved between links" >&2; exit 1; }

# tools/mkiso.sh: GRUB for BIOS and UEFI, an active MBR partition and an
# appended EFI system partition (distribution-ISO style).
$(BUILD)/rcukern.iso: $(BUILD)/kernel.elf boot/grub.cfg tools/mkiso.sh
	@rm -rf $(BUILD)/isodir
	@mkdir -p $(BUILD)/isodir/boot/grub
	@cp $(BUILD)/kernel.elf $(BUILD)/isodir/boot/kernel.elf
	@cp boot/grub.cfg $(BUILD)/isodir/boot/grub/grub.cfg
	$(say) "  ISO     $@"
	$(Q)sh tools/mkiso.sh $(BUILD)/isodir $@

deps:
	bash tools/deps.sh

# The test build differs from the benchmark build only in its sanitizers.
# The last line of `make test` is "N passed, N failed" over both stages.
# Two QEMU runs at a time: most configurations are 1-4 vCPUs, and two keep
# a 2-core machine busy (RUNNER_ARGS= for one at a time).
RUNNER_ARGS ?= --jobs 2
test: deps
	@PYTHON=$(PYTHON) bash tools/test.sh $(RUNNER_ARGS)

host-test:
	$(MAKE) -C tests/host

qemu-test:
	$(MAKE) BUILD=build/test SANITIZE=1 iso
	RCUKERN_ISO=build/test/rcukern.iso $(PYTHON) tests/runner.py

# The sweeps' rows go to build/bench-logs/bench.txt; the report is made
# from them even when a run failed (its rows so far are kept).  The Linux
# peer (make peer) runs after them, when built, into build/bench-logs/peer.txt;
# ONLY=peer runs the peer alone, ONLY=names without peer leaves it out.
bench: deps iso
	@only="$(ONLY)"; configs=$$(echo "$$only" | tr , '\n' | grep -vx peer | paste -sd, -); \
	if [ -z "$$only" ] || [ -n "$$configs" ]; then \
		$(PYTHON) tests/runner.py --config tests/bench-configs --log-dir build/bench-logs \
			$${configs:+--only $$configs} || true; \
	fi; \
	if [ -z "$$only" ] || echo ",$$only," | grep -q ",peer,"; then \
		$(PYTHON) tools/peer/bench.py || true; \
	fi; \
	logs=$$(ls build/bench-logs/bench.txt build/bench-logs/peer.txt 2>/dev/null); \
	[ -n "$$logs" ] || { echo "bench: no rows in build/bench-logs" >&2; exit 1; }; \
	$(PYTHON) tools/report.py $$logs

# With LOG= it only formats a saved log: no packages, no ISO needed.
report: $(if $(LOG),,deps iso)
	$(PYTHON) tools/report.py $(LOG)

# Every stage runs even when one failed; any failing fails verify.  The
# mutants' build check (tools/mutants.py --build-check, ~20 s a mutant):
# make test only dry-runs their patches, and one stopped compiling unseen.
verify: deps
	@rc=0; $(MAKE) -C tests/host verify || rc=1; \
	$(PYTHON) tools/mutants.py --build-check || rc=1; \
	if $(MAKE) BUILD=build/test SANITIZE=1 iso; then \
		RCUKERN_ISO=build/test/rcukern.iso $(PYTHON) tests/runner.py \
			--config tests/verify-configs --log-dir build/verify-logs || rc=1; \
	else rc=1; fi; \
	exit $$rc

fuzz:
	$(MAKE) -C tests/host fuzz

# The mutation score (tools/mutants.py; hours: not part of test or verify,
# which only builds each mutant):
# each tests/mutants/*.patch applied to a scratch copy of HEAD, built, and
# run against the tests its header names.  ONLY=substr,substr: some of them.
mutants: deps
	$(PYTHON) tools/mutants.py $(if $(ONLY),--only $(ONLY))

# Minutes on two cores; tools/deps.sh --peer installs the source package.
peer:
	bash tools/deps.sh --peer
	bash tools/peer/build.sh

clean:
	rm -rf build
	-$(MAKE) -C tests/host clean

-include $(OBJS:.o=.d)
