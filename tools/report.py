#!/usr/bin/env python3
"""tools/report.py: the benchmark report (`make report`).  Reads the
benchmark rows ("# bench name=... key=value ...", docs/design.md) of a serial
log -- or boots ./run.sh to make one when no log is given -- and writes
build/report/report.md: the read-side goals with the ratios measured, a table
of every row grouped by name, and PNG plots through gnuplot that mirror
the article's figures, with the article's own 2007 measurements
(docs/paper-data/*.tsv) drawn on the same axes:

    readside-cpus.png    read-side cost vs CPUs, log scale, error bars
    readside-cslen.png   cost vs critical-section length (cs_ns)
    refcnt-cpus.png      reference count vs RCU by CPUs
    refcnt-cslen.png     reference count vs RCU by critical-section length
    gp-latency.png       synchronize_sched() latency, normal vs expedited
    timeline.png         readers and an updater running concurrently
                         (name=timeline rows: which value each section saw)

    tools/report.py                       boot ./run.sh (the scenarios) and report
    tools/report.py build/test-logs/bench.txt     report on saved rows
    tools/report.py serial.log --out DIR --paper-data DIR

A log from a real PC works the same way; the kernel's "# platform:
qemu|hardware ..." line says which the numbers are.  Without gnuplot the
tables are written and the report says the plots were skipped.  Only the
Python standard library is used.
"""

import argparse
import datetime
import math
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAPER_LABEL = "2007 Linux, 16-CPU 3GHz x86"
LINUX_LABEL = "Linux 6.1, same QEMU, same host"

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchrows import BENCH, PLATFORM, clean_lines  # noqa: E402


# --------------------------------------------------------------------------
# Reading rows

class Row(dict):
    """One benchmark row: key -> value string; .num(key) gives a float."""

    def __init__(self, pairs, source):
        super().__init__(pairs)
        self.source = source

    def num(self, key, default=None):
        try:
            v = float(self[key])
        except (KeyError, ValueError):
            return default
        return v if math.isfinite(v) else default


def parse_row(text, source=""):
    pairs = []
    for tok in text.split():
        key, eq, val = tok.partition("=")
        if eq and key:
            pairs.append((key, val))
    return Row(pairs, source) if pairs and pairs[0][0] == "name" else None


def read_log(text, source=""):
    """Returns (rows, platform lines) of a serial log or a bench.txt, its
    lines cleaned as the runner cleans them (tools/benchrows.py)."""
    rows, platforms = [], []
    for n, line in enumerate(clean_lines(text), 1):
        m = BENCH.search(line)
        if m:
            row = parse_row(m.group(1), f"{source}:{n}")
            if row is not None:
                rows.append(row)
            continue
        m = PLATFORM.search(line)
        if m:
            platforms.append(m.group(1))
    return rows, platforms


def platform_label(platforms, ran_qemu=False):
    """How our series are labelled in the plots and the report."""
    words = " ".join(platforms).lower().split()
    if "hardware" in words:
        return "rcukern on a real PC"
    if "qemu" in words:
        return "rcukern under QEMU KVM" if "kvm" in words else \
            "rcukern under QEMU TCG"
    if ran_qemu:
        return "rcukern under QEMU TCG"
    return "rcukern (platform not stated in the log)"


# --------------------------------------------------------------------------
# The article's data

def read_tsv(path):
    """A paper-data table: {column: [float or None]} in row order."""
    with open(path) as f:
        lines = [x.rstrip("\n") for x in f if x.strip()]
    head = lines[0].split("\t")
    cols = {h: [] for h in head}
    for line in lines[1:]:
        cells = line.split("\t")
        for i, h in enumerate(head):
            cell = cells[i].strip() if i < len(cells) else ""
            try:
                cols[h].append(float(cell) if cell else None)
            except ValueError:
                cols[h].append(None)
    return cols


def find_paper_data(explicit=None):
    candidates = [explicit] if explicit else []
    candidates += [os.environ.get("RCUKERN_PAPER_DATA"),
                   os.path.join(ROOT, "docs", "paper-data")]
    for c in candidates:
        if c and os.path.isfile(os.path.join(c, "readside-preempt.tsv")):
            return c
    return None


