#!/usr/bin/env python3
"""tools/peer/bench.py: runs the Linux 6.1 peer (`make peer`, build/peer)
in the same QEMU as rcukern's benchmark configurations and turns its
refscale and rcuscale output into benchmark rows for tools/report.py.

QEMU as run.sh starts it for tests/bench-configs: -machine pc, -m 256,
TCG with thread=multi and -cpu max, -no-reboot, serial on stdio, no
display; -smp 4 (bench-readside-4's size) with 1, 2 and 4 readers, and
the grace-period runs at 1, 2, 4 and 16 vCPUs (the bench-gp-N sizes;
16 is ./run.sh's default, where a user looks).

    refscale  types rcu (PREEMPT_NONE and PREEMPT images), srcu, rwlock,
              refcnt, lock (PREEMPT): nreaders=1,2,4, loops per run, nruns
    rcuscale  one writer, no readers (the others idle), normal and
              expedited, both images
    kfree     rcuscale.kfree_rcu_test=1 at 2 and 4 vCPUs (PREEMPT image,
              else the one there is): a thread per vCPU, each KFREE_LOOPS
              times allocating KFREE_ALLOC_NUM objects and freeing them
              through the two-argument kfree_rcu() (kfree_rcu_test_double=1;
              by default rcuscale mixes in the one-argument form at random):
              the parameters of rcukern's gc_kfree_bench (paper_gc,
              bench-kfree-2 and bench-kfree-4).  Only by_call_rcu=0: Linux
              6.1's rcuscale has no kfree_by_call_rcu (6.2 added it), and
              would take the parameter for init's and run kfree_rcu() again
              under the call_rcu() label.  Two things to know when reading
              these rows beside ours:
              - the footprint can be negative.  rcuscale's threads start
                at device_initcall, while the kernel is still booting, and
                its footprint is si_mem_available() at the first loop less
                a running average of it during the run.  Boot's
                free_initmem() gives back the kernel's init sections
                (4.3 MB in this peer, 0.8 s after the threads started in
                a 2-vCPU boot with printk.time=1) during the run, so the
                memory available grows by more than the objects in flight
                take: -1 to -2 MB, i.e. no figure for kfree_rcu().
              - the peer is tinyconfig, whose allocator is SLOB (one
                global lock, a first-fit walk of partial pages), so its
                ns per object (15-33 us at 2 vCPUs, 130-530 us at 4, where
                ours is 1.3-6 us) likely owes more to kmalloc() and
                kfree() with 100k+ objects live than to kfree_rcu()'s
                batching.  When build/peer/bzImage-none-slub is there
                (MODELS=none-slub tools/peer/build.sh: PREEMPT_NONE with
                SLUB), the kfree runs boot it too, model=none-slub.  In
                rounds booting ours and it one after the other (5 a
                size), SLUB's median was 3.1 us at 2 vCPUs (SLOB's 23.9
                in the same rounds) and 2.5 us at 4; ours 0.92 and 1.05,
                0.56x SLUB's per round.

Rows (one line each, in --out, default build/bench-logs/peer.txt):

  # bench name=linux_readside kernel=linux-6.1 model=none|preempt type=T
    cpus=READERS vcpus=N ns_per_op=MEAN stddev= median_ns= min_ns= max_ns=
    runs= loops=
  # bench name=linux_gp kernel=linux-6.1 model=none|preempt type=normal|expedited
    cpus=N n= min_ns= mean_ns= median_ns= max_ns=
  # bench name=linux_kfree_rcu kernel=linux-6.1 model= vcpus=N threads=
    alloc_num= loops= total_ns= batches= footprint_kb= by_call_rcu=0
    ns_per_obj=
    (batches: grace periods from the last thread's start to the last
    one's end, as rcuscale counts them; footprint: rcuscale's MB, the
    available memory at the start less a running average during, in KB,
    negative when boot frees more during the run (above); ns_per_obj:
    total_ns over threads x alloc_num x loops, as ours)

Each boot's serial log is kept beside it (peer-MODEL-KIND-TYPE-N.log).
When build/peer has no images it prints one line and exits 0.

    tools/peer/bench.py [--out FILE] [--log-dir DIR] [--quick] [--only rs|gp|kf]
"""

