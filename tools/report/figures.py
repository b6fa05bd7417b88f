"""tools/report/figures.py: the report's figures, in the order report.md
shows them.  A figure module has figures(rows, ours, paper) returning its
Plots (plot.py), empty or without series when the rows lack its points;
add a module here to add a figure."""

from . import gp_latency, readside_cpus, readside_cslen, refcnt, timeline, trace_events

FIGURES = (readside_cpus, readside_cslen, refcnt, gp_latency, timeline, trace_events)


def build_plots(rows, ours, paper):
    plots = []
    for fig in FIGURES:
        plots += fig.figures(rows, ours, paper)
    return plots
