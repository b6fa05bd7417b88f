#!/usr/bin/env python3
"""tools/gpcompare.py: grace-period latency of two or more rcukern ISOs
(and, if asked, the Linux 6.1 peer) in one run, boots interleaved, so
that a before/after table compares figures taken under the same host load.

    tools/gpcompare.py --iso old=/tmp/old/build/rcukern.iso \\
        --iso new=build/rcukern.iso --smp 2,4,16 --boots 3 [--peer]

Each round boots every ISO once at every size (the ISOs' order alternates
from round to round), then the peer's rcuscale (PREEMPT_NONE and PREEMPT
images, normal and expedited) at that size.  An rcukern boot runs
`./run.sh --no-build -s N -c "test=rcu,rcu_preempt"` (--cmdline to
change it); its rows are the `name=gp` medians (load=idle and busy),
`call_rcu` ops_per_sec and `call_rcu_flood` peak_stale.  The table gives,
per row, the median over the boots of each boot's median (the figures of
each boot in brackets) and the ratio of every ISO to the first.

Every boot's serial log is kept in --log-dir (default build/gpcompare),
and all rows, tagged `iso=NAME boot=K`, in rows.txt there.  Only the
Python standard library is used.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, os.path.join(ROOT, "tools", "peer"))
from benchrows import bench_rows, clean_lines  # noqa: E402


def parse_row(text):
    kv = {}
    for w in text.split():
        if "=" in w:
            k, v = w.split("=", 1)
            kv[k] = v
    return kv


def figures(rows):
    """{(what, load): value} of one boot's rows."""
    out = {}
    for r in map(parse_row, rows):
        name, typ = r.get("name"), r.get("type")
        if name == "gp" and "median_ns" in r:
            out[(f"gp {typ}", r.get("load", "idle"))] = int(r["median_ns"])
        elif name == "call_rcu" and "ops_per_sec" in r:
            out[("call_rcu ops_per_sec", "-")] = int(r["ops_per_sec"])
        elif name == "call_rcu_flood" and "peak_stale" in r:
            out[("call_rcu_flood peak_stale", "-")] = int(r["peak_stale"])
    return out


