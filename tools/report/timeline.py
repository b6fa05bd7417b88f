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



def figures(rows, ours, paper):
    return [TimelinePlot(rows, ours)]
