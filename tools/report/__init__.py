"""tools/report/: the benchmark report (`make report`, tools/report.py).
Reads the benchmark rows ("# bench name=... key=value ...", docs/design.md) of a serial
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

One module per figure or table:
    common.py            rows of a log, platform label, formatting
    paper.py             the article's 2007 data
    plot.py              Plot, PanelPlot, draw() (gnuplot)
    figures.py           the figures in report order (FIGURES)
    readside_cpus.py     readside-cpus.png, readside-cpus-batch.png
    readside_cslen.py    readside-cslen.png, readside-cslen-batch.png
    refcnt.py            refcnt-cpus.png, refcnt-cslen.png
    gp_latency.py        gp-latency.png and the grace-period table
    timeline.py          timeline.png
    goals.py             the read-side goals table
    readside_tables.py   the read-side matrix and the three-source table
    document.py          report.md and the run.sh summary
    cli.py               the command line (main)
"""

from .common import (LINUX_LABEL, PAPER_LABEL, ROOT, Row, cs_of, fmt,  # noqa: F401
                     md_table, parse_row, platform_label, read_log, readside,
                     series_by, sweep_cpus, type_order)
from .cli import main, run_qemu  # noqa: F401
from .document import row_tables, summary_lines, write_report  # noqa: F401
from .figures import FIGURES, build_plots  # noqa: F401
from .goals import goals, paper_goals  # noqa: F401
from .gp_latency import gp_busy_table, gp_ratio_table, gp_table  # noqa: F401
from .paper import find_paper_data, paper_series, read_tsv  # noqa: F401
from .plot import PanelPlot, Plot, draw  # noqa: F401
from .readside_tables import readside_matrix, three_source_table  # noqa: F401
from .timeline import TimelinePlot  # noqa: F401