import argparse
import os
import re
import select
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PEER = os.path.join(ROOT, "build", "peer")
KERNEL = "linux-6.1"

# refscale's timed loop is one per run per reader (irqs off around it);
# a contended FIFO spinlock under TCG with more vCPUs than host cores
# hands over only when the host runs the next waiter: fewer loops there.
LOOPS = {"rcu": 1000000, "srcu": 1000000, "refcnt": 1000000,
         "rwlock": 1000000, "lock": 100000}
RS_RUNS = (("none", "rcu"), ("preempt", "rcu"), ("preempt", "srcu"),
           ("preempt", "rwlock"), ("preempt", "refcnt"), ("preempt", "lock"))
RS_VCPUS = 4
RS_READERS = (1, 2, 4)
GP_VCPUS = (1, 2, 4, 16)
KFREE_VCPUS = (2, 4)        # a thread on each, as ours (gc.kfree_threads=0)
KFREE_ALLOC_NUM = 8000
KFREE_LOOPS = 10
KFREE_BY_CALL_RCU = (0,)    # 6.1 has no kfree_by_call_rcu (see above)

_RUN_LINE = re.compile(r"^\s*(?:\[[\s\d.]+\]\s*)?(\d+)\t(\d+\.\d+)\s*$")
_GP_LINE = re.compile(r"writer-duration:\s+(\d+)\s+(\d+)\s*$")
# Linux 6.1 rcuscale.c kfree_scale_thread()'s summary.
_KFREE_LINE = re.compile(r"Total time taken by all kfree'ers: (\d+) ns, loops: (\d+), "
                         r"batches: (-?\d+), memory footprint: (-?\d+)MB")


def qemu_cmd(image, vcpus, append, mem=256):
    return ["nice", "-n", "10", "qemu-system-x86_64", "-machine", "pc",
            "-smp", str(vcpus), "-m", str(mem), "-serial", "stdio",
            "-no-reboot", "-display", "none", "-vga", "std",
            "-accel", "tcg,thread=multi", "-cpu", "max",
            "-kernel", image, "-append", append]


# The tests power off when done; tinyconfig's kernel may only halt
# ("reboot: Power down" with no ACPI power-off), so QEMU is stopped then.
_DONE = re.compile(rb"reboot: (Power down|System halted)|Kernel panic")


def boot(image, vcpus, append, log_path, timeout):
    """Boots the image until it powers off (or halts, or panics, or
    timeout s pass); returns its serial output, also kept in log_path."""
    cmd = qemu_cmd(image, vcpus, append)
    end = time.monotonic() + timeout
    with open(log_path, "wb") as f:
        f.write(("# " + " ".join(cmd) + "\n").encode())
        f.flush()
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, start_new_session=True)
        os.set_blocking(p.stdout.fileno(), False)
        tail, done = b"", False
        while p.poll() is None and not done:
            r, _, _ = select.select([p.stdout], [], [], 1.0)
            if r:
                chunk = p.stdout.read() or b""
                f.write(chunk)
                tail = (tail + chunk)[-4096:]
                done = bool(_DONE.search(tail))
            if time.monotonic() > end:
                f.write(f"\n# peer: stopped after {timeout} s\n".encode())
                break
        if p.poll() is None:
            p.kill()
        p.wait()
        rest = p.stdout.read() or b""
        f.write(rest)
    with open(log_path, "rb") as f:
        return f.read().decode("utf-8", errors="replace").replace("\r", "")


