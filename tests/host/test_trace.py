#!/usr/bin/env python3
"""tests/host/test_trace.py: tools/trace.py on real trace dumps, captured
from QEMU runs (tests/host/trace-fixtures: -smp 4, trace=rcu,srcu
trace.dump=end over test=srcu, the same with 32 records per CPU so that
events were lost, and trace=rcu over test=paper_concurrent, whose readers
begun after the update completed must all have seen the new value), and on the
bad input a log can hold: no dump, a dump cut off (which must say how
many of its events are lost), lines dropped from a whole dump, a garbled
line.

Checks: every grace period that starts ends once, after it; each QS
report falls inside its GP; a whole GP has a QS report for every CPU;
callbacks queued are invoked once, after (the flow arrows pair up); the
JSON loads and every event has the Trace Event Format's required fields;
the ftrace text has a line per event; lost events are marked, never a
silent gap.  Prints PASS/FAIL per check; exits 1 if any failed."""

import contextlib
import io
import json
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import trace  # noqa: E402

FIX = os.path.join(HERE, "trace-fixtures")
failed = 0


def check(ok, what):
    global failed
    print(("PASS " if ok else "FAIL ") + what)
    if not ok:
        failed += 1


def lines_of(name):
    with open(os.path.join(FIX, name)) as fh:
        return fh.read().split("\n")


def expect_error(lines, what, *needles):
    try:
        trace.parse(lines, "x.log")
    except trace.TraceError as e:
        msg = str(e)
        check(all(n in msg for n in needles), f"{what}: {msg}")
        return
    check(False, f"{what}: no error")


# Trace Event Format: the fields every event of its phase must have.
REQUIRED = {"X": ("name", "ph", "ts", "dur", "pid", "tid"),
            "i": ("name", "ph", "ts", "pid", "tid", "s"),
            "s": ("name", "ph", "ts", "pid", "tid", "id"),
            "f": ("name", "ph", "ts", "pid", "tid", "id"),
            "M": ("name", "ph", "pid", "args")}


def json_ok(t, name):
    text = json.dumps(trace.to_chrome(t))
    doc = json.loads(text)
    evs = doc.get("traceEvents")
    check(isinstance(evs, list) and evs, f"{name}: JSON loads, has traceEvents")
    bad = [e for e in evs if e.get("ph") not in REQUIRED
           or any(k not in e for k in REQUIRED[e["ph"]])]
    check(not bad, f"{name}: every event has its phase's required fields"
          + (f" (first bad: {bad[0]})" if bad else ""))
    nums = all(isinstance(e["ts"], (int, float)) and e["ts"] >= 0 for e in evs if "ts" in e)
    check(nums, f"{name}: timestamps are numbers >= 0 (us)")
    starts = {e["id"]: e for e in evs if e["ph"] == "s"}
    ends = {e["id"]: e for e in evs if e["ph"] == "f"}
    check(set(starts) == set(ends) and all(ends[i]["ts"] >= starts[i]["ts"] for i in starts),
          f"{name}: flow arrows pair up ({len(starts)}), each ends after it starts")
    return doc


def gp_checks(t, name):
    gps = trace.grace_periods(t)
    whole = [g for g in gps.values() if g.first("start") is not None and g.first("end") is not None]
    check(whole, f"{name}: {len(whole)} whole grace period(s)")
    once = all(len(g.phases.get(p, [])) <= 1 for g in gps.values()
               for p in ("start", "end"))
    check(once, f"{name}: each GP starts and ends at most once")
    check(all(g.first("end") >= g.first("start") for g in whole), f"{name}: each ends after it starts")
    inside = all(g.first("start") <= q.ns <= g.first("end") for g in whole for q in g.qs)
    check(inside, f"{name}: QS reports fall inside their GP")
    leaf = trace.leaf_level(t)
    check(any(set(t.cpus) <= trace.qs_cpus(g, leaf) for g in whole),
          f"{name}: a whole GP has a QS for every CPU {sorted(t.cpus)}")
    flows = trace.callback_flows(t)
    paired = [f for f in flows if f[0] and f[1]]
    check(paired and all(i.ns >= q.ns for q, i in paired),
          f"{name}: {len(paired)} callback(s) queued, then invoked")
    check(trace.check(t, whole_gp=True) == [], f"{name}: trace.py --check --whole-gp finds nothing")


for name in ("srcu-smp4.log", "concurrent-smp4.log"):
    t = trace.parse(lines_of(name), name)
    check(t.end is not None and t.lost_total() == 0, f"{name}: whole dump, nothing lost")
    check(len(t.events) == int(t.end["printed"]),
          f"{name}: {len(t.events)} events parsed, as 'T: end' says")
    gp_checks(t, name)
    doc = json_ok(t, name)
    text = trace.to_ftrace(t)
    check(sum(1 for x in text.splitlines() if not x.startswith("#")) == len(t.events),
          f"{name}: ftrace text has a line per event")

# The article's figure: the updater and readers as spans.
t = trace.parse(lines_of("concurrent-smp4.log"), "concurrent")
evs = trace.to_chrome(t)["traceEvents"]
names = {e["args"]["name"] for e in evs if e["ph"] == "M" and e["name"] == "thread_name"}
check(any("updater" in n for n in names) and any("reader" in n for n in names),
      "concurrent: updater and reader tracks")
check(any(e["ph"] == "X" and e["name"].startswith("reader ") for e in evs),
      "concurrent: readers as spans")
