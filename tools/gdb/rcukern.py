# tools/gdb/rcukern.py: gdb commands for a stopped or hung rcukern, in the
# manner of Linux's scripts/gdb (lx-dmesg, lx-ps, lx-cpus).
#
#   gdb build/kernel.elf -ex 'target remote :1234' -ex 'source tools/gdb/rcukern.py'
#   (./run.sh --gdb starts QEMU waiting on :1234 and prints this line)
#
#   rk-dmesg          the printk log, from the kernel's memory log
#   rk-ps             each CPU's running, idle, queued and sleeping tasks
#                     (state, preempt_count, where a switched-out one waits:
#                     its callers above the scheduler, what an RCU reader
#                     is blocked on), and the tasks preempted in RCU readers
#   rk-cpus           online, running task, idle, EQS (dynticks), tick stopped,
#                     preempt_count and the context it says (task, softirq,
#                     hardirq, nmi), whether the run-queue lock is held
#   rk-rcu            gp_seq and GP state, the rcu_node tree (qsmask,
#                     qsmaskinit, qsmaskinitnext, the lock's holder, blocked
#                     tasks, boosted ones marked), each CPU's dynticks and
#                     callback segment lengths, SRCU structs
#   rk-trace FILE     the trace buffers (trace=) as the T: lines of a dump,
#                     for tools/trace.py FILE
#
# Every command only reads memory (no function of the kernel is called), so
# they work on a kernel stopped anywhere: inside an NMI, with a lock held,
# halfway through a trace record (which rk-trace skips and counts).
import struct

import gdb

U64 = (1 << 64) - 1


def ev(expr):
    return gdb.parse_and_eval(expr)


def read(addr, n):
    return bytes(gdb.selected_inferior().read_memory(addr, n))


def u64(addr):
    return struct.unpack("<Q", read(addr, 8))[0]


def s64(v):
    v = int(v) & U64
    return v - (1 << 64) if v >> 63 else v


def per_cpu(name, cpu):
    """The value of per-CPU variable name on cpu (kernel/percpu.h)."""
    ptr = ev("&" + name)
    off = int(ev(f"__per_cpu_offset[{cpu}]"))
    return gdb.Value((int(ptr) + off) & U64).cast(ptr.type).dereference()


def online_cpus():
    bits = int(ev("cpu_online_mask.bits"))
    return [c for c in range(64) if bits >> c & 1]


def cstr(v, n=16):
    try:
        return v.string(length=n).split("\0")[0]
    except gdb.error:
        return "?"


def task_name(t):
    if int(t) == 0:
        return "-"
    return cstr(t.dereference()["name"])


def list_entries(head, typ, member, limit=10000):
    """The structs of type typ linked through member on list head (a
    gdb.Value of struct list_head), bounded."""
    off = int(gdb.parse_and_eval(f"&((({typ} *)0)->{member})").cast(gdb.lookup_type("long")))
    head_addr = int(head.address)
    node = head["next"]
    out = []
    while int(node) != head_addr and int(node) != 0 and len(out) < limit:
        out.append(gdb.Value(int(node) - off).cast(gdb.lookup_type(typ).pointer()))
        node = node.dereference()["next"]
    return out


TASK_STATES = {0: "R", 1: "S", 2: "D", 4: "W", 0x40: "X"}

# kernel/preempt_mask.h
SOFTIRQ_MASK, HARDIRQ_MASK, NMI_MASK = 0x0000ff00, 0x000f0000, 0x00f00000


def context(pc):
    """What a CPU runs in, from its preempt_count."""
    if pc & NMI_MASK:
        return "nmi"
    if pc & HARDIRQ_MASK:
        return "hardirq"
    if pc & SOFTIRQ_MASK:
        return "softirq"
    return "task"


def spin_holder(lock):
    """A spinlock_t's holder: 'CPU n', or '' if free (kernel/spinlock.h:
    owner is the holder CPU + 1)."""
    owner = int(lock["owner"])
    if owner:
        return f"CPU {owner - 1}"
    raw = lock["raw"]
    return "someone" if int(raw["owner"]) != int(raw["next"]) else ""


