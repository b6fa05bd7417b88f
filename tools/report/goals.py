"""tools/report/goals.py: the read-side goals table (docs/design.md):
the ratios and the indistinguishable row from rcukern's rows, beside the
article's 2007 figures."""

import math

from .common import fmt, md_table
from .readside_tables import _zero_cells


def paper_goals(paper, n):
    """The same four figures from the article's 2007 data (16-CPU x86,
    PREEMPT=y for the ratios: the PREEMPT=n RCU row is the article's Quick Quiz 1's
    deleted loop, 0.0001 ns).  A list of four cells ("-" if no data)."""
    cells = ["-"] * 4
    c = paper.get("preempt") if paper else None
    if c:
        rows = [dict(zip(c, vals)) for vals in zip(*c.values())]
        rows = [r for r in rows if r.get("cpus") is not None]
        at = [r for r in rows if r["cpus"] == n] or \
            [max(rows, key=lambda r: r["cpus"])] if rows else []
        one = [r for r in rows if r["cpus"] == 1]
        if at and at[0].get("rcu_ns"):
            r = at[0]
            m = f"{r['cpus']:g} CPUs"
            if r.get("rwlock_ns"):
                cells[0] = f"{r['rwlock_ns'] / r['rcu_ns']:.0f}x ({fmt(r['rwlock_ns'])} / {fmt(r['rcu_ns'])} ns, {m})"
            if r.get("refcnt_ns"):
                cells[1] = f"{r['refcnt_ns'] / r['rcu_ns']:.0f}x ({fmt(r['refcnt_ns'])} / {fmt(r['rcu_ns'])} ns, {m})"
            if one and one[0].get("rcu_ns"):
                d = (r["rcu_ns"] - one[0]["rcu_ns"]) / one[0]["rcu_ns"]
                cells[2] = f"{d * 100:+.1f}% ({fmt(r['rcu_ns'])} vs {fmt(one[0]['rcu_ns'])} ns)"
    c = paper.get("nonpreempt") if paper else None
    if c and c.get("rcu_ns"):
        v = [x for x in c["rcu_ns"] if x is not None]
        if v:
            cells[3] = (f"{max(v):.2g} ns: the loop was deleted by the "
                        "compiler (Quick Quiz 1)")
    return cells


def goals(rows, paper=None):
    """The read-side goals at the largest CPU count measured, cs_ns=0,
    from the means and from the medians; the verdict uses the medians when
    the rows have them (docs/design.md: under QEMU a mean measures the host).
    The last column is the article's 2007 figure (paper_goals)."""
    cell = _zero_cells(rows)
    if not cell:
        return ["No read-side rows: the goals cannot be checked."]
    n = max(c for _, c in cell)
    body = []

    def get(t, c=n, key="ns_per_op"):
        r = cell.get((t, c))
        return r.num(key) if r is not None else None

    def both(f):
        """f(key) -> (text, ok) for the mean, the median and the batch
        median; the verdict on the most robust one the rows have."""
        mean = f("ns_per_op")
        med = f("median_ns")
        bat = f("batch_ns")
        ok, basis = mean[1], "mean"
        if med[1] is not None:
            ok, basis = med[1], "median"
        if bat[1] is not None:
            ok, basis = bat[1], "batch median"
        verdict = "-" if ok is None else ("met" if ok else "NOT met") + f" ({basis})"
        return [mean[0], med[0], bat[0], verdict]

    def ratio(num, goal):
        def f(key):
            a, b = get(num, key=key), get("rcu-sched", key=key)
            if a is None or b is None or b <= 0:
                return "-", None
            return f"{a / b:.1f}x ({fmt(a)} / {fmt(b)} ns)", a / b >= goal
        body.append([f"{num} / rcu-sched at {n:g} CPUs", f">= {goal}x"] + both(f))

    ratio("rwlock", 100)
    ratio("refcnt", 10)

    def flat(key):
        one, many = get("rcu-sched", 1.0, key), get("rcu-sched", key=key)
        if not one or many is None or n == 1:
            return "-", None
        d = (many - one) / one
        return f"{d * 100:+.1f}% ({fmt(many)} vs {fmt(one)} ns)", abs(d) <= 0.10
    body.append([f"rcu-sched {n:g} CPUs vs 1 CPU", "within 10%"] + both(flat))

    # The non-preemptible build's rcu_read_lock(): its own row since
    # preemptible RCU exists; older logs had it as `rcu`.
    np = "rcu-nonpreempt" if get("rcu-nonpreempt") is not None else "rcu"

    def same(key):
        """Two-sided: the difference, either way, within twice its own
        standard deviation (about 95%), which has both rows' spread in it:
        sqrt(sd_a^2 + sd_e^2), each row's the run-to-run stddev and at
        least 2.5% of its figure (a median's spread is not in the row)."""
        a, e = get(np, key=key), get("empty", key=key)
        if a is None or e is None:
            return "-", None

        def sd(t, v):
            return max(get(t, key="stddev") or 0, 0.025 * abs(v))
        noise = max(2 * math.hypot(sd(np, a), sd("empty", e)), 0.05)
        return f"{a - e:+.3g} ns (±{noise:.3g})", abs(a - e) <= noise
    body.append([f"{np} (non-preemptible rcu_read_lock) vs empty loop at {n:g} CPUs",
                 "indistinguishable"] + both(same))

    for line, p07 in zip(body, paper_goals(paper, n)):
        line.append(p07)
    out = md_table(["goal", "target", "from the means", "from the medians",
                    "from the batch medians", "verdict",
                    "2007 article (Linux, 16-CPU x86)"], body)
    out += ["", "Ratios use the gross time per critical section "
            "(`ns_per_op` or `median_ns`, loop included, as the article and "
            "refscale report it); the *batch median* (`batch_ns`) is each "
            "reader's median timed batch per section, the median over "
            "readers and runs: the cost while the host lets the vCPU run, "
            "which is what a mean under TCG is not. They are reported, not "
            "asserted. \"Indistinguishable\" is two-sided: the difference, "
            "faster or slower, within two standard deviations of the "
            "difference, sqrt(sd1^2 + sd2^2) from the two rows' run-to-run "
            "stddevs (each at least 2.5% of its figure)."]
    return out
