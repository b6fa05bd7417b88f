#!/bin/sh
# tests/host/rcu/run_scenarios.sh BIN MS - the combined scenarios of
# tests/torture-scenarios (tools/scenarios.py --host: each one's flavour,
# CPU count, rcu_node geometry and stressors, hotplug every 5 ms) on the
# host shim's torture BIN, MS milliseconds each.  The shim has no jitter,
# preemption model, tickless idle or timer-handler readers (irqreader),
# and its torture needs 2 CPUs: those parts are the QEMU runs'.
# Exits non-zero if any run failed (a TSan/ASan report fails BIN too).
bin=$1 ms=$2
root=$(dirname "$0")/../../..
fail=0
python3 "$root/tools/scenarios.py" --host > /tmp/rcu_scenarios.$$ || exit 1
while read -r name type cpus opts; do
	if [ "$cpus" -lt 2 ]; then	# torture_main.c needs a second CPU
		echo "# scenario $name: $cpus CPU, not run on the host (the shim's torture needs 2)"
		continue
	fi
	start=$(date +%s)
	# Bounded: one run hung once (SRCU-P, before issue 27's fixes); a
	# hang must fail this test, not stall make test.
	timeout 300 "$bin" --cpus "$cpus" --type "$type" --ms "$ms" --cmdline "$opts" > /tmp/rcu_scenario_out.$$ 2>&1
	rc=$?
	end=$(date +%s)
	tail -n 3 /tmp/rcu_scenario_out.$$
	echo "# scenario $name type=$type cpus=$cpus ms=$ms rc=$rc wall_s=$((end - start))"
	if [ $rc -ne 0 ]; then
		grep -m 5 -E "ERROR|WARNING|FAILURE|ThreadSanitizer|AddressSanitizer" /tmp/rcu_scenario_out.$$
		echo "FAILED: scenario $name ($type at $cpus CPUs, exit $rc)"
		fail=1
	fi
done < /tmp/rcu_scenarios.$$
rm -f /tmp/rcu_scenarios.$$ /tmp/rcu_scenario_out.$$
exit $fail
