"""tools/report/readside_cslen.py: the figure readside-cslen.png (the
read-side cost by critical-section length at the sweep's CPU count,
beside the article's 16-CPU curve) and readside-cslen-batch.png (the same
from the batch medians)."""

from .common import PAPER_LABEL, cs_of, cslen_sweep, series_by, type_order
from .paper import paper_series
from .plot import Plot, fit_cslen_axis


def figures(rows, ours, paper):
    plots = []
    cpus, sweep, label = cslen_sweep(rows)
    s, _ = series_by(sweep, lambda r: r.get("type"), lambda r: cs_of(r) / 1000,
                     "ns_per_op", "stddev")
    p = Plot("readside-cslen", f"Cost by critical-section length ({label}; "
             "2007: 16 CPUs, PREEMPT=y)", "critical-section length (us)",
             "ns per critical section, work included (log)", xmin=-0.5)
    for t in sorted(s, key=type_order):
        p.add(f"{ours}: {t}", s[t], kind=t)
    if "cslen" in paper:
        c = paper["cslen"]
        p.add(f"{PAPER_LABEL}: rwlock", paper_series(c, "cs_us", "rwlock_ns",
                                                    "rwlock_sd"), True, kind="rwlock")
        p.add(f"{PAPER_LABEL}: RCU", paper_series(c, "cs_us", "rcu_ns",
                                                 "rcu_sd"), True, kind="rcu-sched")
    fit_cslen_axis(p)
    plots.append(p)

    # Returned without batch rows too: skipped with the reason, and no
    # PNG of an earlier log stays.
    bs = [r for r in sweep if r.num("batch_ns") is not None]
    s, _ = series_by(bs, lambda r: r.get("type"), lambda r: cs_of(r) / 1000,
                     "batch_ns", None)
    p = Plot("readside-cslen-batch", f"Cost by critical-section length, "
             f"batch medians ({label}; 2007: 16 CPUs, PREEMPT=y)",
             "critical-section length (us)",
             "ns per critical section, work included (log)", xmin=-0.5)
    for t in sorted(s, key=type_order):
        p.add(f"{ours}: {t}", s[t], kind=t)
    if "cslen" in paper:
        c = paper["cslen"]
        for col, kind in (("rwlock", "rwlock"), ("refcnt", "refcnt"), ("rcu", "rcu-sched")):
            p.add(f"{PAPER_LABEL}: {col}", paper_series(c, "cs_us", f"{col}_ns",
                                                       f"{col}_sd"), True, kind=kind)
    fit_cslen_axis(p)
    plots.append(p)
    return plots
