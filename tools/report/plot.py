"""tools/report/plot.py: the figures' drawing through gnuplot: a Plot
(series on one pair of axes), a PanelPlot (Plots side by side) and
draw(), which writes each figure's script and data and runs gnuplot.
A figure module builds these; only this module knows gnuplot's language."""

import os
import subprocess

def gnuplot_terminal(gnuplot):
    for term in ("pngcairo", "png"):
        p = subprocess.run([gnuplot, "-e", f"set terminal {term}"],
                           capture_output=True, text=True)
        if p.returncode == 0 and not p.stderr.strip():
            return term
    return None


def _quote(s):
    """A gnuplot double-quoted string; a newline in s becomes its "\\n" (a
    title's second line)."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


# One colour per reader type, shared by our series and the article's
# (dashed), so the pairs to compare read at a glance.
COLOURS = {"rcu-sched": "#1b9e77", "rcu": "#66a61e", "srcu": "#a6761d",
           "rcu-nonpreempt": "#b3de69",
           "rwlock": "#d95f02", "rwlock-fair": "#e6ab02", "spinlock": "#7570b3",
           "refcnt": "#e7298a", "refcnt-percpu": "#984ea3", "seqlock": "#377eb8",
           "empty": "#666666", "normal": "#1b9e77", "expedited": "#d95f02"}
SPARE = ["#a65628", "#f781bf", "#4daf4a", "#ff7f00", "#999999", "#e41a1c"]


def cpu_axis(xmax):
    """The one x axis of every CPU-count figure: CPU counts are powers of
    two, and a log2 axis spaces 1, 2 and 4 as evenly as 8 and 16; the
    range leaves a margin on both sides, so that a log of one CPU count
    does not put its points and error bars on the border."""
    xmax = max(xmax, 4)
    return ["set logscale x 2", f"set xrange [0.7:{xmax * 1.4:g}]",
            "set xtics (" + ", ".join(f"'{c}' {c}" for c in (1, 2, 4, 8, 16, 32, 64, 128, 256)
                                     if c <= xmax) + ")"]


class Plot:
    """One pair of axes.  xaxis="cpus": the CPU-count axis (cpu_axis());
    otherwise linear from xmin, to xmax when given (else gnuplot's).
    skip: why the figure is not drawn (the log lacks its points), or None."""

    def __init__(self, name, title, xlabel, ylabel, logy=True, xmin=0, xaxis=None):
        self.name, self.title = name, title
        self.xlabel, self.ylabel, self.logy, self.xmin = xlabel, ylabel, logy, xmin
        self.xaxis, self.xmax, self.skip = xaxis, None, None
        self.dodge = False   # on the CPU axis, series side by side at each x
        self.series = []     # (title, [(x, y, ylow, yhigh)], paper?, colour)

    def ours_x(self):
        """The x values of rcukern's own series."""
        return sorted({p[0] for s in self.series if not s[2] and not s[5] for p in s[1]})

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

    def measured(self):
        """Whether a series is this log's (rcukern's or the Linux peer's),
        not only the article's 2007 data."""
        return any(not s[2] for s in self.series)

    def plot_lines(self, data_dir, tag=""):
        """The gnuplot 'plot' command of the series (data files written)."""
        plots = []
        n = len(self.series)
        for i, (title, pts, paper, colour, alt, linux) in enumerate(self.series):
            dat = os.path.join(data_dir, f"{self.name}{tag}-{i}.dat")
            # Dodged: a few percent apart on the log2 axis, so that series
            # measured at the same CPU counts do not hide each other.
            shift = 2 ** (0.04 * (i - (n - 1) / 2)) if self.dodge else 1
            with open(dat, "w") as f:
                f.write(f"# {title}\n# x y ylow yhigh\n")
                for p in pts:
                    f.write(" ".join(f"{v:.6g}" for v in (p[0] * shift,) + tuple(p[1:])) + "\n")
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
                 # no point or error bar on the border
                 "set offsets 0, graph 0.03, graph 0.05, graph 0.05"]
        if self.xaxis == "cpus":
            lines += cpu_axis(max(p[0] for s in self.series for p in s[1]))
        else:
            lines.append(f"set xrange [{self.xmin:g}:"
                         + (f"{self.xmax:g}]" if self.xmax is not None else "*]"))
        if self.logy:
            lines.append("set logscale y")
            lines.append("set format y '%g'")
        lines.append(self.plot_lines(data_dir))
        return "\n".join(lines) + "\n"



def fit_cslen_axis(p):
    """A critical-section-length figure: skipped when rcukern's rows have
    fewer than two lengths (nothing to draw a curve of); otherwise its x
    axis ends a little past the longest length measured, since the
    article's curve runs to 20 us and a quick log's (./run.sh) stops near
    1 us, which on a 20 us axis is a smudge at the left border."""
    xs = p.ours_x()
    if len(xs) < 2:
        p.skip = (f"the log has {'no' if not xs else 'one'} critical-section "
                  "length of rcukern's to draw a curve of (`test=paper_cslen "
                  "bench=full`, in `make bench`, sweeps them)")
        return
    far = max(pt[0] for s in p.series for pt in s[1])
    if far > 1.5 * xs[-1]:
        p.xmax = xs[-1] * 1.1
        p.xmin = -0.05 * xs[-1]
        p.title += f" [x cut at {p.xmax:.2g} us]"
    else:
        p.xmin = -0.02 * far


class PanelPlot:
    """Two or more Plots side by side in one PNG (gnuplot multiplot),
    sharing the x axis label; each panel has its own title and key."""

    def __init__(self, name, title, panels, caption=""):
        self.name, self.title, self.panels = name, title, panels
        self.caption = caption
        self.skip = None

    @property
    def series(self):
        return [s for p in self.panels for s in p.series]

    def has_ours(self):
        return any(p.has_ours() for p in self.panels)

    def measured(self):
        return any(p.measured() for p in self.panels)

    def script(self, term, data_dir):
        panels = [p for p in self.panels if p.series]
        lines = [f"set terminal {term} size {700 * len(panels)},820 noenhanced",
                 f"set output {_quote(self.name + '.png')}",
                 f"set multiplot layout 1,{len(panels)} title {_quote(self.title)}",
                 "set grid", "set key outside below Left reverse width -2"]
        lines += cpu_axis(max([x for q in panels for s in q.series for x, *_ in s[1]] + [4]))
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



def draw(plots, out_dir, gnuplot):
    """Writes NAME.gp and data/, runs gnuplot; returns {name: error or None}."""
    term = gnuplot_terminal(gnuplot)
    if term is None:
        return {p.name: "gnuplot has no png terminal" for p in plots}
    data_dir = os.path.join(out_dir, "data")
    os.makedirs(data_dir, exist_ok=True)
    result = {}
    for p in plots:
        if not p.series or getattr(p, "skip", None):
            # No stale PNG (or script) of an earlier log beside this report.
            for ext in (".png", ".gp"):
                old = os.path.join(out_dir, p.name + ext)
                if os.path.isfile(old):
                    os.remove(old)
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
