#!/usr/bin/env python3
"""tests/gdbcheck.py: tools/gdb/rcukern.py's commands on a running kernel,
checked against its serial log.

A during= hook of tests/qemu-configs: QEMU runs with a gdb stub on the
unix socket SOCK (qemu='-gdb unix:SOCK,server=on,wait=off'), and once
the ready= line is in the log this connects gdb (which stops every
vCPU wherever it is), runs rk-cpus, rk-ps, rk-rcu, rk-trace and
rk-dmesg, detaches (the run goes on) and checks:
  - rk-cpus: as many CPUs online as the log's "smp: N CPUs online";
  - rk-ps: each online CPU's idle task (idle/N), running or not;
  - rk-rcu: gp_seq at or after the last grace period of the trace
    rk-trace wrote, and at most one GP later (both read the same stopped
    memory); a node line per rcu_node and a line per online CPU;
  - rk-trace: a dump tools/trace.py converts and finds consistent;
  - rk-dmesg: the log's lines up to the ready= line, in order, and only
    lines the serial log holds too.
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


def main():
    sock = sys.argv[1]
    iso = os.environ.get("RCUKERN_ISO", "build/rcukern.iso")
    elf = os.path.join(os.path.dirname(iso), "kernel.elf")
    ready = sys.argv[2]
    log_path = os.environ["RUNNER_LOG"]
    tdir = tempfile.mkdtemp(prefix="rk-gdb-")
    tfile = os.path.join(tdir, "trace.log")
    cmds = ["rk-cpus", "rk-ps", "rk-rcu", f"rk-trace {tfile}", "rk-dmesg"]
    args = ["gdb", "-q", "-batch", "-nx", elf, "-ex", f"target remote {sock}",
            "-ex", f"source {os.path.join(ROOT, 'tools/gdb/rcukern.py')}"]
    for c in cmds:
        args += ["-ex", f"echo ==== {c.split()[0]}\\n", "-ex", c]
    args += ["-ex", "detach"]
    out = subprocess.run(args, capture_output=True, text=True, timeout=300).stdout
    with open(log_path, "rb") as fh:
        serial = fh.read().decode("utf-8", "replace").replace("\r", "").split("\n")
    parts = {}
    for block in out.split("==== ")[1:]:
        name, _, body = block.partition("\n")
        parts[name.strip()] = body
    bad = []

    def need(ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            bad.append(what)

    need(set(parts) == {c.split()[0] for c in cmds}, f"every command ran: {sorted(parts)}")
    m = next((re.search(r"smp: (\d+) CPUs online", x) for x in serial
              if re.search(r"smp: (\d+) CPUs online", x)), None)
    n = int(m.group(1)) if m else -1
    cpus = re.search(r"CPUs: (\d+) online", parts.get("rk-cpus", ""))
    need(cpus and int(cpus.group(1)) == n,
         f"rk-cpus: {cpus.group(1) if cpus else '?'} CPUs online, the log says {n}")
    ps = parts.get("rk-ps", "")
    missing = [c for c in range(max(n, 0)) if f"idle/{c} " not in ps]
    need(n > 0 and not missing, f"rk-ps: the idle task of each of the {n} CPUs (missing {missing})")
    rcu = parts.get("rk-rcu", "")
    gs = re.search(r"rcu_sched: gp_seq=(-?\d+)", rcu)
    need(gs and rcu.count("  cpu ") == n and " node 0 level 0" in rcu,
         "rk-rcu: gp_seq, the root node and a line per online CPU")
    try:
        t = trace.load(tfile)
        gps = [e.num("gp_seq") for e in t.events if e.name == "rcu_grace_period"]
        probs = trace.check(t)
        need(not probs, f"rk-trace: {len(t.events)} events, tools/trace.py --check: {probs or 'ok'}")
        if gs and gps:
            cur, last = int(gs.group(1)), max(gps)
            need(last <= cur <= last + 4,
                 f"rk-rcu gp_seq {cur} is the trace's last GP {last} or the one after")
        else:
            need(False, "rk-trace: a grace period in the trace (trace=rcu)")
    except trace.TraceError as e:
        need(False, f"rk-trace: {e}")
    dmesg = [x for x in parts.get("rk-dmesg", "").split("\n") if x.strip()]
    shared = set(serial)
    strays = [x for x in dmesg[:-1] if x not in shared]
    need(len(dmesg) > 20 and not strays,
         f"rk-dmesg: {len(dmesg)} lines, each in the serial log (first stray: "
         f"{strays[0] if strays else None!r})")
    boot = next((x for x in serial if "rcukern: an SMP x86-64 kernel" in x), None)
    need(boot in dmesg or len(dmesg) > 1000, f"rk-dmesg: has the boot banner {boot!r}")
    rx = re.compile(ready)
    need(any(rx.search(x) for x in dmesg), f"rk-dmesg: has the ready= line /{ready}/")
    if bad:
        print("gdb said:\n" + out[-3000:])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
