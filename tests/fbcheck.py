#!/usr/bin/env python3
"""tests/fbcheck.py: checks, from the host, that the framebuffer console
(kernel/fbcon.c) shows what the serial port got.

Run by tests/runner.py as a during= hook of a configuration with
`monitor` (see tests/qemu-configs): the kernel's `fbcon` suite prints
"fbcon: screen ready for a dump" and keeps still (fbcon.hold_ms=); this
script then stops the VM through the QEMU monitor ($RUNNER_MONITOR),
dumps the screen to a PPM, reads the serial log so far ($RUNNER_LOG) and
lets the VM go on.  It replays the log through the screen model of
kernel/fbcon.h (wrap, tabs, scrolling a quarter screen at a time), renders
that text with the kernel's own font (parsed from kernel/font8x16.c) and
compares pixel by pixel: each pixel of the dump must be the colour the
glyph says (foreground or background, nearest of the two: a 16 bpp screen
is widened to 24 bits by QEMU), and the margins background.  Exit 0 when
the screen matches; otherwise it prints the first rows that differ (as
expected text and the text read back from the screen) and exits 1.

    python3 tests/fbcheck.py                      as the runner calls it
    python3 tests/fbcheck.py --ppm S.ppm --log serial.log   offline
    python3 tests/fbcheck.py --render out.ppm --log serial.log
                                   (what the screen should look like)
Only the Python standard library is used.
"""

import argparse
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qemu_monitor import Monitor  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FONT_C = os.path.join(ROOT, "kernel", "font8x16.c")
FBCON_H = os.path.join(ROOT, "kernel", "fbcon.h")
FW, FH = 8, 16
READY_MARK = b"fbcon: screen ready for a dump"


def _header_int(name):
    text = open(FBCON_H).read()
    m = re.search(r"#define\s+" + name + r"\s+(0x[0-9a-fA-F]+|\d+)", text)
    if not m:
        raise SystemExit(f"fbcheck: {name} not found in kernel/fbcon.h")
    return int(m.group(1), 0)


def load_font(path=FONT_C):
    """{byte: [16 row bytes]} for 0x20..0x7e, and the unknown-byte glyph."""
    text = open(path).read()
    glyphs = {}
    for m in re.finditer(r"GLYPH\('(\\.|.)',((?:\s*\"[.#]{8}\",?){16})\s*\)", text):
        ch = m.group(1)
        ch = ch[1] if ch.startswith("\\") else ch
        rows = re.findall(r"\"([.#]{8})\"", m.group(2))
        glyphs[ord(ch)] = [int(r.replace("#", "1").replace(".", "0"), 2) for r in rows]
    m = re.search(r"font8x16_unknown\[FONT_HEIGHT\]\s*=\s*\{([^}]*)\}", text)
    if len(glyphs) != 0x7f - 0x20 or not m:
        raise SystemExit(f"fbcheck: could not read the font from {path} "
                         f"({len(glyphs)} glyphs)")
    unknown = [int(x, 0) for x in m.group(1).replace(",", " ").split()]
    if len(unknown) != FH:
        raise SystemExit("fbcheck: bad font8x16_unknown")
    return glyphs, unknown


def scroll_lines(rows):
    return rows // 4 if rows >= 8 else 1


def model(data, cols, rows):
    """The text kernel/fbcon.c should show after printing data (bytes)."""
    text = [[0x20] * cols for _ in range(rows)]
    cx = cy = 0

    def new_line():
        nonlocal cx, cy
        cx = 0
        cy += 1
        if cy >= rows:
            n = scroll_lines(rows)
            del text[:n]
            text.extend([[0x20] * cols for _ in range(n)])
            cy = rows - n

    def glyph(b):
        nonlocal cx
        if cx >= cols:
            new_line()
        text[cy][cx] = b
        cx += 1

    for b in data:
        if b == 0x0a:
            new_line()
        elif b == 0x0d:
            cx = 0
        elif b == 0x09:
            glyph(0x20)
            while cx % 8 and cx < cols:
                glyph(0x20)
        elif b == 0x08:
            cx = max(cx - 1, 0)
        else:
            glyph(b)
    return text


