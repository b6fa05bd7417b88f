#!/usr/bin/env python3
"""tools/trace.py: a trace dump in a serial log (kernel/trace.c's `T: `
lines, from a boot with trace=... trace.dump=end, or a panic, a stall, a
test's timeout) made into a timeline.

    tools/trace.py LOG                   summary: events, GPs, what was lost
    tools/trace.py LOG --json OUT.json   Chrome's Trace Event Format: open it
                                         in https://ui.perfetto.dev or
                                         chrome://tracing
    tools/trace.py LOG --ftrace OUT.txt  ftrace's text format (Perfetto,
                                         trace-cmd-style tools read it)
    tools/trace.py LOG --check [--whole-gp]
                                         consistency: each GP starts and ends
                                         once, QS reports fall inside their
                                         GP, callbacks are queued once and
                                         invoked once; --whole-gp: at least one
                                         GP seen whole with a QS for every CPU
                                         that traced

In the JSON each CPU is a track (irqs, QS reports, callbacks queued and
invoked, joined by flow arrows), with the tasks it ran on a track of its
own; grace periods are spans with their phases (init, waiting for QSes,
cleanup) and force-QS passes on an "RCU grace periods" track; expedited
and SRCU grace periods, scenario readers (rcu_reader events) and where
events were lost have tracks too.

Bad input is an error naming the line (exit status 2): a log without a
dump, a garbled `T: ` line, a dump with no events.  A dump that was cut
off (no `T: end`) or lost events (overwritten, over trace.rate=) is
converted, and the timeline marks where.  Only the standard library.
"""

import argparse
import json
import re
import sys

_EVENT = re.compile(r"^T: (\d+) (\d+) ([a-z_]+)((?: [a-z_]+=\S*)*)$")
_KV = re.compile(r" ([a-z_]+)=(\S*)")
_BEGIN = re.compile(r"^T: begin((?: [a-z_]+=\S*)*)$")
_CPU = re.compile(r"^T: cpu=(\d+)((?: [a-z_]+=\S*)*)$")
_SKIPPED = re.compile(r"^T: skipped=(\d+) ")
_END = re.compile(r"^T: end((?: [a-z_]+=\S*)*)$")
# What a serial line may carry before the dump's text (none today; a
# console that prefixes lines would add it here).
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


class TraceError(Exception):
    """Input that cannot be made into a timeline; the message names the line."""


class Event:
    __slots__ = ("cpu", "ns", "name", "f", "lineno")

    def __init__(self, cpu, ns, name, f, lineno):
        self.cpu, self.ns, self.name, self.f, self.lineno = cpu, ns, name, f, lineno

    def num(self, key, default=0):
        v = self.f.get(key)
        if v is None:
            return default
        try:
            return int(v, 0)
        except ValueError:
            # The caller, who knows the log's name, puts it before.
            raise TraceError(f"{self.lineno}: garbled trace line: "
                             f"{key}={v!r} is not a number") from None


class Trace:
    def __init__(self):
        self.events = []
        self.cpus = {}          # cpu -> {recorded, lost, capped, first_ns}
        self.begin = {}
        self.end = None         # the T: end fields, None if cut off
        self.begin_line = 0
        self.last_line = 0      # the dump's last line seen
        self.skipped = 0
        self.source = ""

    def lost_total(self):
        return sum(c.get("lost", 0) + c.get("capped", 0) for c in self.cpus.values()) \
            + self.skipped + self.missing()

    def expected(self):
        """Events the dump was to print: what each CPU's header says its
        buffer held (recorded - lost), less those trace.dump_max skipped
        (records found torn, known only from 'T: end', are among them)."""
        return sum(c.get("recorded", 0) - c.get("lost", 0) for c in self.cpus.values()) \
            - self.skipped

    def missing(self):
        """Events the dump printed, or was to print, that the log lacks:
        cut off (no 'T: end'), the rest of expected(); whole, printed=
        less the lines found (a console that dropped lines)."""
        if self.end is None:
            return max(self.expected() - len(self.events), 0)
        return max(int(self.end.get("printed", len(self.events))) - len(self.events), 0)

    def missing_note(self):
        """What missing() means, in words; "" if nothing is missing."""
        n = self.missing()
        if self.end is None:
            return (f"the dump was cut off after log line {self.last_line} (no 'T: end'): "
                    f"{n} of its {self.expected()} events are lost")
        if n:
            return (f"the dump printed {self.end.get('printed')} events but the log "
                    f"holds {len(self.events)}: {n} lines lost on the way")
        return ""


