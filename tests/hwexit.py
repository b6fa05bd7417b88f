#!/usr/bin/env python3
"""tests/hwexit.py: checks, from beside a running QEMU, that a run ends
the way it would on a PC (kernel/system.c, arch/x86_64/reset.c) rather
than through QEMU's debug-exit port, which a PC does not have.

A during= hook of tests/qemu-configs (with `monitor`), started once the
kernel printed its last line:

  hwexit.py halt     the kernel printed "halted; safe to power off" and
                     then stays halted: QEMU is still running, the serial
                     output stops, and the boot CPU sits in
                     arch_halt_forever with interrupts off;
  hwexit.py reboot   the kernel printed "rebooting" and the machine reset
                     (QEMU runs with -no-reboot and -action shutdown=pause,
                     so a reset leaves it paused, status "shutdown").

When the check passes, the hook writes the kernel's logged exit status
into the debug-exit port itself through the monitor (`o`), so QEMU ends
with that status and the runner judges the run as usual; when it fails,
QEMU is left alone and the run fails (timeout, or the hook's own FAIL).
A kernel that wrote the port itself ends QEMU before this hook can look,
which fails it too.  Exit 0 on pass, 1 on failure.
"""
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qemu_monitor import HOOK_ENV_MISSING, Monitor, hook_env, kernel_symbols  # noqa: E402

EXIT_RE = re.compile(rb"^# rcukern: exit status (\d+)\r?$", re.M)
ANSI_RE = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")


def fail(msg):
    print(f"hwexit: FAIL: {msg}")
    return 1


def read_log(path):
    with open(path, "rb") as f:
        return f.read()


def monitor_text(mon, cmd):
    return ANSI_RE.sub(b"", mon.cmd(cmd)).decode("latin-1")


def check_halt(mon, log_path, elf):
    before = read_log(log_path)
    if b"# rcukern: halted; safe to power off" not in before:
        return fail("the log has no '# rcukern: halted; safe to power off'")
    time.sleep(3)
    status = monitor_text(mon, "info status")
    if "running" not in status:
        return fail(f"QEMU is not running after the halt: {status.strip()!r}")
    after = read_log(log_path)
    if after != before:
        extra = after[len(before):].decode("latin-1", "replace")
        return fail(f"serial output went on after the halt: {extra[:200]!r}")
    regs = monitor_text(mon, "info registers")
    m = re.search(r"RIP=([0-9a-f]{16})", regs)
    f = re.search(r"RFL=([0-9a-f]{8})", regs)
    if not m or not f:
        return fail("no RIP/RFL in 'info registers'")
    rip, rfl = int(m.group(1), 16), int(f.group(1), 16)
    sym = kernel_symbols(elf, {"arch_halt_forever"}).get("arch_halt_forever")
    if not sym:
        return fail(f"no arch_halt_forever in {elf}")
    rng = (sym[0], sym[0] + sym[1])
    if not rng[0] <= rip < rng[1]:
        return fail(f"CPU 0 is at {rip:#x}, not in arch_halt_forever "
                    f"[{rng[0]:#x}, {rng[1]:#x})")
    if rfl & 0x200:
        return fail(f"CPU 0 halted with interrupts on (RFLAGS {rfl:#x})")
    print(f"hwexit: halted at {rip:#x} in arch_halt_forever, IF clear, "
          "no output for 3 s")
    return 0


def check_reboot(mon, log_path):
    log = read_log(log_path)
    if b"# rcukern: rebooting" not in log:
        return fail("the log has no '# rcukern: rebooting'")
    deadline = time.monotonic() + 20
    status = ""
    while time.monotonic() < deadline:
        status = monitor_text(mon, "info status")
        if "paused (shutdown)" in status:
            break
        time.sleep(0.2)
    else:
        return fail(f"no reset within 20 s of 'rebooting': {status.strip()!r}")
    if b"# rcukern: the reboot did not happen" in read_log(log_path):
        return fail("the kernel says the reboot did not happen")
    print("hwexit: the machine reset after '# rcukern: rebooting'")
    return 0


def main(argv):
    if len(argv) != 2 or argv[1] not in ("halt", "reboot"):
        print("usage: hwexit.py halt|reboot (a during= hook)", file=sys.stderr)
        return 2
    env = hook_env()
    if not env:
        return fail(HOOK_ENV_MISSING)
    log_path, mon_path, elf = env
    try:
        mon = Monitor(mon_path)
    except OSError as e:
        return fail(f"QEMU's monitor is gone ({e}): the kernel ended QEMU "
                    "itself instead of halting or resetting")
    rc = check_halt(mon, log_path, elf) if argv[1] == "halt" else \
        check_reboot(mon, log_path)
    if rc:
        return rc
    statuses = EXIT_RE.findall(read_log(log_path))
    if not statuses:
        return fail("no '# rcukern: exit status N' line")
    status = int(statuses[-1])
    try:
        mon.cmd(f"o /w 0xf4 {status}")   # QEMU exits here
    except (OSError, ConnectionError):
        pass
    print(f"hwexit: ended QEMU with the kernel's exit status {status}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
