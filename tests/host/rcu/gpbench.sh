#!/bin/sh
# tests/host/rcu/gpbench.sh BIN "CPUS..." ITERS [nogeom] - the grace-period
# benchmark at each CPU count (tree built for that many CPUs), idle and
# busy, then at the largest count with a flat tree (one leaf for all
# CPUs) and deep ones (leaf fanout 4 and 2), so geometries compare within
# one run.  Fails if any run fails.
bin=$1 cpus=$2 iters=$3 geom=${4:-geom} fail=0 last= out=${TMPDIR:-/tmp}/gpbench.$$
for n in $cpus; do
	for load in idle busy; do
		"$bin" --cpus "$n" --iters "$iters" --load "$load" > "$out" 2>&1 || fail=1
		grep -v '^\[' "$out"
	done
	last=$n
done
[ "$geom" = nogeom ] && { rm -f "$out"; exit $fail; }
for f in 64 4 2; do
	"$bin" --cpus "$last" --iters "$iters" --load busy \
		--cmdline "rcu.geometry_cpus=$last rcu.fanout_leaf=$f rcu.fanout=$f" > "$out" 2>&1 || fail=1
	grep -v '^\[' "$out"
done
rm -f "$out"
exit $fail
