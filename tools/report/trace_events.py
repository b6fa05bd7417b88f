"""tools/report/trace_events.py: figures from a trace dump in the log
(trace=rcu trace.dump=end; tools/trace.py reads it): trace_timeline.png,
the article's "readers and updaters run concurrently" drawn from real
events (each reader's critical sections from just before the update to
just after it completed, coloured by the value they saw, those begun
after it completed on a green background, as the article's readers
guaranteed to see the new value; the updater from its start through its
publish to the grace period's end; each CPU's QS reports of that grace
period),
and trace_gp_phases.png, the time each grace period spent in its
phases (init, waiting for QS reports, cleanup).

read_log() (common.py) hands the log here too: trace_rows() makes the
dump into rows (name=trace_span, name=trace_qs, name=trace_gp) that the
figures below read, as the others read bench rows."""

import importlib.util
import os
import sys

from .common import Row
from .plot import _quote

# tools/trace.py, loaded by path: "trace" is a standard module's name too.
_spec = importlib.util.spec_from_file_location(
    "rcukern_trace", os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                  "trace.py"))
tracepy = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tracepy)


# Sections drawn per reader from before the update: the last ones.
BEFORE_KEPT = 3


def trace_rows(lines, source=""):
    """Rows from the last trace dump in lines ([] if none or unreadable)."""
    if not any(x.startswith("T: begin") for x in lines):
        return []
    try:
        t = tracepy.parse(lines, source)
    except tracepy.TraceError as e:
        print(f"report: {e}", file=sys.stderr)
        return []
    try:        # a garbled number in an event is found as it is read
        return _rows(t, source)
    except tracepy.TraceError as e:
        print(f"report: {source}:{e}", file=sys.stderr)
        return []


def _rows(t, source):
    rows = []
    cpus = len(t.cpus)

    def row(**kw):
        rows.append(Row([(k, str(v)) for k, v in kw.items()], source))

    gps = tracepy.grace_periods(t)
    for seq, g in sorted(gps.items()):
        s, i, c, e = (g.first(p) for p in ("start", "init", "cleanup", "end"))
        if None in (s, i, c, e):
            continue
        row(name="trace_gp", cpus=cpus, gp_seq=seq, start_ns=s, init_ns=i - s,
            wait_ns=c - i, cleanup_ns=e - c, fqs=len(g.fqs), qs=len(g.qs))
    upd = {x.f.get("what"): x for x in t.events
           if x.name == "rcu_reader" and x.f.get("what") in ("update", "commit", "updated")}
    if "update" not in upd:
        return rows
    t0 = upd["update"].ns
    row(name="trace_span", cpus=cpus, who="updater", start_ns=0,
        commit_ns=(upd["commit"].ns - t0) if "commit" in upd else 0,
        end_ns=(upd["updated"].ns - t0) if "updated" in upd else 0, saw="update")
    # Each reader's sections: when each began (before the update began,
    # while it ran, after it completed: only those are guaranteed to see
    # the new value), of those before only the last few.
    done = upd["updated"].ns if "updated" in upd else None
    opened, spans = {}, {}
    for x in t.events:
        if x.name != "rcu_reader" or x.f.get("what") not in ("begin", "end"):
            continue
        rid = x.num("id")
        if x.f["what"] == "begin":
            opened[rid] = x
        elif rid in opened:
            b = opened.pop(rid)
            when = "before" if b.ns < t0 else \
                "after" if done is not None and b.ns > done else "during"
            spans.setdefault(rid, []).append(dict(
                name="trace_span", cpus=cpus, who=f"reader{rid}", cpu=x.cpu,
                start_ns=b.ns - t0, end_ns=x.ns - t0, saw="new" if x.num("saw") else "old",
                when=when))
    for rid, ss in sorted(spans.items()):
        before = [x for x in ss if x["when"] == "before"][-BEFORE_KEPT:]
        for x in before + [x for x in ss if x["when"] != "before"]:
            row(**x)
    # The grace period the updater waited for, and its QS reports.
    if "commit" in upd:
        after = [g for g in gps.values() if g.first("end") is not None
                 and g.first("end") >= upd["commit"].ns
                 and (g.first("start") or 0) <= upd.get("updated", upd["commit"]).ns]
        for g in after[:2]:
            for q in g.qs:
                if q.num("level") == tracepy.leaf_level(t):
                    row(name="trace_qs", cpus=cpus, gp_seq=g.seq, cpu=q.cpu,
                        at_ns=q.ns - t0, mask=q.f.get("mask"))
    return rows


