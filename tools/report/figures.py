"""tools/report/figures.py: the report's figures, in the order report.md
shows them.  A figure module has figures(rows, ours, paper) returning its
Plots (plot.py), empty or without series when the rows lack its points;
add a module here to add a figure."""

from . import gp_latency, readside_cpus, readside_cslen, refcnt, timeline, trace_events

FIGURES = (readside_cpus, readside_cslen, refcnt, gp_latency, timeline, trace_events)


# A figure of the article's data alone is docs/paper-data's, not the log's:
# drawn, it would look like a measurement of the run (a PNG travels
# without its report), so it is skipped with this reason.
ONLY_PAPER = ("the log has no rows of rcukern's nor of Linux 6.1's for it: "
              "it would show the article's 2007 curves alone "
              "(docs/paper-data has them)")


def build_plots(rows, ours, paper):
    plots = []
    for fig in FIGURES:
        plots += fig.figures(rows, ours, paper)
    for p in plots:
        measured = getattr(p, "measured", p.has_ours)
        if p.series and not getattr(p, "skip", None) and not measured():
            p.skip = ONLY_PAPER
    return plots
