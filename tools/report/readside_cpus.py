"""tools/report/readside_cpus.py: the figure readside-cpus.png (the
read-side cost by CPU count from the three sources, the article's
primitives in one panel and the other reader types beside it) and
readside-cpus-batch.png (the same from the batch medians)."""

import math

from .common import LINUX_LABEL, PAPER_LABEL, cs_of, readside, series_by, type_order
from .paper import add_preempt_cpus, paper_series
from .plot import PanelPlot, Plot


# The read-side figure's main panel: the article's three primitives, each
# from the three sources, PREEMPT=y throughout (the 2007 PREEMPT=n RCU is
# Quick Quiz 1's deleted loop).  (label, our type, Linux model and type,
# the article's column, colour key.)
MAIN_PANEL = (("RCU", "rcu", ("preempt", "rcu"), "rcu", "rcu"),
              ("rwlock", "rwlock", ("preempt", "rwlock"), "rwlock", "rwlock"),
              ("refcount", "refcnt", ("preempt", "refcnt"), "refcnt", "refcnt"))
# Linux's other refscale types: (model, type) -> (label, colour key).
LINUX_OTHER = {("none", "rcu"): ("rcu, PREEMPT_NONE (empty loop)", "rcu-nonpreempt"),
               ("preempt", "srcu"): ("srcu", "srcu"),
               ("preempt", "lock"): ("spinlock (lock)", "spinlock")}


def readside_points(rows):
    """{type: [(cpus, y, sd)]} of the cs_ns=0 read-side rows: the median
    (gross, loop included, as refscale reports) or the mean, no bars.  For
    a CPU count measured in several VMs the smallest VM's row is taken
    (vcpus=; the Linux peer runs at -smp 4), the last of those."""
    best = {}
    for r in readside(rows):
        if cs_of(r) != 0 or not r.get("type"):
            continue
        k = (r["type"], r.num("cpus"))
        v = r.num("vcpus", math.inf)
        if k not in best or v <= best[k].num("vcpus", math.inf):
            best[k] = r
    out = {}
    for (t, c), r in best.items():
        y = r.num("median_ns", r.num("ns_per_op"))
        if y is not None:
            out.setdefault(t, []).append((c, y, 0.0))
    return {t: sorted(v) for t, v in out.items()}


def linux_readside(rows):
    """{(model, type): [(cpus, median, 0)]} of the Linux peer's rows.  A
    type other than rcu measured only under the other model (a half-built
    peer) stands in for it: its cost hardly depends on the model."""
    out = {}
    for r in rows:
        if r.get("name") != "linux_readside" or r.num("cpus") is None:
            continue
        y = r.num("median_ns", r.num("ns_per_op"))
        if y is not None:
            out.setdefault((r.get("model"), r.get("type")), {})[r.num("cpus")] = \
                (r.num("cpus"), y, 0.0)
    for (m, t) in list(out):
        other = "none" if m == "preempt" else "preempt"
        if t != "rcu" and (other, t) not in out:
            out[(other, t)] = out[(m, t)]
    return {k: sorted(v.values()) for k, v in out.items()}


def readside_figure(rows, ours, paper):
    """The read-side figure: the article's point (RCU far below rwlock and
    refcount) in the main panel, the other reader types beside it."""
    mine, lin = readside_points(rows), linux_readside(rows)
    pre = paper.get("preempt")
    main = Plot("readside-cpus", "RCU vs rwlock vs refcount (PREEMPT=y)",
                "CPUs (readers)", "ns per critical section, median (log)")
    for label, ours_t, lkey, col, kind in MAIN_PANEL:
        if pre:
            main.add(f"{label}: {PAPER_LABEL}", paper_series(pre, "cpus", f"{col}_ns",
                                                             f"{col}_sd"), True, kind=kind)
        if ours_t in mine:
            main.add(f"{label}: {ours}", mine[ours_t], kind=kind)
        if lkey in lin:
            main.add(f"{label}: {LINUX_LABEL}", lin[lkey], kind=kind, linux=True)
    other = Plot("readside-cpus-other", "The other reader types", "CPUs (readers)",
                 "ns per critical section, median (log)")
    for t in sorted(mine, key=type_order):
        if t not in [m[1] for m in MAIN_PANEL]:
            other.add(f"{t}: {ours}", mine[t], kind=t)
    for key, (label, kind) in LINUX_OTHER.items():
        if key in lin:
            other.add(f"{label}: {LINUX_LABEL}", lin[key], kind=kind, linux=True)
    return PanelPlot("readside-cpus", "Read-side critical section cost by CPU "
                     "count (cs_ns=0)", [main, other],
                     caption="Solid: rcukern; dotted with triangles: Linux 6.1 "
                     "refscale in the same QEMU on the same host; dashed with "
                     "open circles: the article (2007).  Medians of the runs, "
                     "gross (the loop included).")




def figures(rows, ours, paper):
    plots = [readside_figure(rows, ours, paper)]
    zero = [r for r in readside(rows) if cs_of(r) == 0]

    # The same from the batch medians (no error bars: one figure per
    # point): the cost while the host lets the vCPUs run.
    # Returned without rows of its own too: figures.py skips it with the
    # reason, and a PNG of an earlier log does not stay beside the report.
    bz = [r for r in zero if r.num("batch_ns") is not None]
    p = Plot("readside-cpus-batch", "Read-side cost by CPU count, batch "
             "medians (batch_ns; cs_ns=0)", "CPUs",
             "ns per critical section (log)", xaxis="cpus")
    s, _ = series_by(bz, lambda r: r.get("type"), lambda r: r.num("cpus"),
                     "batch_ns", None)
    for t in sorted(s, key=type_order):
        p.add(f"{ours}: {t}", s[t], kind=t)
    add_preempt_cpus(p, paper, ("rwlock", "refcnt", "rcu"))
    plots.append(p)
    return plots
