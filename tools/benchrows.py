#!/usr/bin/env python3
"""tools/benchrows.py: the benchmark rows of a serial log, one definition
for tests/runner.py (which collects them into bench.txt) and
tools/report.py (which tables and plots them).

A row is a KTAP diagnostic `# bench name=NAME key=value ...` (the shape
docs/design.md fixes); a `# platform: ...` line says what ran them.
Terminal escapes (GRUB, firmware) are removed with ANSI before matching.
Only the Python standard library is used.
"""

import re

ANSI = re.compile(r"\x1b(\[[0-9;?]*[ -/]*[@-~]|[()][0-9A-Za-z]|[@-Z\\-_])")
BENCH = re.compile(r"#\s*bench\s+(name=\S+(?:.*\S)?)")
PLATFORM = re.compile(r"#\s*platform:\s*(.*\S)")


def bench_rows(lines):
    """The text after "# bench " of every row in lines."""
    return [m.group(1) for m in map(BENCH.search, lines) if m]


def platform_lines(lines):
    """The text after "# platform:" of every such line."""
    return [m.group(1) for m in map(PLATFORM.search, lines) if m]
