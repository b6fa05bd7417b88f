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
change it); its rows are the `name=gp` medians (load=idle and busy;
the normal one also in ticks, gp_ticks and fewest_cpu_ticks: README.md),
`call_rcu` ops_per_sec (and chunk_ns_per_call and us_total where the
ISO prints them) and `call_rcu_flood` peak_stale.  The table gives,
per row, the median over the boots of each boot's median (the figures of
each boot in brackets) and the ratio of every ISO to the first.

With --readside it compares the read side instead, at --smp 4 by
default: for each of --types and 1, 2 and 4 readers, every ISO runs
paper_readside (--loops sections, default 1000000, 10 runs,
`refscale.irqs_off=2`: irqs off around the whole timed loop, as Linux's
refscale keeps them; --irqs-off 1 times each batch with irqs off, the
tick coming between batches; a list runs each ISO once per mode;
readers started as Linux 6.1's refscale starts its own, each on its
own after one untimed pass, `refscale.linux_start=1`: --start barrier
starts them together, as paper_readside does by default)
and, with --peer, the peer runs refscale for the type's Linux
counterpart (10 runs of as many loops), all at the same time: the host's load swings by 2x within a
minute, and boots one after the other compared that.  Started at once,
they did not measure together: ours boots faster, and measured while
Linux booted; Linux's runs came after our QEMU had exited
(docs/design.md, Measurement).  So the peer starts --peer-lead seconds
(default 6) ahead: in three pairs stamped with host time its runs
overlapped ours' window, wholly in one, 2 and 4 of 10 runs in the
others (docs/design.md).  The table gives
the median over the rounds of each boot's gross median (ns per
section), ours with its batch median, and the ratio to the first ISO.
With several ISOs, --pairs boots each one beside a peer boot of its
own, one pair at a time: never more than two QEMUs at once.

Every boot, ours and the peer's alike, starts in a session of its own
(as tests/runner.py's and tools/peer/bench.py's do): the host may group
its scheduling by session (autogroup), so a boot left in this script's
session would share one group's CPU with whatever else runs there while
the peer's got a group to itself, and its gross figures would lose the
difference to the host.

Every boot's serial log is kept in --log-dir (default build/gpcompare),
and all rows, tagged `iso=NAME boot=K`, in rows.txt there.  Only the
Python standard library is used.
"""

import argparse
import os
import re
import statistics
import signal
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
            # The same grace periods in the guest's ticks (jiffies), and
            # the ticks of the CPU that took the fewest meanwhile.
            for k in ("gp_ticks", "fewest_cpu_ticks"):
                if k in r:
                    out[(f"{k} {typ}", r.get("load", "idle"))] = int(r[k])
        elif name == "call_rcu" and "ops_per_sec" in r:
            out[("call_rcu ops_per_sec", "-")] = int(r["ops_per_sec"])
            # The call's own cost (median chunk of 100 calls), and the
            # whole work to the last callback: ISOs before 2026-12-06
            # print neither (their cells show "-").
            for k in ("chunk_ns_per_call", "us_total"):
                if k in r:
                    out[(f"call_rcu {k}", "-")] = int(r[k])
        elif name == "call_rcu_flood" and "peak_stale" in r:
            out[("call_rcu_flood peak_stale", "-")] = int(r["peak_stale"])
    return out


# Our read-side type beside the peer's (image, refscale type), like for
# like (tools/report/readside_tables.py's THREE_SOURCES).
RS_PEER = {"rcu": ("preempt", "rcu"), "rcu-nonpreempt": ("none", "rcu"),
           "srcu": ("preempt", "srcu"), "refcnt": ("preempt", "refcnt"),
           "rwlock": ("preempt", "rwlock")}
RS_READERS = (1, 2, 4)
RS_LOOPS = 1000000


def rs_cmdline(t, n, loops=RS_LOOPS, irqs_off=2, start="linux", append=""):
    """Ours for reader type t at n readers; start "linux": each reader on
    its own after one untimed pass, as Linux 6.1's refscale in effect
    (refscale.linux_start=1), "barrier": all at a start barrier.  append:
    more words for our command line (e.g. refscale.verbose=1)."""
    ls = " refscale.linux_start=1" if start == "linux" else ""
    extra = f" {append}" if append else ""
    return (f"test=paper_readside bench=full refscale.cpus={n} refscale.types={t} "
            f"refscale.loops={loops} refscale.runs=10 refscale.irqs_off={irqs_off}{ls}{extra}")


def rs_figures(rows):
    """{("TYPE xN", "gross"|"batch"): ns} of one boot's read-side rows."""
    out = {}
    for r in map(parse_row, rows):
        if r.get("name") == "readside" and r.get("cs_ns") == "0" and "median_ns" in r:
            what = f"{r['type']} x{r['cpus']}"
            out[(what, "gross")] = float(r["median_ns"])
            if "batch_ns" in r:
                out[(what, "batch")] = float(r["batch_ns"])
    return out