def paper_series(cols, xcol, ycol, sdcol, xscale=1.0):
    pts = []
    for x, y, sd in zip(cols.get(xcol, []), cols.get(ycol, []),
                        cols.get(sdcol, [])):
        if x is not None and y is not None:
            pts.append((x * xscale, y, sd or 0.0))
    return pts


# --------------------------------------------------------------------------
# Our series

def readside(rows):
    return [r for r in rows if r.get("name") == "readside"
            and r.num("cpus") is not None and r.num("ns_per_op") is not None]


def series_by(rows, key_fn, x_fn, y_key, sd_key):
    """{series: [(x, y, sd)]} sorted by x; a repeated x keeps the last row
    (returned in the duplicate count)."""
    out, dups = {}, 0
    for r in rows:
        k, x, y = key_fn(r), x_fn(r), r.num(y_key)
        if k is None or x is None or y is None:
            continue
        pts = out.setdefault(k, {})
        dups += x in pts
        pts[x] = (x, y, r.num(sd_key, 0.0) if sd_key else 0.0)
    return {k: sorted(v.values()) for k, v in out.items()}, dups


def cs_of(r):
    return r.num("cs_ns", 0.0)


def sweep_cpus(rows):
    """The CPU count of the critical-section sweep: the one with the most
    distinct cs_ns values (ties: the larger count)."""
    seen = {}
    for r in rows:
        seen.setdefault(r.num("cpus"), set()).add(cs_of(r))
    if not seen:
        return None
    return max(seen, key=lambda c: (len(seen[c]), c))


# --------------------------------------------------------------------------
# gnuplot

def gnuplot_terminal(gnuplot):
    for term in ("pngcairo", "png"):
        p = subprocess.run([gnuplot, "-e", f"set terminal {term}"],
                           capture_output=True, text=True)
        if p.returncode == 0 and not p.stderr.strip():
            return term
    return None


