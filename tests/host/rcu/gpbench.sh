#!/bin/sh
# tests/host/rcu/gpbench.sh BIN "CPUS..." ITERS [FANOUT] - the grace-period
# benchmark at each CPU count, idle and busy, with the rcu_node tree built
# for that many CPUs two ways: geometry=tree (FANOUT, default 4, at every
# level: levels = ceil(log_FANOUT N)) and geometry=flat (one node holding
# every CPU).  Each row gives root_acq (the root's QS-path lock
# acquisitions per GP), max_acq (the busiest node's) and report_depth
# (locks the root-emptying report took), beside the wall latency; gpbench
# asserts the structure (levels, depth, interior nodes taken at most once
# per child per GP).  Fails if any run fails.
bin=$1 cpus=$2 iters=$3 fanout=${4:-4} fail=0 out=${TMPDIR:-/tmp}/gpbench.$$
for n in $cpus; do
	for geom in tree flat; do
		for load in idle busy; do
			"$bin" --cpus "$n" --iters "$iters" --load "$load" --geometry "$geom" \
				--fanout "$fanout" > "$out" 2>&1 || fail=1
			grep -v '^\[' "$out"
		done
	done
done
rm -f "$out"
exit $fail
