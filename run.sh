#!/usr/bin/env bash
# run.sh: build rcukern if needed and boot it in QEMU, serial on stdout.
#
#   ./run.sh                     the article's scenarios on -smp 16, then
#                                the report (build/report/report.md)
#   ./run.sh -s 4 -c test=all    the tests on 4 CPUs
#   ./run.sh --uefi              boot through OVMF instead of the BIOS
#
# Options:
#   -s N          CPUs (default 16)          -m MB     memory (default 512)
#   -c "ARGS"     kernel command line        --uefi    boot with OVMF
#   --machine M   pc (default) or q35        --kvm     use KVM if it works
#   --gdb         gdb stub on :1234, paused  --no-build  do not run make
#                 (it prints the gdb command that loads tools/gdb/rcukern.py)
#   --display     show a screen (default: none, serial only)
#   --gfx MODE    the video mode GRUB sets for the kernel: WxHxD (e.g.
#                 1024x768x16) or text (BIOS); default: the kernel's choice
#   --usb         the ISO as a USB stick (xHCI mass storage), not a CD
#   --list        the vocabulary: valid test= suites and torture= flavours
#                 (from the sources, no boot); `-s 1 -c help` boots and
#                 prints the kernel's own: every option, suite, flavour
#   -- ARGS       passed to QEMU as they are
# The ISO is build/rcukern.iso, or $RCUKERN_ISO.
# Exit status: 0 the kernel reported success, 1 it reported failure (or
# panicked), 2 no exit from the kernel (reset, triple fault, QEMU quit),
# 3 QEMU itself failed (e.g. a bad argument; its message is shown), 64 a
# bad option of run.sh's, or a kernel option in -c that no core_param()
# of the sources registers (a typo: not booted; cmdline.unknown=ignore
# in -c boots anyway).
# RCUKERN_NO_REPORT=1: no report after the scenarios (tools/report.py
# sets it when it boots the kernel itself).  RCUKERN_NO_CMDLINE_CHECK=1:
# -c goes to the kernel unchecked (tests/runner.py: the kernel's check).
set -uo pipefail
cd "$(dirname "$0")"

cpus=16 mem=512 cmdline="" uefi=0 machine=pc kvm=0 gdb=0 build=1 display=0 gfx="" usb=0 list=0
extra=()
usage() { echo "run.sh: $*" >&2; exit 64; }
# An option's value: a missing one is a usage error, not bash's own.
value() { [[ $# -ge 2 ]] || usage "$1 needs a value (try --help)"; }
while [[ $# -gt 0 ]]; do
	case $1 in
	-s) value "$@"; cpus=$2; shift 2 ;;
	-m) value "$@"; mem=$2; shift 2 ;;
	-c) value "$@"; cmdline=$2; shift 2 ;;
	--uefi) uefi=1; shift ;;
	--machine) value "$@"; machine=$2; shift 2 ;;
	--kvm) kvm=1; shift ;;
	--gdb) gdb=1; shift ;;
	--no-build) build=0; shift ;;
	--display) display=1; shift ;;
	--gfx) value "$@"; gfx=$2; shift 2 ;;
	--usb) usb=1; shift ;;
	--list) list=1; shift ;;
	--) shift; extra=("$@"); break ;;
	-h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 0 ;;
	*) usage "unknown option '$1' (try --help)" ;;
	esac
