"""tools/report/cli.py: the command line of tools/report.py: reads the
logs (or boots ./run.sh for one), writes the report, prints its summary."""

import argparse
import os
import shlex
import shutil
import signal
import subprocess
import sys

from .common import ROOT, read_builds, read_log, read_unknown_options
from .document import summary_lines, write_report
from .paper import find_paper_data


def run_qemu(out_dir, run_args, timeout):
    """Boots ./run.sh (the scenarios by default); returns the log path."""
    log = os.path.join(out_dir, "serial.log")
    cmd = [os.path.join(ROOT, "run.sh")] + shlex.split(run_args)
    print(f"report: running {' '.join(shlex.quote(c) for c in cmd)} "
          f"(limit {timeout:g} s), serial to {os.path.relpath(log)}",
          file=sys.stderr)
    with open(log, "wb") as f:
        env = dict(os.environ, RCUKERN_NO_REPORT="1")   # run.sh: we report
        p = subprocess.Popen(cmd, stdout=f, stdin=subprocess.DEVNULL,
                             cwd=ROOT, start_new_session=True, env=env)
        try:
            rc = p.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGTERM)
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
            print(f"report: the run passed its {timeout:g} s limit and was "
                  "stopped; reporting what it printed", file=sys.stderr)
            rc = None
    if rc not in (None, 0):
        print(f"report: run.sh exited {rc}; reporting what it printed",
              file=sys.stderr)
    return log


PEER_ROWS = os.path.join(ROOT, "build", "bench-logs", "peer.txt")


def add_peer(path, logs, rows):
    """Adds the Linux peer's rows (tools/peer/bench.py's file) to rows when
    it exists, is not one of the logs and they have no peer rows of their
    own; returns its path if it did."""
    if path in (None, "", "none") or not os.path.isfile(path):
        return None
    if any(os.path.exists(x) and os.path.samefile(x, path) for x in logs) \
            or any(r.get("name", "").startswith("linux_") for r in rows):
        return None
    with open(path, "rb") as f:
        more, _ = read_log(f.read().decode("utf-8", errors="replace"),
                           os.path.basename(path))
    if not more:
        return None
    rows += more
    print(f"report: {len(more)} row(s) of the Linux peer from "
          f"{os.path.relpath(path)} (--peer none: without them)", file=sys.stderr)
    return path


def main(argv=None):
    ap = argparse.ArgumentParser(description="Tables and plots of rcukern's "
                                 "benchmark rows beside the article's data.")
    ap.add_argument("logs", nargs="*", help="serial logs or bench.txt files "
                    "(none: boot ./run.sh and use its output)")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "report"))
    ap.add_argument("--paper-data", help="the article's data (default: "
                    "docs/paper-data)")
    ap.add_argument("--run-args", default="",
                    help="arguments for ./run.sh when no log is given, "
                         "e.g. \"-s 16 -c 'bench=readside'\"")
    ap.add_argument("--timeout", type=float, default=3600,
                    help="time limit of that run in seconds")
    ap.add_argument("--summary", action="store_true",
                    help="also print the goals and the read-side table on "
                         "stdout (run.sh does, after the default scenarios)")
    ap.add_argument("--gnuplot", default=shutil.which("gnuplot"),
                    help="gnuplot binary ('none' to skip the plots)")
    ap.add_argument("--peer", default=PEER_ROWS,
                    help="the Linux peer's rows, added when the file exists "
                         "and the logs have none of their own (default: "
                         "build/bench-logs/peer.txt, which `make bench` "
                         "writes; 'none' to leave them out)")
    args = ap.parse_args(argv)

    os.makedirs(args.out, exist_ok=True)
    logs, ran = args.logs, False
    if not logs:
        logs, ran = [run_qemu(args.out, args.run_args, args.timeout)], True
    rows, platforms, builds, unknown = [], [], [], []
    for path in logs:
        try:
            with open(path, "rb") as f:
                text = f.read().decode("utf-8", errors="replace")
        except OSError as e:
            print(f"report: {e}", file=sys.stderr)
            return 2
        r, p = read_log(text, os.path.basename(path))
        rows += r
        platforms += p
        builds += read_builds(text)
        unknown += read_unknown_options(text)
    if not rows:
        # Nothing to report is an error, and the last report stays.
        print(f"report: no '# bench' rows in {', '.join(logs)}; "
              f"{os.path.join(args.out, 'report.md')} is left as it was",
              file=sys.stderr)
        return 1
    peer = add_peer(args.peer, logs, rows)
    if peer:
        logs = logs + [peer]
    gnuplot = None if args.gnuplot in (None, "", "none") else args.gnuplot
    if gnuplot and not shutil.which(gnuplot):
        print(f"report: {gnuplot} not found: plots skipped", file=sys.stderr)
        gnuplot = None
    paper = find_paper_data(args.paper_data)
    if args.paper_data and not paper:
        print(f"report: no paper data in {args.paper_data}", file=sys.stderr)
    sources = [os.path.relpath(p) for p in logs]
    path, drawn, plots = write_report(rows, platforms, sources, args.out, paper,
                                      gnuplot, ran, builds, unknown)
    made = sorted(n for n, e in (drawn or {}).items() if e is None)
    for p in plots:
        if getattr(p, "skip", None):
            print(f"report: {p.name}.png not drawn: {p.skip}", file=sys.stderr)
    if args.summary:
        print("\n".join(summary_lines(rows, platforms, paper, ran, builds, unknown)))
    print(f"report: {path}: {len(rows)} row(s), "
          + (f"{len(made)} plot(s)" if drawn is not None else "plots skipped")
          + ("" if paper else ", no 2007 data found"))
    return 0