# The report's figure of the article (tools/report/trace_events.py):
# sections begun before the update, while it ran, and after it completed;
# the last are guaranteed the new value, and the trace must show it.
from report import trace_events  # noqa: E402
rows = [r for r in trace_events.trace_rows(lines_of("concurrent-smp4.log"), "concurrent")
        if r.get("name") == "trace_span" and r.get("who") != "updater"]
when = {w: [r for r in rows if r.get("when") == w] for w in ("before", "during", "after")}
check(all(when.values()), "concurrent: reader sections begun before, during and after the "
      f"update: {', '.join(f'{w} {len(v)}' for w, v in when.items())}")
old_after = [r for r in when["after"] if r.get("saw") != "new"]
check(not old_after, "concurrent: every section begun after the update completed saw the "
      f"new value ({len(when['after'])}; saw the old: {[r.get('who') for r in old_after]})")

# Events lost (32 records per CPU): converted, and the loss marked.
t = trace.parse(lines_of("srcu-lost-smp4.log"), "lost")
check(t.lost_total() > 0, f"lost: the dump says {t.lost_total()} events were lost")
doc = json_ok(t, "lost")
check(any("lost" in n for n in doc["otherData"]["lost"]) and
      any(e.get("cat") == "lost" for e in doc["traceEvents"]),
      "lost: the timeline marks where events were lost")
check(trace.check(t) == [], "lost: --check makes no false alarm at the edges")

# Bad input.
good = lines_of("srcu-smp4.log")
expect_error(["[c0] rcukern: no trace here", "# rcukern: exit status 0"],
             "no dump", "no trace dump")
at = next(i for i, x in enumerate(good) if x.startswith("T: 1 "))
garbled = good[:at] + ["T: 1 12x rcu_grace_period rcuname=rcu_sched"] + good[at + 1:]
expect_error(garbled, "garbled line", f"x.log:{at + 1}:", "garbled")
# A 'T: end' line cut short or garbled: its printed= is counted with.
end_at = next(i for i, x in enumerate(good) if x.startswith("T: end "))
for bad_end in ("T: end printed=", "T: end printed=6x4 lost=0"):
    expect_error(good[:end_at] + [bad_end] + good[end_at + 1:],
                 f"garbled end line {bad_end!r}", f"x.log:{end_at + 1}:", "garbled")
# A garbled number inside an event: an error naming the line, as the
# converter reads it (exit status 2), never a traceback.
gp_at = next(i for i, x in enumerate(good) if " rcu_grace_period " in x and "gp_seq=" in x)
bad_gp = good[:gp_at] + [re.sub(r"gp_seq=(\S+)", r"gp_seq=\1x", good[gp_at])] + good[gp_at + 1:]
with tempfile.NamedTemporaryFile("w", suffix=".log") as fh:
    fh.write("\n".join(bad_gp))
    fh.flush()
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        rc = trace.main([fh.name, "--check"])
    check(rc == 2 and f"{fh.name}:{gp_at + 1}: garbled" in err.getvalue(),
          f"garbled number in an event: exit {rc}, {err.getvalue().strip()}")
first_event = next(i for i, x in enumerate(good) if trace._EVENT.match(x))
expect_error(good[:first_event], "cut off before any event", "no events", "cut off")
cut = good[:len(good) // 2]
t = trace.parse(cut, "cut")
doc = trace.to_chrome(t)
check(t.end is None and any("cut off" in n for n in doc["otherData"]["lost"]) and
      any("cut off" in e["name"] for e in doc["traceEvents"] if e.get("cat") == "lost"),
      f"cut off at line {len(cut)}: converted, the cut marked ({t.last_line})")
check("cut off" in trace.to_ftrace(t), "cut off: the ftrace text says so")
# ... and how much: the CPUs' headers say how many the dump was to print.
whole = trace.parse(good, "whole")
gone = len(whole.events) - len(t.events)
check(t.missing() == gone and f"{gone} of its {len(whole.events)} events are lost" in trace.summary(t)
      and f"{gone} later events lost" in json.dumps(doc),
      f"cut off: says {gone} of {len(whole.events)} events lost: {t.missing_note()!r}")
check(t.lost_total() >= gone, f"cut off: counted in the losses ({t.lost_total()})")
# A whole dump whose console dropped lines: 'T: end printed=' tells.
dropped = [x for x in good if not x.startswith("T: 2 ")]
t = trace.parse(dropped, "dropped")
n2 = sum(1 for x in good if x.startswith("T: 2 "))
check(n2 and t.missing() == n2 and f"{n2} lines lost" in trace.summary(t)
      and f"{n2} lines lost" in trace.to_ftrace(t),
      f"lines dropped from a whole dump: {t.missing_note()!r}")
# --check catches a GP that ends twice and a QS outside its GP.
t = trace.parse(good, "x")
g = next(iter(trace.grace_periods(t).values()))
end = next(e for e in t.events if e.name == "rcu_grace_period" and e.f["gpevent"] == "end")
dup = trace.Event(end.cpu, end.ns + 10, end.name, dict(end.f), 9999)
q = next(e for e in t.events if e.name == "rcu_quiescent_state_report")
late = trace.Event(q.cpu, end.ns + 20, q.name, dict(q.f), 9998)
t.events += [dup, late]
t.events.sort(key=lambda e: e.ns)
probs = trace.check(t)
check(any("2 'end' events" in p for p in probs) and any("line 9998 outside" in p for p in probs),
      f"--check catches a doubled end and a stray QS: {probs}")
print(f"{'FAIL' if failed else 'PASS'}: {failed} check(s) failed")
sys.exit(1 if failed else 0)