def peer_rs(t, n, smp, log, loops=RS_LOOPS, timeout=900):
    """The peer's refscale median (ns per section) for our type t at n
    readers, or None (no counterpart, no image, no runs)."""
    import bench as peer
    if t not in RS_PEER:
        return None
    model, lt = RS_PEER[t]
    image = os.path.join(peer.PEER, f"bzImage-{model}")
    if not os.path.isfile(image):
        return None
    append = ("console=ttyS0 panic=-1 no_timer_check rcuscale.scale_type=none "
              f"rcuscale.shutdown=0 refscale.scale_type={lt} refscale.nreaders={n} "
              f"refscale.loops={loops} refscale.nruns=10 refscale.holdoff=2")
    vals = peer.parse_refscale(peer.boot(image, smp, append, log, timeout))
    return statistics.median(vals) if vals else None


def readside_round(isos, types, smp, k, args, results, names, rows_path):
    """One round of --readside: for each type and reader count, every
    ISO (NAME, PATH, irqs_off mode, start) and the peer boot at the same time, so that all of them measure
    under the same host load (it swings by 2x within a minute where
    this was written; boots one after the other compared the load)."""
    from concurrent.futures import ThreadPoolExecutor
    if args.pairs:
        return readside_pairs(isos, types, smp, k, args, results, names, rows_path)
    per = {}
    for t in types:
        for n in (n for n in args.readers if n <= smp):
            load = loadavg()
            with ThreadPoolExecutor(len(isos) + 1) as ex:
                lin = (ex.submit(peer_rs, t, n, smp,
                                 os.path.join(args.log_dir, f"peer-{t}-{n}-{smp}-{k}.log"), args.loops,
                                 args.timeout)
                       if args.peer else None)
                if lin:
                    time.sleep(args.peer_lead)	# Linux boots slower: align the runs
                ours = {name: ex.submit(boot_rcukern, p, smp,
                                        rs_cmdline(t, n, args.loops, mode, start, args.append),
                                        os.path.join(args.log_dir, f"{name}-{smp}-{t}-{n}-{k}.log"),
                                        args.timeout)
                        for name, p, mode, start in isos}
                for name, fut in ours.items():
                    rows, _ = fut.result()
                    start = next(st for nm, _, _, st in isos if nm == name)
                    if start == "linux" and any("name=readside" in r and "linux_start=1" not in r
                                                for r in rows):
                        print(f"gpcompare: {name}: no refscale.linux_start (an older ISO): "
                              "its readers started at a barrier", file=sys.stderr)
                    per.setdefault(name, {}).update(rs_figures(rows))
                    with open(rows_path, "a") as out:
                        out.writelines(f"{r} iso={name} boot={k} host_load={load}\n"
                                       for r in rows)
                v = lin.result() if lin else None
            if v is not None:
                per.setdefault("linux-6.1", {})[(f"{t} x{n}", "gross")] = v
                with open(rows_path, "a") as out:
                    out.write(f"name=linux_readside type={t} cpus={n} median_ns={v:.3f} "
                              f"iso=linux boot={k} host_load={load}\n")
            print(f"gpcompare: round {k} {t} x{n}: " +
                  ", ".join(f"{name} {fmt(f'{t} x{n}', d[(f'{t} x{n}', 'gross')])}"
                            for name, d in per.items() if (f"{t} x{n}", "gross") in d) +
                  f", host load {load:.1f}",
                  file=sys.stderr, flush=True)
    for name, d in per.items():
        results.setdefault((name, smp), []).append(d)
        if name not in names:
            names.append(name)


