#!/usr/bin/env python3
"""tests/judge.py: the verdict on one run of rcukern, from its serial
lines (and, for a QEMU run, run.sh's exit status and the runner's own
findings: a time limit, idle=, an oversize log, the hooks' statuses).

judge() turns a run into cases, PASS|FAIL|SKIP <config>/<path>: the KTAP
cases (tests/ktap_parser.py), each structural problem, each crash report
(a panic, Oops, BUG, hard lockup, UBSAN or stack-protector report, whose
register dump and backtrace are echoed), a WARNING no case announced
(outside the cases, or one the kernel's count missed), the hooks, forbid= matches, unknown kernel
options, and an exit status or a saved log's end that does not fit.  An expect=fail
configuration gets one case instead: it passes only if the run failed
the way its require= regexes say.  format_verdict() and summary_line()
give the lines tests/runner.py prints.
Only the Python standard library is used.
"""

import os
import re
import sys
from dataclasses import dataclass

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "tools"))
from benchrows import (bench_rows, build_lines, platform_lines, trace_line,  # noqa: E402
                       unknown_options)
from ktap_parser import Case, ktap_cases, parse_ktap  # noqa: E402
from qemu_run import EXIT_FAIL, EXIT_NO_EXIT, EXIT_OK, EXIT_QEMU  # noqa: E402

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
# WARNINGs no case announced

# One line per WARN() (kernel/panic.c warn_slowpath(); a lockdep report's
# own "WARNING: possible ..." header is not one), and the announcement
# ktap_expect_warnings() prints before a WARNING provoked on purpose.
_WARNING = re.compile(r"(?:^|\] )WARNING: CPU: \d+ at ")
_EXPECTED_WARNINGS = re.compile(r"^\s*# expected: (\d+) WARNINGs?\b")
_TRACE_LINE = re.compile(r"Call Trace:|\[<[0-9a-fA-F]+>\]")


def _case_spans(test, prefix, out):
    """(first, last, path, passed) of each case: the log lines from its
    predecessor's result line (or its suite's header) to its own result."""
    start = test.lineno
    for r in test.results:
        path = f"{prefix}/{r.name}" if prefix else r.name
        if r.subtest is not None and r.subtest.results:
            _case_spans(r.subtest, path, out)
        else:
            out.append((start + 1, r.lineno, path,
                        not r.unfinished and (r.ok or r.directive == "SKIP")))
        start = r.lineno
    return out


def unannounced_warnings(lines, docs, allow=()):
    """[(lineno, where, line)] of the WARNING lines nothing announced.

    A case's WARNINGs are the kernel's to judge (kernel/ktap.c fails a case
    that saw more than it announced); this counts them again, for the one
    the kernel could not see: printed after its count, before the result
    line.  A WARNING outside every case (during boot, between cases or
    suites, from a kthread whose case had ended, after the last suite)
    fails the run unless a "# expected: N WARNING(s)" line outside the
    cases came before it, or the configuration allows it (allow=)."""
    spans = []
    for d in docs:
        _case_spans(d.root, "", spans)
    spans.sort()
    per_case, found = {}, []
    pool = 0                    # announced outside the cases, unused
    for n, line in enumerate(lines, 1):
        w = _WARNING.search(line)
        e = None if w else _EXPECTED_WARNINGS.match(line)
        if not w and not e:
            continue
        span = next((s for s in spans if s[0] <= n <= s[1]), None)
        if span is not None:
            seen = per_case.setdefault(span, [0, 0, []])
            if w:
                seen[0] += 1
                seen[2].append(n)
            else:
                seen[1] += int(e.group(1))
            continue
        if e:
            pool += int(e.group(1))
        elif pool:
            pool -= 1
        elif not any(a.search(line) for a in allow):
            before = [s for s in spans if s[1] < n]
            where = f"after case {before[-1][2]}" if before else \
                "before the first case (boot)"
            found.append((n, where, line))
    for (first, last, path, passed), (seen, expected, at) in per_case.items():
        if passed and seen > expected:
            for n in at[expected:]:
                found.append((n, f"in case {path}, which passed having "
                              f"announced {expected}", lines[n - 1]))
    return sorted(found)


