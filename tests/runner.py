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
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from benchrows import ANSI, bench_rows, platform_lines  # noqa: E402
from qemu_configs import Config, ConfigError, load_configs  # noqa: E402

# --------------------------------------------------------------------------
# Serial log clean-up

_CTRL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def clean_lines(data):
    """Serial bytes -> text lines: CRs, terminal escapes (GRUB, firmware)
    and other control characters removed."""
    if isinstance(data, bytes):
        data = data.decode("utf-8", errors="replace")
    data = data.replace("\r\n", "\n")
    out = []
    for line in data.split("\n"):
        # A bare CR redraws the line: keep what was written last.
        if "\r" in line:
            parts = [p for p in line.split("\r") if p.strip()]
            line = parts[-1] if parts else ""
        line = ANSI.sub("", line)
        line = _CTRL.sub("", line.replace("\t", "    "))
        out.append(line.rstrip())
    if out and out[-1] == "":
        out.pop()
    return out


# --------------------------------------------------------------------------
# KTAP version 1 (as Linux's KUnit prints it)

_VERSION = re.compile(r"(?:KTAP|TAP) version (\d+)$")
_SUBTEST = re.compile(r"# Subtest: (.*\S)")
_PLAN = re.compile(r"1\.\.(\d+)(?:\s*#.*)?$")
_RESULT = re.compile(r"(not )?ok (\d+)(?:\s+-)?(?:\s+([^#]*?))?\s*(?:#\s*(.*))?$")


@dataclass
class Result:
    ok: bool
    num: int
    name: str
    directive: str        # "SKIP", "TODO" or ""
    comment: str          # the text after '#', e.g. the skip reason
    lineno: int
    diags: list           # diagnostic lines of this case (before its result)
    subtest: "Test" = None
    unfinished: bool = False  # no result line: attached by the parser


@dataclass
class Test:
    indent: int
    lineno: int
    name: str = None
    plan: int = None
    results: list = field(default_factory=list)
    pending_diags: list = field(default_factory=list)
    closed: bool = False  # a result line at the parent level ended it


@dataclass
class Problem:
    where: str            # suite path, e.g. "mm" or "" for the document
    what: str
    lineno: int
    truncated: bool = False   # output stopped or restarted inside a test


class KtapDoc:
    def __init__(self, root):
        self.root = root
        self.problems = []
        self.overrun = False    # KTAP lines came after it was complete


def _classify(body):
    m = _VERSION.match(body)
    if m:
        return "version", m
    m = _SUBTEST.match(body)
    if m:
        return "subtest", m
    m = _PLAN.match(body)
    if m:
        return "plan", m
    m = _RESULT.match(body)
    if m:
        return "result", m
    if body.startswith("#"):
        return "diag", None
    return "other", None


def _test_name(t, fallback):
    return t.name or fallback