def loadavg():
    """The host's 1-minute load average (TCG figures follow it)."""
    try:
        with open("/proc/loadavg") as f:
            return float(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return -1.0


def boot_rcukern(iso, smp, cmdline, log, timeout):
    env = dict(os.environ, RCUKERN_ISO=os.path.abspath(iso))
    t0 = time.monotonic()
    with open(log, "wb") as f:
        try:
            subprocess.run(["./run.sh", "--no-build", "-s", str(smp), "-c", cmdline],
                           cwd=ROOT, env=env, stdout=f, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL, timeout=timeout)
        except subprocess.TimeoutExpired:
            f.write(f"\n# gpcompare: stopped after {timeout} s\n".encode())
    with open(log, "rb") as f:
        return bench_rows(clean_lines(f.read())), time.monotonic() - t0


def boot_peer(smp, log_dir, k, timeout):
    """The peer's rcuscale rows at smp vCPUs (both images, both types)."""
    import bench as peer
    rows = []
    for model in ("none", "preempt"):
        image = os.path.join(peer.PEER, f"bzImage-{model}")
        if not os.path.isfile(image):
            continue
        for typ, exp in (("normal", 0), ("expedited", 1)):
            log = os.path.join(log_dir, f"peer-{model}-{typ}-{smp}-{k}.log")
            append = ("console=ttyS0 panic=-1 no_timer_check rcuscale.nreaders=0 "
                      f"rcuscale.nwriters=1 rcuscale.gp_exp={exp} rcuscale.holdoff=2")
            vals = peer.parse_rcuscale(peer.boot(image, smp, append, log, timeout))
            if vals:
                rows.append(f"name=linux_gp model={model} type={typ} cpus={smp} "
                            f"n={len(vals)} median_ns={int(statistics.median(vals))}")
            else:
                print(f"gpcompare: peer {model} {typ} at {smp}: no grace periods "
                      f"({os.path.relpath(log, ROOT)})", file=sys.stderr)
    return rows


# The peer's (model, type) beside our gp type: PREEMPT_NONE's
# synchronize_rcu() is RCU-sched's synchronize_sched().
PEER_TYPES = {("none", "normal"): "normal", ("none", "expedited"): "expedited",
              ("preempt", "normal"): "rcu", ("preempt", "expedited"): "rcu-expedited"}


def peer_figures(rows):
    out = {}
    for r in map(parse_row, rows):
        if r.get("name") == "linux_gp":
            out[("gp " + PEER_TYPES[(r["model"], r["type"])], "idle")] = int(r["median_ns"])
    return out


def fmt(what, v):
    if what.startswith("gp "):
        return f"{v / 1e6:.3f} ms" if v >= 100000 else f"{v / 1e3:.2f} us"
    return str(v)


def table(results, names, sizes):
    """results[(name, smp)] = list of per-boot {key: value}."""
    keys = sorted({k for lst in results.values() for d in lst for k in d},
                  key=lambda k: (k[0].startswith("call_rcu"), k[1] != "idle", k))
    head = "| vCPUs | row | load | " + " | ".join(names) + " | " + \
        " | ".join(f"{n}/{names[0]}" for n in names[1:]) + " |"
    out = [head, "|" + "---|" * (3 + 2 * len(names) - 1)]
    for smp in sizes:
        for key in keys:
            meds, cells = [], []
            for n in names:
                vals = [d[key] for d in results.get((n, smp), []) if key in d]
                if not vals:
                    meds.append(None)
                    cells.append("-")
                    continue
                m = statistics.median(vals)
                meds.append(m)
                cells.append(f"{fmt(key[0], m)} ({', '.join(fmt(key[0], v) for v in vals)})"
                             if len(vals) > 1 else fmt(key[0], m))
            if all(m is None for m in meds):
                continue
            ratios = [f"{m / meds[0]:.2f}" if m is not None and meds[0] else "-"
                      for m in meds[1:]]
            out.append(f"| {smp} | {key[0]} | {key[1]} | " + " | ".join(cells) + " | " +
                       " | ".join(ratios) + " |")
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--iso", action="append", required=True, metavar="NAME=PATH")
    ap.add_argument("--smp", default="2,4,16")
    ap.add_argument("--boots", type=int, default=3)
    ap.add_argument("--cmdline", default="test=rcu,rcu_preempt")
    ap.add_argument("--peer", action="store_true", help="the Linux peer's rcuscale too")
    ap.add_argument("--log-dir", default=os.path.join(ROOT, "build", "gpcompare"))
    ap.add_argument("--timeout", type=int, default=900, help="per boot, s")
    args = ap.parse_args(argv)

    isos = [tuple(s.split("=", 1)) for s in args.iso]
    for n, p in isos:
        if not os.path.isfile(p):
            ap.error(f"{n}: {p} not found")
    names = [n for n, _ in isos]
    sizes = [int(s) for s in args.smp.split(",")]
    os.makedirs(args.log_dir, exist_ok=True)
    rows_path = os.path.join(args.log_dir, "rows.txt")
    open(rows_path, "w").close()
    results = {}
    for k in range(args.boots):
        for smp in sizes:
            order = isos if k % 2 == 0 else isos[::-1]
            for n, p in order:
                log = os.path.join(args.log_dir, f"{n}-{smp}-{k}.log")
                load = loadavg()
                rows, took = boot_rcukern(p, smp, args.cmdline, log, args.timeout)
                f = figures(rows)
                results.setdefault((n, smp), []).append(f)
                with open(rows_path, "a") as out:
                    out.writelines(f"{r} iso={n} boot={k} host_load={load}\n" for r in rows)
                idle = f.get(("gp normal", "idle"))
                print(f"gpcompare: {n} -smp {smp} boot {k}: {len(rows)} rows, "
                      f"normal idle {fmt('gp ', idle) if idle else '-'}, {took:.0f} s, "
                      f"host load {load:.1f}",
                      file=sys.stderr, flush=True)
            if args.peer:
                rows = boot_peer(smp, args.log_dir, k, args.timeout)
                with open(rows_path, "a") as out:
                    out.writelines(f"{r} iso=linux boot={k}\n" for r in rows)
                if rows:
                    results.setdefault(("linux-6.1", smp), []).append(peer_figures(rows))
                    if "linux-6.1" not in names:
                        names.append("linux-6.1")
    print(table(results, names, sizes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
