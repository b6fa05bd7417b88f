"""tools/report/timeline.py: the figure timeline.png, the article's
"readers and updaters run concurrently" from the name=timeline rows."""

import os
import re

from .common import type_order
from .plot import _quote


class TimelinePlot:
    """The article's "readers and updaters run concurrently" figure: per
    reader type one panel; each reader's critical sections around the
    update as bars (coloured by the value they saw), the updater's span
    from its start to its end with the commit (publish or lock acquired)
    marked.  Times are from the update's start, in microseconds (in
    milliseconds for a panel that spans more than 100 ms)."""

    # Colours apart in hue and lightness (Okabe-Ito), so that old and new
    # read apart at a glance and in grey print.
    SAW = (("old", "#e69f00", "saw the old value"),
           ("new", "#0072b2", "saw the new value"))
    UPDATE = ("#cc3311", "the update")
    COMMIT = ("#000000", "its commit")
    # A section shorter than this share of its panel's span is drawn this
    # wide: a 2 us section on an 800 ms axis is otherwise invisible.
    MIN_WIDTH = 0.004

    def __init__(self, rows, ours):
        self.name = "timeline"
        self.title = "Readers and an updater running concurrently"
        self.caption = ("Bars are critical sections: orange saw the old value, "
                        "blue the new one; red is the update from its start "
                        "to its end, x at its commit (RCU: the publish; "
                        "rwlock: the write lock acquired).  A bar shorter "
                        f"than {self.MIN_WIDTH:.1%} of its panel's span is drawn "
                        "that wide, so that a short section stays visible.")
        self.skip = None
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
        # The same key beside every panel, so that the panels keep one width.
        lines = [f"set terminal {term} size 1100,{height} noenhanced",
                 f"set output {_quote(self.name + '.png')}",
                 f"set multiplot layout {len(types)},1 title "
                 + _quote(f"{self.title} ({self.ours})"),
                 "set grid x", "set key outside right top vertical Left reverse",
                 # no section on the border: a late reader's short one
                 # (drawn MIN_WIDTH wide) was cut by the right edge
                 "set offsets graph 0.02, graph 0.02, 0, 0"]
        for t in types:
            rows = self.panels[t]
            readers = sorted({r.get("who") for r in rows
                              if r.get("who", "").startswith("reader")},
                             key=lambda w: int(re.sub(r"\D", "", w) or 0))
            ypos = {w: i + 1 for i, w in enumerate(readers)}
            span = max(r.num("end_ns") for r in rows) - min(r.num("start_ns") for r in rows)
            # Microseconds, or milliseconds past 10 ms (tick labels stay
            # short: 90000 us reads worse than 90 ms).
            unit, uname = (1e6, "ms") if span > 1e7 else (1e3, "us")
            minw = span / unit * self.MIN_WIDTH
            files = {}
            for saw, _, _ in self.SAW:
                path = os.path.join(data_dir, f"timeline-{t}-{saw}.dat")
                with open(path, "w") as f:
                    f.write("# x0 y dx 0 (us)\n")
                    for r in rows:
                        if r.get("who") in ypos and r.get("saw") == saw:
                            x0, x1 = r.num("start_ns") / unit, r.num("end_ns") / unit
                            f.write(f"{x0:.6g} {ypos[r['who']]} {max(x1 - x0, minw):.6g} 0\n")
                files[saw] = path
            upd = os.path.join(data_dir, f"timeline-{t}-updater.dat")
            with open(upd, "w") as f:
                f.write("# x0 y dx 0 commit (us)\n")
                for r in rows:
                    if r.get("who") == "updater":
                        x0, x1 = r.num("start_ns") / unit, r.num("end_ns") / unit
                        c = r.num("commit_ns", r.num("start_ns")) / unit
                        f.write(f"{x0:.6g} 0 {max(x1 - x0, minw):.6g} 0 {c:.6g}\n")
            rel = lambda q: os.path.relpath(q, os.path.dirname(data_dir))  # noqa: E731
            ytics = ", ".join([_quote("updater") + " 0"]
                              + [f"{_quote(w)} {i}" for w, i in ypos.items()])
            lines += [f"set title {_quote(t)}",
                      f"set xlabel '{uname} from the start of the update'",
                      f"set yrange [-0.7:{len(readers) + 0.7}]",
                      f"set ytics ({ytics})"]
            # Data without titles, the key from keyentry: every panel has
            # all four entries, whichever of them its rows have.
            plots = [f"{_quote(rel(files[saw]))} using 1:2:3:4 with vectors "
                     f"nohead lw 6 lc rgb '{colour}' notitle" for saw, colour, _ in self.SAW]
            plots.append(f"{_quote(rel(upd))} using 1:2:3:4 with vectors nohead "
                         f"lw 6 lc rgb '{self.UPDATE[0]}' notitle")
            plots.append(f"{_quote(rel(upd))} using 5:2 with points pt 2 ps 2 "
                         f"lw 2 lc rgb '{self.COMMIT[0]}' notitle")
            plots += [f"keyentry with lines lw 6 lc rgb '{colour}' title {_quote(what)}"
                      for _, colour, what in self.SAW]
            plots.append(f"keyentry with lines lw 6 lc rgb '{self.UPDATE[0]}' "
                         f"title {_quote(self.UPDATE[1])}")
            plots.append(f"keyentry with points pt 2 ps 2 lw 2 lc rgb '{self.COMMIT[0]}' "
                         f"title {_quote(self.COMMIT[1])}")
            lines.append("plot " + ", \\\n     ".join(plots))
        lines.append("unset multiplot")
        return "\n".join(lines) + "\n"



def figures(rows, ours, paper):
    return [TimelinePlot(rows, ours)]
