"""tools/report/refcnt.py: the figures refcnt-cpus.png and
refcnt-cslen.png: a reference count against RCU by CPU count and by
critical-section length (the article's reference-counting comparison)."""

from .common import PAPER_LABEL, cs_of, cslen_sweep, readside, series_by, type_order
from .paper import add_preempt_cpus, paper_series
from .plot import Plot, fit_cslen_axis


def figures(rows, ours, paper):
    plots = []
    zero = [r for r in readside(rows) if cs_of(r) == 0]
    cpus, sweep, label = cslen_sweep(rows)

    # paper_refcnt prints name=refcnt rows with the readside keys: the
    # reference on one object; the readside rows' refcnt types are the
    # bare counters.  Both are drawn, told apart in the legend.
    refs = ("refcnt", "refcnt-percpu", "rcu-sched", "rcu")
    ref_rows = [r for r in rows if r.get("name") == "refcnt"
                and r.num("cpus") is not None and r.num("ns_per_op") is not None]

    def ref_key(r):
        if r.get("type") not in refs:
            return None
        return r["type"] if r["name"] == "readside" else f"{r['type']} (paper_refcnt)"

    def ref_kind(key):
        return key.split(" ")[0]

    p = Plot("refcnt-cpus", "Reference count vs RCU by CPU count (cs_ns=0)",
             "CPUs", "ns per get/put or read-side section (log)", xaxis="cpus")
    s, _ = series_by(zero + [r for r in ref_rows if cs_of(r) == 0], ref_key,
                     lambda r: r.num("cpus"), "ns_per_op", "stddev")
    for t in sorted(s, key=type_order):
        p.add(f"{ours}: {t}", s[t], kind=ref_kind(t), alt="(" in t)
    add_preempt_cpus(p, paper, ("refcnt", "rcu"))
    plots.append(p)

    p = Plot("refcnt-cslen", f"Reference count vs RCU by critical-section "
             f"length ({label}; 2007: 16 CPUs)", "critical-section length (us)",
             "ns per section, work included (log)", xmin=-0.5)
    s, _ = series_by(sweep + [r for r in ref_rows if r.num("cpus") == cpus],
                     ref_key, lambda r: cs_of(r) / 1000, "ns_per_op", "stddev")
    for t in sorted(s, key=type_order):
        p.add(f"{ours}: {t}", s[t], kind=ref_kind(t), alt="(" in t)
    if "cslen" in paper:
        c = paper["cslen"]
        p.add(f"{PAPER_LABEL}: refcnt", paper_series(c, "cs_us", "refcnt_ns",
                                                    "refcnt_sd"), True, kind="refcnt")
        p.add(f"{PAPER_LABEL}: RCU", paper_series(c, "cs_us", "rcu_ns",
                                                 "rcu_sd"), True, kind="rcu-sched")
    fit_cslen_axis(p)
    plots.append(p)
    return plots
