"""tools/report/document.py: report.md (every figure and table in
order, the rows grouped by name) and the summary run.sh prints."""

import datetime
import os

from . import paper as paper_data
from .common import (LINUX_LABEL, PAPER_LABEL, ROOT, TEST_BUILD_WARNING, build_label,
                     md_table, platform_label, unknown_option_warning)

TEST_BUILD_TAG = "[TEST BUILD: not benchmark figures]"
from .figures import build_plots
from .goals import goals
from .gp_latency import gp_busy_table, gp_ratio_table, gp_table
from .kfree import kfree_table
from .plot import draw
from .readside_tables import readside_matrix, three_source_table


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




def write_report(rows, platforms, sources, out_dir, paper_dir,
                 gnuplot=None, ran_qemu=False, builds=(), unknown=()):
    os.makedirs(out_dir, exist_ok=True)
    ours = platform_label(platforms, ran_qemu)
    build, test_build = build_label(builds)
    paper = paper_data.load(paper_dir)
    plots = build_plots(rows, ours, paper)
    if test_build:
        # A PNG may travel without the report: its title says it too, on
        # a line of its own (appended, it ran off a long title's end).
        for p in plots:
            p.title += "\n" + TEST_BUILD_TAG
    drawn = None
    if gnuplot:
        drawn = draw(plots, out_dir, gnuplot)
    for p in plots:         # report.md's titles are one line
        p.title = p.title.replace("\n", " ")

    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    md = ["# rcukern benchmark report", "",
          f"Written by tools/report.py at {now} from "
          + ", ".join(f"`{s}`" for s in sources) + ".", ""]
    if unknown:
        md += [f"> **Warning:** {unknown_option_warning(unknown)}", ""]
    if test_build:
        md += [f"> **Warning:** {TEST_BUILD_WARNING}", ""]
    md.append(f"- Build: **{build}**.")
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
    ratio = gp_ratio_table(rows)
    if ratio:
        md += ["", "## Expedited against normal grace periods", ""] + ratio
    busy = gp_busy_table(rows)
    if busy:
        md += ["", "## Normal grace periods with the other CPUs busy, in ticks", ""] + busy
    kft = kfree_table(rows)
    if kft:
        md += ["", f"## kfree_rcu(): the garbage collector, beside {LINUX_LABEL}", ""] + kft
    md += ["", "## Figures", ""]
    if drawn is None:
        md.append("Plots skipped: gnuplot was not found (Debian: "
                  "`apt-get install gnuplot-nox`). The tables below have "
                  "every number.")
    else:
        for p in plots:
            if getattr(p, "skip", None):
                md.append(f"- {p.name}.png ({p.title}): not drawn: {p.skip}.")
                continue
            if p.name not in drawn:
                md.append(f"- {p.name}.png ({p.title}): not drawn: the log "
                          "has no rows for it.")
                continue
            if drawn[p.name]:
                md.append(f"- {p.title}: gnuplot failed: {drawn[p.name]}")
                continue
            note = "" if p.has_ours() else \
                " (no rcukern rows for this figure in the log: the Linux peer's only)"
            md += [f"### {p.title}{note}", ""]
            if getattr(p, "caption", ""):
                md += [p.caption, ""]
            md += [f"![{p.title}]({p.name}.png)", ""]
    md += ["", "## All benchmark rows"]
    md += row_tables(rows) if rows else ["", "The log has no `# bench` rows."]
    path = os.path.join(out_dir, "report.md")
    with open(path, "w") as f:
        f.write("\n".join(md) + "\n")
    return path, drawn, plots


def summary_lines(rows, platforms, paper_dir, ran_qemu=False, builds=(), unknown=()):
    """The report's head for a terminal: which build, whose numbers, the
    goals beside the article's, the read-side matrix.  An unknown kernel
    option is said first and last: run.sh prints this after the kernel's
    own last line, and it is what a reader sees."""
    paper = paper_data.load(paper_dir)
    build, test_build = build_label(builds)
    out = ["", f"== rcukern report: {len(rows)} benchmark row(s), "
           f"{platform_label(platforms, ran_qemu)}, build: {build} =="]
    if unknown:
        out += ["WARNING: " + unknown_option_warning(unknown).replace("`", "")]
    if test_build:
        out += ["WARNING: " + TEST_BUILD_WARNING.replace("**", "")]
    out += ["", "Read-side goals:"]
    out += goals(rows, paper)[:7]       # the table without its footnote
    matrix = readside_matrix(rows)
    if matrix:
        out += ["", "Read-side cost, ns per critical section (cs_ns=0): "
                "mean ± stddev, median (net of the empty loop):"] + matrix
    three = three_source_table(rows, paper)
    if three:
        out += ["", f"Read-side cost beside {LINUX_LABEL}:"] + three[:-2]
    if unknown:
        out += ["", "WARNING: unknown kernel option(s) "
                + ", ".join(f"'{n}'" for n in dict.fromkeys(unknown))
                + ": this was not the run asked for (see the top of the report)."]
    return out
