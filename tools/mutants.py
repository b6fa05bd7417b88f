#!/usr/bin/env python3
"""tools/mutants.py: the mutation score of issue 29 (`make mutants`; long:
not part of make test).

Each tests/mutants/NN-NAME.patch is one single-fault mutation of the
kernel, with a header saying what it breaks and which tests a developer
would run for that area:

    # Tests: QEMU configurations of tests/qemu-configs, comma-separated
    #   (a make verify line of tests/verify-configs too, e.g. a long form)
    # Host: host test programs of tests/host (built as build/NAME)

For each mutant: a scratch copy of HEAD (git archive) in
build/mutants/NAME, the patch applied there, the test build made
(SANITIZE=1), then the host programs and the QEMU configurations in the
order given, until one fails: the mutant is KILLED by it (with the first
failure message of its log), or SURVIVED all of them.  The table at the
end: mutant, killed by (test and message) or SURVIVED, minutes; and the
kill rate.  Also written to build/mutants/report.md.

    python3 tools/mutants.py                   every mutant
    python3 tools/mutants.py --only 05,cookie  names containing these
    python3 tools/mutants.py --all-tests       run every test of a mutant,
                                               not only up to its first kill
    python3 tools/mutants.py --list            the mutants and their tests
    python3 tools/mutants.py --check           each applies to the work tree,
                                               and names tests that exist
                                               (seconds; part of make test)

    python3 tools/mutants.py --build-check     each builds: the test kernel of
                                               every mutant, in one scratch
                                               copy (~20 s each; make verify)

A mutant argued equivalent (no behaviour change, or none that any
correct test could see) says so in its header:

    # Equivalent: the argument, why no test can kill it

It is not run (--run-equivalent runs it anyway: a kill then refutes the
argument and is reported as an error); the table shows EQUIVALENT, and
the kill rate counts only the others.  --check requires an argument of
some length.

A run that fails only by timing out is a timeout, not a kill, unless
--timeouts-kill is given (a loaded machine times out healthy kernels).
Standard library only.
"""

import argparse
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MUTANTS = os.path.join(ROOT, "tests", "mutants")
WORK = os.path.join(ROOT, "build", "mutants")
MSG_RE = re.compile(r"rcu-torture: ERROR|WARNING:|BUG[: ]|End of test: FAILURE|"
                    r"Kernel panic|UBSAN|ODEBUG|general protection|^not ok|INFO: .*stall")
CLEAN_RE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\r")


def header(path):
    h = {}
    key = None
    with open(path) as f:
        for line in f:
            if not line.startswith("#"):
                break
            text = line[1:].strip()
            m = re.match(r"([A-Z][A-Za-z ]+): (.*)", text)
            if m and not line.startswith("#   "):
                key = m.group(1)
                h[key] = m.group(2)
            elif key:
                h[key] += " " + text
    return h


# A case's "# expected: ..." line (kernel/ktap.c, ktap_expect_alarm()):
# "N WARNINGs" announces N WARNING lines; anything else (a stall report,
# several INFO lines and a backtrace) every alarm line until the case's
# result line, which ends any announcement.
EXPECTED_RE = re.compile(r"# expected: (?:(\d+) WARNINGs?\b)?")
CASE_END_RE = re.compile(r"^(?:not )?ok \d+ ")


def first_message(log):
    """The first alarm in LOG that nobody expected: the busted flavour's
    FAILURE is the torture test's own check, and the alarms a case
    announced by "# expected:" lines are its deliberate ones, so neither
    names the cause of a kill."""
    warnings, alarms = 0, False
    try:
        with open(log, errors="replace") as f:
            for line in f:
                line = CLEAN_RE.sub("", line).strip()
                m = EXPECTED_RE.search(line)
                if m:
                    if m.group(1):
                        warnings += int(m.group(1))
                    else:
                        alarms = True
                    continue
                if CASE_END_RE.match(line):
                    warnings, alarms = 0, False     # announced, and did not come
                    if not line.startswith("not "):
                        continue        # "ok 8 ... # SKIP provokes BUG reports"
                if not MSG_RE.search(line) or "torture_type=busted" in line:
                    continue
                if warnings and "WARNING:" in line:
                    warnings -= 1
                    continue
                if alarms and not CASE_END_RE.match(line):
                    continue
                return line[:160]
    except OSError:
        pass
    return ""


