#!/usr/bin/env python3
"""tests/runner.py: the test judge.  Boots rcukern in QEMU (through
./run.sh) once per configuration of tests/qemu-configs, saves the serial
output, and turns it into a verdict: one line per test case

    PASS|FAIL|SKIP <config>/<suite>/<case>

and, as the very last line, "N passed, N failed[, N skipped]".  The exit
status is non-zero on any failure.

A run fails when a case says "not ok" (with any directive but # SKIP),
when the KTAP output is malformed or stops early (a missing plan, a plan
that disagrees with the results, KTAP after a complete document, output
that ends inside a suite), when the log shows a kernel panic, an
Oops/BUG, a UBSAN report or a stack-protector report, when the kernel
does not exit by itself (reset, triple fault: QEMU runs with -no-reboot),
when QEMU did not start, or when the run outlives its time limit or
its idle limit (no serial output for idle= seconds).  A saved log must
show its end: the "# rcukern: exit status N" line, the "# ktap:" summary
or a panic; one that just stops is a run that did not finish.  A configuration may instead
expect a failure (expect=fail require=REGEX ...): it passes only if the
run fails and every required regex is in the log.

    python3 tests/runner.py                      every configuration
    python3 tests/runner.py --only boot-smp1     some of them
    python3 tests/runner.py --log saved.log      judge a saved serial log
                                                 (also one from a real PC)
    python3 tests/runner.py --list               show the configurations

Benchmark rows ("# bench name=... key=value ...") are not judged; they are
copied to build/test-logs/bench.txt with " config=NAME" appended.

Only the Python standard library is used.  The pure parts (config lines,
KTAP, crash reports, verdicts) are importable for tests/runner_test.py.
"""

import argparse
import concurrent.futures
import os
import re
import sys
import threading
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from benchrows import bench_rows, platform_lines  # noqa: E402
from ktap_parser import Case, ktap_cases, parse_ktap  # noqa: E402
from qemu_configs import Config, ConfigError, load_configs  # noqa: E402
from qemu_run import (EXIT_FAIL, EXIT_NO_EXIT, EXIT_OK, EXIT_QEMU,  # noqa: E402
                      read_lines, run_config, stop_runs_on_signals)

# --------------------------------------------------------------------------
# Crash reports

# Lines that mean the kernel went wrong, whatever KTAP says.
CRASH_PATTERNS = [
    ("panic", re.compile(r"Kernel panic - not syncing")),
    ("oops", re.compile(r"(?:^|\] )Oops: ")),
    ("bug", re.compile(r"(?:^|\] )BUG: ")),
    ("hard-lockup", re.compile(r"Watchdog detected hard LOCKUP")),
    ("ubsan", re.compile(r"UBSAN:")),
    ("stack-protector", re.compile(r"stack-protector|stack smashing",
                                   re.IGNORECASE)),
]

# The lines of a register dump and backtrace, echoed on a crash.
_DUMP = re.compile(
    r"Kernel panic|Oops: |BUG: |UBSAN:|stack-protector|stack smashing|"
    r"WARNING: |hard LOCKUP|NMI backtrace for|"
    r"\b(?:RIP|RSP|RAX|RDX|RBP|R10|R13|CR0|CR2):|Call Trace:|"
    r"\[<[0-9a-fA-F]+>\]|---\[ end ", re.IGNORECASE)
DUMP_MAX_LINES = 60


def find_crashes(lines, allow=()):
    """[(kind, lineno, line)] for crash lines not matched by an allow regex."""
    found = []
    for n, line in enumerate(lines, 1):
        for kind, rx in CRASH_PATTERNS:
            if rx.search(line) and not any(a.search(line) for a in allow):
                found.append((kind, n, line))
                break
    return found


def crash_dump(lines, first_lineno):
    """The register dump and backtrace lines from a little before the first
    crash line onwards (UBSAN reports keep the two lines after them)."""
    out, keep = [], 0
    for n in range(max(1, first_lineno - 20), len(lines) + 1):
        line = lines[n - 1]
        if _DUMP.search(line):
            out.append(line)
            keep = 2 if "UBSAN:" in line else 0
        elif keep:
            out.append(line)
            keep -= 1
        if len(out) >= DUMP_MAX_LINES:
            out.append("... (more in the log)")
            break
    return out


# --------------------------------------------------------------------------
# Benchmark rows

# bench_rows() and platform_lines() come from tools/benchrows.py, which
# tools/report.py shares.


_EXIT_LINE = re.compile(r"^# rcukern: exit status (\d+)$")
_KTAP_SUMMARY = re.compile(r"^# ktap: \d+ of \d+ suites failed$")
_PANIC = CRASH_PATTERNS[0][1]