def parse_ktap(lines):
    """Parses every KTAP document in the lines.  Returns the list of
    KtapDoc; structural problems (missing plan, miscount, output that stops
    or restarts inside a suite) are in each doc's .problems.  Lines that are
    not KTAP (printk output, firmware noise) are ignored here."""
    docs = []
    stack = []            # open tests, innermost last
    doc = None

    def path_of(depth):
        names = []
        for i in range(1, depth + 1):
            t = stack[i]
            names.append(_test_name(t, f"#{len(stack[i - 1].results) + 1}"))
        return "/".join(names)

    def close_unfinished(to_indent, lineno, why):
        """Pops tests deeper than to_indent that never got a result line."""
        while len(stack) > 1 and stack[-1].indent > to_indent:
            t = stack[-1]
            doc.problems.append(Problem(path_of(len(stack) - 1), why, lineno,
                                        True))
            stack.pop()
            # Keep what it printed: attach it to its parent as a case that
            # never reported, so its own results are still shown.
            parent = stack[-1]
            parent.results.append(Result(False, len(parent.results) + 1,
                                         _test_name(t, "?"), "", "no result line",
                                         lineno, t.pending_diags, t, True))

    for lineno, line in enumerate(lines, 1):
        body = line.lstrip(" ")
        indent = len(line) - len(body)
        kind, m = _classify(body)
        if kind == "other":
            continue
        if not stack:
            if kind == "version" and (doc is None
                                      or indent <= doc.root.indent):
                doc = KtapDoc(Test(indent, lineno))
                docs.append(doc)
                stack = [doc.root]
            elif doc is not None and kind != "diag" \
                    and indent >= doc.root.indent and not doc.overrun:
                # KTAP after a complete document (more suites than its
                # plan, or a stray result) is output the plan did not
                # announce: a failure, never silently dropped.
                doc.overrun = True
                doc.problems.append(Problem(
                    "", f"KTAP output after the plan 1..{doc.root.plan} was "
                    f"complete, at line {lineno}: {body}", lineno))
            continue
        base = stack[0].indent
        if indent < base:
            continue            # not part of this document
        top = stack[-1]

        if kind == "diag":
            # Diagnostics never change the structure; they belong to the
            # innermost open test at or above their indentation.
            owner = top
            for t in reversed(stack):
                if t.indent <= indent:
                    owner = t
                    break
            owner.pending_diags.append((lineno, body))
            continue

        if kind == "version":
            if indent > top.indent:
                stack.append(Test(indent, lineno))
                continue
            if indent == base and len(stack) == 1 and doc.root.results \
                    and doc.root.plan is not None \
                    and len(doc.root.results) >= doc.root.plan:
                stack = []      # a complete document was followed by another
                doc = KtapDoc(Test(indent, lineno))
                docs.append(doc)
                stack = [doc.root]
                continue
            inner_open = len(stack) > 1
            close_unfinished(indent - 1, lineno,
                             f"output restarted (a new KTAP header at line "
                             f"{lineno}) inside this suite")
            if indent == base:
                if not inner_open:
                        doc.problems.append(Problem(
                        "", f"KTAP output restarted at line {lineno} before "
                        "the plan was complete", lineno, True))
                doc = KtapDoc(Test(indent, lineno))
                docs.append(doc)
                stack = [doc.root]
            else:
                stack.append(Test(indent, lineno))
            continue

        if kind == "result":
            child = None
            if indent > top.indent:
                # Results deeper than any header: a subtest with no header
                # and no plan (the missing plan is reported when it closes).
                stack.append(Test(indent, lineno))
            elif indent < top.indent:
                # The result line of a subtest comes at the parent's level
                # right after the subtest's own lines: it closes the test
                # just inside that level; anything deeper never finished.
                inner = next(t for t in stack if t.indent > indent)
                close_unfinished(inner.indent, lineno,
                                 "ended without a result line (output "
                                 "resumed at an outer level)")
                child = stack.pop()
                child.closed = True
            top = stack[-1]
        elif indent < top.indent:
            close_unfinished(indent, lineno,
                             "ended without a result line (output "
                             "resumed at an outer level)")
            top = stack[-1]
            if indent > top.indent:
                stack.append(Test(indent, lineno))
                top = stack[-1]

        if kind == "subtest":
            if indent > top.indent:
                stack.append(Test(indent, lineno, name=m.group(1)))
            elif top.name is None and not top.results and top is not stack[0]:
                top.name = m.group(1)
            else:
                top.pending_diags.append((lineno, body))
            continue

        if kind == "plan":
            if indent > top.indent:
                stack.append(Test(indent, lineno))
                top = stack[-1]
            if top.plan is not None:
                doc.problems.append(Problem(path_of(len(stack) - 1),
                                            f"a second plan at line {lineno}",
                                            lineno))
            else:
                top.plan = int(m.group(1))
            continue

        # A result line, for top.
        neg, num, name, comment = m.group(1), int(m.group(2)), \
            (m.group(3) or "").strip(), (m.group(4) or "").strip()
        directive = ""
        word = comment.split(" ", 1)[0].upper() if comment else ""
        if word in ("SKIP", "TODO"):
            directive = word
            comment = comment[len(word):].strip()
        expected = len(top.results) + 1
        if num != expected:
            doc.problems.append(Problem(path_of(len(stack) - 1),
                                        f"result numbered {num} where {expected} "
                                        f"was due (line {lineno})", lineno))
        diags = top.pending_diags
        top.pending_diags = []
        if child is not None:
            diags = child.pending_diags + diags
            if child.name is None:
                child.name = name
        top.results.append(Result(not neg, num, name or f"#{num}", directive,
                                  comment, lineno, diags, child))
        if len(stack) == 1 and doc.root.plan is not None \
                and len(doc.root.results) >= doc.root.plan:
            stack = []          # the document is complete

    if stack:
        last = len(lines)
        # Output stopped inside the document: say which case was running.
        depth = len(stack) - 1
        t = stack[depth]
        plan = f" of {t.plan}" if t.plan is not None else ""
        where = path_of(depth) if depth else ""
        doc.problems.append(Problem(
            (where + "/" if where else "") + f"#{len(t.results) + 1}",
            f"output stopped: case {len(t.results) + 1}{plan} never "
            "reported a result", last, True))
        # Attach the unfinished tests so what they did print is judged.
        while len(stack) > 1:
            t = stack.pop()
            parent = stack[-1]
            parent.results.append(Result(False, len(parent.results) + 1,
                                         _test_name(t, "?"), "",
                                         "output stopped", last,
                                         t.pending_diags, t, True))
    return docs


