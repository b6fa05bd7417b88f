"""tools/report/readside_tables.py: the report's read-side tables: the
type x CPUs matrix of rcukern's rows and the three-source table (the
article, rcukern, the Linux 6.1 peer)."""

import math

from .common import LINUX_LABEL, cs_of, fmt, md_table, no_peer, readside, type_order


def _zero_cells(rows):
    """{(type, cpus): row} of the cs_ns=0 read-side rows (the last wins),
    with the harness alone (name=readside_harness) as the type harness."""
    cells = {(r["type"], r.num("cpus")): r for r in readside(rows)
             if cs_of(r) == 0 and r.get("type")}
    for r in rows:
        if r.get("name") == "readside_harness" and r.num("cpus") is not None \
                and r.num("ns_per_op") is not None:
            cells[("harness", r.num("cpus"))] = r
    return cells


def readside_matrix(rows):
    """type x CPUs: mean ± stddev at cs_ns=0, the median, and the median
    net of the empty loop's median (a mean under TCG carries the host's
    descheduling outliers; the median does not)."""
    cell = _zero_cells(rows)
    if not cell:
        return []
    cpus = sorted({c for _, c in cell})
    types = sorted({t for t, _ in cell}, key=type_order)
    body = []
    for t in types:
        line = [t]
        for c in cpus:
            r = cell.get((t, c))
            if r is None:
                line.append("")
                continue
            v, sd, med = r.num("ns_per_op"), r.num("stddev"), r.num("median_ns")
            s = fmt(v) + (f" ± {fmt(sd, 2)}" if sd is not None else "")
            if med is not None:
                s += f", median {fmt(med)}"
                e = cell.get(("empty", c))
                e_med = e.num("median_ns") if e is not None else None
                if t not in ("empty", "harness") and e_med is not None:
                    s += f" (net {fmt(med - e_med)})"
            b = r.num("batch_ns")
            if b is not None:
                s += f", batch {fmt(b)}"
            lg = r.num("less_gaps_ns")
            if lg is not None:
                s += f", less gaps {fmt(lg)}"
            if r.get("host_gaps") not in (None, "0"):
                s += f" [gaps {r['host_gaps']}]"
            line.append(s)
        body.append(line)
    return md_table(["type"] + [f"{c:g} CPU" + ("s" if c != 1 else "")
                                for c in cpus], body)


# The three-source read-side table: (what, our type, Linux (model, type),
# the article's table and column).  Like for like: our preemptible
# rcu_read_lock() against a PREEMPT kernel's, our non-preemptible one
# (Quick Quiz 1's empty rcu_read_lock(): the bare loop) against
# PREEMPT_NONE's; Linux 6.1's refscale has no rcu_read_lock_sched type.
THREE_SOURCES = (
    ("rcu_read_lock(), preemptible", "rcu", ("preempt", "rcu"), ("preempt", "rcu")),
    ("rcu_read_lock(), non-preemptible", "rcu-nonpreempt", ("none", "rcu"),
     ("nonpreempt", "rcu")),
    ("rcu_read_lock_sched()", "rcu-sched", None, None),
    ("empty loop", "empty", None, None),
    ("rwlock read", "rwlock", ("preempt", "rwlock"), ("preempt", "rwlock")),
    ("refcount (one atomic)", "refcnt", ("preempt", "refcnt"), ("preempt", "refcnt")),
    ("SRCU", "srcu", ("preempt", "srcu"), None),
    ("spinlock", "spinlock", ("preempt", "lock"), None),
    ("the timing harness alone", "harness", None, None),
)


def _picked_rows(rows):
    """{(type, cpus): row} of the cs_ns=0 read-side rows, the smallest VM's
    (vcpus=) for a CPU count measured in several, the last of those."""
    best = {}
    for r in readside(rows):
        if cs_of(r) != 0 or not r.get("type"):
            continue
        k = (r["type"], r.num("cpus"))
        if k not in best or r.num("vcpus", math.inf) <= best[k].num("vcpus", math.inf):
            best[k] = r
    return best