def _quote(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


# One colour per reader type, shared by our series and the article's
# (dashed), so the pairs to compare read at a glance.
COLOURS = {"rcu-sched": "#1b9e77", "rcu": "#66a61e", "srcu": "#a6761d",
           "rcu-nonpreempt": "#b3de69",
           "rwlock": "#d95f02", "rwlock-fair": "#e6ab02", "spinlock": "#7570b3",
           "refcnt": "#e7298a", "refcnt-percpu": "#984ea3", "seqlock": "#377eb8",
           "empty": "#666666", "normal": "#1b9e77", "expedited": "#d95f02"}
SPARE = ["#a65628", "#f781bf", "#4daf4a", "#ff7f00", "#999999", "#e41a1c"]


class Plot:
    def __init__(self, name, title, xlabel, ylabel, logy=True, xmin=0):
        self.name, self.title = name, title
        self.xlabel, self.ylabel, self.logy, self.xmin = xlabel, ylabel, logy, xmin
        self.series = []     # (title, [(x, y, ylow, yhigh)], paper?, colour)

    def add(self, title, pts, paper=False, bars="sd", kind=None, alt=False,
            linux=False):
        """pts: (x, y, sd) or, with bars="range", (x, y, low, high)."""
        out = []
        for p in pts:
            x, y = p[0], p[1]
            if bars == "range":
                lo, hi = p[2], p[3]
            else:
                lo, hi = y - p[2], y + p[2]
            if self.logy:
                if y <= 0:
                    continue         # nothing to draw on a log axis
                lo = max(lo, y / 100)
            out.append((x, y, lo, hi))
        if out:
            colour = COLOURS.get(kind) or SPARE[len(self.series) % len(SPARE)]
            self.series.append((title, out, paper, colour, alt, linux))

    def has_ours(self):
        return any(not s[2] and not s[5] for s in self.series)

    def plot_lines(self, data_dir, tag=""):
        """The gnuplot 'plot' command of the series (data files written)."""
        plots = []
        for i, (title, pts, paper, colour, alt, linux) in enumerate(self.series):
            dat = os.path.join(data_dir, f"{self.name}{tag}-{i}.dat")
            with open(dat, "w") as f:
                f.write(f"# {title}\n# x y ylow yhigh\n")
                for p in pts:
                    f.write(" ".join(f"{v:.6g}" for v in p) + "\n")
            style = ("with yerrorlines dt 2 lw 1 pt 6" if paper
                     else "with yerrorlines dt 3 lw 2 pt 9 ps 1.3" if linux
                     else "with yerrorlines dt 4 lw 2 pt 5" if alt
                     else "with yerrorlines lw 2 pt 7") + f" lc rgb '{colour}'"
            rel = os.path.relpath(dat, os.path.dirname(data_dir))
            plots.append(f"{_quote(rel)} using 1:2:3:4 {style} title {_quote(title)}")
        return "plot " + ", \\\n     ".join(plots)

    def script(self, term, data_dir):
        lines = [f"set terminal {term} size 960,720 noenhanced",
                 f"set output {_quote(self.name + '.png')}",
                 f"set title {_quote(self.title)}",
                 f"set xlabel {_quote(self.xlabel)}",
                 f"set ylabel {_quote(self.ylabel)}",
                 "set grid", "set key outside below",
                 f"set xrange [{self.xmin:g}:*]"]
        if self.logy:
            lines.append("set logscale y")
            lines.append("set format y '%g'")
        lines.append(self.plot_lines(data_dir))
        return "\n".join(lines) + "\n"


class PanelPlot:
    """Two or more Plots side by side in one PNG (gnuplot multiplot),
    sharing the x axis label; each panel has its own title and key."""

    def __init__(self, name, title, panels, caption=""):
        self.name, self.title, self.panels = name, title, panels
        self.caption = caption

    @property
    def series(self):
        return [s for p in self.panels for s in p.series]

    def has_ours(self):
        return any(p.has_ours() for p in self.panels)

    def script(self, term, data_dir):
        panels = [p for p in self.panels if p.series]
        lines = [f"set terminal {term} size {700 * len(panels)},820 noenhanced",
                 f"set output {_quote(self.name + '.png')}",
                 f"set multiplot layout 1,{len(panels)} title {_quote(self.title)}",
                 "set grid", "set key outside below Left reverse width -2"]
        # CPU counts are powers of two: a log2 x axis spaces 1, 2 and 4
        # as evenly as 8 and 16.
        xmax = max([x for q in panels for s in q.series for x, *_ in s[1]] + [4])
        lines += ["set logscale x 2", f"set xrange [0.8:{xmax * 1.25:g}]",
                  "set xtics (" + ", ".join(f"'{c}' {c}" for c in (1, 2, 4, 8, 16, 32, 64)
                                           if c <= xmax) + ")"]
        for i, p in enumerate(panels):
            lines += [f"set title {_quote(p.title)}",
                      f"set xlabel {_quote(p.xlabel)}",
                      f"set ylabel {_quote(p.ylabel)}"]
            if p.logy:
                lines += ["set logscale y", "set format y '%g'"]
            else:
                lines += ["unset logscale y"]
            lines.append(p.plot_lines(data_dir, f"-p{i}"))
        lines.append("unset multiplot")
        return "\n".join(lines) + "\n"


class TimelinePlot:
    """The article's "readers and updaters run concurrently" figure: per
    reader type one panel; each reader's critical sections around the
    update as bars (coloured by the value they saw), the updater's span
    from its start to its end with the commit (publish or lock acquired)
    marked.  Times are from the update's start, in microseconds."""

    SAW = (("old", "#377eb8"), ("new", "#1b9e77"))

    def __init__(self, rows, ours):
        self.name = "timeline"
        self.title = "Readers and an updater running concurrently"
        self.caption = ("Bars are critical sections: blue saw the old value, "
                        "green the new one; red is the update from its start "
                        "to its end, x at its commit (RCU: the publish; "
                        "rwlock: the write lock acquired).")
        self.ours = ours
        self.panels = {}     # type -> {"who": [(row)]}
        for r in rows:
            if r.get("name") != "timeline" or r.num("start_ns") is None \
                    or r.num("end_ns") is None:
                continue
            self.panels.setdefault(r.get("type", "?"), []).append(r)
        self.series = list(self.panels)

    def has_ours(self):
        return bool(self.panels)

    def script(self, term, data_dir):
        types = sorted(self.panels, key=type_order)
        height = 260 * len(types) + 80
        lines = [f"set terminal {term} size 960,{height} noenhanced",
                 f"set output {_quote(self.name + '.png')}",
                 f"set multiplot layout {len(types)},1 title "
                 + _quote(f"{self.title} ({self.ours})"),
                 "set grid x", "unset key", "set xlabel 'us from the start of the update'"]
        for t in types:
            rows = self.panels[t]
            readers = sorted({r.get("who") for r in rows
                              if r.get("who", "").startswith("reader")},
                             key=lambda w: int(re.sub(r"\D", "", w) or 0))
            ypos = {w: i + 1 for i, w in enumerate(readers)}
            files = {}
            for saw, _ in self.SAW:
                path = os.path.join(data_dir, f"timeline-{t}-{saw}.dat")
                with open(path, "w") as f:
                    f.write("# x0 y dx 0 (us)\n")
                    for r in rows:
                        if r.get("who") in ypos and r.get("saw") == saw:
                            x0, x1 = r.num("start_ns") / 1e3, r.num("end_ns") / 1e3
                            f.write(f"{x0:.6g} {ypos[r['who']]} {x1 - x0:.6g} 0\n")
                files[saw] = path
            upd = os.path.join(data_dir, f"timeline-{t}-updater.dat")
            with open(upd, "w") as f:
                f.write("# x0 y dx 0 commit (us)\n")
                for r in rows:
                    if r.get("who") == "updater":
                        x0, x1 = r.num("start_ns") / 1e3, r.num("end_ns") / 1e3
                        c = r.num("commit_ns", r.num("start_ns")) / 1e3
                        f.write(f"{x0:.6g} 0 {x1 - x0:.6g} 0 {c:.6g}\n")
            rel = lambda q: os.path.relpath(q, os.path.dirname(data_dir))  # noqa: E731
            ytics = ", ".join([_quote("updater") + " 0"]
                              + [f"{_quote(w)} {i}" for w, i in ypos.items()])
            lines += [f"set title {_quote(t)}",
                      f"set yrange [-0.7:{len(readers) + 0.7}]",
                      f"set ytics ({ytics})"]
            plots = [f"{_quote(rel(files[saw]))} using 1:2:3:4 with vectors "
                     f"nohead lw 6 lc rgb '{colour}'" for saw, colour in self.SAW]
            plots.append(f"{_quote(rel(upd))} using 1:2:3:4 with vectors nohead "
                         "lw 6 lc rgb '#e41a1c'")
            plots.append(f"{_quote(rel(upd))} using 5:2 with points pt 2 ps 2 "
                         "lw 2 lc rgb '#000000'")
            lines.append("plot " + ", \\\n     ".join(plots))
        lines.append("unset multiplot")
        return "\n".join(lines) + "\n"


def draw(plots, out_dir, gnuplot):
    """Writes NAME.gp and data/, runs gnuplot; returns {name: error or None}."""
    term = gnuplot_terminal(gnuplot)
    if term is None:
        return {p.name: "gnuplot has no png terminal" for p in plots}
    data_dir = os.path.join(out_dir, "data")
    os.makedirs(data_dir, exist_ok=True)
    result = {}
    for p in plots:
        if not p.series:
            continue
        gp = os.path.join(out_dir, p.name + ".gp")
        with open(gp, "w") as f:
            f.write(f"# {p.name}.gp: written by tools/report.py; run in {out_dir}\n")
            f.write(p.script(term, data_dir))
        r = subprocess.run([gnuplot, os.path.basename(gp)], cwd=out_dir,
                           capture_output=True, text=True, timeout=120)
        png = os.path.join(out_dir, p.name + ".png")
        if r.returncode != 0 or not os.path.isfile(png):
            result[p.name] = (r.stderr.strip().splitlines() or ["failed"])[-1]
        else:
            result[p.name] = None
    return result


# --------------------------------------------------------------------------
# The plots and the report

OUR_TYPES_CPUS = ("rcu-sched", "rcu", "rcu-nonpreempt", "srcu", "rwlock", "rwlock-fair",
                  "spinlock", "refcnt", "refcnt-percpu", "seqlock", "empty", "harness")


def type_order(t):
    base = t.split(" ")[0]
    return (OUR_TYPES_CPUS.index(base) if base in OUR_TYPES_CPUS else 99, t)


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


def build_plots(rows, ours, paper):
    rs = readside(rows)
    plots = [readside_figure(rows, ours, paper)]
    zero = [r for r in rs if cs_of(r) == 0]

    # The same from the batch medians (no error bars: one figure per
    # point): the cost while the host lets the vCPUs run.
    bz = [r for r in zero if r.num("batch_ns") is not None]
    if bz:
        p = Plot("readside-cpus-batch", "Read-side cost by CPU count, batch "
                 "medians (batch_ns; cs_ns=0)", "CPUs",
                 "ns per critical section (log)")
        s, _ = series_by(bz, lambda r: r.get("type"), lambda r: r.num("cpus"),
                         "batch_ns", None)
        for t in sorted(s, key=type_order):
            p.add(f"{ours}: {t}", s[t], kind=t)
        if "preempt" in paper:
            c = paper["preempt"]
            p.add(f"{PAPER_LABEL}: rwlock (PREEMPT=y)",
                  paper_series(c, "cpus", "rwlock_ns", "rwlock_sd"), True, kind="rwlock")
            p.add(f"{PAPER_LABEL}: refcnt (PREEMPT=y)",
                  paper_series(c, "cpus", "refcnt_ns", "refcnt_sd"), True, kind="refcnt")
            p.add(f"{PAPER_LABEL}: RCU (PREEMPT=y)",
                  paper_series(c, "cpus", "rcu_ns", "rcu_sd"), True, kind="rcu-sched")
        plots.append(p)

    cpus = sweep_cpus(rs)
    sweep = [r for r in rs if r.num("cpus") == cpus]
    s, _ = series_by(sweep, lambda r: r.get("type"), lambda r: cs_of(r) / 1000,
                     "ns_per_op", "stddev")
    label = f"{cpus:g} CPUs" if cpus is not None else "no rows"
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
    plots.append(p)

    bs = [r for r in sweep if r.num("batch_ns") is not None]
    if bs:
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
        plots.append(p)

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
             "CPUs", "ns per get/put or read-side section (log)")
    s, _ = series_by(zero + [r for r in ref_rows if cs_of(r) == 0], ref_key,
                     lambda r: r.num("cpus"), "ns_per_op", "stddev")
    for t in sorted(s, key=type_order):
        p.add(f"{ours}: {t}", s[t], kind=ref_kind(t), alt="(" in t)
    if "preempt" in paper:
        c = paper["preempt"]
        p.add(f"{PAPER_LABEL}: refcnt (PREEMPT=y)",
              paper_series(c, "cpus", "refcnt_ns", "refcnt_sd"), True, kind="refcnt")
        p.add(f"{PAPER_LABEL}: RCU (PREEMPT=y)",
              paper_series(c, "cpus", "rcu_ns", "rcu_sd"), True, kind="rcu-sched")
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
    plots.append(p)

    p = Plot("gp-latency", "Grace-period latency: synchronize_sched() vs "
             "expedited (bars: min..max; no 2007 data)", "CPUs",
             "ns per grace period (log)")
    gp = {}
    for r in rows:
        if r.get("name") != "gp":
            continue
        x, y = r.num("cpus"), r.num("mean_ns")
        if x is None or y is None:
            continue
        gp.setdefault(r.get("type", "?"), {})[x] = \
            (x, y, r.num("min_ns", y), r.num("max_ns", y))
    for t in sorted(gp):
        p.add(f"{ours}: {t}", sorted(gp[t].values()), bars="range", kind=t)
    plots.append(p)
    plots.append(TimelinePlot(rows, ours))
    return plots