@dataclass
class Case:
    status: str           # PASS, FAIL, SKIP
    path: str             # suite/case (without the config)
    detail: str = ""      # one line: why
    diags: list = field(default_factory=list)


def _walk(test, prefix, cases, problems, complete):
    """Cases from a (sub)test: leaves are cases; a subtest's own result is
    checked against its cases."""
    if test.plan is None and test.results:
        problems.append(Problem(prefix, "no plan line (1..N)", test.lineno))
    elif test.plan is not None and complete and len(test.results) != test.plan:
        problems.append(Problem(prefix, f"plan says {test.plan} case(s), "
                                f"{len(test.results)} reported", test.lineno))
    for r in test.results:
        path = f"{prefix}/{r.name}" if prefix else r.name
        # KTAP v1 has SKIP only: "not ok ... # TODO" is a failure.
        skip = r.directive == "SKIP"
        if r.subtest is not None and r.subtest.results:
            before = len(cases)
            _walk(r.subtest, path, cases, problems, r.subtest.closed)
            mine = cases[before:]
            failed = any(c.status == "FAIL" for c in mine)
            if r.unfinished:
                pass    # the parser's problem line says why
            elif not r.ok and not skip and not failed:
                cases.append(Case("FAIL", path, "the suite reports not ok "
                                  "though none of its cases failed", r.diags))
            elif r.ok and failed and r.subtest.closed:
                problems.append(Problem(path, "the suite reports ok though a "
                                        "case failed", r.lineno))
            continue
        if r.unfinished:
            continue    # nothing to show but the parser's problem line
        if skip:
            cases.append(Case("SKIP", path, r.comment or r.directive, r.diags))
        elif r.ok:
            cases.append(Case("PASS", path, "", r.diags))
        else:
            why = f"{r.directive} {r.comment}".strip() if r.directive \
                else r.comment
            cases.append(Case("FAIL", path, why, r.diags))


def ktap_cases(docs):
    """Flattens parsed documents into cases plus structural problems."""
    cases, problems = [], []
    for doc in docs:
        problems.extend(doc.problems)
        truncated = any(p.truncated for p in doc.problems)
        _walk(doc.root, "", cases, problems, not truncated)
    # A problem seen twice (e.g. by the parser and the walk) shows once.
    seen, unique = set(), []
    for p in problems:
        key = (p.where, p.what)
        if key not in seen:
            seen.add(key)
            unique.append(p)
    return cases, unique


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

# run.sh's exit statuses (EXIT_QEMU: QEMU itself failed, e.g. a bad
# argument, before or without running the kernel) and the runner's own
# for a run it killed.
EXIT_OK, EXIT_FAIL, EXIT_NO_EXIT, EXIT_QEMU, EXIT_TIMEOUT = 0, 1, 2, 3, 124


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
# Running QEMU

LOG_LIMIT = 64 << 20        # a kernel printing forever is killed here
KILL_GRACE = 5.0


@dataclass
class RunOutcome:
    rc: int
    timed_out: bool             # the time limit or idle= (see idled)
    oversize: bool
    elapsed: float
    log_path: str
    stderr_text: str
    hooks: list = field(default_factory=list)   # for judge()
    idled: bool = False
    longest_quiet: float = 0.0  # the longest time without serial output


# Every process group the runner started and has not reaped: ended if the
# runner itself is interrupted or killed, so no QEMU outlives it.
_live = set()
_live_lock = threading.Lock()


def _track(proc):
    with _live_lock:
        _live.add(proc)
    return proc


def _untrack(proc):
    with _live_lock:
        _live.discard(proc)


def _on_signal(signum, frame):
    with _live_lock:
        procs = list(_live)
    for p in procs:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    print(f"runner: stopped by signal {signum}; ended {len(procs)} run(s)",
          file=sys.stderr)
    os._exit(128 + signum)


