"""tools/report/paper.py: the article's 2007 measurements
(docs/paper-data/*.tsv): finding, reading and turning them into series."""

import os

from .common import PAPER_LABEL, ROOT


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


# The article's PREEMPT=y series by CPU count: column prefix, label, kind.
PREEMPT_CPUS = {"rwlock": ("rwlock", "rwlock"), "refcnt": ("refcnt", "refcnt"),
                "rcu": ("RCU", "rcu-sched")}


def add_preempt_cpus(p, paper, cols):
    """Adds to plot p the article's PREEMPT=y series by CPU count of each
    column prefix in cols (PREEMPT_CPUS), if the paper data has them."""
    if "preempt" not in paper:
        return
    c = paper["preempt"]
    for col in cols:
        label, kind = PREEMPT_CPUS[col]
        p.add(f"{PAPER_LABEL}: {label} (PREEMPT=y)",
              paper_series(c, "cpus", f"{col}_ns", f"{col}_sd"), True, kind=kind)


def load(paper_dir, files=(("nonpreempt", "readside-nonpreempt.tsv"),
                           ("preempt", "readside-preempt.tsv"),
                           ("cslen", "cslen-preempt-16cpus.tsv"))):
    """{key: table} of the article's tables found in paper_dir."""
    paper = {}
    if paper_dir:
        for key, f in files:
            path = os.path.join(paper_dir, f)
            if os.path.isfile(path):
                paper[key] = read_tsv(path)
    return paper
