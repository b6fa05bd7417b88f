#!/usr/bin/env python3
"""tests/qemu_run.py: one QEMU run of a configuration, through ./run.sh
(the counterpart of Linux's tools/testing/kunit/kunit_kernel.py).

run_config() starts run.sh in a process group of its own, saves the
serial output and run.sh's stderr, and ends the whole group when the
run outlives its time limit, prints nothing for idle= seconds, or its
log grows past LOG_LIMIT.  It starts a configuration's during= command
beside QEMU and its check= command afterwards, and returns a RunOutcome
for the judge (tests/judge.py).  stop_runs_on_signals() makes a signal
to the runner end every run it started, so no QEMU outlives it.
Only the Python standard library is used.
"""

import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from benchrows import clean_lines  # noqa: E402

# run.sh's exit statuses (EXIT_QEMU: QEMU itself failed, e.g. a bad
# argument, before or without running the kernel) and the runner's own
# for a run it killed.
EXIT_OK, EXIT_FAIL, EXIT_NO_EXIT, EXIT_QEMU, EXIT_TIMEOUT = 0, 1, 2, 3, 124

LOG_LIMIT = 64 << 20        # a kernel printing forever is killed here
KILL_GRACE = 5.0


@dataclass
class RunOutcome:
    rc: int
    timed_out: bool             # the time limit or idle= (see idled)
    oversize: bool
    elapsed: float
    log_path: str
    stderr_text: str
    hooks: list = field(default_factory=list)   # for judge()
    idled: bool = False
    longest_quiet: float = 0.0  # the longest time without serial output
    cpu: float = None           # CPU seconds of run.sh and QEMU (None: killed)


# Every process group the runner started and has not reaped: ended if the
# runner itself is interrupted or killed, so no QEMU outlives it.
_live = set()
_live_lock = threading.Lock()


def _track(proc):
    with _live_lock:
        _live.add(proc)
    return proc


def _untrack(proc):
    with _live_lock:
        _live.discard(proc)


def _on_signal(signum, frame):
    with _live_lock:
        procs = list(_live)
    for p in procs:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    print(f"runner: stopped by signal {signum}; ended {len(procs)} run(s)",
          file=sys.stderr)
    os._exit(128 + signum)


def stop_runs_on_signals():
    """SIGTERM, SIGINT and SIGHUP end the runs in flight, then the runner."""
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, _on_signal)


def _wait_cpu(proc, timeout):
    """proc.wait(timeout) through wait4(): returns (exit status, CPU
    seconds of run.sh and of what it waited for, QEMU), so the runner can
    say which runs cost CPU and which only wait (under `taskset -c 0` the
    CPU is what adds up).  Raises subprocess.TimeoutExpired."""
    end = time.monotonic() + timeout
    while True:
        pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            return proc.returncode, ru.ru_utime + ru.ru_stime
        if time.monotonic() >= end:
            raise subprocess.TimeoutExpired(proc.args, timeout)
        time.sleep(0.02)


def _kill_group(proc):
    """Ends run.sh, QEMU and anything else in the run's process group."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(KILL_GRACE)
            # The leader is gone; others in the group may linger.
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            return
        except subprocess.TimeoutExpired:
            continue
        return


def run_command(cfg, run_sh, monitor=None):
    cmd = [run_sh, "--no-build", "-s", str(cfg.cpus), "-m", str(cfg.mem),
           "-c", cfg.cmdline]
    if cfg.uefi:
        cmd.append("--uefi")
    if cfg.usb:
        cmd.append("--usb")
    if cfg.machine:
        cmd += ["--machine", cfg.machine]
    if cfg.gfx:
        cmd += ["--gfx", cfg.gfx]
    extra = list(cfg.qemu)
    if monitor:
        extra += ["-monitor", f"unix:{monitor},server,nowait"]
    if extra:
        cmd += ["--"] + extra
    return cmd


HOOK_TIMEOUT = 120.0         # a check= command's time limit


def _hook_env(cfg, log_path, monitor, rc=None):
    env = dict(os.environ, RUNNER_CONFIG=cfg.name, RUNNER_LOG=log_path,
               RUNNER_ROOT=ROOT)
    if monitor:
        env["RUNNER_MONITOR"] = monitor
    if rc is not None:
        env["RUNNER_RC"] = str(rc)
    return env


def _start_hook(cmd, env, out_path):
    with open(out_path, "wb") as out:
        return _track(subprocess.Popen(cmd, shell=True, cwd=ROOT, env=env,
                                       stdout=out, stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL,
                                       start_new_session=True))


def _hook_output(path):
    with open(path, "rb") as f:
        return f.read()[-8192:].decode("utf-8", errors="replace")


def _log_matches(path, rx):
    with open(path, "rb") as f:
        return any(rx.search(x) for x in clean_lines(f.read()))


# The idle benchmark (tests/kernel/test_idle.c) brackets its window with
# these lines; the runner reads QEMU's CPU time at each and writes the
# share of one host core it used over host_cpu_pct=-1 in the bench row.
HOST_WINDOW_START = b"# idle: host window start"
HOST_WINDOW_END = b"# idle: host window end"
HOST_CPU_UNSET = b"host_cpu_pct=-1"


def _qemu_cpu_seconds(pgid):
    """utime + stime of the QEMU process in process group pgid, or None."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        comm = stat[stat.find("(") + 1:stat.rfind(")")]
        fields = stat[stat.rfind(")") + 2:].split()
        # fields[0] is field 3 (state): pgrp is field 5, utime/stime 14/15.
        if comm.startswith("qemu-system") and int(fields[2]) == pgid:
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return None