class TraceTimelinePlot:
    """Readers' sections, the updater and QS reports from trace events."""

    # Orange and blue, as the scenario timeline (timeline.py) colours them.
    SAW = (("old", "#d95f02"), ("new", "#1f78b4"))

    def __init__(self, rows, ours):
        self.name = "trace_timeline"
        self.title = "Readers and an updater, from trace events (trace=rcu)"
        self.caption = ("From a trace dump (tools/trace.py), as the article's figure: "
                        "bars and dots are readers' critical sections (orange saw the "
                        "old value, blue the new one): the last few begun before the "
                        "update, those begun while it ran (either value may be seen), "
                        "and those begun after it completed, on the green background: "
                        "only those are guaranteed to see the new value.  Red is the "
                        "updater from its start to the grace period's end, x at its "
                        "publish; black + are the QS reports of that grace period, by "
                        "the CPU that made them (its row is the reader on that CPU).")
        self.ours = ours
        self.spans = [r for r in rows if r.get("name") == "trace_span"]
        self.qs = [r for r in rows if r.get("name") == "trace_qs"]
        self.series = ["trace"] if any(r.get("who") != "updater" for r in self.spans) else []

    def has_ours(self):
        return bool(self.series)

    def script(self, term, data_dir):
        readers = sorted({r["who"] for r in self.spans if r["who"] != "updater"},
                         key=lambda w: int(w[6:] or 0))
        ypos = {w: i + 1 for i, w in enumerate(readers)}
        cpu_row = {}
        for r in self.spans:
            if r["who"] in ypos and "cpu" in r:
                cpu_row[r["cpu"]] = ypos[r["who"]]
        rel = lambda q: os.path.relpath(q, os.path.dirname(data_dir))  # noqa: E731
        files = {}
        for saw, _ in self.SAW:
            path = os.path.join(data_dir, f"trace_timeline-{saw}.dat")
            with open(path, "w") as f:
                f.write("# x0 y dx 0 (us from the update's start)\n")
                for r in self.spans:
                    if r["who"] in ypos and r.get("saw") == saw:
                        x0, x1 = r.num("start_ns") / 1e3, r.num("end_ns") / 1e3
                        f.write(f"{x0:.6g} {ypos[r['who']]} {x1 - x0:.6g} 0\n")
            files[saw] = path
        upd = os.path.join(data_dir, "trace_timeline-updater.dat")
        with open(upd, "w") as f:
            f.write("# x0 y dx 0 commit (us)\n")
            for r in self.spans:
                if r["who"] == "updater":
                    f.write(f"0 0 {r.num('end_ns') / 1e3:.6g} 0 {r.num('commit_ns') / 1e3:.6g}\n")
        qs = os.path.join(data_dir, "trace_timeline-qs.dat")
        with open(qs, "w") as f:
            f.write("# x y (a QS report on the CPU of reader y)\n")
            for r in self.qs:
                f.write(f"{r.num('at_ns') / 1e3:.6g} {cpu_row.get(r.get('cpu'), 0) + 0.3:.3g}\n")
        ytics = ", ".join([_quote("updater") + " 0"] + [f"{_quote(w)} {i}" for w, i in ypos.items()])
        upd_rows = [r for r in self.spans if r["who"] == "updater"]
        done_us = upd_rows[0].num("end_ns") / 1e3 if upd_rows else None
        starts = [r.num("start_ns") / 1e3 for r in self.spans] + \
            [r.num("end_ns") / 1e3 for r in self.spans]
        lo, hi = min(starts + [0]), max(starts + [0])
        pad = (hi - lo) * 0.04 or 1
        lines = [f"set terminal {term} size 960,{280 + 40 * len(readers)} noenhanced",
                 f"set output {_quote(self.name + '.png')}",
                 # Two lines: the build and platform label may be long.
                 f"set title {_quote(self.title)} . \"\\n\" . {_quote(f'({self.ours})')}",
                 "set grid x", "set key outside below horizontal", "set xlabel 'us from the start of the update'",
                 f"set yrange [-0.7:{len(readers) + 0.9}]", f"set ytics ({ytics})",
                 f"set xrange [{lo - pad:.6g}:{hi + pad:.6g}]"]
        if done_us is not None:
            # The article's green background: a reader that begins here,
            # after the updater completed, is guaranteed the new value.
            lines.append(f"set object 1 rect from {done_us:.6g}, graph 0 to graph 1, graph 1 "
                         "fc rgb '#ccebc5' fs solid 1.0 noborder behind")
            lines.append(f"set label 1 'readers beginning here are guaranteed to see the new "
                         f"value' at {done_us:.6g}, graph 0.93 offset -0.5,0 right front "
                         "font ',9' textcolor rgb '#1b7837'")
        # A section is microseconds, a grace period under TCG may be
        # hundreds of milliseconds: each section is a dot as well as a bar.
        plots = [f"{_quote(rel(files[saw]))} using 1:2:3:4 with vectors nohead lw 6 lc rgb '{c}' notitle"
                 for saw, c in self.SAW]
        plots += [f"{_quote(rel(files[saw]))} using 1:2 with points pt 7 ps 0.9 lc rgb '{c}' "
                  f"title {_quote(f'reader saw the {saw} value')}"
                  for saw, c in self.SAW]
        plots += [f"{_quote(rel(upd))} using 1:2:3:4 with vectors nohead lw 6 lc rgb '#e41a1c' "
                  f"title {_quote('updater: from its start to the end of the grace period')}",
                  f"{_quote(rel(upd))} using 5:2 with points pt 2 ps 2 lw 2 lc rgb '#000000' "
                  f"title {_quote('publish (rcu_assign_pointer)')}",
                  f"{_quote(rel(qs))} using 1:2 with points pt 1 ps 1.5 lw 2 lc rgb '#000000' "
                  f"title {_quote('QS report of that grace period')}"]
        lines.append("plot " + ", \\\n     ".join(plots))
        return "\n".join(lines) + "\n"


