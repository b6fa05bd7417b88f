#!/usr/bin/env python3
"""tools/hunt.py: run one scenario of tests/torture-scenarios under
several jitter seeds until a run fails, and say how long it took: the
evidence of docs/stress.md's detection table.

    python3 tools/hunt.py SCENARIO [--seeds 1,2,3 | --seeds 1-20]
                          [--secs S] [--append 'rcu.inject=barrier']
                          [--iso build/test/rcukern.iso] [--stop-first]

Each run boots run.sh with the scenario's command line (its jitter seed
replaced), timestamps the serial lines as they arrive, and stops QEMU at
the first failure line (ERROR, WARNING, BUG, FAILURE, panic, not ok):
time to detection is wall seconds from QEMU's start to that line.  One
line per run:  SCENARIO seed S: FAILED after T s: MESSAGE  (or passed in T s).
Logs go to build/hunt/SCENARIO-sSEED.log.  Standard library only.
"""

import argparse
import os
import re
import signal
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import scenarios  # noqa: E402

FAIL_RE = re.compile(r"rcu-torture: ERROR|WARNING:|BUG[: ]|End of test: FAILURE|"
                     r"Kernel panic|^not ok|UBSAN|ODEBUG|general protection|Oops|"
                     r"detected (expedited )?stalls|self-detected stall")
CLEAN_RE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\r")


def seeds_arg(text):
    out = []
    for part in text.split(","):
        if "-" in part:
            a, b = part.split("-")
            out += range(int(a), int(b) + 1)
        else:
            out.append(int(part))
    return out


def one(scn, seed, secs, append, iso, cpus, limit):
    cmd = scn.cmdline(seed, secs)
    if not scn.jitter and append.find("jitter=") < 0:
        cmd += f" jitter.seed={seed}"
    if append:
        cmd += " " + append
    os.makedirs(os.path.join(ROOT, "build", "hunt"), exist_ok=True)
    tag = re.sub(r"[^A-Za-z0-9_.-]+", "_", append.replace("rcu.inject=", ""))
    log = os.path.join(ROOT, "build", "hunt",
                       f"{scn.name}-s{seed}{'-' + tag if tag else ''}.log")
    env = dict(os.environ, RCUKERN_ISO=iso)
    t0 = time.monotonic()
    p = subprocess.Popen([os.path.join(ROOT, "run.sh"), "--no-build", "-s", str(cpus),
                          "-m", "512" if cpus > 4 else "256", "-c", cmd],
                         cwd=ROOT, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, errors="replace",
                         start_new_session=True)
    first = None
    # The limit is kept by a timer, not checked as lines arrive: a guest
    # that hangs silently prints nothing to check it on.  Killing QEMU
    # ends the read loop below.
    expired = threading.Event()

    def expire():
        expired.set()
        kill_group(p)

    timer = threading.Timer(limit, expire)
    timer.daemon = True
    timer.start()
    try:
        with open(log, "w") as f:
            f.write(f"# cmdline: {cmd}\n")
            for raw in p.stdout:
                line = CLEAN_RE.sub("", raw.rstrip("\n"))
                t = time.monotonic() - t0
                f.write(f"[{t:8.2f}] {line}\n")
                if first is None and FAIL_RE.search(line):
                    first = (t, line.strip())
                    # A few more lines for the log (the call trace), then stop.
                    stop_at = t + 3
                if first is not None and t > stop_at:
                    break
    finally:
        # Also on ^C or SIGTERM: QEMU runs in a session of its own, so
        # nothing else would stop it.
        timer.cancel()
        kill_group(p)
        p.wait()
    if first is None and expired.is_set():
        first = (limit, f"no end within {limit:g} s (hang?)")
    return first, time.monotonic() - t0, log


def kill_group(p):
    if p.poll() is None:
        try:
            os.killpg(p.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("scenario")
    ap.add_argument("--seeds", type=seeds_arg, default=None)
    ap.add_argument("--secs", type=int, default=None)
    ap.add_argument("--append", default="", help="more kernel options")
    ap.add_argument("--cpus", type=int, default=None)
    ap.add_argument("--iso", default=os.path.join(ROOT, "build", "test", "rcukern.iso"))
    ap.add_argument("--limit", type=float, default=900, help="wall seconds per run")
    ap.add_argument("--stop-first", action="store_true", help="stop at the first failure")
    a = ap.parse_args(argv)
    # SIGTERM unwinds like ^C, so the running QEMU is killed on the way out.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    scn = next((s for s in scenarios.parse() if s.name == a.scenario), None)
    if not scn:
        print(f"hunt: no scenario {a.scenario}", file=sys.stderr)
        return 2
    seeds = a.seeds or scn.seeds
    nfail = 0
    for seed in seeds:
        first, wall, log = one(scn, seed, a.secs or scn.long, a.append, a.iso,
                               a.cpus or scn.cpus, a.limit)
        rel = os.path.relpath(log, ROOT)
        if first:
            nfail += 1
            print(f"{scn.name} seed {seed}: FAILED after {first[0]:.0f} s: {first[1]}  ({rel})",
                  flush=True)
            if a.stop_first:
                break
        else:
            print(f"{scn.name} seed {seed}: passed in {wall:.0f} s  ({rel})", flush=True)
    print(f"# {scn.name}: {nfail} of the runs failed")
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())
