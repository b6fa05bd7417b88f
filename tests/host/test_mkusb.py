#!/usr/bin/env python3
"""tests/host/test_mkusb.py: tools/mkusb's safety checks, on a fake
sysfs/procfs/dev tree (--test-root): each kind of wrong target must be
refused with its reason and left untouched; a good one is written (a
regular file stands for the stick) only with --yes, and never by
--dry-run.  Prints PASS/FAIL per case and exits non-zero on a failure."""

import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MKUSB = os.path.join(ROOT, "tools", "mkusb")
MiB = 1 << 20


def put(path, text=""):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def disk(t, name, removable, size_bytes, parts=(), holders=(), model="Stick"):
    d = f"{t}/sys/block/{name}"
    put(f"{d}/removable", f"{removable}\n")
    put(f"{d}/size", f"{size_bytes // 512}\n")
    put(f"{d}/device/vendor", "Acme\n")
    put(f"{d}/device/model", f"{model}\n")
    os.makedirs(f"{d}/holders", exist_ok=True)
    for h in holders:
        os.makedirs(f"{d}/holders/{h}", exist_ok=True)
    os.makedirs(f"{t}/sys/class/block", exist_ok=True)
    os.symlink(f"../../block/{name}", f"{t}/sys/class/block/{name}")
    with open(f"{t}/dev/{name}", "wb") as f:
        f.truncate(size_bytes if size_bytes < 64 * MiB else MiB)
    for p in parts:
        put(f"{d}/{p}/partition", "1\n")
        os.makedirs(f"{d}/{p}/holders", exist_ok=True)
        os.symlink(f"../../block/{name}/{p}", f"{t}/sys/class/block/{p}")
        put(f"{t}/dev/{p}")


def make_tree(t):
    os.makedirs(f"{t}/dev/disk/by-id")
    disk(t, "sda", 0, 500 << 30, parts=("sda1", "sda2"), model="Internal SSD")
    disk(t, "sdb", 1, 8 * MiB, parts=("sdb1",))
    disk(t, "sdc", 1, 0)                              # card reader, no card
    disk(t, "sdd", 1, 1 * MiB)                        # smaller than the ISO
    disk(t, "sde", 1, 8 * MiB, holders=("dm-0",))     # LVM on it
    disk(t, "sdh", 1, 8 * MiB, parts=("sdh1",))       # mounted partition
    disk(t, "sdi", 1, 8 * MiB, parts=("sdi1",))       # swap on it
    disk(t, "sdk", 1, 8 * MiB, parts=("sdk1", "sdk2"))  # a live system's stick
    os.symlink("../../sdb", f"{t}/dev/disk/by-id/usb-Acme_Stick")
    os.mkfifo(f"{t}/dev/fifo")                        # not a block device
    put(f"{t}/proc/mounts",
        "/dev/sdk2 / ext4 rw 0 0\n"
        "/dev/sda1 /home ext4 rw 0 0\n"
        "proc /proc proc rw 0 0\n"
        "/dev/sdh1 /media/my\\040stick vfat rw 0 0\n")
    put(f"{t}/proc/swaps",
        "Filename Type Size Used Priority\n/dev/sdi1 partition 1024 0 -2\n")


