#!/usr/bin/env python3
"""tests/qemu_monitor.py: what the runner's during= hooks share: a client
of QEMU's human monitor on a unix socket (the `monitor` option of
tests/qemu-configs gives its path in $RUNNER_MONITOR), the hook's
environment, and the kernel ELF's symbols (to read kernel memory through
the monitor).  Used by tests/fbcheck.py, tests/memlog.py, tests/hwexit.py.
Only the Python standard library is used.
"""

import os
import socket
import subprocess
import time


def kernel_symbols(elf, names):
    """{name: (address, size)} of the named symbols of the kernel ELF (nm -S)."""
    out = subprocess.run(["nm", "-S", elf], capture_output=True, text=True,
                         check=True).stdout
    found = {}
    for line in out.splitlines():
        p = line.split()
        if len(p) == 4 and p[3] in names:
            found[p[3]] = (int(p[0], 16), int(p[1], 16))
    return found


def hook_env():
    """(log, monitor socket, kernel ELF) of the run a during= hook watches,
    or None when the runner did not give them (no `monitor` option)."""
    log_path = os.environ.get("RUNNER_LOG")
    mon_path = os.environ.get("RUNNER_MONITOR")
    if not log_path or not mon_path:
        return None
    iso = os.environ.get("RCUKERN_ISO", "build/rcukern.iso")
    return log_path, mon_path, os.path.join(os.path.dirname(iso), "kernel.elf")


HOOK_ENV_MISSING = ("needs $RUNNER_LOG and $RUNNER_MONITOR (a during= hook "
                    "of a configuration with `monitor`)")


class Monitor:
    """A small client of QEMU's human monitor on a unix socket."""

    def __init__(self, path, timeout=15.0):
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.s.connect(path)
                break
            except OSError:
                self.s.close()
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        self.s.settimeout(timeout)
        self._until_prompt()

    def _until_prompt(self):
        buf = b""
        while not buf.endswith(b"(qemu) "):
            chunk = self.s.recv(4096)
            if not chunk:
                raise ConnectionError("monitor closed")
            buf += chunk
        return buf

    def cmd(self, line):
        self.s.sendall(line.encode() + b"\n")
        return self._until_prompt()
