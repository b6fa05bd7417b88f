#!/usr/bin/env python3
"""tests/host/test_grubcfg.py: boot/grub.cfg, the menu a PC shows from
the USB stick, checked against the kernel it boots: the timeout leaves
time to choose; there is an entry for each main job (scenarios, all
tests, a 10-minute torture, the NMI profile, reboot when done); every
entry boots /boot/kernel.elf with $args (run.sh's command line) and ends
in `boot`; and every option on an entry's command line is one the kernel
registers with core_param() (an unknown one would only print a warning
on the PC and run the wrong thing).  Prints PASS/FAIL per check."""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SRC_DIRS = ("arch", "kernel", "rcu", "tests/kernel", "tests/scenarios")


def kernel_params():
    names = set()
    rx = re.compile(r"\bcore_param\(\s*([A-Za-z0-9_.]+)\s*,")
    for d in SRC_DIRS:
        for dirpath, _, files in os.walk(os.path.join(ROOT, d)):
            for f in files:
                if f.endswith(".c"):
                    with open(os.path.join(dirpath, f), errors="replace") as fh:
                        names.update(rx.findall(fh.read()))
    return names


def entries(text):
    """[(title, [body lines])] of the menuentry blocks."""
    out = []
    for m in re.finditer(r'menuentry\s+"([^"]*)"\s*\{(.*?)\n\}', text, re.S):
        out.append((m.group(1), [x.strip() for x in m.group(2).splitlines() if x.strip()]))
    return out


def main(path=os.path.join(ROOT, "boot", "grub.cfg")):
    with open(path) as f:
        text = f.read()
    params = kernel_params()
    failed = 0

    def check(name, ok, why=""):
        nonlocal failed
        print(("PASS " if ok else "FAIL ") + name + ("" if ok else f"  ({why})"))
        failed += not ok

    m = re.search(r"^set timeout=(\d+)", text, re.M)
    check("timeout_long_enough", m and int(m.group(1)) >= 10,
          f"set timeout={m.group(1) if m else '?'}: under 10 s, no time to choose")
    ents = entries(text)
    check("has_entries", len(ents) >= 5, f"{len(ents)} menu entries")
    cmdlines = {}
    for title, body in ents:
        mb = [x for x in body if x.startswith("multiboot2 ")]
        ok = len(mb) == 1 and mb[0].split()[1] == "/boot/kernel.elf" and \
            mb[0].split()[-1] == "$args" and body[-1] == "boot"
        check(f"entry_shape: {title}", ok,
              "wants one 'multiboot2 /boot/kernel.elf ... $args' and 'boot' last")
        if not mb:
            continue
        opts = mb[0].split()[2:-1]
        cmdlines[title] = opts
        unknown = [o for o in opts if o.split("=", 1)[0] not in params]
        check(f"options_known: {title}", not unknown,
              f"not a core_param of the kernel: {' '.join(unknown)}")

    def has(what, pred):
        check(f"job: {what}", any(pred(o) for o in cmdlines.values()),
              f"no menu entry for {what}")

    has("the scenarios (no options)", lambda o: o == [])
    has("all tests", lambda o: "test=all" in o)
    has("torture for 10 minutes", lambda o: any(x.startswith("torture=") for x in o)
        and "torture.secs=600" in o)
    has("the NMI profile", lambda o: any(x.startswith("profile=") for x in o))
    has("reboot when done", lambda o: "exit=reboot" in o)
    check("default_is_scenarios", re.search(r"^set default=0", text, re.M) is not None
          and bool(ents) and cmdlines.get(ents[0][0]) == [],
          "the default entry (0) should run the scenarios")
    print(f"grub.cfg tests: {'all passed' if not failed else f'{failed} failed'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