def md_table(head, body):
    esc = lambda s: str(s).replace("|", "\\|")   # noqa: E731
    out = ["| " + " | ".join(esc(h) for h in head) + " |",
           "|" + "|".join("---" for _ in head) + "|"]
    out += ["| " + " | ".join(esc(c) for c in row) + " |" for row in body]
    return out


def row_tables(rows):
    out, groups = [], {}
    for r in rows:
        groups.setdefault(r["name"], []).append(r)
    for name in sorted(groups, key=lambda n: (n != "readside", n)):
        g = groups[name]
        keys = []
        for r in g:
            keys += [k for k in r if k != "name" and k not in keys]
        out += ["", f"### name={name} ({len(g)} row{'s' if len(g) != 1 else ''})", ""]
        out += md_table(keys, [[r.get(k, "") for k in keys] for r in g])
    return out


def fmt(v, digits=3):
    if v is None:
        return "-"
    if v == 0:
        return "0"
    if 10 ** digits <= abs(v) < 1e6:
        return f"{v:.0f}"       # 6629, not 6.63e+03
    return f"{v:.{digits}g}" if abs(v) < 1e6 else f"{v:.3e}"


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
                lin_cell = (f"{fmt(lr.num('median_ns'))} (mean {fmt(lr.num('ns_per_op'))}) "
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
            "rcukern times about 64 batches per run with irqs on, and its batch "
            "median leaves out what the host took; *less gaps* is its gross "
            "figure less what the host took beyond a median batch, so that it "
            "differs from the batch median by what the timing between batches "
            "costs; the harness alone is that timing with no sections (its "
            "gross cost per section, in every other gross figure). The 2007 figures are means on "
            "a 16-CPU 3 GHz x86 (PREEMPT=y, except the non-preemptible RCU row: "
            "PREEMPT=n, the loop the compiler deleted)."]
    return out + ([] if lin else ["", NO_PEER])