def readside_pairs(isos, types, smp, k, args, results, names, rows_path):
    """One round of --readside --pairs: for each type and reader count,
    each ISO in turn (their order alternating by round) boots at the same
    time as a peer boot of its own, so that at most two QEMUs run at once
    (the rule on a shared 2-core host) and every figure of ours has a
    Linux figure taken beside it.  The peer column then holds one figure
    per pair, len(isos) per round."""
    from concurrent.futures import ThreadPoolExecutor
    order = isos if k % 2 == 0 else isos[::-1]
    for t in types:
        for n in (n for n in args.readers if n <= smp):
            for name, p, mode, start in order:
                load = loadavg()
                with ThreadPoolExecutor(2) as ex:
                    lin = (ex.submit(peer_rs, t, n, smp,
                                     os.path.join(args.log_dir, f"peer-{t}-{n}-{smp}-{k}-{name}.log"),
                                     args.loops, args.timeout)
                           if args.peer else None)
                    if lin:
                        time.sleep(args.peer_lead)
                    fut = ex.submit(boot_rcukern, p, smp,
                                    rs_cmdline(t, n, args.loops, mode, start, args.append),
                                    os.path.join(args.log_dir, f"{name}-{smp}-{t}-{n}-{k}.log"),
                                    args.timeout)
                    rows, _ = fut.result()
                    v = lin.result() if lin else None
                f = rs_figures(rows)
                results.setdefault((name, smp), [])
                if len(results[(name, smp)]) <= k:
                    results[(name, smp)].append({})
                results[(name, smp)][k].update(f)
                if name not in names:
                    names.append(name)
                with open(rows_path, "a") as out:
                    out.writelines(f"{r} iso={name} boot={k} host_load={load}\n" for r in rows)
                    if v is not None:
                        out.write(f"name=linux_readside type={t} cpus={n} median_ns={v:.3f} "
                                  f"iso=linux pair={name} boot={k} host_load={load}\n")
                if v is not None:
                    lk = ("linux-6.1", smp)
                    results.setdefault(lk, [])
                    j = k * len(isos) + [nm for nm, _, _, _ in order].index(name)
                    while len(results[lk]) <= j:
                        results[lk].append({})
                    results[lk][j][(f"{t} x{n}", "gross")] = v
                    if "linux-6.1" not in names:
                        names.append("linux-6.1")
                ours = f.get((f"{t} x{n}", "gross"))
                print(f"gpcompare: round {k} {t} x{n}: {name} "
                      f"{fmt(f'{t} x{n}', ours) if ours is not None else '-'}"
                      f", its peer {fmt(f'{t} x{n}', v) if v is not None else '-'}"
                      f", host load {load:.1f}", file=sys.stderr, flush=True)


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
        # A session of its own, as the peer's boots get (see above), so
        # that a timeout stops QEMU too, not only run.sh above it.
        p = subprocess.Popen(["./run.sh", "--no-build", "-s", str(smp), "-c", cmdline],
                             cwd=ROOT, env=env, stdout=f, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()
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
    """A figure of row WHAT: by the row's name, never by the value's type
    (the median of an even number of integers is a float)."""
    if re.fullmatch(r"\S+ x\d+", what):      # a read-side row: "srcu x2"
        return f"{v:.1f} ns"
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
    ap.add_argument("--smp", help="vCPU counts (default 2,4,16; --readside: 4)")
    ap.add_argument("--boots", type=int, default=3)
    ap.add_argument("--cmdline", default="test=rcu,rcu_preempt")
    ap.add_argument("--peer", action="store_true", help="the Linux peer's rcuscale too")
    ap.add_argument("--readside", action="store_true",
                    help="the read side (paper_readside; the peer's refscale) instead")
    ap.add_argument("--types", default="srcu,refcnt,rcu,rcu-nonpreempt",
                    help="--readside: our reader types")
    ap.add_argument("--loops", type=int, default=RS_LOOPS,
                    help="--readside: sections per reader per run, both kernels (a run "
                    "of seconds spans the host's scheduling; 1000000 is refscale's)")
    ap.add_argument("--peer-lead", type=float, default=6.0,
                    help="--readside --peer: start the peer this many seconds before ours, "
                    "so that the two measure at the same time (Linux boots slower)")
    ap.add_argument("--irqs-off", default="2",
                    help="--readside: our refscale.irqs_off (2: around the whole timed loop, "
                    "as Linux's refscale; 1: each batch); a list (1,2) runs every ISO in each")
    ap.add_argument("--readers", default=",".join(map(str, RS_READERS)),
                    type=lambda v: [int(x) for x in v.split(",")],
                    help="--readside: reader counts (default 1,2,4)")
    ap.add_argument("--start", default="linux",
                    help="--readside: how our readers start: linux (default; each on its own "
                    "after one untimed pass, as Linux 6.1's refscale, whose start and warm-up "
                    "waits are no-ops), barrier (all together, paper_readside's own); a list "
                    "runs every ISO in each")
    ap.add_argument("--pairs", action="store_true",
                    help="--readside: boot each ISO with a peer boot of its own, one pair "
                    "at a time (at most two QEMUs at once) instead of all ISOs and one "
                    "peer together")
    ap.add_argument("--append", default="",
                    help="--readside: more words for our command line, every ISO "
                    "(e.g. refscale.verbose=1: each reader's start and time)")
    ap.add_argument("--log-dir", default=os.path.join(ROOT, "build", "gpcompare"))
    ap.add_argument("--timeout", type=int, default=900, help="per boot, s")
    args = ap.parse_args(argv)

    isos = [tuple(s.split("=", 1)) for s in args.iso]
    for n, p in isos:
        if not os.path.isfile(p):
            ap.error(f"{n}: {p} not found")
    names = [n for n, _ in isos]
    modes = [int(m) for m in args.irqs_off.split(",")]
    starts = args.start.split(",")
    if any(st not in ("linux", "barrier") for st in starts):
        ap.error("--start: linux, barrier or both")
    rs_isos = [(n + ("" if len(modes) == 1 else f"-irqs{m}") + ("" if len(starts) == 1 else f"-{st}"),
                p, m, st) for n, p in isos for m in modes for st in starts]
    if args.readside:
        names = [n for n, _, _, _ in rs_isos]
    sizes = [int(s) for s in (args.smp or ("4" if args.readside else "2,4,16")).split(",")]
    os.makedirs(args.log_dir, exist_ok=True)
    rows_path = os.path.join(args.log_dir, "rows.txt")
    open(rows_path, "w").close()
    results = {}
    for k in range(args.boots):
        for smp in sizes:
            if args.readside:
                readside_round(rs_isos, args.types.split(","), smp, k, args, results, names,
                               rows_path)
                continue
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