done
# The words of -c, from the sources the kernel is built from: the KTAP
# suites (KTAP_SUITE) and rcutorture's flavours (rcu/torture.c's table).
if [[ $list == 1 ]]; then
	echo "test= suites (test=all: all but selftest_*, which crash on purpose;"
	echo "  no test=: the paper_* scenarios; several: test=rcu,srcu; prefix: test=paper_*):"
	grep -hoE 'KTAP_SUITE(_FULL)?\([a-z0-9_]*' tests/kernel/*.c tests/scenarios/*.c |
		sed -E 's/KTAP_SUITE(_FULL)?\(//' | sort -u | paste -sd' ' | fold -s -w 76 | sed 's/^/  /'
	echo "torture= flavours (torture.secs=S, default 10):"
	sed -n '/torture_ops\[\] = {/,/^};/p' rcu/torture.c | grep -o '{ "[a-z-]*"' |
		tr -d '{" ' | paste -sd' ' | sed 's/^/  /'
	echo "kernel options, with their help: ./run.sh -s 1 -c help (boots, prints, exits 0)"
	exit 0
fi
if [[ $cmdline == *"'"* ]]; then
	usage "the kernel command line may not contain single quotes"
fi
# A misspelt kernel option (foo=1, tortue=sched) would boot, run the
# default instead (the scenarios: minutes at 16 CPUs, the last report
# overwritten) and only fail at the end: refuse it here, from the names
# core_param() registers in the sources the Makefile builds (SRC_DIRS).
# The kernel's own check stays for GRUB's menu and the runner, which
# tests it (RCUKERN_NO_CMDLINE_CHECK=1); `-` and `_` match as there.
if [[ ${RCUKERN_NO_CMDLINE_CHECK:-0} != 1 && " $cmdline " != *" cmdline.unknown=ignore "* ]]; then
	known=" $(grep -hoE 'core_param\([a-zA-Z0-9_.-]+' arch/x86_64/*.[ch] kernel/*.[ch] rcu/*.[ch] \
		tests/kernel/*.[ch] tests/scenarios/*.[ch] 2>/dev/null | sed 's/core_param(//' | tr '-' '_' | sort -u | tr '\n' ' ')"
	rest=$cmdline bad=()
	# The kernel's tokens: name, name=value or name="value with spaces";
	# each pass takes at least one character.  A token with no name
	# (`=x`) is refused too, and must not end the check early.
	while [[ $rest == *[^[:space:]]* &&
		 $rest =~ ^[[:space:]]*([^[:space:]=]*)(=(\"[^\"]*\"|[^[:space:]]*))?(.*)$ ]]; do
		name=${BASH_REMATCH[1]} rest=${BASH_REMATCH[4]}
		if [[ -z $name ]]; then
			bad+=("'${BASH_REMATCH[2]}' (no name)")
		elif [[ $known != *" ${name//-/_} "* ]]; then
			bad+=("'$name'")
		fi
	done
	if [[ ${#bad[@]} -gt 0 && $known != " " ]]; then
		usage "-c: unknown kernel option ${bad[*]}: not booted (the kernel would run something else and fail at the end). ./run.sh --list names the test= suites and torture= flavours, ./run.sh -s 1 -c help every option; add cmdline.unknown=ignore to boot anyway"
	fi
fi
# QEMU's own per-machine CPU limits (QEMU 7.2: pc 255, q35 288); the
# kernel starts at most NR_CPUS of them.
case $machine in
pc) maxcpus=255 ;;
q35) maxcpus=288 ;;
*) usage "--machine wants pc or q35, not '$machine'" ;;
esac
[[ $cpus =~ ^[0-9]+$ ]] && (( 10#$cpus >= 1 && 10#$cpus <= maxcpus )) ||
	usage "-s '$cpus': the $machine machine takes 1..$maxcpus CPUs (QEMU's limit for it)"
cpus=$((10#$cpus))
nr_cpus=$(sed -n 's/^#define NR_CPUS \([0-9]*\).*/\1/p' kernel/percpu.h 2>/dev/null)
if [[ -n $nr_cpus ]] && (( cpus > nr_cpus )); then
	echo "run.sh: -s $cpus: the kernel starts at most $nr_cpus CPUs (NR_CPUS); the others stay parked" >&2