NO_PEER = ("The log has no Linux 6.1 rows: `make peer` builds the peer "
           "(build/peer) and `make bench` then runs it.")

# Grace-period latency: (what, our gp type, Linux model and type).
GP_PAIRS = (
    ("synchronize_sched() / PREEMPT_NONE synchronize_rcu()", "normal", ("none", "normal")),
    ("expedited, the same", "expedited", ("none", "expedited")),
    ("synchronize_rcu() preemptible / PREEMPT", "rcu", ("preempt", "normal")),
    ("expedited, the same", "rcu-expedited", ("preempt", "expedited")),
)


def gp_table(rows):
    """Grace-period latency, others idle: median, mean and max in us, ours
    (name=gp, load=idle or none) beside the Linux peer's rcuscale."""
    mine, lin = {}, {}
    for r in rows:
        if r.get("name") == "gp" and r.get("load", "idle") == "idle" \
                and r.num("cpus") is not None:
            mine[(r.get("type"), r.num("cpus"))] = r
        elif r.get("name") == "linux_gp" and r.num("cpus") is not None:
            lin[(r.get("model"), r.get("type"), r.num("cpus"))] = r
    if not lin and not mine:
        return []
    us = lambda r, k: fmt(r.num(k) / 1000) if r is not None and r.num(k) is not None else "-"  # noqa: E731
    body = []
    cpus = sorted({c for _, c in mine} | {c for _, _, c in lin})
    for what, ours_t, (model, lt) in GP_PAIRS:
        for c in cpus:
            r, lr = mine.get((ours_t, c)), lin.get((model, lt, c))
            if r is None and lr is None:
                continue
            body.append([what, f"{c:g}"] + [us(r, k) for k in ("median_ns", "mean_ns", "max_ns")]
                        + [us(lr, k) for k in ("median_ns", "mean_ns", "max_ns")]
                        + [lr.get("n", "-") if lr is not None else "-"])
    out = md_table(["grace period", "vCPUs", "rcukern median", "mean", "max",
                    "Linux 6.1 median", "mean", "max", "Linux GPs"], body)
    out += ["", "Microseconds, the other CPUs idle. rcukern: `name=gp` rows "
            "(`synchronize_sched()` and expedited from the rcu suite, load=idle; "
            "`synchronize_rcu()` and expedited from rcu_preempt). Linux 6.1: "
            "rcuscale with one writer and no readers, every grace period it "
            "timed (`writer-duration`), PREEMPT_NONE's `synchronize_rcu()` "
            "being the RCU-sched flavour. At one CPU rcukern takes the "
            "shortcut (blocking is a grace period); the Linux figure is what "
            "its rcuscale measured there."]
    return out + ([] if lin else ["", NO_PEER])


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
        a, e = get(np, key=key), get("empty", key=key)
        if a is None or e is None:
            return "-", None
        if key == "ns_per_op":      # two standard deviations of the runs
            noise = 2 * math.hypot(get(np, key="stddev") or 0,
                                   get("empty", key="stddev") or 0)
        else:                       # a median has no spread here: 5%
            noise = 0.05 * abs(e)
        noise = max(noise, 0.01 * abs(e), 0.05)
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
            "asserted. \"Indistinguishable\" allows two standard "
            "deviations of the means, or 5% of the empty loop's median."]
    return out