def _kill_group(proc):
    """Ends run.sh, QEMU and anything else in the run's process group."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(KILL_GRACE)
            # The leader is gone; others in the group may linger.
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            return
        except subprocess.TimeoutExpired:
            continue
        return


def run_command(cfg, run_sh, monitor=None):
    cmd = [run_sh, "--no-build", "-s", str(cfg.cpus), "-m", str(cfg.mem),
           "-c", cfg.cmdline]
    if cfg.uefi:
        cmd.append("--uefi")
    if cfg.usb:
        cmd.append("--usb")
    if cfg.machine:
        cmd += ["--machine", cfg.machine]
    if cfg.gfx:
        cmd += ["--gfx", cfg.gfx]
    extra = list(cfg.qemu)
    if monitor:
        extra += ["-monitor", f"unix:{monitor},server,nowait"]
    if extra:
        cmd += ["--"] + extra
    return cmd


HOOK_TIMEOUT = 120.0         # a check= command's time limit


def _hook_env(cfg, log_path, monitor, rc=None):
    env = dict(os.environ, RUNNER_CONFIG=cfg.name, RUNNER_LOG=log_path,
               RUNNER_ROOT=ROOT)
    if monitor:
        env["RUNNER_MONITOR"] = monitor
    if rc is not None:
        env["RUNNER_RC"] = str(rc)
    return env


def _start_hook(cmd, env, out_path):
    with open(out_path, "wb") as out:
        return _track(subprocess.Popen(cmd, shell=True, cwd=ROOT, env=env,
                                       stdout=out, stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL,
                                       start_new_session=True))


def _hook_output(path):
    with open(path, "rb") as f:
        return f.read()[-8192:].decode("utf-8", errors="replace")


def _log_matches(path, rx):
    with open(path, "rb") as f:
        return any(rx.search(x) for x in clean_lines(f.read()))


def run_config(cfg, run_sh, log_dir, timeout_scale=1.0):
    """Boots one configuration.  A during= command starts beside QEMU (once
    the log matches ready=, if given) with $RUNNER_LOG, $RUNNER_CONFIG and,
    with `monitor`, $RUNNER_MONITOR (the QEMU monitor's unix socket) in its
    environment; a check= command runs after QEMU has gone, with $RUNNER_RC
    too.  Their exit statuses are judged as the cases NAME/during and
    NAME/check."""
    log_path = os.path.join(log_dir, cfg.name + ".log")
    err_path = os.path.join(log_dir, cfg.name + ".stderr")
    monitor = os.path.join(log_dir, cfg.name + ".monitor") if cfg.monitor else None
    if monitor and os.path.exists(monitor):
        os.unlink(monitor)
    limit = cfg.timeout * timeout_scale
    idle = cfg.idle * timeout_scale
    start = last_output = time.monotonic()
    size = 0
    timed_out = oversize = idled = False
    longest_quiet = 0.0
    during = None
    during_out = os.path.join(log_dir, cfg.name + ".during.log")
    with open(log_path, "wb") as out, open(err_path, "wb") as err:
        proc = _track(subprocess.Popen(run_command(cfg, run_sh, monitor),
                                       stdout=out, stderr=err,
                                       stdin=subprocess.DEVNULL, cwd=ROOT,
                                       start_new_session=True))
        while True:
            if cfg.during and during is None and \
                    (cfg.ready is None or _log_matches(log_path, cfg.ready)):
                during = _start_hook(cfg.during,
                                     _hook_env(cfg, log_path, monitor), during_out)
            try:
                rc = proc.wait(0.5)
                break
            except subprocess.TimeoutExpired:
                pass
            now = time.monotonic()
            grown = os.path.getsize(log_path)
            if grown != size:
                size, last_output = grown, now
            longest_quiet = max(longest_quiet, now - last_output)
            if now - start > limit:
                timed_out = True
            elif idle and now - last_output > idle:
                timed_out = idled = True
            elif size > LOG_LIMIT:
                oversize = True
            if timed_out or oversize:
                _kill_group(proc)
                rc = proc.wait()
                break
        # Children of run.sh that outlived it (it should wait for QEMU).
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        _untrack(proc)
    with open(err_path, "rb") as f:
        stderr_text = f.read()[-8192:].decode("utf-8", errors="replace")
    if timed_out:
        rc = EXIT_TIMEOUT
    hooks = []
    if cfg.during:
        if during is None:
            what = f"the log never matched ready=/{cfg.ready.pattern}/" \
                if cfg.ready else "QEMU ended first"
            hooks.append(("during", None, what))
        else:
            try:
                during.wait(10)         # QEMU is gone: it should end soon
            except subprocess.TimeoutExpired:
                _kill_group(during)
            hooks.append(("during", during.wait(), _hook_output(during_out)))
            _kill_group(during)     # what it left behind
            _untrack(during)
    if cfg.check:
        check_out = os.path.join(log_dir, cfg.name + ".check.log")
        p = _start_hook(cfg.check, _hook_env(cfg, log_path, monitor, rc),
                        check_out)
        try:
            p.wait(HOOK_TIMEOUT)
        except subprocess.TimeoutExpired:
            _kill_group(p)
        hooks.append(("check", p.wait(), _hook_output(check_out)))
        _kill_group(p)
        _untrack(p)
    return RunOutcome(rc, timed_out, oversize, time.monotonic() - start,
                      log_path, stderr_text, hooks, idled, longest_quiet)


def read_lines(path):
    with open(path, "rb") as f:
        return clean_lines(f.read())


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

        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, _on_signal)
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