class HostWindow:
    """Watches the log for the idle window's markers, as it grows."""

    def __init__(self):
        self.offset = 0
        self.start = None       # (monotonic, QEMU CPU seconds)
        self.pct = None

    def poll(self, log_path, pgid):
        if self.pct is not None:
            return
        with open(log_path, "rb") as f:
            f.seek(max(0, self.offset - 64))
            data = f.read()
            self.offset = f.tell()
        marker = HOST_WINDOW_END if self.start else HOST_WINDOW_START
        if marker not in data:
            return
        cpu, now = _qemu_cpu_seconds(pgid), time.monotonic()
        if cpu is None:
            return
        if not self.start:
            self.start = (now, cpu)
            self.offset = 0     # the end marker may be in this same read
            return
        wall = now - self.start[0]
        if wall > 0:
            self.pct = 100.0 * (cpu - self.start[1]) / wall

    def write(self, log_path):
        if self.pct is None:
            return
        with open(log_path, "rb") as f:
            data = f.read()
        with open(log_path, "wb") as f:
            f.write(data.replace(HOST_CPU_UNSET, b"host_cpu_pct=%.1f" % self.pct, 1))


def run_config(cfg, run_sh, log_dir, timeout_scale=1.0):
    """Boots one configuration.  A during= command starts beside QEMU (once
    the log matches ready=, if given) with $RUNNER_LOG, $RUNNER_CONFIG and,
    with `monitor`, $RUNNER_MONITOR (the QEMU monitor's unix socket) in its
    environment; a check= command runs after QEMU has gone, with $RUNNER_RC
    too.  Their exit statuses are judged as the cases NAME/during and
    NAME/check."""
    log_path = os.path.join(log_dir, cfg.name + ".log")
    err_path = os.path.join(log_dir, cfg.name + ".stderr")
    monitor = os.path.join(log_dir, cfg.name + ".monitor") if cfg.monitor else None
    if monitor and os.path.exists(monitor):
        os.unlink(monitor)
    limit = cfg.timeout * timeout_scale
    idle = cfg.idle * timeout_scale
    start = last_output = time.monotonic()
    size = 0
    timed_out = oversize = idled = False
    longest_quiet = 0.0
    cpu = None
    during = None
    during_out = os.path.join(log_dir, cfg.name + ".during.log")
    window = HostWindow() if "idle.secs=" in cfg.cmdline else None
    with open(log_path, "wb") as out, open(err_path, "wb") as err:
        # The command line goes to the kernel as written: its own check of
        # unknown options is what the configurations test (cmdline-typo),
        # not run.sh's early refusal.
        proc = _track(subprocess.Popen(run_command(cfg, run_sh, monitor),
                                       stdout=out, stderr=err,
                                       stdin=subprocess.DEVNULL, cwd=ROOT,
                                       start_new_session=True,
                                       env=dict(os.environ,
                                                RCUKERN_NO_CMDLINE_CHECK="1")))
        while True:
            if cfg.during and during is None and \
                    (cfg.ready is None or _log_matches(log_path, cfg.ready)):
                during = _start_hook(cfg.during,
                                     _hook_env(cfg, log_path, monitor), during_out)
            try:
                rc, cpu = _wait_cpu(proc, 0.1 if window else 0.5)
                break
            except subprocess.TimeoutExpired:
                pass
            if window:
                window.poll(log_path, proc.pid)
            now = time.monotonic()
            grown = os.path.getsize(log_path)
            if grown != size:
                size, last_output = grown, now
            longest_quiet = max(longest_quiet, now - last_output)
            if now - start > limit:
                timed_out = True
            elif idle and now - last_output > idle:
                timed_out = idled = True
            elif size > LOG_LIMIT:
                oversize = True
            if timed_out or oversize:
                _kill_group(proc)
                rc = proc.wait()
                break
        # Children of run.sh that outlived it (it should wait for QEMU).
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        _untrack(proc)
    if window:
        window.write(log_path)
    with open(err_path, "rb") as f:
        stderr_text = f.read()[-8192:].decode("utf-8", errors="replace")
    if timed_out:
        rc = EXIT_TIMEOUT
    hooks = []
    if cfg.during:
        if during is None:
            what = f"the log never matched ready=/{cfg.ready.pattern}/" \
                if cfg.ready else "QEMU ended first"
            hooks.append(("during", None, what))
        else:
            try:
                during.wait(10)         # QEMU is gone: it should end soon
            except subprocess.TimeoutExpired:
                _kill_group(during)
            hooks.append(("during", during.wait(), _hook_output(during_out)))
            _kill_group(during)     # what it left behind
            _untrack(during)
    if cfg.check:
        check_out = os.path.join(log_dir, cfg.name + ".check.log")
        p = _start_hook(cfg.check, _hook_env(cfg, log_path, monitor, rc),
                        check_out)
        try:
            p.wait(HOOK_TIMEOUT)
        except subprocess.TimeoutExpired:
            _kill_group(p)
        hooks.append(("check", p.wait(), _hook_output(check_out)))
        _kill_group(p)
        _untrack(p)
    return RunOutcome(rc, timed_out, oversize, time.monotonic() - start,
                      log_path, stderr_text, hooks, idled, longest_quiet, cpu)


def read_lines(path):
    with open(path, "rb") as f:
        return clean_lines(f.read())