def sh(cmd, cwd, timeout, env=None):
    try:
        p = subprocess.run(cmd, cwd=cwd, shell=True, capture_output=True, text=True,
                           errors="replace", timeout=timeout, env=env)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        return None, out


# An Equivalent: line shorter than this is a label, not an argument.
EQUIV_MIN_CHARS = 80


def equivalent(h):
    """The mutant's argument that it is equivalent, or None."""
    return h.get("Equivalent")


def run_mutant(path, args):
    name = os.path.basename(path)[:-len(".patch")]
    h = header(path)
    if equivalent(h) is not None and not args.run_equivalent:
        return name, "EQUIVALENT", time.monotonic(), []
    tests = [t for t in h.get("Tests", "").replace(" ", "").split(",") if t]
    hosts = [t for t in h.get("Host", "").replace(" ", "").split(",") if t]
    d = os.path.join(WORK, name)
    t0 = time.monotonic()
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    rc, out = sh(f"git -C {ROOT} archive {args.rev} | tar -x -C {d}", ROOT, 120)
    if rc != 0:
        return name, "ERROR: git archive failed", t0, []
    # patch(1), not git apply: the scratch copy lies inside this work
    # tree, where git apply would skip every path outside build/mutants.
    rc, out = sh(f"patch -p1 -s --batch --no-backup-if-mismatch -i {path}", d, 60)
    if rc != 0:
        return name, f"ERROR: patch does not apply: {out.strip()[:120]}", t0, []
    results = []
    killed = None
    for t in hosts:
        # From tests/host, as its Makefile runs them: a wrapper program
        # (rcu_srcu_regress_4) execs build/NAME relative to it.
        rc, out = sh(f"make -s -C tests/host build/{t} >/dev/null && "
                     f"cd tests/host && build/{t}", d, 900)
        lines = [l for l in out.splitlines() if l.startswith("not ok") or "FAILED" in l
                 or "ERROR" in l or "WARNING" in l]
        if rc is None:
            results.append((f"host {t}", "timeout"))
        elif rc != 0:
            msg = lines[0][:160] if lines else f"exit {rc}"
            results.append((f"host {t}", msg))
            killed = killed or (f"host {t}", msg)
        else:
            results.append((f"host {t}", "passed"))
        print(f"  {name}: host {t}: {results[-1][1]}", flush=True)
        if killed and not args.all_tests:
            break
    if (not killed or args.all_tests) and tests:
        # The kernel only now: a host program kills pure-code mutants in
        # seconds, and a test build takes minutes on a loaded machine.
        rc, out = sh("make -s -j2 BUILD=build/test SANITIZE=1 iso", d, 1800)
        if rc != 0:
            last = out.strip().splitlines()[-1][:120] if out.strip() else "?"
            return name, f"ERROR: test build failed: {last}", t0, results
        env = dict(os.environ, RCUKERN_ISO="build/test/rcukern.iso")
        sys.path.insert(0, os.path.join(ROOT, "tests"))
        import qemu_configs
        quick = {c.name for c in qemu_configs.load_configs(os.path.join(d, "tests", "qemu-configs"))}
        for t in tests:
            logdir = os.path.join(d, "build", "mutant-logs")
            # A make verify line (a scenario's long form) after the quick
            # ones: a window the quick forms hit in most runs, not all.
            cfg = "" if t in quick else " --config tests/verify-configs"
            rc, out = sh(f"{sys.executable} tests/runner.py --only {t}{cfg} --log-dir {logdir}"
                         f" --timeout-scale {args.timeout_scale}", d, 3600, env)
            log = os.path.join(logdir, f"{t}.log")
            # The judge's case NAME/timeout: killed by the runner's limit.
            # A hang is a kill only when the log says why (a stall
            # warning, a WARNING) or with --timeouts-kill.
            timed_out = f"FAIL {t}/timeout" in out and not first_message(log)
            if rc == 0:
                results.append((t, "passed"))
            elif rc is None:
                results.append((t, "timeout (mutants.py)"))
            elif timed_out and not args.timeouts_kill:
                results.append((t, "timeout (hang? not counted)"))
            else:
                msg = first_message(log) or next((l for l in out.splitlines()
                                                  if l.startswith("FAIL")), f"exit {rc}")
                results.append((t, msg))
                killed = killed or (t, msg)
            print(f"  {name}: {t}: {results[-1][1]}", flush=True)
            if killed and not args.all_tests:
                break
    if not args.keep:
        shutil.rmtree(os.path.join(d, "build", "test"), ignore_errors=True)
    verdict = f"{killed[0]}: {killed[1]}" if killed else "SURVIVED"
    return name, verdict, t0, results