def _fields(text):
    return dict(_KV.findall(text))


def parse(lines, source="log", which=-1):
    """The dump in lines (the last one, or number `which` from 0).
    Raises TraceError for a log with no dump or a garbled dump line."""
    dumps, cur = [], None
    for n, raw in enumerate(lines, 1):
        line = _ANSI.sub("", raw).rstrip("\r\n").rstrip()
        if not line.startswith("T: "):
            continue
        m = _BEGIN.match(line)
        if m:
            cur = Trace()
            cur.source, cur.begin, cur.begin_line = source, _fields(m.group(1)), n
            cur.last_line = n
            dumps.append(cur)
            continue
        if cur is None:
            raise TraceError(f"{source}:{n}: a trace line before any 'T: begin': {line!r}")
        if cur.end is not None:
            raise TraceError(f"{source}:{n}: a trace line after 'T: end' "
                             f"(line {cur.last_line}): {line!r}")
        cur.last_line = n
        m = _EVENT.match(line)
        if m:
            cur.events.append(Event(int(m.group(1)), int(m.group(2)), m.group(3),
                                    _fields(m.group(4)), n))
            continue
        m = _CPU.match(line)
        if m:
            f = _fields(m.group(2))
            try:
                cur.cpus[int(m.group(1))] = {k: int(v) for k, v in f.items()}
            except ValueError:
                raise TraceError(f"{source}:{n}: garbled trace line: {line!r}") from None
            continue
        m = _SKIPPED.match(line)
        if m:
            cur.skipped = int(m.group(1))
            continue
        m = _END.match(line)
        if m:
            # Numbers, as the cpu= lines: missing() does arithmetic on
            # printed=, and a line cut short (`printed=`) must not be a
            # traceback.
            cur.end = _fields(m.group(1))
            if not all(v.isdigit() for v in cur.end.values()):
                raise TraceError(f"{source}:{n}: garbled trace line: {line!r}")
            continue
        raise TraceError(f"{source}:{n}: garbled trace line: {line!r}")
    if not dumps:
        raise TraceError(f"{source}: no trace dump (no 'T: begin' line): boot with "
                         "trace=rcu (or another subsystem) and trace.dump=end")
    try:
        t = dumps[which]
    except IndexError:
        raise TraceError(f"{source}: has {len(dumps)} dump(s), not #{which}") from None
    if not t.events:
        where = f"cut off after line {t.last_line}: {t.expected()} events lost" \
            if t.end is None else f"lines {t.begin_line}-{t.last_line}"
        raise TraceError(f"{source}:{t.begin_line}: the dump has no events ({where}): "
                         "nothing to show")
    # Each CPU's records are in order; the merge across CPUs may be a
    # little out (a record's stamp is taken before its slot).
    t.events.sort(key=lambda e: (e.ns, e.lineno))
    return t


def load(path, which=-1):
    try:
        with open(path, "rb") as fh:
            data = fh.read().decode("utf-8", errors="replace")
    except OSError as e:
        raise TraceError(f"{path}: {e.strerror}") from None
    return parse(data.split("\n"), path, which)


# ---------------------------------------------------------------------------
# What the events say

class GracePeriod:
    def __init__(self, seq):
        self.seq = seq
        self.phases = {}        # gpevent -> [ns, ...]
        self.fqs = []           # ns of each force-QS pass
        self.qs = []            # the QS report events
        self.lines = {}

    def first(self, what):
        v = self.phases.get(what)
        return v[0] if v else None


