#!/usr/bin/env python3
"""tests/host/test_mkiso.py: the boot image tools/mkiso.sh makes, read
back with xorriso's system-area and El Torito reports.  A legacy BIOS
or CSM that boots a USB disk only from an active MBR partition must find
one; UEFI firmware must find an EFI system partition (MBR type 0xef) on
the stick, and a CD's El Torito catalogue must offer both BIOS and UEFI.

    test_mkiso.py            builds an image from a dummy tree and checks it
    test_mkiso.py ISO        checks an existing image (e.g. build/rcukern.iso)

Prints PASS/FAIL per check and exits non-zero on a failure."""

import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def report(iso):
    out = subprocess.run(
        ["xorriso", "-indev", iso, "-report_system_area", "plain",
         "-report_el_torito", "plain"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, check=True)
    return out.stdout


def mbr_partitions(rep):
    """[(number, status, type, start, blocks)] from 'MBR partition :' lines."""
    parts = []
    for m in re.finditer(r"^MBR partition\s*:\s*(\d+)\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+(\d+)\s+(\d+)",
                         rep, re.M):
        parts.append((int(m.group(1)), int(m.group(2), 16), int(m.group(3), 16),
                      int(m.group(4)), int(m.group(5))))
    return parts


def check(iso):
    rep = report(iso)
    parts = mbr_partitions(rep)
    results = []

    def expect(name, ok, detail=""):
        results.append(ok)
        print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + detail))

    table = "\n".join(l for l in rep.splitlines() if l.startswith("MBR partition"))
    active = [p for p in parts if p[1] == 0x80]
    expect("mkiso_one_active_mbr_partition", len(active) == 1,
           "want exactly one partition with status 0x80\n" + table)
    expect("mkiso_active_partition_is_not_protective",
           bool(active) and active[0][2] != 0xee,
           "the active partition must hold the ISO, not be a 0xee GPT guard\n" + table)
    esp = [p for p in parts if p[2] == 0xef]
    expect("mkiso_appended_efi_system_partition", len(esp) == 1,
           "want one MBR partition of type 0xef\n" + table)
    if active and esp:
        a, e = active[0], esp[0]
        expect("mkiso_partitions_do_not_overlap",
               a[3] + a[4] <= e[3] or e[3] + e[4] <= a[3], table)
    expect("mkiso_no_gpt", not re.search(r"^GPT\s", rep, re.M),
           "the MBR partitions must be the one table (firmware reads a hybrid GPT/MBR in different ways)")
    expect("mkiso_grub_mbr_boot_code", re.search(r"System area summary:.*grub2-mbr", rep) is not None,
           "the MBR must carry GRUB's boot_hybrid.img")
    expect("mkiso_el_torito_bios", re.search(r"El Torito boot img\s*:\s*\d+\s+BIOS\s+y", rep) is not None,
           "no bootable BIOS El Torito image")
    expect("mkiso_el_torito_uefi", re.search(r"El Torito boot img\s*:\s*\d+\s+UEFI\s+y", rep) is not None,
           "no bootable UEFI El Torito image")
    return all(results)


def main():
    if len(sys.argv) > 1:
        ok = check(sys.argv[1])
    else:
        with tempfile.TemporaryDirectory() as d:
            tree = os.path.join(d, "isodir")
            os.makedirs(os.path.join(tree, "boot", "grub"))
            with open(os.path.join(tree, "boot", "grub", "grub.cfg"), "w") as f:
                f.write("menuentry test { true }\n")
            iso = os.path.join(d, "test.iso")
            subprocess.run(["sh", os.path.join(ROOT, "tools", "mkiso.sh"), tree, iso], check=True)
            ok = check(iso)
    print("mkiso: " + ("all checks passed" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