def parse_refscale(text):
    """The per-run averages (ns per section) after 'Runs\\tTime(ns)'."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if "Runs\tTime(ns)" in line:
            out = []
            for rest in lines[i + 1:]:
                m = _RUN_LINE.match(rest)
                if m:
                    out.append(float(m.group(2)))
                elif out and rest.strip():
                    break
            return out
    return []


def parse_rcuscale(text):
    """Every writer-duration (ns) rcuscale printed, in order."""
    return [int(m.group(2)) for m in map(_GP_LINE.search, text.splitlines()) if m]


def parse_kfree(text):
    """(total_ns, loops, batches, footprint_mb) of the kfree test, or None."""
    for line in text.splitlines():
        m = _KFREE_LINE.search(line)
        if m:
            return tuple(int(g) for g in m.groups())
    return None


def kfree_row(model, vcpus, by_call_rcu, res):
    total_ns, loops, batches, mb = res
    nobj = vcpus * KFREE_ALLOC_NUM * loops
    return (f"# bench name=linux_kfree_rcu kernel={KERNEL} model={model} vcpus={vcpus} "
            f"threads={vcpus} alloc_num={KFREE_ALLOC_NUM} loops={loops} "
            f"total_ns={total_ns} batches={batches} footprint_kb={mb * 1024} "
            f"by_call_rcu={by_call_rcu} ns_per_obj={total_ns // nobj}")


def fmt(v):
    return f"{v:.3f}"


def rs_row(model, typ, readers, vals, loops):
    med = statistics.median(vals)
    sd = statistics.stdev(vals) if len(vals) > 1 else 0.0
    return (f"# bench name=linux_readside kernel={KERNEL} model={model} type={typ} "
            f"cpus={readers} vcpus={RS_VCPUS} ns_per_op={fmt(statistics.mean(vals))} "
            f"stddev={fmt(sd)} median_ns={fmt(med)} min_ns={fmt(min(vals))} "
            f"max_ns={fmt(max(vals))} runs={len(vals)} loops={loops}")


def gp_row(model, typ, vcpus, vals):
    return (f"# bench name=linux_gp kernel={KERNEL} model={model} type={typ} "
            f"cpus={vcpus} n={len(vals)} min_ns={min(vals)} "
            f"mean_ns={int(statistics.mean(vals))} "
            f"median_ns={int(statistics.median(vals))} max_ns={max(vals)}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "bench-logs", "peer.txt"))
    ap.add_argument("--log-dir", default=os.path.join(ROOT, "build", "bench-logs"))
    ap.add_argument("--runs", type=int, default=10, help="refscale nruns")
    ap.add_argument("--quick", action="store_true",
                    help="a tenth of the loops, 3 runs (a smoke test)")
    ap.add_argument("--only", choices=("rs", "gp", "kf"))
    ap.add_argument("--timeout", type=int, default=900, help="per boot, s")
    args = ap.parse_args(argv)

    images = {m: os.path.join(PEER, f"bzImage-{m}") for m in ("none", "preempt")}
    images = {m: p for m, p in images.items() if os.path.isfile(p)}
    if not images:
        print("peer: Linux 6.1 peer not built (make peer): skipped")
        return 0
    if len(images) < 2:
        # A half-built peer (make peer stopped between its images): the
        # types other than rcu do not depend on the preemption model much;
        # they run on the image there is, and their rows say which.
        print(f"peer: only bzImage-{next(iter(images))} is built; the other "
              "model's runs use it (rows say model=)", file=sys.stderr)
    os.makedirs(args.log_dir, exist_ok=True)
    runs = 3 if args.quick else args.runs
    rows, failed = [], 0
    # no_timer_check: under a loaded TCG host Linux's boot-time check
    # that the IO-APIC timer ticks can time out and panic ("IO-APIC +
    # timer doesn't work!"), as it can in any VM.
    base = "console=ttyS0 panic=-1 no_timer_check "

    def emit(row):
        rows.append(row)
        print(row, flush=True)
        with open(args.out, "w") as f:
            f.write("\n".join(rows) + "\n")

    open(args.out, "w").close()
    if args.only in (None, "rs"):
        for model, typ in RS_RUNS:
            if model not in images:
                if typ == "rcu":
                    continue        # the model is the point of the rcu runs
                model = next(iter(images))
            for readers in RS_READERS:
                loops = LOOPS[typ] // (10 if args.quick else 1)
                log = os.path.join(args.log_dir, f"peer-{model}-refscale-{typ}-{readers}.log")
                # rcuscale initialises first and would hold the torture
                # framework: an unknown type makes it step aside.
                append = (base + f"rcuscale.scale_type=none rcuscale.shutdown=0 "
                          f"refscale.scale_type={typ} refscale.nreaders={readers} "
                          f"refscale.loops={loops} refscale.nruns={runs} "
                          f"refscale.holdoff=2")
                t0 = time.monotonic()
                vals = parse_refscale(boot(images[model], RS_VCPUS, append, log, args.timeout))
                if not vals:        # one more boot: a host hiccup at boot
                    vals = parse_refscale(boot(images[model], RS_VCPUS, append, log,
                                               args.timeout))
                took = time.monotonic() - t0
                if len(vals) < runs:
                    print(f"peer: {model} refscale {typ} x{readers}: {len(vals)} of "
                          f"{runs} runs in the log ({os.path.relpath(log, ROOT)}, {took:.0f} s)",
                          file=sys.stderr)
                    failed += 1
                    if not vals:
                        continue
                emit(rs_row(model, typ, readers, vals, loops))
    if args.only in (None, "gp"):
        for model in [m for m in ("none", "preempt") if m in images]:
            for vcpus in GP_VCPUS:
                for typ, exp in (("normal", 0), ("expedited", 1)):
                    log = os.path.join(args.log_dir, f"peer-{model}-rcuscale-{typ}-{vcpus}.log")
                    append = (base + f"rcuscale.nreaders=0 rcuscale.nwriters=1 "
                              f"rcuscale.gp_exp={exp} rcuscale.holdoff=2")
                    vals = parse_rcuscale(boot(images[model], vcpus, append, log, args.timeout))
                    if not vals:
                        vals = parse_rcuscale(boot(images[model], vcpus, append, log,
                                                   args.timeout))
                    # The first GPs of a boot wait out the rest of boot:
                    # rcuscale measures from its first, so do we.
                    if not vals:
                        print(f"peer: {model} rcuscale {typ} at {vcpus} vCPUs: no "
                              f"grace periods in the log ({os.path.relpath(log, ROOT)})",
                              file=sys.stderr)
                        failed += 1
                        continue
                    emit(gp_row(model, typ, vcpus, vals))
    if args.only in (None, "kf"):
        model = "preempt" if "preempt" in images else next(iter(images))
        kf_images = {model: images[model]}
        slub = os.path.join(PEER, "bzImage-none-slub")
        if os.path.isfile(slub):
            kf_images["none-slub"] = slub
        for (model, image), vcpus in [(mi, v) for mi in kf_images.items()
                                      for v in KFREE_VCPUS]:
            for by_call_rcu in KFREE_BY_CALL_RCU:
                log = os.path.join(args.log_dir, f"peer-{model}-kfree-{by_call_rcu}-{vcpus}.log")
                loops = max(1, KFREE_LOOPS // (10 if args.quick else 1))
                append = (base + f"rcuscale.kfree_rcu_test=1 rcuscale.kfree_nthreads={vcpus} "
                          f"rcuscale.kfree_alloc_num={KFREE_ALLOC_NUM} "
                          f"rcuscale.kfree_loops={loops} rcuscale.kfree_rcu_test_double=1 "
                          f"rcuscale.holdoff=2")
                res = parse_kfree(boot(image, vcpus, append, log, args.timeout))
                if res is None:
                    res = parse_kfree(boot(image, vcpus, append, log, args.timeout))
                if res is None:
                    print(f"peer: {model} kfree by_call_rcu={by_call_rcu} at {vcpus} vCPUs: no "
                          f"summary in the log ({os.path.relpath(log, ROOT)})", file=sys.stderr)
                    failed += 1
                    continue
                emit(kfree_row(model, vcpus, by_call_rcu, res))
    print(f"peer: {len(rows)} row(s) in {os.path.relpath(args.out, ROOT)}"
          + (f", {failed} run(s) short" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