def warning_trace(lines, lineno, most=16):
    """The WARNING line and the backtrace printed after it."""
    out = [lines[lineno - 1]]
    for line in lines[lineno:lineno + most]:
        if not _TRACE_LINE.search(line):
            break
        out.append(line)
    return out


# --------------------------------------------------------------------------
# Whether a saved log finished

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
    build: list = ()            # the kernel's "# build:" lines


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
    # A trace dump (`T: ` lines) is neither KTAP nor a crash report, and
    # may be long: judged without it (blanked, so line numbers hold);
    # require= still sees it.
    raw = lines
    lines = ["" if trace_line(x) else x for x in lines]
    docs = parse_ktap(lines)
    cases, problems = ktap_cases(docs)
    notes = []
    extra = []                  # run-level failures, shown as cases

    shown = []

    def tail(n=20):
        """The log's last lines, for the notes: once, whichever
        findings ask for them."""
        if shown:
            return []
        shown.append(True)
        t = [x for x in raw if not trace_line(x)][-n:]
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

    # With cmdline.unknown=ignore the kernel says "was ignored" instead,
    # and the run is judged as if the options were not there.
    unknown = unknown_options(lines, ignored=False)
    if unknown:
        extra.append(Case("FAIL", "cmdline", "unknown kernel option(s) "
                          + ", ".join(f"'{u}'" for u in unknown)
                          + ": the run did something else than asked "
                          "(cmdline.unknown=ignore to go on)"))

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
        elif rc == EXIT_FAIL and ktap_failed:
            # A failed case's own lines seldom say why (torture's verdict is
            # one line); the kernel's messages before the exit usually do,
            # and CI keeps no log.
            notes += tail(30)
        elif rc == EXIT_FAIL and not ktap_failed:
            extra.append(Case("FAIL", "exit-status", "the kernel reported "
                              "failure (exit 1) but the log shows no failed case"))
            notes += tail()
        elif rc not in (EXIT_OK, EXIT_FAIL):
            extra.append(Case("FAIL", "exit-status", f"run.sh exited {rc}"))
            notes += tail()
    if not cases and not extra:
        extra.append(Case("FAIL", "ktap", "the KTAP output has no test cases"))

    # After the exit-status checks: the kernel does not count these.
    stray = unannounced_warnings(lines, docs, cfg.allow)
    if stray:
        n, where, line = stray[0]
        extra.append(Case("FAIL", "warning", f"{len(stray)} WARNING(s) no case "
                          f"announced; the first at log line {n}, {where}: "
                          f"{line.strip()}",
                          [(n, f"log line {n}, {where}: {x.strip()}")
                           for n, where, x in stray]))
        notes.append("the first one and its backtrace:")
        notes += ["| " + x for x in warning_trace(lines, n)]

    all_cases = cases + extra
    failed = any(c.status == "FAIL" for c in all_cases)
    bench = bench_rows(lines)
    platform = platform_lines(lines)
    build = build_lines(lines)

    if not cfg.expect_fail:
        return Verdict(cfg.name, all_cases, notes, not failed, bench, platform, build)

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
        if not any(rx.search(x) for x in raw):
            why.append(f"required /{rx.pattern}/ is not in the log")
    own = [f"seen: {c.status} {cfg.name}/{c.path}"
           + (f": {c.detail}" if c.detail else "") for c in all_cases]
    if why:
        verdict = Case("FAIL", "expected-failure", "; ".join(why))
        return Verdict(cfg.name, [verdict], own + notes, False, bench, platform, build)
    verdict = Case("PASS", "expected-failure", "failed as expected: "
                   + ", ".join(f"/{rx.pattern}/" for rx in cfg.require))
    return Verdict(cfg.name, [verdict], own, True, bench, platform, build)


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
