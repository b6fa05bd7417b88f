#!/bin/sh
# tests/model/check.sh [short|long] - model-check rcu_dynticks.pml (and,
# at the end, wait_wake.pml: kernel/wait.c's empty-queue skip, and
# dynticks_snap.pml: rcu_dynticks_snap()'s read under x86's store
# buffers) with spin:
# in each configuration the model must verify (no assertion violated,
# search complete: exhaustive, a proof for that configuration), and each
# mutant (-DMUTANT=1..3 of the idle/NMI counter, 4..7 of the CPU-hotplug
# handoff, 8..9 of the idle entry's own QS report) must be caught (spin
# reports an assertion violation).  Prints
# the state counts.  Exit 0 only if everything came out as expected; a
# search cut short by memory or depth fails.
#
# Configurations (README.md):
#   one   3 CPUs: CPU 0 nested irq/NMI and idle (with the idle entry's
#         QS report), CPU 1 readers and ticks (same leaf), CPU 2 idle
#         (other leaf); two grace periods
#   all2  2 CPUs, each with nested irq/NMI and idle; one grace period
#   all3  3 CPUs, each with nested irq/NMI and idle; one grace period
#   plain 3 CPUs: CPU 0 nested irq/NMI and idle, CPUs 1-2 readers, ticks
#         and idle; two grace periods (not run: over 37.5M states, 3 GB)
#   hp    3 CPUs, readers and ticks; CPUs 1 (sharing a leaf with CPU 0)
#         and 2 (alone in its leaf) go offline and come back at any step;
#         two grace periods
#   hpidle  hp with CPU 0 also going idle (the fqs scan credits it)
# short (make test, ~110 s of CPU): one, all2, hp, the mutants in one and hp;
# long (make verify, ~7 min, ~7.5 GB): one, all2, all3, hp, hpidle, the
# mutants in one, all2 and hp (in all3 each ran past 12M states without a
# verdict in 3 minutes).
mode=${1:-short}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/rcumodel.XXXXXX")
trap 'rm -rf "$work"' EXIT
command -v spin >/dev/null || { echo "not ok: spin not installed (tools/deps.sh installs it)"; exit 1; }
case $mode in
short) configs="one all2 hp" mutants_in="one hp" ;;
long) configs="one all2 all3 hp hpidle" mutants_in="one all2 hp" ;;
*) echo "usage: $0 [short|long]"; exit 2 ;;
esac
cp "$here/rcu_dynticks.pml" "$here/wait_wake.pml" "$here/dynticks_snap.pml" "$work/"
cd "$work" || exit 1
# pan_run MODEL SPIN_FLAGS CC_FLAGS PAN_FLAGS: generate, build and run
# pan for MODEL; pan.log holds its output, and $errors, $stored and
# $secs (the search alone) its figures.  -w: spin's generated C has a
# benign -Wstringop-overflow.
pan_run() {
	rm -f pan pan.* ./*.trail
	spin -a $2 $1 > spin.log 2>&1 || { cat spin.log; echo "not ok: spin -a failed"; exit 1; }
	${CC:-cc} -O1 -w -DSAFETY $3 -o pan pan.c || { echo "not ok: pan build failed"; exit 1; }
	t0=$(date +%s)
	./pan $4 > pan.log 2>&1
	secs=$(($(date +%s) - t0))
	errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' pan.log | tail -1)
	stored=$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' pan.log | tail -1)
}

fail=0
for name in $configs; do
	case $name in
	# run: pan's search depth limit and hash table (2^w slots) to fit.
	one) cfg="-DNCPU=3 -DNHCPU=1 -DNACTIVE=2" run="-m1000000" ;;
	all2) cfg="-DNCPU=2 -DNHCPU=2 -DNACTIVE=2 -DMAXGP=1" run="-m1000000" ;;
	all3) cfg="-DNCPU=3 -DNHCPU=3 -DNACTIVE=3 -DMAXGP=1" run="-m20000000 -w28" ;;
	plain) cfg="-DNCPU=3 -DNHCPU=1 -DNACTIVE=3 -DPLAIN_IDLE" run="-m20000000 -w28" ;;
	hp) cfg="-DNCPU=3 -DNHCPU=0 -DNACTIVE=3 -DNHOT=2" run="-m1000000" ;;
	hpidle) cfg="-DNCPU=3 -DNHCPU=0 -DNACTIVE=3 -DNHOT=2 -DPLAIN_IDLE" run="-m2000000 -w26" ;;
	esac
	ms=0
	# Mutants 1-3 break the counter (CPUs with irqs/NMIs), 4-7 the hotplug handoff.
	case " $mutants_in " in *" $name "*)
		case $name in hp*) ms="0 4 5 6 7" ;; one) ms="0 1 2 3 8 9" ;; *) ms="0 1 2 3" ;; esac ;;
	esac
	for m in $ms; do
		# A mutant breaks the first grace period already: one is enough
		# (but 7, whose second grace period copies the departing bit,
		# and 9, whose second one scans the CPU during the first's report).
		mcfg=$cfg
		[ $m -ne 0 ] && [ $m -ne 7 ] && [ $m -ne 9 ] && mcfg="$cfg -DMAXGP=1"
		# COLLAPSE: lossless state compression (exhaustive still).
		pan_run rcu_dynticks.pml "$mcfg -DMUTANT=$m" "-DCOLLAPSE -DMEMLIM=20000" "$run"
		matched=$(sed -n 's/^ *\([0-9.e+]*\) states, matched.*/\1/p' pan.log | tail -1)
		depth=$(sed -n 's/.*depth reached \([0-9]*\).*/\1/p' pan.log | tail -1)
		mem=$(sed -n 's/^ *\([0-9.]*\).*total actual memory usage.*/\1/p' pan.log | tail -1)
		echo "# model mode=$mode config=$name mutant=$m errors=${errors:-?} stored=${stored:-?} matched=${matched:-?} depth=${depth:-?} memory_mb=${mem:-?} s=$secs"
		if [ $m -eq 0 ]; then
			if [ "$errors" != 0 ] || grep -q 'max search depth too small\|out of memory\|MEMLIM bound\|Search not completed' pan.log; then
				echo "not ok: the model of rcu/tree.c violates its property in $name (or the search was cut short)"
				cat pan.log; [ -f rcu_dynticks.pml.trail ] && spin -t -p -g $cfg rcu_dynticks.pml | tail -60
				fail=1
			else
				what="no grace period ends under a pre-existing reader"
				case $name in hp*) what="$what or waits for an offline CPU" ;; esac
				echo "ok: $what ($name: $cfg)"
			fi
		else
			if [ -n "$errors" ] && [ "$errors" -gt 0 ] && grep -q 'assertion violated' pan.log; then
				echo "ok: mutant $m caught in $name: $(grep -m1 'assertion violated' pan.log)"
			else
				echo "not ok: mutant $m not caught in $name: the check cannot fail"; cat pan.log; fail=1
			fi
		fi
	done