def kernel_output(log):
    """The bytes printk sent, from the first kernel line (firmware and GRUB
    may write to the serial port before), with the serial CRs removed."""
    start = log.find(b"[c0] ")
    if start < 0:
        return None
    return log[start:].replace(b"\r\n", b"\n")


def geometry(log):
    m = re.search(rb"fbcon: (\d+)x(\d+) (\d+) bpp at 0x[0-9a-f]+, (\d+)x(\d+) characters", log)
    if not m:
        return None
    return tuple(int(x) for x in m.groups())


def read_ppm(path):
    data = open(path, "rb").read()
    m = re.match(rb"P6\s+(?:#[^\n]*\s+)*(\d+)\s+(\d+)\s+(\d+)\s", data)
    if not m or int(m.group(3)) != 255:
        raise ValueError(f"{path}: not an 8-bit binary PPM")
    w, h = int(m.group(1)), int(m.group(2))
    pix = data[m.end():]
    if len(pix) < w * h * 3:
        raise ValueError(f"{path}: {len(pix)} pixel bytes, {w * h * 3} expected")
    return w, h, pix


def write_ppm(path, w, h, lit):
    fg = bytes(((FG >> 16) & 255, (FG >> 8) & 255, FG & 255))
    bg = bytes(((BG >> 16) & 255, (BG >> 8) & 255, BG & 255))
    with open(path, "wb") as f:
        f.write(b"P6\n%d %d\n255\n" % (w, h))
        f.write(b"".join(fg if lit(x, y) else bg for y in range(h) for x in range(w)))


FG = BG = 0


def _near_fg(r, g, b):
    fr, fgc, fb = (FG >> 16) & 255, (FG >> 8) & 255, FG & 255
    br, bgc, bb = (BG >> 16) & 255, (BG >> 8) & 255, BG & 255
    dfg = (r - fr) ** 2 + (g - fgc) ** 2 + (b - fb) ** 2
    dbg = (r - br) ** 2 + (g - bgc) ** 2 + (b - bb) ** 2
    return dfg < dbg


def compare(w, h, pix, text, font, cols, rows):
    """Returns (bad_cells, bad_margin_pixels, seen_text)."""
    glyphs, unknown = font
    by_bits = {tuple(v): k for k, v in glyphs.items()}
    bad_cells = []
    seen = [[None] * cols for _ in range(rows)]
    lit_rows = bytearray(w * h)
    for i in range(w * h):
        o = 3 * i
        lit_rows[i] = _near_fg(pix[o], pix[o + 1], pix[o + 2])
    for cy in range(rows):
        for cx in range(cols):
            want = glyphs.get(text[cy][cx], unknown)
            got = []
            for r in range(FH):
                base = (cy * FH + r) * w + cx * FW
                bits = 0
                for i in range(FW):
                    bits = (bits << 1) | lit_rows[base + i]
                got.append(bits)
            c = by_bits.get(tuple(got))
            seen[cy][cx] = chr(c) if c is not None else ("?" if got != unknown else "\u25a1")
            if got != want:
                bad_cells.append((cx, cy))
    bad_margin = 0
    for y in range(h):
        for x in range(w):
            if (x >= cols * FW or y >= rows * FH) and lit_rows[y * w + x]:
                bad_margin += 1
    return bad_cells, bad_margin, seen


def _row_text(row):
    return "".join(chr(b) if 0x20 <= b <= 0x7e else "\u25a1" for b in row).rstrip()


