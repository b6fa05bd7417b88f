"""tools/report/common.py: what every figure and table of the report
shares: the rows of a log (Row, read_log), whose numbers they are
(platform_label), the read-side selections, the order of reader types and
the Markdown and number formatting."""

import math
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAPER_LABEL = "2007 Linux, 16-CPU 3GHz x86"
LINUX_LABEL = "Linux 6.1, same QEMU, same host"

sys.path.insert(0, os.path.join(ROOT, "tools"))
from benchrows import BENCH, BUILD, PLATFORM, clean_lines, unknown_options  # noqa: E402

PEER_DIR = os.path.join(ROOT, "build", "peer")     # `make peer`'s images


def no_peer():
    """What to do for the Linux 6.1 rows the log lacks: build the peer, or
    (built already) run it."""
    if any(os.path.exists(os.path.join(PEER_DIR, f"bzImage-{m}"))
           for m in ("none", "preempt")):
        return ("The log has no Linux 6.1 rows. The peer is built (build/peer): "
                "`make bench ONLY=peer` runs it into build/bench-logs/peer.txt, "
                "which the report then reads by itself.")
    return ("The log has no Linux 6.1 rows: `make peer` builds the peer "
            "(build/peer) and `make bench` then runs it into "
            "build/bench-logs/peer.txt, which the report reads by itself.")


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
    lines = clean_lines(text)
    for n, line in enumerate(lines, 1):
        m = BENCH.search(line)
        if m:
            row = parse_row(m.group(1), f"{source}:{n}")
            if row is not None:
                rows.append(row)
            continue
        m = PLATFORM.search(line)
        if m:
            platforms.append(m.group(1))
    from .trace_events import trace_rows   # a trace dump's rows, if any
    return rows + trace_rows(lines, source), platforms


def read_builds(text):
    """The kernel's "# build: ..." lines of a log (a bench.txt's with their
    " config=NAME" taken off)."""
    out = []
    for line in clean_lines(text):
        m = BUILD.search(line)
        if m:
            out.append(re.sub(r"\s+config=\S+$", "", m.group(1)))
    return out


def read_unknown_options(text):
    """The kernel options a log's run did not know (its end-of-run
    "# cmdline: unknown option" lines, failed or ignored)."""
    return unknown_options(clean_lines(text))


def unknown_option_warning(names):
    """What the report says of a run given options the kernel did not
    know: it ran something else than asked (without its test= or torture=,
    the default scenarios)."""
    names = list(dict.fromkeys(names))
    return ("the run was given kernel option(s) it does not know: "
            + ", ".join(f"'{n}'" for n in names)
            + ". The kernel said so at boot and at the end of the run and "
            "(unless cmdline.unknown=ignore) exited 1: these figures come "
            "from what the rest of its command line asked, which may not be "
            "the run that was meant (`./run.sh --list` names the suites and "
            "flavours; `-c help` every option).")


TEST_BUILD_WARNING = ("these figures come from the **test build** (SANITIZE: "
                      "UBSan, stack protector, test hooks), not the benchmark "
                      "build: they are not benchmark figures (the checks cost "
                      "time on every path). `make bench`, or `./run.sh` with "
                      "build/rcukern.iso, gives benchmark figures.")


def build_label(builds):
    """(label, is_test) of the builds a log names: "benchmark", "test
    (...)", both, or not stated."""
    kinds = list(dict.fromkeys(builds))
    test = any(b.startswith("test") for b in kinds)
    if not kinds:
        return "not stated in the log (no `# build:` line: an older kernel)", False
    if len(kinds) > 1:
        return "mixed: " + "; ".join(kinds), test
    return kinds[0], test


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


def cslen_sweep(rows):
    """(CPU count, its read-side rows, its label) of the critical-section
    sweep that the cslen figures draw."""
    rs = readside(rows)
    cpus = sweep_cpus(rs)
    sweep = [r for r in rs if r.num("cpus") == cpus]
    return cpus, sweep, f"{cpus:g} CPUs" if cpus is not None else "no rows"


def sweep_cpus(rows):
    """The CPU count of the critical-section sweep: the one with the most
    distinct cs_ns values (ties: the larger count)."""
    seen = {}
    for r in rows:
        seen.setdefault(r.num("cpus"), set()).add(cs_of(r))
    if not seen:
        return None
    return max(seen, key=lambda c: (len(seen[c]), c))



OUR_TYPES_CPUS = ("rcu-sched", "rcu", "rcu-nonpreempt", "srcu", "rwlock", "rwlock-fair",
                  "spinlock", "refcnt", "refcnt-percpu", "seqlock", "empty", "harness")


def type_order(t):
    base = t.split(" ")[0]
    return (OUR_TYPES_CPUS.index(base) if base in OUR_TYPES_CPUS else 99, t)



def md_table(head, body):
    esc = lambda s: str(s).replace("|", "\\|")   # noqa: E731
    out = ["| " + " | ".join(esc(h) for h in head) + " |",
           "|" + "|".join("---" for _ in head) + "|"]
    out += ["| " + " | ".join(esc(c) for c in row) + " |" for row in body]
    return out



def fmt(v, digits=3):
    if v is None:
        return "-"
    if v == 0:
        return "0"
    if 10 ** digits <= abs(v) < 1e6:
        return f"{v:.0f}"       # 6629, not 6.63e+03
    return f"{v:.{digits}g}" if abs(v) < 1e6 else f"{v:.3e}"