class RkDmesg(gdb.Command):
    """rk-dmesg: the printk log from the kernel's memory log (log_buf)."""

    def __init__(self):
        super().__init__("rk-dmesg", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        buf = ev("log_buf")
        size = int(buf.type.sizeof)
        head = int(ev("log_head"))
        base = int(buf.address)
        start = max(0, head - size)
        data = b""
        for pos in range(start, head, 4096):
            n = min(4096, head - pos)
            off = pos % size
            first = min(n, size - off)
            data += read(base + off, first)
            if first < n:
                data += read(base, n - first)
        gdb.write(data.decode("utf-8", "replace"))
        if not data.endswith(b"\n"):
            gdb.write("\n")


class RkCpus(gdb.Command):
    """rk-cpus: each CPU: online, running task, idle, EQS, tick stopped."""

    def __init__(self):
        super().__init__("rk-cpus", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        on = online_cpus()
        n = int(ev("nr_cpu_ids"))
        gdb.write(f"CPUs: {len(on)} online of {n} (nr_cpu_ids): {on}\n")
        for cpu in range(max(n, max(on) + 1 if on else 0)):
            rq = ev(f"runqueues[{cpu}]")
            curr, idle = rq["curr"], rq["idle"]
            dyn = int(per_cpu("rcu_data", cpu)["dynticks"]["counter"])
            try:
                tick = bool(per_cpu("tick_stopped", cpu))
            except gdb.error:
                tick = None
            pc = int(per_cpu("__preempt_count", cpu)) & 0x7fffffff
            rql = rq["lock"]
            gdb.write(f"cpu {cpu}: {'online' if cpu in on else 'offline'} "
                      f"curr={task_name(curr)} idle={'yes' if int(curr) == int(idle) else 'no'} "
                      f"eqs={'yes' if dyn % 2 == 0 else 'no'} dynticks={dyn} "
                      f"tick_stopped={'?' if tick is None else ('yes' if tick else 'no')} "
                      f"preempt_count={pc:#x} in={context(pc)} rq_lock="
                      f"{'held' if int(rql['owner']) != int(rql['next']) else 'free'}\n")


_SYMS = {}


def sym_name(addr):
    """The function addr is in, or its hex."""
    if addr not in _SYMS:
        try:
            s = gdb.execute(f"info symbol {addr:#x}", to_string=True).split()
            _SYMS[addr] = s[0] if s and s[0] != "No" else f"{addr:#x}"
        except gdb.error:
            _SYMS[addr] = f"{addr:#x}"
    return _SYMS[addr]


# The scheduler's own frames, left out of where a task waits.
_SCHED_FRAMES = ("__schedule", "schedule", "preempt_schedule", "__switch_to_asm",
                 "preempt_schedule_irq")


def wchan(t, depth=3):
    """Where a switched-out task waits: the callers above the scheduler,
    innermost first, from its saved frame (arch/x86_64/switch.asm pushes
    rbp, then rbx, r12-r15, and stores rsp in ->sp)."""
    try:
        sp = int(t.dereference()["sp"])
        fp, ret = u64(sp + 40), u64(sp + 48)
        names = []
        for _ in range(24):
            if ret == 0:
                break
            n = sym_name(ret)
            if n not in _SCHED_FRAMES:
                names.append(n)
            if len(names) >= depth or fp == 0:
                break
            ret, fp = u64(fp + 8), u64(fp)
        return "<".join(names) or "(not started)"
    except gdb.error:
        return "?"


class RkPs(gdb.Command):
    """rk-ps: tasks per CPU (running, queued, idle, asleep) and those preempted in RCU readers."""

    def __init__(self):
        super().__init__("rk-ps", gdb.COMMAND_DATA)

    def row(self, cpu, t, what, running):
        d = t.dereference()
        state = int(d["state"])
        pc = int(per_cpu("__preempt_count", cpu)) & 0x7fffffff if running \
            else int(d["preempt_count"])
        waits = ""
        if int(d["rcu_blocked_node"]):
            waits = f" blocked-in-rcu-reader(node {int(d['rcu_blocked_node']):#x})"
        if int(d["rcu_read_lock_nesting"]):
            waits += f" rcu_read_lock_nesting={int(d['rcu_read_lock_nesting'])}"
        if not running:
            waits += f" wchan={wchan(t)}"
        gdb.write(f"{cpu:>3} {what:<7} {int(t):#018x} {cstr(d['name']):<16} "
                  f"{TASK_STATES.get(state, hex(state)):<2} prio={int(d['prio'])} "
                  f"preempt_count={pc:#x}{waits}\n")

    def invoke(self, arg, from_tty):
        gdb.write("CPU what    task               name             st\n")
        nprio = int(ev("runqueues[0].queue").type.sizeof // ev("runqueues[0].queue[0]").type.sizeof)
        seen = set()
        for cpu in online_cpus():
            rq = ev(f"runqueues[{cpu}]")
            self.row(cpu, rq["curr"], "running", True)
            seen.add(int(rq["curr"]))
            if int(rq["idle"]) != int(rq["curr"]):
                self.row(cpu, rq["idle"], "idle", False)
                seen.add(int(rq["idle"]))
            for p in range(nprio):
                for t in list_entries(rq["queue"][p], "struct task", "run_list"):
                    self.row(cpu, t, "queued", False)
                    seen.add(int(t))
        # The rest: asleep (no run queue holds them), from the registry
        # kernel/sched.c keeps of every task.
        reg = ev("task_registry")
        n = int(reg.type.sizeof // reg[0].type.sizeof)
        for i in range(n):
            t = reg[i]
            if int(t) and int(t) not in seen:
                self.row(int(t.dereference()["cpu"]), t, "asleep", False)
        over = int(ev("task_registry_overflow"))
        if over:
            gdb.write(f"({over} task(s) made while the registry was full are not listed)\n")
        st = ev("rcu_state")
        for i in range(int(st["num_nodes"])):
            for t in list_entries(st["node"][i]["blkd_tasks"], "struct task", "rcu_node_entry"):
                self.row(int(t.dereference()["cpu"]), t, "rcu-blk", False)


def seg_lengths(cb):
    """Callbacks in each segment of an rcu_segcblist, walking it (bounded)."""
    nsegs = int(cb["tails"].type.sizeof // cb["tails"][0].type.sizeof)
    lens, p, n = [], int(cb["head"].address), 0
    for seg in range(nsegs):
        tail = int(cb["tails"][seg])
        count = 0
        while p != tail and n < 200000:
            node = u64(p)
            if node == 0:
                break
            p = node          # &node->next: next is the first field of rcu_head
            count += 1
            n += 1
        lens.append(count)
    return lens


class RkRcu(gdb.Command):
    """rk-rcu: gp_seq, the rcu_node tree, per-CPU dynticks and callbacks, SRCU."""

    def __init__(self):
        super().__init__("rk-rcu", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        st = ev("rcu_state")
        gs = s64(st["gp_seq"])   # from RCU_SEQ_INITIAL_VAL, -300 GPs (rcu/rcu.h)
        gdb.write(f"rcu_sched: gp_seq={gs} ({'GP in progress' if gs & 3 else 'idle'}, "
                  f"{(gs >> 2) + 300} GPs since boot) gp_seq_needed={s64(st['gp_seq_needed'])} "
                  f"gp_flags={int(st['gp_flags']):#x} gp_start={int(st['gp_start'])} "
                  f"jiffies={int(ev('jiffies'))} n_force_qs={int(st['n_force_qs'])}\n")
        for i in range(int(st["num_nodes"])):
            n = st["node"][i]
            blk = [cstr(t.dereference()["name"])
                   + ("(boosted)" if int(t.dereference()["rcu_boost_saved_prio"]) else "")
                   for t in list_entries(n["blkd_tasks"], "struct task", "rcu_node_entry")]
            gdb.write(f"  node {i} level {int(n['level'])} cpus/children "
                      f"{int(n['grplo'])}-{int(n['grphi'])}: gp_seq={s64(n['gp_seq'])} "
                      f"qsmask={int(n['qsmask']):#x} qsmaskinit={int(n['qsmaskinit']):#x} "
                      f"qsmaskinitnext={int(n['qsmaskinitnext']):#x}"
                      + (f" lock=held-by-{spin_holder(n['lock']).replace(' ', '-')}"
                         if spin_holder(n["lock"]) else "")
                      + (f" blocked={blk}" if blk else "") + "\n")
        for cpu in online_cpus():
            rdp = per_cpu("rcu_data", cpu)
            cb = rdp["cblist"]
            dyn = int(rdp["dynticks"]["counter"])
            gdb.write(f"  cpu {cpu}: gp_seq={s64(rdp['gp_seq'])} cpu_no_qs={int(rdp['cpu_no_qs'])} "
                      f"core_needs_qs={int(rdp['core_needs_qs'])} dynticks={dyn} "
                      f"({'EQS' if dyn % 2 == 0 else 'watching'}) "
                      f"nmi_nesting={int(rdp['dynticks_nmi_nesting'])} "
                      f"cbs len={int(cb['len'])} segments(done,wait,next_ready,next)="
                      f"{seg_lengths(cb)}\n")
        try:
            structs = list_entries(ev("srcu_cb_structs"), "struct srcu_struct", "list")
        except gdb.error:
            structs = []
        gdb.write(f"srcu: {len(structs)} struct(s) with callbacks\n")
        for ss in structs:
            d = ss.dereference()
            gdb.write(f"  {cstr(d['name'], 32)}: idx={int(d['srcu_idx'])} "
                      f"gp_seq={s64(d['srcu_gp_seq'])} gp_seq_needed={s64(d['srcu_gp_seq_needed'])} "
                      f"cbs={int(d['cblist']['len'])}\n")


_ENTRY = struct.Struct("<QQ5QIHH")


class RkTrace(gdb.Command):
    """rk-trace FILE: the trace buffers as a dump tools/trace.py reads."""

    def __init__(self):
        super().__init__("rk-trace", gdb.COMMAND_DATA)


    def string(self, addr, cache={}):
        if addr == 0:
            return "-"
        if addr not in cache:
            try:
                s = read(addr, 24).split(b"\0")[0].decode("ascii", "replace")
            except gdb.error:
                s = "?"
            cache[addr] = "".join(c if 0x21 <= ord(c) <= 0x7e and c != "=" else "_"
                                  for c in s[:20]) or "-"
        return cache[addr]

    def invoke(self, arg, from_tty):
        path = arg.strip()
        if not path:
            raise gdb.GdbError("rk-trace FILE")
        tsc_boot, ns_mult = int(ev("tsc_boot")), int(ev("ns_mult"))
        stop = bool(ev("trace_stop_when_full"))

        def ns(tsc):
            d = s64(tsc - tsc_boot)
            return (d * ns_mult) >> 32 if d > 0 else 0

        descs = []
        tab = ev("trace_events")
        for i in range(int(tab.type.sizeof // tab[0].type.sizeof)):
            d = tab[i]
            name = cstr(d["name"], 40) if int(d["name"]) else None
            fields = [cstr(d["f"][j], 40) if int(d["f"][j]) else None for j in range(7)]
            descs.append((name, fields))
        lines, events = [], []
        lost = capped = torn = 0
        for cpu in range(64):
            b = ev(f"trace_bufs[{cpu}]")
            ent = int(b["ent"])
            if not ent:
                continue
            size, head = int(b["mask"]) + 1, int(b["head"])
            lo = head - size if head > size else 0
            first, last = (0, min(head, size)) if stop else (lo, head)
            raw = read(ent, size * _ENTRY.size)
            kept = []
            for idx in range(first, last):
                rec = _ENTRY.unpack_from(raw, (idx % size) * _ENTRY.size)
                if rec[0] != idx + 1:
                    torn += 1
                    continue
                kept.append(rec)
            lost += lo
            capped += int(b["capped"])
            lines.append(f"T: cpu={cpu} recorded={head} lost={lo} capped={int(b['capped'])} "
                         f"first_ns={ns(kept[0][1]) if kept else 0}")
            events += [(rec[1], cpu, rec) for rec in kept]
        events.sort(key=lambda x: (s64(x[0] - tsc_boot), x[1]))
        out = [f"T: begin reason=gdb mode={'stop' if stop else 'overwrite'} "
               f"tsc_khz={int(ev('tsc_khz'))}"] + lines
        for tsc, cpu, rec in events:
            _, _, f0, f1, f2, f3, f4, d, eid, e = rec
            name, fields = descs[eid] if eid < len(descs) and descs[eid][0] else ("unknown", [])
            vals = [f0, f1, f2, f3, f4, d, e]
            parts = [f"T: {cpu} {ns(tsc)} {name}"]
            for f, v in zip(fields, vals):
                if not f:
                    continue
                kind, key = f[0], f[1:]
                if kind == "s":
                    parts.append(f"{key}={self.string(v)}")
                elif kind == "c":
                    s = struct.pack("<Q", v).split(b"\0")[0].decode("ascii", "replace")
                    parts.append(f"{key}={''.join(c if 0x21 <= ord(c) <= 0x7e and c != '=' else '_' for c in s) or '-'}")
                elif kind == "f":
                    parts.append(f"{key}={sym_name(v)}")
                elif kind == "x":
                    parts.append(f"{key}={v:#x}")
                elif kind == "i":
                    parts.append(f"{key}={s64(v)}")
                else:
                    parts.append(f"{key}={v}")
            out.append(" ".join(parts))
        out.append(f"T: end printed={len(events)} lost={lost} capped={capped} torn={torn} skipped=0")
        with open(path, "w") as fh:
            fh.write("\n".join(out) + "\n")
        gdb.write(f"rk-trace: {len(events)} events, {lost} lost, {torn} not whole, into {path}\n")


RkDmesg()
RkCpus()
RkPs()
RkRcu()
RkTrace()
gdb.write("rcukern: rk-dmesg, rk-ps, rk-cpus, rk-rcu, rk-trace FILE\n")