def check(paths):
    """Each mutant still applies to the work tree (a mutant that no longer
    applies silently drops out of the score when the code it mutates
    moves), has the header fields, and names QEMU configurations that
    exist and host programs that tests/host builds."""
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    import qemu_configs
    configs = {c.name for f in ("qemu-configs", "verify-configs")
               for c in qemu_configs.load_configs(os.path.join(ROOT, "tests", f))}
    rc, hostmk = sh("make -s -C tests/host -pn build 2>/dev/null", ROOT, 120)
    if rc != 0:
        print(f"not ok make -pn in tests/host failed (exit {rc}): cannot check Host: names")
        return 1
    bad = []
    for p in paths:
        name = os.path.basename(p)
        h = header(p)
        for key in ("Mutant", "Area", "Breaks"):
            if key not in h:
                bad.append(f"{name}: no '# {key}:' line")
        if equivalent(h) is not None and len(equivalent(h)) < EQUIV_MIN_CHARS:
            bad.append(f"{name}: '# Equivalent:' needs the argument, not a label "
                       f"({len(equivalent(h))} characters)")
        tests = [t for t in h.get("Tests", "").replace(" ", "").split(",") if t]
        hosts = [t for t in h.get("Host", "").replace(" ", "").split(",") if t]
        if not tests and not hosts:
            bad.append(f"{name}: names no test ('# Tests:' or '# Host:')")
        bad += [f"{name}: no QEMU configuration {t} in tests/qemu-configs or verify-configs"
                for t in tests if t not in configs]
        bad += [f"{name}: tests/host builds no build/{t}"
                for t in hosts if not re.search(rf"^build/{re.escape(t)}:", hostmk, re.M)]
        # --fuzz=0: a patch whose context has drifted still applies
        # with fuzz, at a place nobody checked; regenerate it instead.
        rc, out = sh(f"patch -p1 --dry-run -s --batch --fuzz=0 -i {shlex.quote(p)}", ROOT, 60)
        if rc != 0:
            bad.append(f"{name}: does not apply to the work tree: "
                       f"{' '.join(out.split())[:160]}")
    for b in bad:
        print(f"not ok {b}")
    print(f"{len(paths)} mutants checked, {len(bad)} problems")
    return 1 if bad or not paths else 0