def three_source_table(rows, paper, counts=(1, 2, 4)):
    """The read-side cost from the article, rcukern and the Linux 6.1 peer
    at 1, 2 and 4 CPUs: medians (gross), ours with its batch median."""
    mine = _picked_rows(rows)
    for r in rows:
        if r.get("name") == "readside_harness" and r.num("cpus") is not None:
            mine[("harness", r.num("cpus"))] = r
    lin = {}
    for r in rows:
        if r.get("name") == "linux_readside" and r.num("cpus") is not None:
            lin[(r.get("model"), r.get("type"), r.num("cpus"))] = r
    if not lin and not any(c in counts for _, c in mine):
        return []
    for (m, t, c), r in list(lin.items()):     # see linux_readside()
        other = "none" if m == "preempt" else "preempt"
        if t != "rcu":
            lin.setdefault((other, t, c), r)
    body = []
    for what, ours_t, lkey, pkey in THREE_SOURCES:
        for c in counts:
            r = mine.get((ours_t, float(c)))
            lr = lin.get((lkey[0], lkey[1], float(c))) if lkey else None
            pv = None
            if pkey and paper.get(pkey[0]):
                cols = paper[pkey[0]]
                for x, y in zip(cols.get("cpus", []), cols.get(f"{pkey[1]}_ns", [])):
                    if x == c:
                        pv = y
            if r is None and lr is None:
                continue
            ours_cell = "-"
            if r is not None:
                ours_cell = fmt(r.num("median_ns", r.num("ns_per_op")))
                extra = [f"{k} {fmt(r.num(key))}" for k, key in
                         (("batch", "batch_ns"), ("less gaps", "less_gaps_ns"))
                         if r.num(key) is not None]
                if extra:
                    ours_cell += f" ({', '.join(extra)})"
                if r.num("vcpus") is not None:
                    ours_cell += f" [-smp {r.num('vcpus'):g}]"
            if lr is not None:
                # Its fastest run: the nearest Linux has to our batch
                # median (one timed loop per run, no batches).
                best = (f", fastest run {fmt(lr.num('min_ns'))}"
                        if lr.num("min_ns") is not None else "")
                lin_cell = (f"{fmt(lr.num('median_ns'))} (mean {fmt(lr.num('ns_per_op'))}{best}) "
                            f"[-smp {lr.num('vcpus', 0):g}, {lr.get('model')}]")
            elif lkey is None and ours_t == "rcu-sched" and lin:
                lin_cell = "no such refscale type in 6.1"
            else:
                lin_cell = "-"
            body.append([what, c, fmt(pv) if pv is not None else "-", ours_cell, lin_cell])
    out = md_table(["reader", "CPUs", "2007 article (mean)",
                    "rcukern median (batch median, less gaps)",
                    f"{LINUX_LABEL}: median (mean)"], body)
    out += ["", "Like for like: our preemptible `rcu_read_lock()` against Linux "
            "built with PREEMPT, our non-preemptible one (`rcu-nonpreempt`, "
            "Quick Quiz 1's empty `rcu_read_lock()`: the bare loop) against "
            "PREEMPT_NONE's `rcu` (whose loop is empty too); rwlock, refcount, "
            "SRCU and spinlock against the PREEMPT image's `rwlock`, `refcnt`, "
            "`srcu` and `lock`. Linux 6.1's refscale has no `rcu_read_lock_sched()` "
            "type. Both are gross figures (the loop included). Linux times one "
            "loop per run per reader with irqs off (`ktime_get_mono_fast_ns()`); "
            "rcukern times about 64 batches per run with irqs on (refscale.irqs_off=2, "
            "which `tools/gpcompare.py --readside` uses, keeps them off around the "
            "whole loop as Linux does). Its readers start together at a barrier, "
            "where Linux 6.1's each start on their own after one untimed pass "
            "(its start waits are no-ops), so that with more busy vCPUs than host "
            "cores theirs overlap less (refscale.linux_start=1, which "
            "`tools/gpcompare.py --readside` uses, starts ours the same way: "
            "docs/design.md, Measurement). Its batch "
            "median leaves out what the host took; *less gaps* is its gross "
            "figure less what the host took beyond a median batch, so that it "
            "differs from the batch median by what the timing between batches "
            "costs; the harness alone is that timing with no sections (its "
            "gross cost per section, in every other gross figure). A gross "
            "figure is a share of the host as much as a cost, and `make bench` "
            "boots ours and the peer one after the other: on a loaded host "
            "`tools/gpcompare.py --readside --peer` boots them at the same "
            "time, so that both get the same share, and the host-free "
            "comparison is our batch median against Linux's fastest run. "
            "`rcu_read_lock_sched()` "
            "counts preemption here, where a PREEMPT_NONE kernel without "
            "PREEMPT_COUNT compiles it to nothing: that kernel's `rcu` row is "
            "the like of our `rcu-nonpreempt`, not of our `rcu-sched`. The 2007 figures are means on "
            "a 16-CPU 3 GHz x86 (PREEMPT=y, except the non-preemptible RCU row: "
            "PREEMPT=n, the loop the compiler deleted)."]
    return out + ([] if lin else ["", no_peer()])