def run(t, iso, *args, stdin=subprocess.DEVNULL):
    p = subprocess.run([sys.executable, MKUSB, "--test-root", t, "--iso", iso, *args],
                       stdin=stdin, capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout + p.stderr


def run_tty(t, iso, answer, *args):
    """mkusb with a terminal on stdin (a pty) that types answer."""
    master, slave = os.openpty()
    try:
        os.write(master, answer.encode() + b"\n")
        p = subprocess.run([sys.executable, MKUSB, "--test-root", t, "--iso", iso, *args],
                           stdin=slave, capture_output=True, text=True, timeout=60)
    finally:
        os.close(slave)
        os.close(master)
    return p.returncode, p.stdout + p.stderr


def main():
    failed = 0
    with tempfile.TemporaryDirectory() as t:
        make_tree(t)
        iso = f"{t}/rcukern.iso"
        with open(iso, "wb") as f:
            f.write(os.urandom(2 * MiB + 123))
        image = open(iso, "rb").read()

        def content(name):
            with open(f"{t}/dev/{name}", "rb") as f:
                return f.read(len(image))

        def case(name, args, rc, text, untouched=None, **kw):
            nonlocal failed
            before = content(untouched) if untouched else None
            got_rc, out = run(t, iso, *args, **kw)
            ok = got_rc == rc and text in out
            if untouched and content(untouched) != before:
                ok = False
                out += "\n(the device was written to)"
            print(("PASS " if ok else "FAIL ") + name)
            if not ok:
                failed += 1
                print(f"    exit {got_rc} (wanted {rc}), wanted {text!r} in:")
                print("    | " + out.replace("\n", "\n    | "))

        refused = "mkusb: refused: "
        case("not_removable", ["--yes", "/dev/sda"], 1, refused + "/dev/sda is not removable", "sda")
        case("partition", ["--yes", "/dev/sdb1"], 1, "is a partition; give the whole disk (/dev/sdb)", "sdb")
        case("no_medium", ["--yes", "/dev/sdc"], 1, "has no medium", "sdc")
        case("too_small", ["--yes", "/dev/sdd"], 1, "holds 1048576 bytes, the ISO needs", "sdd")
        case("held_by_lvm", ["--yes", "/dev/sde"], 1, "is in use by dm-0", "sde")
        case("mounted_partition", ["--yes", "/dev/sdh"], 1, "/dev/sdh1 is mounted on /media/my stick", "sdh")
        case("swap", ["--yes", "/dev/sdi"], 1, "/dev/sdi1 is active swap", "sdi")
        case("root_disk", ["--yes", "/dev/sdk"], 1, "/dev/sdk2 is mounted on /", "sdk")
        case("not_block", ["--yes", "/dev/fifo"], 1, "/dev/fifo is not a block device")
        case("missing", ["--yes", "/dev/sdz"], 1, refused + "/dev/sdz: No such file")
        case("no_iso", ["--yes", "--iso", f"{t}/none.iso", "/dev/sdb"], 1, "not found: run make first", "sdb")
        case("dry_run", ["--dry-run", "/dev/sdb"], 0, "dry run: nothing written", "sdb")
        case("dry_run_by_id", ["--dry-run", "/dev/disk/by-id/usb-Acme_Stick"], 0, "(sdb): Acme Stick", "sdb")
        case("no_tty_no_yes", ["/dev/sdb"], 1, "no terminal to confirm on", "sdb")
        # The question on a terminal: anything but the disk's name keeps it.
        for name, answer in (("confirm_wrong_name", "sda"), ("confirm_yes_word", "yes"),
                             ("confirm_empty", "")):
            before = content("sdb")
            got_rc, out = run_tty(t, iso, answer, "/dev/sdb")
            ok = got_rc == 1 and "not confirmed; nothing written" in out and \
                content("sdb") == before
            print(("PASS " if ok else "FAIL ") + name)
            if not ok:
                failed += 1
                print(f"    exit {got_rc}, device {'kept' if content('sdb') == before else 'WRITTEN'}:")
                print("    | " + out.replace("\n", "\n    | "))
        got_rc, out = run_tty(t, iso, "sdb", "/dev/sdb")
        ok = got_rc == 0 and "type 'sdb' to erase /dev/sdb" in out and \
            "mkusb: done" in out and content("sdb") == image
        print(("PASS " if ok else "FAIL ") + "confirm_typed_name_writes")
        if not ok:
            failed += 1
            print(f"    exit {got_rc}:\n    | " + out.replace("\n", "\n    | "))
        with open(f"{t}/dev/sdb", "r+b") as f:      # blank it again for --yes
            f.write(bytes(len(image)))
        case("yes_writes", ["--yes", "/dev/sdb"], 0, "mkusb: done")
        ok = content("sdb") == image
        print(("PASS " if ok else "FAIL ") + "written_image_matches")
        failed += not ok
    print(f"mkusb tests: {'all passed' if not failed else f'{failed} failed'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
