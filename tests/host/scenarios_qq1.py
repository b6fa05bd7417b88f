#!/usr/bin/env python3
"""tests/host/scenarios_qq1.py: the host check of the article's Quick Quiz 1
(docs/article.md) for the read-side benchmark (tests/scenarios/readers.c,
paper_refcnt.c).

The article's 100-femtosecond rcu_read_lock() was a loop the compiler had
deleted.  This check compiles the benchmark's loop functions exactly as the
kernel does (the kernel Makefile's own rule, benchmark flags) and reads
their disassembly: every rs_read_*/rs_delay_* function must still contain a
backward branch (its loop), and the loops whose primitive has a
machine-visible cost must still contain it (rcu-sched: the %gs-relative
preempt_count increment; the locks and counts: a locked instruction).
The non-preemptible build's rcu_read_lock() loop must be the empty loop,
instruction for instruction (SAME_AS): Quick Quiz 1's "precisely zero".
rcu_read_lock_sched()'s loop must be preempt_enable() as Linux x86 has it
(ENABLE_SHAPE): in the loop body the only %gs accesses are the increment
and a decrement whose next instruction branches on zero to the slow path;
no load of the count or of a flag.

It first checks itself on a tiny C file with one loop the compiler deletes
and one it keeps (barrier()), so a checker that can no longer tell them
apart fails too.

    scenarios_qq1.py ROOT        (ROOT: the repository; run by scenarios.mk)
"""

import itertools
import os
import re
import subprocess
import sys
import tempfile

# Function -> what its loop body must still contain besides the loop.
# preempt_disable()/preempt_enable() and this_cpu_inc/dec: an add (or inc)
# and a sub (or dec) of a %gs-relative word, whatever register holds the 1.
GS_INC = [re.compile(r"^(add|inc)[bwlq]?\s+(\S+,)?%gs:"),
          re.compile(r"^(sub|dec)[bwlq]?\s+(\S+,)?%gs:")]
LOCKED = [re.compile(r"^lock\b")]
EXPECT = {
    "rs_read_empty": None,
    "rs_read_rcu": None,
    "rs_read_rcu_nonpreempt": None,
    "rs_read_srcu": LOCKED,
    "rs_read_rcu_sched": GS_INC,
    "rs_read_rwlock": LOCKED,
    "rs_read_rwlock_fair": LOCKED,
    "rs_read_spinlock": LOCKED,
    "rs_read_refcnt": LOCKED,
    "rs_read_refcnt_percpu": GS_INC,
    "rs_read_seqlock": None,
    "rs_read_ref_rcu": GS_INC,
    "rs_read_ref_atomic": LOCKED,
    "rs_delay_empty": None,
    "rs_delay_rcu": None,
    "rs_delay_rcu_nonpreempt": None,
    "rs_delay_rcu_sched": GS_INC,
    "rs_delay_rwlock": LOCKED,
    "rs_delay_refcnt": LOCKED,
}
# Function -> the function it must equal instruction for instruction
# (branch targets taken relative to each function's start).
SAME_AS = {"rs_read_rcu_nonpreempt": "rs_read_empty",
           "rs_delay_rcu_nonpreempt": "rs_delay_empty"}
OBJECTS = ["tests/scenarios/readers.o", "tests/scenarios/paper_refcnt.o"]
# Functions whose loop body must hold preempt_disable()/preempt_enable()
# in their folded form (check_enable_shape).
ENABLE_SHAPE = ["rs_read_rcu_sched"]
GS = re.compile(r"%gs:")

FUNC = re.compile(r"^([0-9a-f]+) <([\w.]+)>:$")
INSN = re.compile(r"^\s*([0-9a-f]+):\s+(.*)$")
BRANCH = re.compile(r"^(j\w+|loop\w*)\s+([0-9a-f]+)\b")


def functions(disasm):
    """{name: [(addr, text)]} from `objdump -d --no-show-raw-insn`."""
    out, cur = {}, None
    for line in disasm.splitlines():
        m = FUNC.match(line)
        if m:
            cur = out.setdefault(m.group(2), [])
            continue
        m = INSN.match(line)
        if m and cur is not None:
            cur.append((int(m.group(1), 16), m.group(2).strip()))
    return out


def check_function(name, insns, need):
    """A list of problems (empty: fine)."""
    if not insns:
        return ["no instructions"]
    lo = insns[0][0]
    back = False
    for addr, text in insns:
        m = BRANCH.match(text)
        if m and lo <= int(m.group(2), 16) <= addr:
            back = True
    problems = []
    if not back:
        problems.append("no backward branch: the loop was deleted (Quick Quiz 1)")
    for pat in need or []:
        if not any(pat.search(t) for _, t in insns):
            problems.append(f"the primitive is gone (no instruction matching {pat.pattern!r})")
    return problems