def grace_periods(t):
    """{gp_seq: GracePeriod} of the normal grace periods (rcu_sched)."""
    gps = {}
    for e in t.events:
        if e.name == "rcu_grace_period":
            g = gps.setdefault(e.num("gp_seq"), GracePeriod(e.num("gp_seq")))
            what = e.f.get("gpevent")
            if what == "fqs":
                g.fqs.append(e.ns)
            else:
                g.phases.setdefault(what, []).append(e.ns)
                g.lines.setdefault(what, e.lineno)
        elif e.name == "rcu_quiescent_state_report":
            gps.setdefault(e.num("gp_seq"), GracePeriod(e.num("gp_seq"))).qs.append(e)
    return gps


def leaf_level(t):
    levels = [e.num("level") for e in t.events if e.name == "rcu_quiescent_state_report"]
    return max(levels) if levels else 0


def qs_cpus(g, leaf):
    """CPUs whose QS a GP's leaf reports cleared."""
    cpus = set()
    for e in g.qs:
        if e.num("level") != leaf:
            continue
        mask, lo = e.num("mask"), e.num("grplo")
        for b in range(64):
            if mask >> b & 1:
                cpus.add(lo + b)
    return cpus


def callback_flows(t):
    """[(queue event or None, invoke event or None)]: each callback from
    its rcu_callback to its rcu_invoke_callback (matched by rcu_head
    address; an address is reused once invoked)."""
    pending, flows = {}, []
    for e in t.events:
        if e.name == "rcu_callback":
            key = e.f.get("rhp")
            if key in pending:
                flows.append((pending.pop(key), None))     # queued twice
            pending[key] = e
        elif e.name == "rcu_invoke_callback":
            flows.append((pending.pop(e.f.get("rhp"), None), e))
    flows += [(q, None) for q in pending.values()]
    return flows


def check(t, whole_gp=False):
    """Problems found, as strings naming lines; [] if none."""
    probs = []
    start_ns = t.events[0].ns
    end_ns = t.events[-1].ns
    lossy = t.lost_total() > 0 or t.end is None
    gps = grace_periods(t)
    for seq, g in sorted(gps.items()):
        for what in ("start", "init", "cleanup", "end"):
            if len(g.phases.get(what, [])) > 1:
                probs.append(f"GP {seq}: {len(g.phases[what])} '{what}' events "
                             f"(first at line {g.lines[what]})")
        s, e = g.first("start"), g.first("end")
        if s is not None and e is None and any(
                x.first("start") is not None and x.first("start") > s
                for x in gps.values()):
            probs.append(f"GP {seq}: started (line {g.lines['start']}) but never "
                         "ended, though a later GP started")
        if e is not None and s is None and not lossy and any(
                x.first("end") is not None and x.first("end") < e
                and x.first("start") is not None for x in gps.values()):
            probs.append(f"GP {seq}: ended (line {g.lines['end']}) without a start")
        if s is not None and e is not None and e < s:
            probs.append(f"GP {seq}: ends (line {g.lines['end']}) before it starts")
        for q in g.qs:
            if (s is not None and q.ns < s) or (e is not None and q.ns > e):
                probs.append(f"GP {seq}: QS report at line {q.lineno} outside the GP "
                             f"({s}..{e} ns)")
            if s is None and e is None and not lossy and start_ns < q.ns < end_ns:
                probs.append(f"GP {seq}: QS report at line {q.lineno} for a GP the "
                             "trace never shows")
    for q, inv in callback_flows(t):
        if q is not None and inv is not None and inv.ns < q.ns:
            probs.append(f"callback {q.f.get('rhp')}: invoked (line {inv.lineno}) "
                         f"before it was queued (line {q.lineno})")
    dup = {}
    for e in t.events:
        if e.name == "rcu_callback":
            k = e.f.get("rhp")
            if k in dup:
                probs.append(f"callback {k}: queued at line {e.lineno} while still "
                             f"queued from line {dup[k]}")
            dup[k] = e.lineno
        elif e.name == "rcu_invoke_callback":
            dup.pop(e.f.get("rhp"), None)
    if whole_gp:
        want = set(t.cpus) or {e.cpu for e in t.events}
        leaf = leaf_level(t)
        whole = [g for g in gps.values() if g.first("start") is not None
                 and g.first("end") is not None]
        full = [g for g in whole if want <= qs_cpus(g, leaf)]
        if not full:
            best = max(whole, key=lambda g: len(qs_cpus(g, leaf)), default=None)
            got = sorted(qs_cpus(best, leaf)) if best else []
            probs.append(f"no grace period seen whole with a QS report for every "
                         f"CPU {sorted(want)}: {len(whole)} whole GP(s), the best "
                         f"covers {got}")
    return probs