def write_report(rows, platforms, sources, out_dir, paper_dir,
                 gnuplot=None, ran_qemu=False):
    os.makedirs(out_dir, exist_ok=True)
    ours = platform_label(platforms, ran_qemu)
    paper = {}
    if paper_dir:
        for key, f in (("nonpreempt", "readside-nonpreempt.tsv"),
                       ("preempt", "readside-preempt.tsv"),
                       ("cslen", "cslen-preempt-16cpus.tsv")):
            path = os.path.join(paper_dir, f)
            if os.path.isfile(path):
                paper[key] = read_tsv(path)
    plots = build_plots(rows, ours, paper)
    drawn = None
    if gnuplot:
        drawn = draw(plots, out_dir, gnuplot)

    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    md = ["# rcukern benchmark report", "",
          f"Written by tools/report.py at {now} from "
          + ", ".join(f"`{s}`" for s in sources) + ".", ""]
    md.append(f"- Our numbers: **{ours}**"
              + (f" (`# platform: {platforms[0]}`)" if platforms else
                 " (the log has no `# platform:` line)") + ".")
    if len(set(platforms)) > 1:
        md.append("- The log names more than one platform: "
                  + "; ".join(sorted(set(platforms))) + ".")
    if paper:
        md.append(f"- The article's numbers: **{PAPER_LABEL}** (Linux 2.6.23, "
                  f"2007), from `{os.path.relpath(paper_dir, ROOT)}`.")
    else:
        md.append("- The article's 2007 data was not found (looked for "
                  "docs/paper-data in the repository; "
                  "--paper-data DIR): only our numbers are drawn.")
    if any(r.get("name", "").startswith("linux_") for r in rows):
        md.append(f"- **{LINUX_LABEL}**: the peer of `make peer` (tinyconfig, "
                  "PREEMPT_NONE and PREEMPT images) run by tools/peer/bench.py "
                  "with run.sh's QEMU flags: refscale and rcuscale, gross "
                  "figures without rcukern's batch medians.")
    md.append(f"- {len(rows)} benchmark row(s).")
    if ours.endswith("QEMU TCG"):
        md.append("- Under QEMU TCG the vCPUs are host threads on a host with "
                  "fewer cores than vCPUs: a reader may be descheduled for "
                  "milliseconds, so means over many CPUs measure the host as "
                  "much as the kernel (see `median_ns`, `host_gaps`).")
    md += ["", "## Read-side goals", ""] + goals(rows, paper)
    matrix = readside_matrix(rows)
    if matrix:
        md += ["", "## Read-side cost, ns per critical section (cs_ns=0)", "",
               "Mean ± standard deviation over the runs, then the median; "
               "*net* is the median less the empty loop's median at the same "
               "CPU count; *batch*: the batch median (`batch_ns`, see the "
               "goals); *less gaps*: the gross time less what the host gaps "
               "took beyond a median batch (`less_gaps_ns`); *gaps*: timed "
               "batches the host interrupted (`host_gaps`). The harness row is "
               "the timing alone, no sections (`name=readside_harness`): what "
               "it adds to every gross figure per section.", ""] + matrix
    three = three_source_table(rows, paper)
    if three:
        md += ["", f"## Read-side cost: the article, rcukern and {LINUX_LABEL}",
               "", "ns per critical section, cs_ns=0."] + [""] + three
    gpt = gp_table(rows)
    if gpt:
        md += ["", f"## Grace-period latency beside {LINUX_LABEL}", ""] + gpt
    md += ["", "## Figures", ""]
    if drawn is None:
        md.append("Plots skipped: gnuplot was not found (Debian: "
                  "`apt-get install gnuplot-nox`). The tables below have "
                  "every number.")
    else:
        for p in plots:
            if p.name not in drawn:
                md.append(f"- {p.title}: nothing to draw (no rows).")
                continue
            if drawn[p.name]:
                md.append(f"- {p.title}: gnuplot failed: {drawn[p.name]}")
                continue
            note = "" if p.has_ours() else \
                " (no rcukern rows for this figure in the log: the 2007 data only)"
            md += [f"### {p.title}{note}", ""]
            if getattr(p, "caption", ""):
                md += [p.caption, ""]
            md += [f"![{p.title}]({p.name}.png)", ""]
    md += ["", "## All benchmark rows"]
    md += row_tables(rows) if rows else ["", "The log has no `# bench` rows."]
    path = os.path.join(out_dir, "report.md")
    with open(path, "w") as f:
        f.write("\n".join(md) + "\n")
    return path, drawn


