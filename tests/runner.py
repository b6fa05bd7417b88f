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
or a panic; one that just stops is a run that did not finish.  A
configuration may instead expect a failure (expect=fail require=REGEX
...): it passes only if the run fails and every required regex is in
the log.  With seeds=S1,S2,... (a bug that hotplug timing under TCG
lets through in some runs) such a configuration runs once per seed, its
jitter.seed= replaced, until a run fails as required; the verdict names
the seed that caught it, or every seed tried.  A configuration that must
pass is never retried.

    python3 tests/runner.py                      every configuration
    python3 tests/runner.py --only boot-smp1     some of them
    python3 tests/runner.py --log saved.log      judge a saved serial log
                                                 (also one from a real PC)
    python3 tests/runner.py --list               show the configurations

Benchmark rows ("# bench name=... key=value ...") are not judged; they are
copied to build/test-logs/bench.txt with " config=NAME" appended.

This file is the command line and the order of work; the rest is in
modules of their own, as Linux's tools/testing/kunit splits kunit.py:

    tests/qemu_configs.py   the configuration language (kunit_config.py)
    tests/qemu_run.py       one QEMU run through run.sh (kunit_kernel.py)
    tests/ktap_parser.py    KTAP into a tree of results (kunit_parser.py)
    tests/judge.py          crash reports and the verdict on one run
    tools/benchrows.py      serial lines and bench rows, shared with
                            tools/report.py

Only the Python standard library is used.
"""

import argparse
import concurrent.futures
import dataclasses
import os
import re
import sys
import threading
import time

from judge import format_verdict, judge, logged_exit_status, summary_line
from qemu_configs import Config, ConfigError, load_configs
from qemu_run import read_lines, run_config, stop_runs_on_signals

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def start_bench(path):
    with open(path, "w") as f:
        f.write("# bench rows collected by tests/runner.py; config= names "
                "the run\n")


def append_bench(v, path):
    """Adds one run's rows as soon as it ends, so an interrupted sweep keeps
    what it measured."""
    with open(path, "a") as f:
        for b in v.build[:1] if v.bench else ():
            f.write(f"# build: {b} config={v.config}\n")
        for p in v.platform:
            f.write(f"# platform: {p} config={v.config}\n")
        for row in v.bench:
            f.write(f"# bench {row} config={v.config}\n")


JITTER_RE = re.compile(r"jitter: max (\d+) us seed (\d+)")


def jitter_note(log_path):
    """ " (jitter N us, seed S)" when the run had jitter= (kernel/jitter.h):
    the seed beside the verdict, so a failure can be replayed."""
    try:
        with open(log_path, errors="replace") as f:
            for line in f:
                m = JITTER_RE.search(line)
                if m:
                    return f" (jitter {m.group(1)} us, seed {m.group(2)})"
    except OSError:
        pass
    return ""


def cpu_note(cpu):
    """", QEMU CPU N s" when the run's CPU time is known (not for a run
    the runner killed)."""
    return "" if cpu is None else f", QEMU CPU {cpu:.0f} s"


def time_summary(times, elapsed, jobs):
    """One line: where the runs' time went, the longest lines first."""
    cpus = [c for _, c, _ in times if c is not None]
    top = sorted(times, key=lambda t: -t[0])[:10]
    return (f"# time: {len(times)} configurations in {elapsed:.0f} s "
            f"({max(1, jobs)} at once), wall {sum(w for w, _, _ in times):.0f} s "
            f"and QEMU CPU {sum(cpus):.0f} s summed; longest: "
            + ", ".join(f"{n} {w:.0f} s" + ("" if c is None else f" (CPU {c:.0f})")
                        for w, c, n in top))


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
            # Everything that makes two configurations differ (hw-tsc-pit
            # and hw-nopit differ only in qemu=).
            flags = (" uefi" if c.uefi else "") + (" usb" if c.usb else "") + \
                    (f" machine={c.machine}" if c.machine else "") + \
                    (f" gfx={c.gfx}" if c.gfx else "") + \
                    (f" qemu='{' '.join(c.qemu)}'" if c.qemu else "") + \
                    (" monitor" if c.monitor else "") + \
                    (f" during='{c.during}'" if c.during else "") + \
                    (f" check='{c.check}'" if c.check else "") + \
                    (" expect=fail" if c.expect_fail else "") + \
                    (f" seeds={','.join(map(str, c.seeds))}" if c.seeds else "")
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
            # An expect=fail configuration with seeds= runs once per seed
            # until a run fails as required: a bug that hotplug timing
            # under TCG lets through in some runs of a seed.
            tries = [(s, cfg.seeded(s)) for s in cfg.seeds] or [(None, cfg.cmdline)]
            wall = cpu = 0.0
            for i, (seed, cmdline) in enumerate(tries):
                run = dataclasses.replace(cfg, cmdline=cmdline, name=cfg.name
                                          if i == 0 else f"{cfg.name}-s{seed}")
                v, o = one_run(cfg, run)
                wall += o.elapsed
                cpu = None if cpu is None or o.cpu is None else cpu + o.cpu
                if v.passed:
                    break
            if seed is None:
                note = ""
            elif v.passed:
                note = f", caught by seed {seed} (try {i + 1} of {len(tries)})"
            else:
                note = f", not caught by seeds {','.join(map(str, cfg.seeds))}"
            out = format_verdict(v, args.verbose)
            rel = os.path.relpath(o.log_path)
            # The wall time of the line (every try) and the CPU time of its
            # QEMU runs: where make test's time goes (a run that waits shows
            # less CPU than wall; under taskset -c 0 the CPU adds up).
            out.append(f"# {cfg.name}: {'ok' if v.passed else 'FAILED'}"
                       f"{jitter_note(o.log_path)}{note} in "
                       f"{wall:.0f} s{cpu_note(cpu)} (longest silence "
                       f"{o.longest_quiet:.0f} s of idle={cfg.idle * args.timeout_scale:g}), "
                       f"exit {o.rc}, log {rel}")
            with print_lock:
                append_bench(v, bench_path)
                times.append((wall, cpu, cfg.name))
            emit(out)
            return v

        def one_run(cfg, run):
            emit([f"# run {run.name}: {cfg.cpus} CPU(s), {cfg.mem} MB"
                  + (", UEFI" if cfg.uefi else "")
                  + (f", {cfg.machine}" if cfg.machine else "")
                  + f", limit {cfg.timeout * args.timeout_scale:g} s"
                  f" (idle {cfg.idle * args.timeout_scale:g} s), "
                  f"cmdline '{run.cmdline}'"])
            o = run_config(run, args.run_sh, args.log_dir, args.timeout_scale)
            v = judge(cfg, read_lines(o.log_path), o.rc, o.timed_out,
                      o.stderr_text, o.oversize, o.hooks, o.idled)
            if cfg.seeds:
                emit([f"# {run.name}: {'caught' if v.passed else 'not caught'}"
                      f"{jitter_note(o.log_path)} in {o.elapsed:.0f} s{cpu_note(o.cpu)}, "
                      f"exit {o.rc}, "
                      f"log {os.path.relpath(o.log_path)}"])
            return v, o

        times = []
        t0 = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
            verdicts = list(pool.map(one, todo))
        print(time_summary(times, time.monotonic() - t0, args.jobs))

    line, failed = summary_line(verdicts)
    print(line)
    return 1 if failed or not all(v.passed for v in verdicts) else 0


if __name__ == "__main__":
    sys.exit(main())