def log_finished(lines):
    """Whether a saved log shows the end of a run: the kernel's exit status
    line, the KTAP summary after the last suite, or a panic.  Anything else
    stopped early (a hang, a cut serial line), whatever it printed before."""
    return any(_EXIT_LINE.match(x.strip()) or _KTAP_SUMMARY.match(x.strip())
               or _PANIC.search(x) for x in lines)


def logged_exit_status(lines):
    """run.sh's status as the kernel's own last "# rcukern: exit status N"
    line implies it (0 success, 1 failure, 2 panic), for saved logs; None
    if the log has no such line."""
    for line in reversed(lines):
        m = _EXIT_LINE.match(line.strip())
        if m:
            return EXIT_OK if m.group(1) == "0" else EXIT_FAIL
    return None


# --------------------------------------------------------------------------
# The verdict on one run

@dataclass
class Verdict:
    config: str
    cases: list                 # [Case] as shown
    notes: list                 # extra lines shown under the config
    passed: bool
    bench: list
    platform: list


def judge(cfg, lines, rc=None, timed_out=False, stderr_text="",
          oversize=False, hooks=(), idled=False):
    """Judges one run.  rc is run.sh's exit status (None when judging a saved
    log: no exit status checks then).  hooks: [(name, status, output)] of
    the configuration's during=/check= commands (status None: not run)."""
    if rc == EXIT_QEMU and not timed_out:
        # Nothing ran: the log says nothing about the kernel.
        said = [x.strip() for x in stderr_text.splitlines() if x.strip()]
        qemu = list(dict.fromkeys(x for x in said if x.startswith("qemu"))) \
            or said[-3:]
        case = Case("FAIL", "qemu", "QEMU did not start: "
                    + (" / ".join(qemu) or "it gave no reason"))
        return Verdict(cfg.name, [case], [], False, [], [])
    docs = parse_ktap(lines)
    cases, problems = ktap_cases(docs)
    notes = []
    extra = []                  # run-level failures, shown as cases

    def tail(n=20):
        t = lines[-n:]
        out = [f"last {len(t)} line(s) of the serial output:"]
        out += ["| " + x for x in t] if t else ["| (nothing at all)"]
        err = [x for x in stderr_text.splitlines() if x.strip()][-5:]
        if err:
            out += ["run.sh said:"] + ["| " + x for x in err]
        return out

    for p in problems:
        path = p.where if "#" in p.where.rsplit("/", 1)[-1] else \
            (p.where + "/" if p.where else "") + "ktap"
        extra.append(Case("FAIL", path, f"{p.what} (log line {p.lineno})"))
    if not docs:
        extra.append(Case("FAIL", "ktap", "no KTAP output (no 'KTAP version 1' "
                          "line)"))

    crashes = find_crashes(lines, cfg.allow)
    if crashes:
        kinds = []
        for kind, _, _ in crashes:
            if kind not in kinds:
                kinds.append(kind)
        first = crashes[0]
        extra.append(Case("FAIL", "crash", f"{', '.join(kinds)} at log line "
                          f"{first[1]}: {first[2].strip()}"))
        notes.append("register dump and backtrace from the log:")
        notes += ["| " + x for x in crash_dump(lines, first[1])]

    for name, status, output in hooks:
        if status == 0:
            extra.append(Case("PASS", name))
            continue
        why = "it never started: " + output if status is None else \
            f"exit status {status}"
        extra.append(Case("FAIL", name, f"the {name}= command failed ({why})",
                          [(0, x) for x in output.splitlines()[-15:]]))

    for rx in cfg.forbid:
        hit = next((n for n, x in enumerate(lines, 1) if rx.search(x)), None)
        if hit:
            extra.append(Case("FAIL", "forbid", f"/{rx.pattern}/ matched at "
                              f"log line {hit}: {lines[hit - 1].strip()}"))

    if not crashes and not timed_out and not oversize and \
            any(p.truncated for p in problems):
        notes += tail()         # what it was doing when the output stopped
    if idled:
        extra.append(Case("FAIL", "timeout", f"no serial output for "
                          f"{cfg.idle:g} s (idle=); the run was killed"))
        notes += tail()
    elif timed_out:
        extra.append(Case("FAIL", "timeout", f"no exit within {cfg.timeout:g} s; "
                          "the run was killed"))
        notes += tail()
    elif oversize:
        extra.append(Case("FAIL", "log-size", "the serial log grew past its "
                          "limit; the run was killed"))
        notes += tail()
    elif rc is None and lines and not log_finished(lines):
        extra.append(Case("FAIL", "unfinished", "the log has no '# rcukern: "
                          "exit status N' line, no '# ktap:' summary and no "
                          "panic: the run did not finish (a hang, or the "
                          "serial output was cut)"))
        notes += tail()
    elif rc is not None:
        ktap_failed = any(c.status == "FAIL" for c in cases + extra)
        if rc == EXIT_NO_EXIT:
            extra.append(Case("FAIL", "reset", "no exit from the kernel: reset, "
                              "triple fault or QEMU quit (-no-reboot)"))
            notes += tail()
        elif rc == EXIT_OK and ktap_failed:
            extra.append(Case("FAIL", "exit-status", "the kernel exited with "
                              "success although the run failed"))
        elif rc == EXIT_FAIL and not ktap_failed:
            extra.append(Case("FAIL", "exit-status", "the kernel reported "
                              "failure (exit 1) but the log shows no failed case"))
            notes += tail()
        elif rc not in (EXIT_OK, EXIT_FAIL):
            extra.append(Case("FAIL", "exit-status", f"run.sh exited {rc}"))
            notes += tail()
    if not cases and not extra:
        extra.append(Case("FAIL", "ktap", "the KTAP output has no test cases"))

    all_cases = cases + extra
    failed = any(c.status == "FAIL" for c in all_cases)
    bench = bench_rows(lines)
    platform = platform_lines(lines)

    if not cfg.expect_fail:
        return Verdict(cfg.name, all_cases, notes, not failed, bench, platform)

    # Expected to fail: one verdict line, the run's own lines as notes.
    why = []
    if not failed:
        why.append("the run passed but this configuration expects a failure")
    if timed_out or oversize:
        why.append("it failed by hanging, not in the expected way")
    elif rc is None and lines and not log_finished(lines):
        why.append("the log did not finish (no exit status line, no KTAP "
                   "summary, no panic)")
    elif rc == EXIT_NO_EXIT:
        why.append("it failed by a reset/triple fault, not by reporting the "
                   "failure and exiting")
    for rx in cfg.require:
        if not any(rx.search(x) for x in lines):
            why.append(f"required /{rx.pattern}/ is not in the log")
    own = [f"seen: {c.status} {cfg.name}/{c.path}"
           + (f": {c.detail}" if c.detail else "") for c in all_cases]
    if why:
        verdict = Case("FAIL", "expected-failure", "; ".join(why))
        return Verdict(cfg.name, [verdict], own + notes, False, bench, platform)
    verdict = Case("PASS", "expected-failure", "failed as expected: "
                   + ", ".join(f"/{rx.pattern}/" for rx in cfg.require))
    return Verdict(cfg.name, [verdict], own, True, bench, platform)