def judge(ppm_path, log, font):
    geo = geometry(log)
    if not geo:
        print("fbcheck: the log has no 'fbcon: WxH B bpp at ..., CxR characters' "
              "line: the kernel started no framebuffer console")
        return 1
    width, height, bpp, cols, rows = geo
    # What followed the marker was printed after the dump (offline use).
    mark = log.find(READY_MARK)
    if mark >= 0:
        end = log.find(b"\n", mark)
        log = log[:end + 1] if end >= 0 else log
    out = kernel_output(log)
    w, h, pix = read_ppm(ppm_path)
    print(f"fbcheck: kernel says {width}x{height} {bpp} bpp, {cols}x{rows} "
          f"characters; the dump is {w}x{h}")
    if (w, h) != (width, height):
        print("fbcheck: FAIL: the screen QEMU shows is not the size the kernel drew on")
        return 1
    if cols != min(w // FW, MAX_COLS) or rows != min(h // FH, MAX_ROWS):
        print("fbcheck: FAIL: the kernel's character grid does not follow from the screen size")
        return 1
    text = model(out, cols, rows)
    bad, margin, seen = compare(w, h, pix, text, font, cols, rows)
    nonblank = sum(1 for row in text for b in row if b != 0x20)
    print(f"fbcheck: {cols * rows} cells compared ({nonblank} not blank), "
          f"{len(bad)} differ; {margin} stray pixels in the margins")
    if not bad and not margin:
        if nonblank == 0:
            print("fbcheck: FAIL: the expected screen is blank; nothing was checked")
            return 1
        for y in range(rows):
            if any(b != 0x20 for b in text[y]):
                print(f"fbcheck: first text row {y}: {_row_text(text[y])[:100]}")
                break
        print("fbcheck: PASS: the screen shows the serial output pixel for pixel")
        return 0
    shown = 0
    for y in sorted({cy for _, cy in bad}):
        print(f"fbcheck: row {y} expected: {_row_text(text[y])}")
        print(f"fbcheck: row {y} on screen: {''.join(seen[y]).rstrip()}")
        shown += 1
        if shown == 8:
            break
    print("fbcheck: FAIL: the screen differs from the serial output")
    return 1


def dump_live(ppm_path, mon_path, log_path):
    """Stops the VM, dumps the screen, reads the log, lets the VM go on."""
    mon = Monitor(mon_path)
    mon.cmd("stop")
    try:
        if os.path.exists(ppm_path):
            os.unlink(ppm_path)
        mon.cmd(f"screendump {ppm_path}")
        deadline = time.monotonic() + 10
        while not os.path.exists(ppm_path) and time.monotonic() < deadline:
            time.sleep(0.05)
        with open(log_path, "rb") as f:
            log = f.read()
    finally:
        mon.cmd("cont")
    return log


MAX_COLS = MAX_ROWS = 0


def main(argv=None):
    global FG, BG, MAX_COLS, MAX_ROWS
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--log", help="serial log (default $RUNNER_LOG)")
    ap.add_argument("--ppm", help="judge this screen dump instead of taking one")
    ap.add_argument("--monitor", help="QEMU monitor socket (default $RUNNER_MONITOR)")
    ap.add_argument("--render", help="write the expected screen to this PPM and stop")
    args = ap.parse_args(argv)
    FG, BG = _header_int("FBCON_FG_RGB"), _header_int("FBCON_BG_RGB")
    MAX_COLS, MAX_ROWS = _header_int("FBCON_MAX_COLS"), _header_int("FBCON_MAX_ROWS")
    font = load_font()
    log_path = args.log or os.environ.get("RUNNER_LOG")
    if not log_path:
        ap.error("no serial log: --log or $RUNNER_LOG")

    if args.render:
        log = open(log_path, "rb").read()
        geo = geometry(log)
        if not geo:
            print("fbcheck: no fbcon geometry line in the log")
            return 1
        width, height, _, cols, rows = geo
        text = model(kernel_output(log), cols, rows)
        glyphs, unknown = font

        def lit(x, y):
            cx, cy = x // FW, y // FH
            if cx >= cols or cy >= rows:
                return False
            g = glyphs.get(text[cy][cx], unknown)
            return bool(g[y % FH] & (0x80 >> (x % FW)))
        write_ppm(args.render, width, height, lit)
        return 0

    if args.ppm:
        return judge(args.ppm, open(log_path, "rb").read(), font)
    mon_path = args.monitor or os.environ.get("RUNNER_MONITOR")
    if not mon_path:
        ap.error("no QEMU monitor: --monitor or $RUNNER_MONITOR")
    ppm = os.path.splitext(log_path)[0] + ".screen.ppm"
    try:
        log = dump_live(ppm, mon_path, log_path)
    except (OSError, ConnectionError) as e:
        print(f"fbcheck: FAIL: could not dump the screen through the monitor: {e}")
        return 1
    print(f"fbcheck: screen dumped to {os.path.relpath(ppm, ROOT)}")
    return judge(ppm, log, font)


if __name__ == "__main__":
    sys.exit(main())