def check_enable_shape(insns):
    """The loop body of a preempt_disable()/preempt_enable() loop: exactly
    two %gs accesses, the increment then a decrement directly followed by
    a je/jz (the slow path taken only when the word reaches zero).  A list
    of problems (empty: fine)."""
    lo = insns[0][0] if insns else 0
    body, best = None, None
    # The loop: the conditional backward branch reaching furthest back
    # (the slow path's jmp back into the loop is not it).
    for addr, text in insns:
        m = BRANCH.match(text)
        if m and not text.startswith("jmp") and lo <= int(m.group(2), 16) <= addr:
            start = int(m.group(2), 16)
            if best is None or start < best:
                best = start
                body = [(j, t) for j, (a, t) in enumerate(insns) if start <= a <= addr]
    if not body:
        return ["no loop"]
    gs = [(j, t) for j, t in body if GS.search(t)]
    problems = []
    if len(gs) != 2:
        problems.append(f"{len(gs)} %gs accesses in the loop body, want 2 "
                        "(the increment and the decrement)")
    elif not GS_INC[0].search(gs[0][1]) or not GS_INC[1].search(gs[1][1]):
        problems.append("the %gs accesses are not an increment then a decrement")
    else:
        nxt = insns[gs[1][0] + 1][1] if gs[1][0] + 1 < len(insns) else ""
        if not re.match(r"^(je|jz)\s", nxt):
            problems.append(f"the decrement is followed by {nxt!r}, not a branch on zero")
    return problems


def normalised(insns):
    """The instructions with addresses made relative to the function."""
    if not insns:
        return []
    lo = insns[0][0]
    out = []
    for _, text in insns:
        text = re.sub(r"\s*<[^>]*>", "", text)
        # A call in an unlinked object points at its own relocation.
        text = re.sub(r"^(call\w*)\s+\S+$", r"\1", text)
        m = BRANCH.match(text)
        if m:
            text = f"{m.group(1)} +{int(m.group(2), 16) - lo:x}"
        out.append(text)
    return out


def objdump(path):
    return subprocess.run(["objdump", "-d", "--no-show-raw-insn", path],
                          check=True, capture_output=True, text=True).stdout


def self_test():
    """The checker must reject a deleted loop and accept a kept one."""
    src = r"""
void rs_read_deleted(long n) { for (long i = 0; i < n; i++) { } }
void rs_read_kept(long n) { for (long i = 0; i < n; i++) __asm__ __volatile__("" ::: "memory"); }
"""
    with tempfile.TemporaryDirectory() as d:
        c, o = os.path.join(d, "t.c"), os.path.join(d, "t.o")
        with open(c, "w") as f:
            f.write(src)
        subprocess.run(["gcc", "-O2", "-c", c, "-o", o], check=True)
        fns = functions(objdump(o))
    bad = check_function("rs_read_deleted", fns.get("rs_read_deleted", []), None)
    good = check_function("rs_read_kept", fns.get("rs_read_kept", []), None)
    ok = bool(bad) and not good
    print(f"{'ok' if ok else 'not ok'} - self-test: deleted loop rejected "
          f"({bool(bad)}), kept loop accepted ({not good})")
    return ok


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    build = os.path.join("build", "qq1")
    failed = 0 if self_test() else 1
    targets = [os.path.join(build, o) for o in OBJECTS]
    r = subprocess.run(["make", "-s", "-C", root, f"BUILD={build}"] + targets,
                       capture_output=True, text=True)
    if r.returncode:
        print(r.stdout + r.stderr)
        print("not ok - could not compile the benchmark loops")
        return 1
    fns = {}
    for t in targets:
        fns.update(functions(objdump(os.path.join(root, t))))
    rcu_sched_present = "rs_read_rcu_sched" in fns
    for name, need in EXPECT.items():
        if name not in fns:
            # The RCU loops exist only once rcu/rcupdate.h does.
            if "rcu" in name and not rcu_sched_present:
                print(f"ok - {name} # SKIP not in this build (no rcu/rcupdate.h)")
                continue
            print(f"not ok - {name}: missing from the objects")
            failed += 1
            continue
        problems = check_function(name, fns[name], need)
        if problems:
            failed += 1
            print(f"not ok - {name}: " + "; ".join(problems))
            for addr, text in fns[name]:
                print(f"#   {addr:x}: {text}")
        else:
            print(f"ok - {name}: loop kept" + (", primitive kept" if need else ""))
    for name in ENABLE_SHAPE:
        if name not in fns:
            continue        # reported above
        problems = check_enable_shape(fns[name])
        if problems:
            failed += 1
            print(f"not ok - {name}: preempt_enable() is not one decrement and a "
                  "branch: " + "; ".join(problems))
            for addr, text in fns[name]:
                print(f"#   {addr:x}: {text}")
        else:
            print(f"ok - {name}: increment, then decrement and branch on zero")
    for name, ref in SAME_AS.items():
        if name not in fns or ref not in fns:
            continue        # reported above
        a, b = normalised(fns[name]), normalised(fns[ref])
        if a == b:
            print(f"ok - {name}: the same {len(a)} instructions as {ref}")
        else:
            failed += 1
            print(f"not ok - {name}: differs from {ref}")
            for x, y in itertools.zip_longest(a, b, fillvalue=""):
                print(f"#   {x:40} | {y}")
    print(f"# {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
