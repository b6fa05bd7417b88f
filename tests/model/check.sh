#!/bin/sh
# tests/model/check.sh [short|long] - model-check rcu_dynticks.pml with spin:
# the model must verify (no assertion violated, search complete), and each
# mutant (-DMUTANT=1..3) must be caught (spin reports an assertion
# violation).  Prints the state counts.  short (make test): 3 CPUs, one
# with nested irq/NMI entry and idle, one busy, one idle; two grace
# periods.  long (make verify): all three CPUs active, the plain ones
# going idle too (much bigger).  Exit 0 only if everything came out as
# expected.
mode=${1:-short}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/rcumodel.XXXXXX")
trap 'rm -rf "$work"' EXIT
command -v spin >/dev/null || { echo "not ok: spin not installed (tools/deps.sh installs it)"; exit 1; }
case $mode in
short) cfg="-DNCPU=3 -DNHCPU=1 -DNACTIVE=2"; mem=1024 ;;
long) cfg="-DNCPU=3 -DNHCPU=1 -DNACTIVE=3 -DPLAIN_IDLE"; mem=6144 ;;
*) echo "usage: $0 [short|long]"; exit 2 ;;
esac
cp "$here/rcu_dynticks.pml" "$work/"
cd "$work" || exit 1
fail=0
for m in 0 1 2 3; do
	rm -f pan pan.* ./*.trail
	# A mutant breaks the first grace period already: one is enough.
	mcfg=$cfg
	[ $m -ne 0 ] && mcfg="$cfg -DMAXGP=1"
	spin -a $mcfg -DMUTANT=$m rcu_dynticks.pml > spin.log 2>&1 || { cat spin.log; echo "not ok: spin -a failed"; exit 1; }
	# -w: spin's generated C has a benign -Wstringop-overflow
	${CC:-cc} -O2 -w -DSAFETY -DCOLLAPSE -DMEMLIM=$mem -o pan pan.c || { echo "not ok: pan build failed"; exit 1; }
	./pan -m10000000 > pan.log 2>&1
	errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' pan.log | tail -1)
	stored=$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' pan.log | tail -1)
	matched=$(sed -n 's/^ *\([0-9.e+]*\) states, matched.*/\1/p' pan.log | tail -1)
	depth=$(sed -n 's/.*depth reached \([0-9]*\).*/\1/p' pan.log | tail -1)
	echo "# model mode=$mode mutant=$m errors=${errors:-?} stored=${stored:-?} matched=${matched:-?} depth=${depth:-?}"
	if [ $m -eq 0 ]; then
		if [ "$errors" != 0 ] || grep -q 'max search depth too small\|out of memory' pan.log; then
			echo "not ok: the model of rcu/tree.c violates its property (or the search was cut short)"
			cat pan.log; [ -f rcu_dynticks.pml.trail ] && spin -t -p -g $cfg rcu_dynticks.pml | tail -60
			fail=1
		else
			echo "ok: no grace period ends under a pre-existing reader ($cfg, MAXGP 2)"
		fi
	else
		if [ -n "$errors" ] && [ "$errors" -gt 0 ] && grep -q 'assertion violated' pan.log; then
			echo "ok: mutant $m caught: $(grep -m1 'assertion violated' pan.log)"
		else
			echo "not ok: mutant $m not caught: the check cannot fail"; cat pan.log; fail=1
		fi
	fi
done
exit $fail