done
# The store-buffer models (both modes, < 1 s each).
# tso_model NAME OK BAD CAUGHT: NAME.pml must verify (else "not ok: BAD"),
# and its mutants 1 and 2 must each end in pan's CAUGHT error.
tso_model() {
	for m in 0 1 2; do
		pan_run "$1.pml" "-DMUTANT=$m" "" ""
		echo "# model mode=$mode config=$1 mutant=$m errors=${errors:-?} stored=${stored:-?}"
		if [ $m -eq 0 ]; then
			if [ "$errors" != 0 ] || grep -q 'Search not completed' pan.log; then
				echo "not ok: $3"
				cat pan.log; [ -f "$1.pml.trail" ] && spin -t -p -g "$1.pml" | tail -60
				fail=1
			else
				echo "ok: $2 ($1)"
			fi
		elif [ -n "$errors" ] && [ "$errors" -gt 0 ] && grep -q "$4" pan.log; then
			echo "ok: mutant $m caught in $1: $(grep -m1 "$4" pan.log)"
		else
			echo "not ok: mutant $m not caught in $1: the check cannot fail"; cat pan.log; fail=1
		fi
	done
}
# wait_wake.pml: the empty-queue skip of __wake_up() loses no sleeper;
# without the waker's barrier (mutant 1) or the sleeper's (mutant 2) it
# does (an invalid end state: the sleeper asleep for good).
tso_model wait_wake "no wake-up lost" \
	"a wake-up that skips an empty queue loses a sleeper" 'invalid end state'
# dynticks_snap.pml: the scan's locked read credits an idle CPU safely; as
# a plain load (mutant 1), or with idle exit's increment plain (mutant 2),
# a reader finds its object freed.
tso_model dynticks_snap "no reader finds its object freed" \
	"an idle CPU credited by the dynticks read hides a reader" 'assertion violated'
exit $fail
