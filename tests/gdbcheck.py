#!/usr/bin/env python3
"""tests/gdbcheck.py: tools/gdb/rcukern.py's commands on a running kernel,
checked against its serial log.

A during= hook of tests/qemu-configs: QEMU runs with a gdb stub on the
unix socket SOCK (qemu='-gdb unix:SOCK,server=on,wait=off'), and once
the ready= line is in the log this connects gdb (which stops every
vCPU wherever it is), runs rk-cpus, rk-ps, rk-rcu, rk-trace and
rk-dmesg, detaches (the run goes on) and checks:
  - rk-cpus: as many CPUs online as the log's "smp: N CPUs online";
  - rk-ps: each online CPU's idle task (idle/N), running or not; the
    torture's readers, writer and fake writers, as many as the log's
    "Start of test" line says; sleeping tasks, with where they wait;
  - rk-rcu: gp_seq at or after the last grace period of the trace
    rk-trace wrote, and at most one GP later (both read the same stopped
    memory); a node line per rcu_node and a line per online CPU;
  - rk-trace: a dump tools/trace.py converts and finds consistent;
  - rk-dmesg: the log's lines up to the ready= line, in order, and only
    lines the serial log holds too;
and that the NMI round stopped in the handler, with rk-cpus saying that
CPU is in an NMI, and the lock round with rk-rcu naming the CPU that
stopped there as a node lock's holder.
    tests/gdbcheck.py SOCK READY      (READY: the ready= regex; the ELF
                                      is kernel.elf beside $RCUKERN_ISO)
Exit 0 on pass, 1 on failure, printing what differed.
"""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tools"))
import trace  # noqa: E402


# Where the kernel is stopped for each round of commands: wherever gdb's
# attach finds it, inside an NMI handler (torture.irqreader's NMI
# readers), and with an rcu_node lock held (every QS report takes one).
ROUNDS = (("anywhere", None), ("nmi", "rcu_torture_nmi_reader"),
          ("lock", "rcu_report_qs_rnp"))
CMDS = ("rk-cpus", "rk-ps", "rk-rcu", "rk-trace", "rk-dmesg")


def gdb_args(elf, sock, tdir):
    args = ["gdb", "-q", "-batch", "-nx", elf, "-ex", f"target remote {sock}",
            "-ex", f"source {os.path.join(ROOT, 'tools/gdb/rcukern.py')}"]
    for rnd, stop_at in ROUNDS:
        if stop_at:
            args += ["-ex", f"echo ==== {rnd} stop\\n", "-ex", f"break {stop_at}",
                     "-ex", "continue", "-ex", "delete"]
        args += ["-ex", f"echo ==== {rnd} where\\n", "-ex",
                 "python print('stopped on CPU', gdb.selected_thread().num - 1, 'in',"
                 " gdb.selected_frame().name())"]
        for c in CMDS:
            arg = f" {os.path.join(tdir, rnd + '.trace')}" if c == "rk-trace" else ""
            args += ["-ex", f"echo ==== {rnd} {c}\\n", "-ex", c + arg]
    return args + ["-ex", "detach"]