# ---------------------------------------------------------------------------
# Chrome's Trace Event Format

PID = 1
GP_TID, EXP_TID, LOST_TID = 1000, 1001, 1002
SRCU_TID0, READER_TID0 = 1100, 2000
TASKS_TID0, TICK_TID0 = 100, 200


def _us(ns):
    return ns / 1000.0


def to_chrome(t):
    ev = []
    tracks = {}

    def track(tid, name, sort):
        if tid not in tracks:
            tracks[tid] = name
            ev.append({"name": "thread_name", "ph": "M", "pid": PID, "tid": tid,
                       "args": {"name": name}})
            ev.append({"name": "thread_sort_index", "ph": "M", "pid": PID, "tid": tid,
                       "args": {"sort_index": sort}})

    def span(tid, name, b, e, cat, args=None):
        ev.append({"name": name, "cat": cat, "ph": "X", "pid": PID, "tid": tid,
                   "ts": _us(b), "dur": max(_us(e) - _us(b), 0.001), "args": args or {}})

    def instant(tid, name, ns, cat, args=None, scope="t"):
        ev.append({"name": name, "cat": cat, "ph": "i", "s": scope, "pid": PID,
                   "tid": tid, "ts": _us(ns), "args": args or {}})

    ev.append({"name": "process_name", "ph": "M", "pid": PID, "tid": 0,
               "args": {"name": "rcukern"}})
    for cpu in sorted(set(t.cpus) | {e.cpu for e in t.events}):
        track(cpu, f"CPU {cpu}", cpu)
    first, last = t.events[0].ns, t.events[-1].ns

    # Grace periods and their phases.
    track(GP_TID, "RCU grace periods", -3)
    for seq, g in sorted(grace_periods(t).items()):
        s, e = g.first("start"), g.first("end")
        b = s if s is not None else first
        f = e if e is not None else last
        name = f"GP {seq}" + ("" if s is not None and e is not None else " (partly seen)")
        span(GP_TID, name, b, f, "rcu", {"gp_seq": seq, "qs_reports": len(g.qs),
                                       "fqs_passes": len(g.fqs)})
        marks = [("init", b, g.first("init")),
                 ("waiting for QS", g.first("init"), g.first("cleanup")),
                 ("cleanup", g.first("cleanup"), e)]
        for what, pb, pe in marks:
            if pb is not None and pe is not None:
                span(GP_TID, what, pb, pe, "rcu", {"gp_seq": seq})
        for i, ns in enumerate(g.fqs, 1):
            instant(GP_TID, f"fqs pass {i}", ns, "rcu", {"gp_seq": seq})
        for q in g.qs:
            instant(q.cpu, f"QS gp {seq} level {q.num('level')}", q.ns, "rcu",
                    {"gp_seq": seq, "mask": q.f.get("mask"), "qsmask": q.f.get("qsmask"),
                     "grplo": q.num("grplo"), "level": q.num("level")})

    # Callbacks: a short slice where queued and where invoked, joined.
    for i, (q, inv) in enumerate(callback_flows(t)):
        if q is not None:
            span(q.cpu, "call_rcu " + q.f.get("func", "?"), q.ns, q.ns + 500, "callback",
                 {"rhp": q.f.get("rhp"), "qlen": q.num("qlen")})
        if inv is not None:
            span(inv.cpu, "invoke " + inv.f.get("func", "?"), inv.ns, inv.ns + 500,
                 "callback", {"rhp": inv.f.get("rhp")})
        if q is not None and inv is not None:
            ev.append({"name": "callback", "cat": "callback", "ph": "s", "id": i,
                       "pid": PID, "tid": q.cpu, "ts": _us(q.ns) + 0.001})
            ev.append({"name": "callback", "cat": "callback", "ph": "f", "bp": "e",
                       "id": i, "pid": PID, "tid": inv.cpu, "ts": _us(inv.ns) + 0.001})

    # Everything else, in order, per kind.
    open_ = {}          # (kind, key) -> event that opened a span
    tasks = {}          # cpu -> (name, ns) of the task running since
    for e in t.events:
        n, cpu = e.name, e.cpu
        if n == "rcu_batch_start":
            open_[("batch", cpu)] = e
        elif n == "rcu_batch_end":
            b = open_.pop(("batch", cpu), None)
            span(cpu, "rcu_do_batch", b.ns if b else first, e.ns, "callback",
                 {"invoked": e.num("callbacks_invoked")})
        elif n == "rcu_exp_grace_period":
            track(EXP_TID, "expedited grace periods", -2)
            what, key = e.f.get("gpevent"), ("exp", e.f.get("rcuname"), e.num("gp_seq"))
            if what == "start":
                open_[key] = e
            elif what == "end":
                b = open_.pop(key, None)
                span(EXP_TID, f"{e.f.get('rcuname')} exp {e.num('gp_seq')}",
                     b.ns if b else first, e.ns, "rcu")
            else:
                instant(EXP_TID, f"IPI to CPU {e.num('cpu')}", e.ns, "rcu")
        elif n == "srcu_grace_period":
            name = e.f.get("name", "srcu")
            tid = SRCU_TID0 + (sum(map(ord, name)) % 100)
            track(tid, f"SRCU {name}", -1)
            what, key = e.f.get("gpevent"), ("srcu", name)
            if what == "start":
                open_[key] = e
            elif what == "end":
                b = open_.pop(key, None)
                span(tid, f"SRCU GP {e.num('gp_seq')}", b.ns if b else first, e.ns, "srcu")
            else:
                instant(tid, f"flip to {e.num('idx')}", e.ns, "srcu")
        elif n == "rcu_reader" and e.f.get("what") in ("update", "commit", "updated"):
            track(READER_TID0 - 1, f"{e.f.get('scenario')} updater", 9)
            what = e.f.get("what")
            if what == "update":
                open_["update"] = e
            else:
                b = open_.pop("update", None)
                span(READER_TID0 - 1, "publish" if what == "commit" else "wait for readers",
                     b.ns if b else first, e.ns, "reader")
                if what == "commit":
                    open_["update"] = e
        elif n == "rcu_reader":
            rid = e.num("id")
            tid = READER_TID0 + rid
            track(tid, f"{e.f.get('scenario')} reader {rid}", 10 + rid)
            if e.f.get("what") == "begin":
                open_[("reader", rid)] = e
            else:
                b = open_.pop(("reader", rid), None)
                span(tid, f"reader {rid} saw {'new' if e.num('saw') else 'old'}",
                     b.ns if b else first, e.ns, "reader", {"saw": e.num("saw")})
        elif n in ("rcu_preempt_task", "rcu_unlock_preempted_task", "rcu_boost",
                   "rcu_stall_warning", "cpuhp", "sched_wakeup"):
            scope = "g" if n == "rcu_stall_warning" else "t"
            label = n if n != "cpuhp" else f"cpuhp {e.f.get('dir')} {e.f.get('step')} CPU {e.num('cpu')}"
            instant(cpu, label, e.ns, n.split("_")[0], dict(e.f), scope)
        elif n == "irq_handler_entry":
            open_[("irq", cpu)] = e
        elif n == "irq_handler_exit":
            b = open_.pop(("irq", cpu), None)
            span(cpu, f"irq {e.num('irq')}", b.ns if b else first, e.ns, "irq")
        elif n == "nmi_entry":
            open_[("nmi", cpu)] = e
        elif n == "nmi_exit":
            b = open_.pop(("nmi", cpu), None)
            span(cpu, "NMI", b.ns if b else first, e.ns, "irq")
        elif n == "sched_switch":
            track(TASKS_TID0 + cpu, f"CPU {cpu} tasks", 100 + cpu)
            prev = tasks.get(cpu)
            span(TASKS_TID0 + cpu, e.f.get("prev_comm", "?"), prev[1] if prev else first,
                 e.ns, "sched", {"pid": e.f.get("prev_pid"), "state": e.num("prev_state")})
            tasks[cpu] = (e.f.get("next_comm"), e.ns)
        elif n == "tick_stop":
            open_[("tick", cpu)] = e
        elif n == "tick_restart":
            b = open_.pop(("tick", cpu), None)
            if b is not None:
                track(TICK_TID0 + cpu, f"CPU {cpu} tick", 200 + cpu)
                span(TICK_TID0 + cpu, "tick stopped", b.ns, e.ns, "tick")

    # Where events were lost.
    lost_notes = []
    for cpu, c in sorted(t.cpus.items()):
        if c.get("lost") or c.get("capped"):
            track(LOST_TID, "lost events", -4)
            at = c.get("first_ns") or first
            instant(LOST_TID, f"CPU {cpu}: {c.get('lost', 0)} events lost before here, "
                    f"{c.get('capped', 0)} over trace.rate", at, "lost", dict(c), "g")
            lost_notes.append(f"CPU {cpu}: {c.get('lost', 0)} lost before {at} ns, "
                              f"{c.get('capped', 0)} over the rate cap")
    if t.skipped:
        track(LOST_TID, "lost events", -4)
        instant(LOST_TID, f"{t.skipped} oldest events not dumped (trace.dump_max)", first,
                "lost", {}, "g")
        lost_notes.append(f"{t.skipped} oldest events not dumped (trace.dump_max)")
    if t.end is None:
        track(LOST_TID, "lost events", -4)
        instant(LOST_TID, f"dump cut off after log line {t.last_line}: "
                f"{t.missing()} later events lost", last, "lost", {}, "g")
        lost_notes.append(t.missing_note())
    elif t.missing():
        track(LOST_TID, "lost events", -4)
        instant(LOST_TID, f"{t.missing()} dumped events missing from the log", first,
                "lost", {}, "g")
        lost_notes.append(t.missing_note())
    return {"traceEvents": ev, "displayTimeUnit": "ns",
            "otherData": {"source": t.source, "dump": dict(t.begin),
                          "end": dict(t.end) if t.end else None,
                          "lost": lost_notes}}