def build_check(paths, args):
    """Each mutant's test kernel compiles and links (-Werror): --check only
    dry-runs the patches, and mutant 26 stopped compiling unseen, counted
    as an ERROR by make mutants instead of a verdict.  One scratch copy of
    the work tree (tracked and untracked files, not build/), built once
    unmutated; then each patch applied, make (only what it touches, by
    the .d files), the patch reverted."""
    d = os.path.join(WORK, "build-check")
    make = "make -s -j2 BUILD=build/test SANITIZE=1 build/test/kernel.elf"
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    rc, out = sh(f"git -C {ROOT} ls-files -z --cached --others --exclude-standard | "
                 f"(cd {ROOT} && xargs -0 cp --parents -t {d} 2>/dev/null); true", ROOT, 300)
    t0 = time.monotonic()
    rc, out = sh(make, d, 3600)
    if rc != 0:
        tail = " ".join(out.strip().splitlines()[-3:])[:200]
        print(f"not ok the unmutated tree does not build: {tail}")
        return 1
    print(f"# unmutated test kernel built ({time.monotonic() - t0:.0f} s)", flush=True)
    bad = 0
    for p in paths:
        name = os.path.basename(p)[:-len(".patch")]
        t0 = time.monotonic()
        rc, out = sh(f"patch -p1 -s --batch --no-backup-if-mismatch -i {shlex.quote(p)}", d, 60)
        if rc != 0:
            print(f"not ok {name}: does not apply: {' '.join(out.split())[:160]}")
            bad += 1
            continue
        rc, out = sh(make, d, 1800)
        errs = [l for l in out.splitlines() if "error" in l.lower()]
        if rc == 0:
            print(f"ok {name} ({time.monotonic() - t0:.0f} s)", flush=True)
        else:
            why = (errs[0] if errs else " ".join(out.strip().splitlines()[-2:]))[:200]
            print(f"not ok {name}: the test build fails: {why}", flush=True)
            bad += 1
        rc, out = sh(f"patch -R -p1 -s --batch --no-backup-if-mismatch -i {shlex.quote(p)}",
                     d, 60)
        if rc != 0:
            print(f"not ok {name}: does not revert; stopping: {' '.join(out.split())[:160]}")
            return 1
    if not args.keep:
        shutil.rmtree(d, ignore_errors=True)
    print(f"{len(paths)} mutants built, {bad} failed")
    return 1 if bad or not paths else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default="", help="comma-separated substrings of mutant names")
    ap.add_argument("--all-tests", action="store_true")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--check", action="store_true",
                    help="only check that each applies and names existing tests")
    ap.add_argument("--build-check", action="store_true",
                    help="only build each mutant's test kernel (make verify)")
    ap.add_argument("--run-equivalent", action="store_true",
                    help="run the mutants argued equivalent too")
    ap.add_argument("--keep", action="store_true", help="keep each scratch build")
    ap.add_argument("--rev", default="HEAD", help="the revision mutated (default HEAD)")
    ap.add_argument("--timeout-scale", type=float, default=1.0)
    ap.add_argument("--timeouts-kill", action="store_true")
    a = ap.parse_args(argv)
    paths = sorted(glob.glob(os.path.join(MUTANTS, "*.patch")))
    if a.only:
        keys = a.only.split(",")
        paths = [p for p in paths if any(k in os.path.basename(p) for k in keys)]
    if a.check:
        return check(paths)
    if a.build_check:
        return build_check(paths, a)
    if a.list:
        for p in paths:
            h = header(p)
            print(f"{os.path.basename(p)}: {h.get('Area', '?')}; tests {h.get('Tests', '')}"
                  f"{'; host ' + h['Host'] if 'Host' in h else ''}"
                  f"{'; argued equivalent' if equivalent(h) is not None else ''}")
        return 0
    os.makedirs(WORK, exist_ok=True)
    rows = []
    for p in paths:
        print(f"# mutant {os.path.basename(p)}", flush=True)
        name, verdict, t0, _ = run_mutant(p, a)
        mins = (time.monotonic() - t0) / 60
        if a.run_equivalent and equivalent(header(p)) is not None and verdict != "SURVIVED" \
                and not verdict.startswith("ERROR"):
            # The run refutes the header's argument: a real bug, not a score.
            verdict = f"ERROR: argued equivalent, but killed by {verdict}"
        elif equivalent(header(p)) is not None and verdict == "SURVIVED":
            verdict = "EQUIVALENT"
        rows.append((name, verdict, mins))
        print(f"# {name}: {verdict} ({mins:.1f} min)", flush=True)
    equiv = [r for r in rows if r[1] == "EQUIVALENT"]
    valid = [r for r in rows if not r[1].startswith("ERROR") and r[1] != "EQUIVALENT"]
    killed = [r for r in valid if r[1] != "SURVIVED"]
    table = ["| mutant | killed by (test: first failure) | minutes |", "|---|---|---|"]
    table += [f"| {n} | {v.replace('|', '/')} | {'-' if v == 'EQUIVALENT' and not a.run_equivalent else f'{m:.1f}'} |"
              for n, v, m in rows]
    rate = f"kill rate: {len(killed)} of {len(valid)} non-equivalent mutants" + \
        (f" ({100 * len(killed) / len(valid):.0f}%)" if valid else "") + \
        (f"; {len(equiv)} argued equivalent (not counted)" if equiv else "") + \
        (f"; {len(rows) - len(valid) - len(equiv)} could not be run"
         if len(rows) != len(valid) + len(equiv) else "")
    print("\n".join(table))
    print(rate)
    with open(os.path.join(WORK, "report.md"), "w") as f:
        f.write("\n".join(table) + "\n\n" + rate + "\n")
    return 0 if len(killed) == len(valid) and len(valid) + len(equiv) == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
