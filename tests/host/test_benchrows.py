#!/usr/bin/env python3
"""tests/host/test_benchrows.py: every benchmark row the kernel prints
goes through printk_bench() (kernel/printk.c; ktap_log() calls it for a
"bench " line), the one place that adds `tsc_skew_cycles=N` to a row
measured while the CPUs' TSCs disagree.  A row printed with printk() or
printk_raw() directly would leave a skewed figure unmarked on a real PC
(QEMU's TSCs are always in step, so no QEMU run can see it).  Reads the
C sources, comments removed, for a string literal holding "# bench".
A row states a measurement, never a verdict (docs/design.md): no row's
format may carry a goal or its verdict (`goal=`, `met=`, a name with
"goal"), which a passing case below it would seem to confirm; the
report judges the goals.
Prints PASS/FAIL per check."""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SRC_DIRS = ("arch", "kernel", "rcu", "tests/kernel", "tests/scenarios")
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def direct_rows(text):
    """Line numbers of string literals that print a bench row themselves."""
    code = COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    hits = []
    for m in STRING.finditer(code):
        if re.search(r"#\s*bench\b", m.group(0)):
            hits.append(code.count("\n", 0, m.start()) + 1)
    return hits


VERDICT = re.compile(r"\bgoal|\bmet=|_goal")


def verdict_rows(text):
    """Line numbers of bench-row format strings that carry a goal or a
    verdict (a KTAP diagnostic "bench name=..." or a "# bench" literal)."""
    code = COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    hits = []
    # A format split over adjacent literals ("... " "goal=20 ...") is one.
    for m in re.finditer(STRING.pattern + r"(?:\s*" + STRING.pattern + ")*", code):
        if re.search(r"\bbench\s+name=", m.group(0)) and VERDICT.search(m.group(0)):
            hits.append(code.count("\n", 0, m.start()) + 1)
    return hits


def sources():
    for d in SRC_DIRS:
        for dirpath, _, files in os.walk(os.path.join(ROOT, d)):
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    yield os.path.join(dirpath, f)


def scan(finder, name, why):
    """Runs finder(text) -> [line] on every source; prints PASS or FAIL
    name with each place found; returns 1 if it found any."""
    bad = []
    for path in sources():
        with open(path, errors="replace") as fh:
            for line in finder(fh.read()):
                bad.append(f"{os.path.relpath(path, ROOT)}:{line}")
    if not bad:
        print(f"PASS {name}")
        return 0
    print(f"FAIL {name}: {why}:")
    for b in bad:
        print("    " + b)
    return 1


def main():
    failed = scan(direct_rows, "benchrows_through_printk_bench",
                  "these print a '# bench' row themselves, so it never "
                  "carries tsc_skew_cycles=")
    failed += scan(verdict_rows, "benchrows_state_no_verdict",
                   "these rows carry a goal or its verdict (the report "
                   "judges goals; a row is a figure)")
    vprobe = ('/* bench name=x goal=1 */ ktap_log("bench name=x n=%d", 1);\n'
              'ktap_log("bench name=gp_ratio cpus=%d goal=20 met=%s", n, m);\n'
              'ktap_log("bench name=gp_ratio cpus=%d "\n   "goal=20 met=%s", n, m);\n')
    if verdict_rows(vprobe) == [2, 3]:
        print("PASS benchrows_verdict_probe")
    else:
        failed += 1
        print(f"FAIL benchrows_verdict_probe: found {verdict_rows(vprobe)}, want [2, 3]")
    # The check itself must see a direct row, and only outside comments.
    probe = ('/* `# bench name=x` */ ktap_log("bench name=x");\n'
             'printk_raw("# bench name=y\\n");\n')
    if direct_rows(probe) == [2]:
        print("PASS benchrows_probe")
    else:
        failed += 1
        print(f"FAIL benchrows_probe: found {direct_rows(probe)}, want [2]")
    print("benchrows: " + ("all checks passed" if not failed else f"{failed} failed"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