def main():
    sock = sys.argv[1]
    iso = os.environ.get("RCUKERN_ISO", "build/rcukern.iso")
    elf = os.path.join(os.path.dirname(iso), "kernel.elf")
    ready = sys.argv[2]
    log_path = os.environ["RUNNER_LOG"]
    tdir = tempfile.mkdtemp(prefix="rk-gdb-")
    out = subprocess.run(gdb_args(elf, sock, tdir), capture_output=True, text=True,
                         timeout=300).stdout
    with open(log_path, "rb") as fh:
        serial = fh.read().decode("utf-8", "replace").replace("\r", "").split("\n")
    parts = {}
    for block in out.split("==== ")[1:]:
        name, _, body = block.partition("\n")
        parts[tuple(name.split())] = body
    bad = []

    def need(ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            bad.append(what)

    want = {(r, c) for r, _ in ROUNDS for c in CMDS + ("where",)}
    need(want <= set(parts), f"every command ran in every round (missing "
         f"{sorted(want - set(parts))})")
    m = next((re.search(r"smp: (\d+) CPUs online", x) for x in serial
              if re.search(r"smp: (\d+) CPUs online", x)), None)
    n = int(m.group(1)) if m else -1
    for rnd, stop_at in ROUNDS:
        where = parts.get((rnd, "where"), "")
        sm = re.search(r"stopped on CPU (\d+) in (\S+)", where)
        print(f"---- {rnd}: {where.strip()}")
        cpus_out = parts.get((rnd, "rk-cpus"), "")
        if stop_at:
            need(sm and sm.group(2) == stop_at, f"{rnd}: stopped in {stop_at}")
        if rnd == "nmi" and sm:
            line = re.search(rf"^cpu {sm.group(1)}: .*", cpus_out, re.M)
            need(line and " in=nmi " in line.group(0),
                 f"nmi: rk-cpus says CPU {sm.group(1)} is in an NMI: "
                 f"{line.group(0) if line else None}")
        one_round(rnd, parts, n, serial, ready, tdir, need,
                  sm.group(1) if sm and rnd == "lock" else None)
    if bad:
        print("gdb said:\n" + out[-3000:])
    return 1 if bad else 0


def one_round(rnd, parts, n, serial, ready, tdir, need, lock_cpu):
    """The checks of one round's rk-* output against the serial log."""
    cpus = re.search(r"CPUs: (\d+) online", parts.get((rnd, "rk-cpus"), ""))
    need(cpus and int(cpus.group(1)) == n,
         f"{rnd}: rk-cpus: {cpus.group(1) if cpus else '?'} CPUs online, the log says {n}")
    ps = parts.get((rnd, "rk-ps"), "")
    missing = [c for c in range(max(n, 0)) if f"idle/{c} " not in ps]
    need(n > 0 and not missing,
         f"{rnd}: rk-ps: the idle task of each of the {n} CPUs (missing {missing})")
    # The torture threads the log says it started, asleep or not (names
    # are cut to 15 characters), and where the sleeping ones wait.
    tm = next((re.search(r"nreaders=(\d+) nfakewriters=(\d+)", x) for x in serial
               if "Start of test" in x and "nreaders=" in x), None)
    if tm:
        want = {"rcu_torture_rea": int(tm.group(1)), "rcu_torture_wri": 1,
                "rcu_torture_fak": int(tm.group(2))}
        got = {k: len(re.findall(rf" {k} ", ps)) for k in want}
        need(got == want, f"{rnd}: rk-ps: the torture threads the log started {want}: {got}")
    asleep = re.findall(r"^ *\d+ asleep .* wchan=(\S+)", ps, re.M)
    need(asleep and any("<" in w for w in asleep),
         f"{rnd}: rk-ps: sleeping tasks with where they wait ({len(asleep)}, e.g. "
         f"{asleep[:2]})")
    rcu = parts.get((rnd, "rk-rcu"), "")
    gs = re.search(r"rcu_sched: gp_seq=(-?\d+)", rcu)
    need(gs and rcu.count("  cpu ") == n and " node 0 level 0" in rcu,
         f"{rnd}: rk-rcu: gp_seq, the root node and a line per online CPU")
    if lock_cpu is not None:
        held = re.findall(r"^  node \d+ .* lock=held-by-CPU-(\d+)", rcu, re.M)
        need(lock_cpu in held, f"lock: rk-rcu shows a node lock held by CPU {lock_cpu}, "
             f"where it stopped (held by {held})")
    try:
        t = trace.load(os.path.join(tdir, rnd + ".trace"))
        gps = [e.num("gp_seq") for e in t.events if e.name == "rcu_grace_period"]
        probs = trace.check(t)
        need(not probs, f"{rnd}: rk-trace: {len(t.events)} events, tools/trace.py --check: "
             f"{probs or 'ok'}")
        if gs and gps:
            cur, last = int(gs.group(1)), max(gps)
            need(last <= cur <= last + 4,
                 f"{rnd}: rk-rcu gp_seq {cur} is the trace's last GP {last} or the one after")
        else:
            need(False, f"{rnd}: rk-trace: a grace period in the trace (trace=rcu)")
    except trace.TraceError as e:
        need(False, f"{rnd}: rk-trace: {e}")
    dmesg = [x for x in parts.get((rnd, "rk-dmesg"), "").split("\n") if x.strip()]
    shared = set(serial)
    strays = [x for x in dmesg[:-1] if x not in shared]
    need(len(dmesg) > 20 and not strays,
         f"{rnd}: rk-dmesg: {len(dmesg)} lines, each in the serial log (first stray: "
         f"{strays[0] if strays else None!r})")
    boot = next((x for x in serial if "rcukern: an SMP x86-64 kernel" in x), None)
    need(boot in dmesg or len(dmesg) > 1000, f"{rnd}: rk-dmesg: has the boot banner {boot!r}")
    rx = re.compile(ready)
    need(any(rx.search(x) for x in dmesg), f"{rnd}: rk-dmesg: has the ready= line /{ready}/")


if __name__ == "__main__":
    sys.exit(main())