# ---------------------------------------------------------------------------
# ftrace's text format

def to_ftrace(t):
    out = ["# tracer: nop", "#",
           f"# entries-in-buffer/entries-written: {len(t.events)}/"
           f"{len(t.events) + t.lost_total()}   #P:{len(t.cpus) or 1}"]
    if t.missing_note():
        out.append("# " + t.missing_note())
    for cpu, c in sorted(t.cpus.items()):
        if c.get("lost") or c.get("capped"):
            out.append(f"# CPU {cpu}: {c.get('lost', 0)} events lost (overwritten or "
                       f"buffer full), {c.get('capped', 0)} over trace.rate")
    out += ["#", "#                                _-----=> irqs-off/BH-disabled",
            "#           TASK-PID     CPU#  ||||   TIMESTAMP  FUNCTION",
            "#              | |         |   ||||      |         |"]
    current = {}
    pids = {}

    def pid_of(ptr):
        return pids.setdefault(ptr, len(pids) + 1)

    for e in t.events:
        task, pid = current.get(e.cpu, ("rcukern", 0))
        fields = " ".join(f"{k}={v}" for k, v in e.f.items())
        if e.name == "sched_switch":
            fields = (f"prev_comm={e.f.get('prev_comm')} prev_pid={pid_of(e.f.get('prev_pid'))} "
                      f"prev_prio=120 prev_state={'R' if e.num('prev_state') == 0 else 'S'} ==> "
                      f"next_comm={e.f.get('next_comm')} next_pid={pid_of(e.f.get('next_pid'))} "
                      "next_prio=120")
        elif e.name == "sched_wakeup":
            fields = (f"comm={e.f.get('comm')} pid={pid_of(e.f.get('pid'))} prio=120 "
                      f"target_cpu={e.num('target_cpu'):03d}")
        secs, frac = divmod(e.ns, 1000000000)
        out.append(f"{task[:16]:>16}-{pid:<7} [{e.cpu:03d}] ....  {secs:5d}.{frac // 1000:06d}: "
                   f"{e.name}: {fields}")
        if e.name == "sched_switch":
            current[e.cpu] = (e.f.get("next_comm", "?"), pid_of(e.f.get("next_pid")))
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------

