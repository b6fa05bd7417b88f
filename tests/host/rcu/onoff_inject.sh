#!/bin/sh
# tests/host/rcu/onoff_inject.sh BIN CPUS - the onoff torture with
# rcu_report_dead() turned off (rcu.inject=report_dead, test build BIN):
# a grace period then waits for ever for the CPU that went offline, so the
# run must report an RCU stall naming a CPU and must not succeed.  It
# cannot end by itself (cpu_down() waits in synchronize_sched()), so the
# wait is bounded here: the stall is reported after 2 s, the run killed
# after 10.
bin=$1 cpus=$2
out=$(mktemp)
timeout 10 "$bin" --cpus "$cpus" --type sched --ms 1000 \
	--cmdline "rcu.inject=report_dead rcu.stall_timeout_ms=2000 torture.onoff_interval=5 torture.onoff_min=10" \
	>"$out" 2>&1
rc=$?
grep -E "onoff|detected stall|^\[c[0-9]+\] rcu: 	[0-9]+-|End of test|^ok|^not ok" "$out" | head -20
if [ $rc -ne 0 ] && grep -q "rcu_sched detected stalls on CPUs" "$out"; then
	echo "ok: rcu.inject=report_dead caught by the onoff torture (stall reported, exit $rc)"
	rm -f "$out"
	exit 0
fi
echo "not ok: rcu.inject=report_dead was not caught by the onoff torture (exit $rc)"
rm -f "$out"
exit 1