def summary_lines(rows, platforms, paper_dir, ran_qemu=False):
    """The report's head for a terminal: whose numbers, the goals beside
    the article's, the read-side matrix."""
    paper = {}
    if paper_dir:
        for key, f in (("nonpreempt", "readside-nonpreempt.tsv"),
                       ("preempt", "readside-preempt.tsv")):
            path = os.path.join(paper_dir, f)
            if os.path.isfile(path):
                paper[key] = read_tsv(path)
    out = ["", f"== rcukern report: {len(rows)} benchmark row(s), "
           f"{platform_label(platforms, ran_qemu)} ==", "", "Read-side goals:"]
    out += goals(rows, paper)[:7]       # the table without its footnote
    matrix = readside_matrix(rows)
    if matrix:
        out += ["", "Read-side cost, ns per critical section (cs_ns=0): "
                "mean ± stddev, median (net of the empty loop):"] + matrix
    three = three_source_table(rows, paper)
    if three:
        out += ["", f"Read-side cost beside {LINUX_LABEL}:"] + three[:-2]
    return out


# --------------------------------------------------------------------------

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
    args = ap.parse_args(argv)

    os.makedirs(args.out, exist_ok=True)
    logs, ran = args.logs, False
    if not logs:
        logs, ran = [run_qemu(args.out, args.run_args, args.timeout)], True
    rows, platforms = [], []
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
    if not rows:
        # Nothing to report is an error, and the last report stays.
        print(f"report: no '# bench' rows in {', '.join(logs)}; "
              f"{os.path.join(args.out, 'report.md')} is left as it was",
              file=sys.stderr)
        return 1
    gnuplot = None if args.gnuplot in (None, "", "none") else args.gnuplot
    if gnuplot and not shutil.which(gnuplot):
        print(f"report: {gnuplot} not found: plots skipped", file=sys.stderr)
        gnuplot = None
    paper = find_paper_data(args.paper_data)
    if args.paper_data and not paper:
        print(f"report: no paper data in {args.paper_data}", file=sys.stderr)
    sources = [os.path.relpath(p) for p in logs]
    path, drawn = write_report(rows, platforms, sources, args.out, paper,
                               gnuplot, ran)
    made = sorted(n for n, e in (drawn or {}).items() if e is None)
    if args.summary:
        print("\n".join(summary_lines(rows, platforms, paper, ran)))
    print(f"report: {path}: {len(rows)} row(s), "
          + (f"{len(made)} plot(s)" if drawn is not None else "plots skipped")
          + ("" if paper else ", no 2007 data found"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