def format_verdict(v, verbose=False):
    """The lines printed for one run."""
    out = []
    for c in v.cases:
        line = f"{c.status} {v.config}/{c.path}"
        if c.status != "PASS" and c.detail:
            line += f"  ({c.detail})"
        out.append(line)
        if c.status == "FAIL" or verbose:
            shown = [d for _, d in c.diags][-15:]
            out += ["    " + d for d in shown]
    out += ["    " + n for n in v.notes]
    return out


def summary_line(verdicts):
    cases = [c for v in verdicts for c in v.cases]
    p = sum(c.status == "PASS" for c in cases)
    f = sum(c.status == "FAIL" for c in cases)
    s = sum(c.status == "SKIP" for c in cases)
    line = f"{p} passed, {f} failed"
    if s:
        line += f", {s} skipped"
    return line, f


# --------------------------------------------------------------------------
# Command line

def start_bench(path):
    with open(path, "w") as f:
        f.write("# bench rows collected by tests/runner.py; config= names "
                "the run\n")


def append_bench(v, path):
    """Adds one run's rows as soon as it ends, so an interrupted sweep keeps
    what it measured."""
    with open(path, "a") as f:
        for p in v.platform:
            f.write(f"# platform: {p} config={v.config}\n")
        for row in v.bench:
            f.write(f"# bench {row} config={v.config}\n")


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Boot rcukern in QEMU per configuration and judge the "
                    "KTAP output.")
    ap.add_argument("--config", default=os.path.join(ROOT, "tests", "qemu-configs"),
                    help="configuration file (default tests/qemu-configs)")
    ap.add_argument("--only", action="append", default=[],
                    help="run only these configurations (NAME[,NAME])")
    ap.add_argument("--log", action="append", default=[],
                    help="judge this saved serial log instead of booting "
                         "(repeatable; with --only NAME it is judged as "
                         "that configuration)")
    ap.add_argument("--jobs", type=int, default=1,
                    help="QEMU runs at once (default 1: TCG -smp 16 is heavy)")
    ap.add_argument("--log-dir", default=os.path.join(ROOT, "build", "test-logs"))
    ap.add_argument("--timeout-scale", type=float,
                    default=float(os.environ.get("RUNNER_TIMEOUT_SCALE", "1")),
                    help="multiply every time limit (slow machines)")
    ap.add_argument("--run-sh", default=os.environ.get("RUNNER_RUN_SH",
                                                       os.path.join(ROOT, "run.sh")),
                    help=argparse.SUPPRESS)
    ap.add_argument("--list", action="store_true", help="list configurations")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="show diagnostics of passing cases too")
    args = ap.parse_args(argv)

    try:
        configs = load_configs(args.config, ROOT) if (os.path.exists(args.config)
                                                 or not args.log) else []
    except (OSError, ConfigError) as e:
        print(f"runner: {e}", file=sys.stderr)
        return 2
    only = [n for o in args.only for n in o.split(",") if n]
    by_name = {c.name: c for c in configs}
    unknown = [n for n in only if n not in by_name and not args.log]
    if unknown:
        print(f"runner: no configuration named {', '.join(unknown)}; "
              f"configurations are: {', '.join(by_name) or '(none)'}",
              file=sys.stderr)
        return 2
    if args.list:
        for c in configs:
            flags = (" uefi" if c.uefi else "") + \
                    (f" machine={c.machine}" if c.machine else "") + \
                    (" expect=fail" if c.expect_fail else "")
            print(f"{c.name}: {c.cpus} CPU(s), {c.mem} MB, {c.timeout:g} s, "
                  f"idle {c.idle:g} s"
                  f"{flags}, cmdline '{c.cmdline}'")
        return 0
    os.makedirs(args.log_dir, exist_ok=True)
    print_lock = threading.Lock()

    def emit(lines):
        with print_lock:
            for x in lines:
                print(x)
            sys.stdout.flush()

    verdicts = []
    if args.log:
        if len(only) > 1 or (only and len(args.log) > 1):
            print("runner: with --log, --only names at most one configuration",
                  file=sys.stderr)
            return 2
        for path in args.log:
            try:
                lines = read_lines(path)
            except OSError as e:
                print(f"runner: {e}", file=sys.stderr)
                return 2
            if only:
                cfg = by_name.get(only[0]) or Config(name=only[0])
            else:
                stem = os.path.splitext(os.path.basename(path))[0]
                cfg = by_name.get(stem) or Config(name=stem)
            v = judge(cfg, lines, logged_exit_status(lines))
            emit(format_verdict(v, args.verbose))
            verdicts.append(v)
    else:
        todo = [c for c in configs if not only or c.name in only]
        if not todo:
            print("runner: no configurations to run", file=sys.stderr)
            return 2
        iso = os.environ.get("RCUKERN_ISO", os.path.join(ROOT, "build",
                                                         "rcukern.iso"))
        if args.run_sh == os.path.join(ROOT, "run.sh") and \
                not os.path.isfile(os.path.join(ROOT, iso)):
            print(f"runner: {iso} is missing: run make first", file=sys.stderr)
            print("0 passed, 1 failed")
            return 1

        stop_runs_on_signals()
        bench_path = os.path.join(args.log_dir, "bench.txt")
        start_bench(bench_path)

        def one(cfg):
            emit([f"# run {cfg.name}: {cfg.cpus} CPU(s), {cfg.mem} MB"
                  + (", UEFI" if cfg.uefi else "")
                  + (f", {cfg.machine}" if cfg.machine else "")
                  + f", limit {cfg.timeout * args.timeout_scale:g} s"
                  f" (idle {cfg.idle * args.timeout_scale:g} s), "
                  f"cmdline '{cfg.cmdline}'"])
            o = run_config(cfg, args.run_sh, args.log_dir, args.timeout_scale)
            v = judge(cfg, read_lines(o.log_path), o.rc, o.timed_out,
                      o.stderr_text, o.oversize, o.hooks, o.idled)
            out = format_verdict(v, args.verbose)
            rel = os.path.relpath(o.log_path)
            out.append(f"# {cfg.name}: {'ok' if v.passed else 'FAILED'} in "
                       f"{o.elapsed:.0f} s (longest silence "
                       f"{o.longest_quiet:.0f} s of idle={cfg.idle * args.timeout_scale:g}), "
                       f"exit {o.rc}, log {rel}")
            with print_lock:
                append_bench(v, bench_path)
            emit(out)
            return v

        with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
            verdicts = list(pool.map(one, todo))

    line, failed = summary_line(verdicts)
    print(line)
    return 1 if failed or not all(v.passed for v in verdicts) else 0


if __name__ == "__main__":
    sys.exit(main())
