#!/bin/sh
# tests/host/rcu/run_torture.sh BIN CPUS MS [TYPES...] - every torture
# flavour of rcu/torture.c on the host build BIN at CPUS shim CPUs for MS
# milliseconds each; `busted` must be reported as FAILURE (--expect-fail).
# Exits non-zero if any run did not end as expected (including a TSan or
# ASan report, which makes BIN exit non-zero).
# TORTURE_CMDLINE, if set, is the kernel command line of every run (e.g.
# torture.onoff_interval=5 for CPU hotplug throughout); TORTURE_SHIM_ARGS,
# if set, more options of the shim itself (e.g. --move-delay-us 20000).
bin=$1 cpus=$2 ms=$3
shift 3
types=${*:-"sched sched-expedited sched-async sched-polled busted"}
fail=0
for t in $types; do
	extra=
	[ "$t" = busted ] && extra=--expect-fail
	start=$(date +%s.%N)
	"$bin" --cpus "$cpus" --type "$t" --ms "$ms" $extra ${TORTURE_CMDLINE:+--cmdline "$TORTURE_CMDLINE"} $TORTURE_SHIM_ARGS
	rc=$?
	end=$(date +%s.%N)
	echo "# run type=$t cpus=$cpus ms=$ms rc=$rc wall_s=$(echo "$end - $start" | bc 2>/dev/null || echo ?)"
	[ $rc -eq 0 ] || { echo "FAILED: $t at $cpus CPUs (exit $rc)"; fail=1; }
done
exit $fail