class GpPhasePlot:
    """Per grace period (in order), the time in each phase, stacked."""

    PHASES = (("init_ns", "init", "#984ea3"), ("wait_ns", "waiting for QS", "#ff7f00"),
              ("cleanup_ns", "cleanup", "#4daf4a"))

    def __init__(self, rows, ours):
        self.name = "trace_gp_phases"
        self.title = "Grace-period phases, from trace events (trace=rcu)"
        self.caption = ("Each grace period a trace dump shows whole, in order: "
                        "the time from its start to its qsmasks set (init), "
                        "from there to the last QS report (waiting for QS, "
                        "force-QS passes included) and its cleanup, stacked.  Under "
                        "TCG the wait is most of it: init and cleanup take "
                        "microseconds, too thin to see beside it.")
        self.ours = ours
        self.gps = [r for r in rows if r.get("name") == "trace_gp"]
        self.series = ["gp"] if self.gps else []

    def has_ours(self):
        return bool(self.gps)

    def script(self, term, data_dir):
        path = os.path.join(data_dir, "trace_gp_phases.dat")
        with open(path, "w") as f:
            f.write("# gp init_ms wait_ms cleanup_ms cpus\n")
            for i, r in enumerate(self.gps):
                f.write(f"{i} " + " ".join(f"{r.num(k) / 1e6:.6g}" for k, _, _ in self.PHASES)
                        + f" {r.get('cpus')}\n")
        n = len(self.gps)
        rel = os.path.relpath(path, os.path.dirname(data_dir))
        lines = [f"set terminal {term} size 960,480 noenhanced",
                 f"set output {_quote(self.name + '.png')}",
                 f"set title {_quote(f'{self.title} ({self.ours})')}",
                 "set style data histograms", "set style histogram rowstacked",
                 "set style fill solid 0.9 border -1", "set boxwidth 0.8",
                 "set grid y", "set key outside below",
                 "set xlabel 'grace period (in the order of the trace)'",
                 # init and cleanup are microseconds, the wait for QS
                 # reports milliseconds: the caption says so.
                 "set ylabel 'ms'", f"set xrange [-0.6:{n - 0.4}]",
                 f"set xtics out nomirror {max(1, n // 10)}"]
        plots = [f"{_quote(rel)} using {2 + i} lc rgb '{c}' title {_quote(t)}"
                 for i, (_, t, c) in enumerate(self.PHASES)]
        lines.append("plot " + ", \\\n     ".join(plots))
        return "\n".join(lines) + "\n"


def figures(rows, ours, paper):
    return [TraceTimelinePlot(rows, ours), GpPhasePlot(rows, ours)]
