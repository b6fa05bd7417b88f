#!/usr/bin/env python3
"""tests/memlog.py: the run of a PC with neither a serial port nor a
screen, judged from the kernel's memory log (kernel/printk.c's log_buf,
which keeps everything printed whatever consoles exist).

A during= hook of tests/qemu-configs (with `monitor`; the kernel runs
with exit=halt so it stays in memory after the run).  QEMU's COM1 is
moved away from 0x3f8 and there is no display, so the kernel finds no
console at all.  Through the monitor this hook:
  - reads log_head and log_buf (addresses from `nm` of the kernel ELF
    next to $RCUKERN_ISO) with pmemsave until the log says the run halted;
  - requires that the serial log holds none of the kernel's output (it
    really had no console) and that the memory log says "no serial port
    and no screen ... memory log";
  - appends the memory log to $RUNNER_LOG, so the runner judges its KTAP
    report like any other run, then ends QEMU with the logged exit status
    through the debug-exit port (`o`).
With --screen (a PC with a screen but no serial port) the memory log must
instead say the screen is the only console, and the screen, dumped
through the monitor, must show that log pixel for pixel (tests/fbcheck.py).
Exit 0 on pass, 1 on failure (QEMU is then left to the runner's timeout).
"""
import os
import re
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fbcheck  # noqa: E402
from qemu_monitor import HOOK_ENV_MISSING, Monitor, hook_env, kernel_symbols  # noqa: E402

KERNEL_VMA = 0xffffffff80000000
HALTED = b"# rcukern: halted; safe to power off"
NO_CONSOLE = re.compile(rb"fbcon: no serial port and no screen \(.*\): output is "
                        rb"kept only in the memory log")
SCREEN_ONLY = re.compile(rb"fbcon: no serial port: this screen is the only console")
EXIT_RE = re.compile(rb"^# rcukern: exit status (\d+)$", re.M)


def fail(msg):
    print(f"memlog: FAIL: {msg}")
    return 1


def pmem(mon, path, addr, size):
    """size bytes of guest memory at kernel address addr.  path is
    relative to the repository, QEMU's directory too (run.sh cd's there),
    and starts with a letter: HMP would read "SIZE /x" as a division."""
    if os.path.exists(path):
        os.unlink(path)
    mon.cmd(f"pmemsave {addr - KERNEL_VMA:#x} {size} {path}")
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if os.path.exists(path) and os.path.getsize(path) == size:
            with open(path, "rb") as f:
                return f.read()
        time.sleep(0.05)
    raise OSError(f"pmemsave of {size} bytes at {addr:#x} did not arrive")


def read_memlog(mon, path, syms):
    head = struct.unpack("<Q", pmem(mon, path, syms["log_head"][0], 8))[0]
    buf_addr, buf_size = syms["log_buf"]
    data = pmem(mon, path, buf_addr, buf_size)
    if head <= buf_size:
        return data[:head], False
    start = head % buf_size
    return data[start:] + data[:start], True


def screen_matches(mon, path, text):
    """Dumps the screen and compares it with text through fbcheck's model."""
    fbcheck.FG = fbcheck._header_int("FBCON_FG_RGB")
    fbcheck.BG = fbcheck._header_int("FBCON_BG_RGB")
    fbcheck.MAX_COLS = fbcheck._header_int("FBCON_MAX_COLS")
    fbcheck.MAX_ROWS = fbcheck._header_int("FBCON_MAX_ROWS")
    ppm = os.path.abspath(path)
    if os.path.exists(ppm):
        os.unlink(ppm)
    mon.cmd(f"screendump {ppm}")
    deadline = time.monotonic() + 10
    while not os.path.exists(ppm) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.2)
    return fbcheck.judge(ppm, text, fbcheck.load_font()) == 0


def main():
    screen = "--screen" in sys.argv[1:]
    env = hook_env()
    if not env:
        return fail(HOOK_ENV_MISSING)
    log_path, mon_path, elf = env
    syms = kernel_symbols(elf, {"log_buf", "log_head"})
    if len(syms) != 2:
        return fail(f"log_buf/log_head not found in {elf}")
    try:
        mon = Monitor(mon_path)
    except OSError as e:
        return fail(f"QEMU's monitor is gone ({e})")
    path = f"build/memlog-{os.getpid()}.bin"
    try:
        deadline = time.monotonic() + 120
        text, wrapped = b"", False
        while time.monotonic() < deadline:
            text, wrapped = read_memlog(mon, path, syms)
            if HALTED in text:
                break
            time.sleep(1)
        else:
            tail = text[-300:].decode("latin-1", "replace")
            return fail(f"the memory log never said the run halted; it ends {tail!r}")
    finally:
        if os.path.exists(path):
            os.unlink(path)
    with open(log_path, "rb") as f:
        serial = f.read()
    if b"[c0] " in serial or b"KTAP version" in serial:
        return fail("the kernel's output reached the serial log: it did have a console")
    if wrapped:
        return fail("the memory log wrapped: the start of the run is lost")
    if screen:
        if not SCREEN_ONLY.search(text):
            return fail("the memory log does not say the screen is the only console")
        if not screen_matches(mon, os.path.splitext(log_path)[0] + ".screen.ppm", text):
            return fail("the screen does not show the memory log")
    elif not NO_CONSOLE.search(text):
        return fail("the memory log does not say that only it keeps the output")
    statuses = EXIT_RE.findall(text.replace(b"\r", b""))
    if not statuses:
        return fail("no '# rcukern: exit status N' in the memory log")
    with open(log_path, "ab") as f:
        f.write(text)
    print(f"memlog: {len(text)} bytes recovered from memory and appended to the log")
    try:
        mon.cmd(f"o /w 0xf4 {int(statuses[-1])}")   # QEMU exits here
    except (OSError, ConnectionError):
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
