#!/usr/bin/env bash
# tools/test.sh: what `make test` runs.  The host unit tests, then the
# sanitizer build of the kernel booted in QEMU once per line of
# tests/qemu-configs (tests/runner.py judges each run from its KTAP
# output).  Each stage runs even when the one before failed, so one report
# covers everything; the last line adds the two up as "N passed, N failed"
# (what CI reads), and the exit status is non-zero on any failure.
#
#   tools/test.sh [runner options]     e.g. --only boot-smp16 --jobs 2
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p build
PYTHON=${PYTHON:-python3}

count() {       # count FILE PATTERN: the first number before PATTERN on the last matching line
	grep -Eo "[0-9]+ $2" "$1" | tail -n 1 | grep -Eo '^[0-9]+' || echo 0
}

hp=0 hf=0
if [ -z "${RCUKERN_SKIP_HOST:-}" ]; then
	make -C tests/host 2>&1 | tee build/host-tests.out
	hrc=${PIPESTATUS[0]}
	if grep -q '^host tests: ' build/host-tests.out; then
		hp=$(count build/host-tests.out passed)
		hf=$(count build/host-tests.out failed)
	fi
	# A host build that broke before its summary still counts as a failure.
	if [ "$hrc" -ne 0 ] && [ "$hf" -eq 0 ]; then hf=1; fi
fi

qp=0 qf=0
if make BUILD=build/test SANITIZE=1 iso; then
	RCUKERN_ISO=build/test/rcukern.iso $PYTHON tests/runner.py "$@" 2>&1 |
		tee build/qemu-tests.out
	qrc=${PIPESTATUS[0]}
	last=$(grep -E '^[0-9]+ passed, [0-9]+ failed' build/qemu-tests.out | tail -n 1)
	if [ -n "$last" ]; then
		qp=$(echo "$last" | grep -Eo '^[0-9]+')
		qf=$(echo "$last" | grep -Eo '[0-9]+ failed' | grep -Eo '^[0-9]+')
	fi
	if [ "$qrc" -ne 0 ] && [ "$qf" -eq 0 ]; then qf=1; fi
else
	echo "FAIL build of build/test/rcukern.iso"
	qf=1
fi

echo "# host tests: $hp passed, $hf failed; QEMU runs: $qp passed, $qf failed"
echo "$((hp + qp)) passed, $((hf + qf)) failed"
[ $((hf + qf)) -eq 0 ]