def summary(t):
    gps = grace_periods(t)
    whole = [g for g in gps.values() if g.first("start") is not None and g.first("end") is not None]
    kinds = {}
    for e in t.events:
        kinds[e.name] = kinds.get(e.name, 0) + 1
    span_ns = t.events[-1].ns - t.events[0].ns
    lines = [f"{t.source}: dump ({t.begin.get('reason', '?')}) at lines "
             f"{t.begin_line}-{t.last_line}: {len(t.events)} events on {len(t.cpus)} CPUs "
             f"over {span_ns / 1e6:.3f} ms",
             f"grace periods: {len(gps)} seen, {len(whole)} whole"]
    lines += [f"  {n}: {c}" for n, c in sorted(kinds.items())]
    if t.missing_note():
        lines.append(t.missing_note())
    for cpu, c in sorted(t.cpus.items()):
        if c.get("lost") or c.get("capped"):
            lines.append(f"CPU {cpu}: {c.get('lost', 0)} events lost before "
                         f"{c.get('first_ns', 0)} ns, {c.get('capped', 0)} over trace.rate")
    if t.skipped:
        lines.append(f"{t.skipped} oldest events were not dumped (trace.dump_max)")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("log")
    ap.add_argument("--json", metavar="OUT", help="write Chrome Trace Event Format JSON")
    ap.add_argument("--ftrace", metavar="OUT", help="write ftrace text")
    ap.add_argument("--check", action="store_true", help="check the trace's consistency")
    ap.add_argument("--whole-gp", action="store_true",
                    help="with --check: a GP seen whole with a QS for every CPU")
    ap.add_argument("--dump", type=int, default=-1, help="which dump of the log (default: last)")
    a = ap.parse_args(argv)
    try:
        t = load(a.log, a.dump)
    except TraceError as e:
        print(f"trace.py: {e}", file=sys.stderr)
        return 2
    try:        # a garbled number in an event is found as it is read
        print(summary(t))
        if a.json:
            chrome = to_chrome(t)
            with open(a.json, "w") as fh:
                json.dump(chrome, fh)
            print(f"wrote {a.json}")
        if a.ftrace:
            text = to_ftrace(t)
            with open(a.ftrace, "w") as fh:
                fh.write(text)
            print(f"wrote {a.ftrace}")
        probs = check(t, a.whole_gp) if a.check or a.whole_gp else None
    except TraceError as e:
        print(f"trace.py: {a.log}:{e}", file=sys.stderr)
        return 2
    if probs is not None:
        for p in probs:
            print(f"trace.py: {p}", file=sys.stderr)
        if probs:
            return 1
        print("check: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