fi
[[ $mem =~ ^[0-9]+$ ]] && (( 10#$mem >= 16 )) ||
	usage "-m '$mem': memory in MiB, at least 16"

iso=${RCUKERN_ISO:-build/rcukern.iso}
if [[ $build == 1 ]]; then
	bash tools/deps.sh || exit 1
	make -s iso >&2 || exit 1
fi
[[ -f $iso ]] || { echo "run.sh: $iso missing (run make)" >&2; exit 1; }

# The command line reaches GRUB through a tiny FAT disk: grub.cfg sources
# /rcukern-args.cfg from whichever disk has it.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf "set timeout=0\nset args='%s'\n" "$cmdline" > "$tmp/rcukern-args.cfg"
if [[ -n $gfx ]]; then		# boot/grub.cfg sets gfxpayload from it
	[[ $gfx =~ ^([0-9]+x[0-9]+(x[0-9]+)?|text)$ ]] ||
		{ echo "run.sh: --gfx wants WxH, WxHxD or text" >&2; exit 64; }
	echo "set gfx=$gfx" >> "$tmp/rcukern-args.cfg"
fi
mformat -i "$tmp/args.img" -C -f 1440 :: >/dev/null 2>&1 &&
	mcopy -i "$tmp/args.img" "$tmp/rcukern-args.cfg" ::/ >/dev/null 2>&1 ||
	{ echo "run.sh: could not make the args disk (mtools)" >&2; exit 1; }

qemu=(qemu-system-x86_64 -machine "$machine" -smp "$cpus" -m "$mem"
	-drive "file=$tmp/args.img,format=raw,if=ide,index=1"
	-serial stdio -no-reboot
	-device isa-debug-exit,iobase=0xf4,iosize=0x04)
if [[ $usb == 1 ]]; then	# the hybrid ISO written to a stick, as tools/mkusb does
	qemu+=(-device qemu-xhci -drive "if=none,id=stick,format=raw,readonly=on,file=$iso"
		-device usb-storage,drive=stick,bootindex=0)
else
	qemu+=(-cdrom "$iso" -boot d)
fi
if [[ $display == 0 ]]; then qemu+=(-display none -vga std); fi
if [[ $kvm == 1 && -w /dev/kvm ]]; then
	qemu+=(-accel kvm -cpu host)
else
	[[ $kvm == 1 ]] && echo "run.sh: /dev/kvm not usable, using TCG" >&2
	qemu+=(-accel tcg,thread=multi -cpu max)
fi
if [[ $uefi == 1 ]]; then
	fw=""
	for f in /usr/share/ovmf/OVMF.fd /usr/share/OVMF/OVMF.fd /usr/share/qemu/OVMF.fd; do
		[[ -f $f ]] && fw=$f && break
	done
	[[ -n $fw ]] || { echo "run.sh: OVMF not found (apt-get install ovmf)" >&2; exit 1; }
	qemu+=(-bios "$fw")
fi
if [[ $gdb == 1 ]]; then	# paused until gdb continues it; tools/gdb/rcukern.py: rk-* commands
	qemu+=(-s -S)
	elf=$(dirname "$iso")/kernel.elf
	echo "run.sh: QEMU waits for gdb on :1234; in another terminal:" >&2
	echo "  gdb $elf -ex 'target remote :1234' -x tools/gdb/rcukern.py   (rk-dmesg, rk-ps, rk-cpus, rk-rcu, rk-trace FILE)" >&2
fi
qemu+=("${extra[@]}")

# The article's scenarios (no test=/torture= on the command line): keep
# the serial log and print the report's goals and read-side table after
# it (tools/report.py; build/report/ gets the full report and plots).
scenarios=0
[[ " $cmdline " != *" test="* && " $cmdline " != *" torture="* &&
	" $cmdline " != *" help "* && " $cmdline " != *" help=1 "* &&
	${RCUKERN_NO_REPORT:-0} != 1 ]] && scenarios=1
[[ $scenarios == 1 ]] && ! mkdir -p build 2>/dev/null && scenarios=0
# QEMU's stderr is shown as it comes and kept: its exit status 1 is also
# what the kernel's "success" write to the exit port gives, so an error
# message of QEMU's own is what tells the two apart.
run_qemu() {
	{ "${qemu[@]}" < /dev/null 2>&1 1>&3 | tee "$tmp/qemu.err" >&2
	  return "${PIPESTATUS[0]}"; } 3>&1
}
if [[ $scenarios == 1 ]]; then
	run_qemu | tee build/run-scenarios.log
	rc=${PIPESTATUS[0]}
else
	run_qemu
	rc=$?
fi
qemu_error=$(grep -E '^qemu-system-[^:]*: ' "$tmp/qemu.err" |
	grep -vE '^[^:]*: (warning: |terminating on signal)' | head -3)
case $rc in
1) status=0 ;;			# kernel wrote 0 to the exit port
3) status=1 ;;			# kernel wrote 1: failure
5) status=1 ;;			# kernel wrote 2: panic
0) status=2; why="QEMU stopped without an exit from the kernel (reset or triple fault?)" ;;
*) status=2; why="QEMU exited with status $rc" ;;
esac
if [[ $rc == 1 && -n $qemu_error ]]; then
	echo "run.sh: QEMU failed (exit status 1) before or without running the kernel:" >&2
	printf '  %s\n' "$qemu_error" >&2
	exit 3
fi
[[ $status == 2 ]] && echo "run.sh: $why" >&2
if [[ $scenarios == 1 ]]; then
	python3 tools/report.py --summary build/run-scenarios.log ||
		echo "run.sh: tools/report.py failed (the log is build/run-scenarios.log)" >&2
	# The report's summary came after the kernel's last lines: say again
	# how the run ended, so that a failure is not read as the tables' pass.
	[[ $status == 1 ]] &&
		echo "run.sh: the kernel reported a failure (exit status 1); its last lines are above the report, the log is build/run-scenarios.log" >&2
fi
exit $status
