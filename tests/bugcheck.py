#!/usr/bin/env python3
"""tests/bugcheck.py - a check= hook of tests/qemu-configs for the runs
that provoke the kernel's debug reports on purpose (sched.provoke_bugs).

    python3 tests/bugcheck.py LOG REGEX [REGEX ...]

Each REGEX must match some line of the serial LOG, and every line it
matches must be followed, within a few lines printed by the same CPU, by
a "Call Trace:" line: each report must come with a backtrace.
The runner's allow= hides these BUG lines from the crash check; this is
what proves they were printed, and printed whole.  Exit status 0 when all
hold, 1 (saying which failed) otherwise.
"""
import re
import sys

WINDOW = 4          # lines of the same CPU between the report and its trace
CPU = re.compile(r"^\[c(\d+)\] ")


def clean(line):
    return re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", line).rstrip("\r\n")


def check(lines, pattern):
    rx = re.compile(pattern)
    hits = [i for i, l in enumerate(lines) if rx.search(l)]
    if not hits:
        return [f"no line matches {pattern!r}"]
    errors = []
    for i in hits:
        m = CPU.match(lines[i])
        cpu = m.group(1) if m else None
        seen = 0
        for l in lines[i + 1:]:
            mm = CPU.match(l)
            if cpu is not None and (not mm or mm.group(1) != cpu):
                continue            # another CPU's (or a KTAP) line between
            if "Call Trace:" in l:
                break
            seen += 1
            if seen >= WINDOW:
                errors.append(f"line {i + 1} ({lines[i].strip()!r}): no Call Trace "
                              f"within {WINDOW} lines of CPU {cpu}")
                break
        else:
            errors.append(f"line {i + 1}: log ends before its Call Trace")
    return errors


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    with open(argv[1], errors="replace") as f:
        lines = [clean(l) for l in f]
    errors = []
    for pattern in argv[2:]:
        errors += check(lines, pattern)
    for e in errors:
        print("bugcheck:", e)
    if not errors:
        print(f"bugcheck: {len(argv) - 2} kinds of report, each with a backtrace")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
