#!/usr/bin/env python3
"""tools/benchrows.py: the lines of a serial log and the benchmark rows in
them, one definition for tests/runner.py (which judges the lines and
collects the rows into bench.txt) and tools/report.py (which tables and
plots the rows).

clean_lines() turns serial bytes into text lines: terminal escapes (GRUB,
firmware), CRs and other control characters removed.  A row is a KTAP
diagnostic `# bench name=NAME key=value ...` (the shape docs/design.md
fixes); a `# platform: ...` line says what ran them, a `# build: ...`
line which build of the kernel (benchmark or test), and a `# cmdline:
unknown option 'NAME'` line at the end an option the kernel did not know
(kernel/cmdline.c: the run was not the one asked).  A trace dump's
lines (kernel/trace.c, tools/trace.py) start with `T: `; trace_line()
tells them apart, so that the judge reads past them.
Only the Python standard library is used.
"""

import re

ANSI = re.compile(r"\x1b(\[[0-9;?]*[ -/]*[@-~]|[()][0-9A-Za-z]|[@-Z\\-_])")
BENCH = re.compile(r"#\s*bench\s+(name=\S+(?:.*\S)?)")
PLATFORM = re.compile(r"#\s*platform:\s*(.*\S)")
# The kernel's "# build: benchmark|test (...), ..." line at boot.
BUILD = re.compile(r"^\s*#\s*build:\s*(.*\S)")
# The kernel's end-of-run line for each unknown option (kernel/cmdline.c,
# cmdline_unknown_report()): "...': the run fails (...)", or "...' was
# ignored (cmdline.unknown=ignore)".
UNKNOWN_OPTION = re.compile(r"# cmdline: unknown option '([^']*)'(: the run fails| was ignored)")


TRACE_PREFIX = "T: "


def trace_line(line):
    """Whether a (clean) log line is part of a trace dump."""
    return line.startswith(TRACE_PREFIX)


def bench_rows(lines):
    """The text after "# bench " of every row in lines."""
    return [m.group(1) for m in map(BENCH.search, lines) if m]


def platform_lines(lines):
    """The text after "# platform:" of every such line."""
    return [m.group(1) for m in map(PLATFORM.search, lines) if m]


def build_lines(lines):
    """The text after "# build:" of every such line."""
    return [m.group(1) for m in map(BUILD.search, lines) if m]


def unknown_options(lines, ignored=True):
    """The unknown kernel options the kernel named at the run's end: those
    that failed the run, and with ignored=True those ignored too."""
    return [m.group(1) for m in map(UNKNOWN_OPTION.search, lines)
            if m and (ignored or m.group(2) == ": the run fails")]


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
