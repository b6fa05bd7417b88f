#!/usr/bin/env python3
"""tools/tbjc.py: hot translation blocks that share a slot of QEMU TCG's
tb_jmp_cache, from a QEMU exec log of an rcukern boot.

    ./run.sh --no-build -s 2 -c test=rcu -- -d exec,nochain \\
        -dfilter 0xffffffff80139000..0xffffffff8013a000,... -D /tmp/exec.log
    tools/tbjc.py /tmp/exec.log --elf build/kernel.elf [--hot 0.5] [--tail MB]

QEMU (7.2, as here) finds the translation block for a guest PC that it
did not reach by a chained direct jump in a per-vCPU cache of 4096
entries, direct-mapped by a hash of the virtual PC (tb_jmp_cache_hash_func,
reproduced below); a miss costs a hash-table lookup of the block by
physical address and a TLB probe.  Such lookups happen at a jump to
another page (a call to a function in another page), a return, and
after `sti` (the block ends there, and again after the one-instruction
interrupt shadow) or `popf`.  Two hot blocks that both need the lookup
and share a slot evict each other on every pass (docs/design.md,
"call_rcu()'s cost and QEMU's jump cache").

`-d exec,nochain` logs every block executed in the -dfilter ranges; the
last --tail MB (default 50) of the log are counted, blocks run at least
--hot (default 0.5) times as often as the hottest are kept, and every
slot holding two or more is printed, each block marked `lookup` when
the ELF says it is reached that way (a direct call or jump from
another page, a function only called through a pointer, a return
address, the instruction after sti, popf or sti's shadow) and
`chained` otherwise (reached only from its own page: no lookup, no
conflict).  The block's own predecessor is not known from the log, so
a block reached both ways is counted as a lookup.
Exit status 1 if a slot holds two lookup blocks, else 0.

From the ELF alone, for the __fastpath functions (.text.hot, linked
first at .text's page-aligned start, after fastpath_pad bytes):

    tools/tbjc.py --check build/kernel.elf
    tools/tbjc.py --place build/kernel.pass1.elf    (prints a pad)

A fast path is a function's code from its entry to its first `ret` or
jump out of it (GCC lays out the likely path first and moves the rest
after it), and, for each call it makes there to another __fastpath
function, that function's fast path too.  Its lookups are its entry,
the return address of every call, sti's shadow and the block after it,
the block after popf, and a callee or branch target in another page.
--check exits 1 if two lookups of one fast path share a slot, or if a
fast path crosses a page (each cross-page branch is a lookup).
--place prints the smallest pad (a multiple of 16, from the section's
page offset in that ELF) that leaves no such pair: the build links
with it (Makefile), so an edit outside the __fastpath code never
moves these blocks, and an edit inside picks a new pad.
"""

import argparse
import collections
import re
import subprocess
import sys


def jc_hash(pc):
    """QEMU 7.2 include/exec/tb-hash.h, TARGET_PAGE_BITS 12, 4096 entries."""
    tmp = pc ^ (pc >> 6)
    return ((tmp >> 6) & 0xfc0) | (tmp & 0x3f)


def lookup_pcs(elf):
    """PCs that QEMU reaches through the jump cache, and symbol starts."""
    syms = {}
    for line in subprocess.run(['nm', elf], capture_output=True, text=True,
                               check=True).stdout.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in 'tT':
            syms[int(p[0], 16)] = p[2]
    out = subprocess.run(['objdump', '-d', '--no-show-raw-insn', elf],
                         capture_output=True, text=True, check=True).stdout
    ins = []
    for line in out.splitlines():
        m = re.match(r'\s*([0-9a-f]+):\s+(\S+)\s*([0-9a-f]*)', line)
        if m:
            ins.append((int(m.group(1), 16), m.group(2),
                        int(m.group(3), 16) if m.group(3) else None))
    look = set()
    direct = set()	# targets of some direct call or jump
    for i, (pc, op, target) in enumerate(ins):
        if target is not None and (op.startswith('call') or op.startswith('j')):
            direct.add(target)
            if (pc ^ target) >> 12:
                look.add(target)	# from another page: no chaining
        if i + 1 < len(ins) and (op.startswith('call') or op in ('sti', 'popf', 'popfq')):
            look.add(ins[i + 1][0])
        if op == 'sti' and i + 2 < len(ins):
            look.add(ins[i + 2][0])
    # A function no direct call reaches is called through a pointer.
    look |= set(syms) - direct
    return look, syms


def symbolize(pc, syms, starts):
    import bisect
    i = bisect.bisect_right(starts, pc) - 1
    if i < 0:
        return hex(pc)
    return '%s+%#x' % (syms[starts[i]], pc - starts[i])


PAGE = 4096
# objdump prints these before the mnemonic: the mnemonic is what follows.
PREFIXES = {'notrack', 'bnd', 'rep', 'repz', 'repe', 'repnz', 'repne', 'lock',
            'data16', 'addr32', 'cs', 'ds'}


def disasm(elf, lo, hi):
    """(pc, mnemonic, direct target or None, next pc) for [lo, hi)."""
    try:
        out = subprocess.run(['objdump', '-d', '--no-show-raw-insn',
                              '--start-address=%#x' % lo, '--stop-address=%#x' % hi, elf],
                             capture_output=True, text=True, check=True).stdout
    except FileNotFoundError:
        sys.exit('tbjc: objdump (GNU binutils) is needed to place the fast paths')
    ins = []
    for line in out.splitlines():
        m = re.match(r'\s*([0-9a-f]+):\s+(.*)', line)
        if not m:
            continue
        words = m.group(2).split()
        while words and words[0] in PREFIXES:
            words = words[1:]
        if not words:
            continue
        t = re.match(r'(?:0x)?([0-9a-f]+)$', words[1]) if len(words) > 1 else None
        ins.append([int(m.group(1), 16), words[0], int(t.group(1), 16) if t else None, None])
    for i in range(len(ins) - 1):
        ins[i][3] = ins[i + 1][0]
    if ins:
        ins[-1][3] = hi
    return ins


def fastpaths(elf):
    """The __fastpath functions' fast paths: {name: (entry, [lookups],
    [(call pc, callee)], last byte, [(jump pc, target)])}, each lookup a
    (pc, what) pair, and the section's start and end.  A jump is a lookup
    only where it crosses a page, which depends on the pad: kept apart.
    Lookups outside the section (a tail call elsewhere) are left out: no
    pad can place them."""
    syms = {}
    for line in subprocess.run(['nm', '-n', elf], capture_output=True, text=True,
                               check=True).stdout.splitlines():
        p = line.split()
        if len(p) == 3:
            syms.setdefault(p[2], int(p[0], 16))
    lo, hi = syms.get('__text_hot_start'), syms.get('__text_hot_end')
    if lo is None or hi is None:
        sys.exit('tbjc: no __text_hot_start/__text_hot_end in %s (linker.ld)' % elf)
    funcs = sorted((a, n) for n, a in syms.items()
                   if lo <= a < hi and not n.startswith('__text'))
    ins = disasm(elf, lo, hi)
    out = {}
    for k, (a, name) in enumerate(funcs):
        end = funcs[k + 1][0] if k + 1 < len(funcs) else hi
        body = [x for x in ins if a <= x[0] < end]
        look, callees, jumps = [], [], []
        for i, (pc, op, target, nxt) in enumerate(body):
            where = lambda p: '%s+%#x' % (name, p - a)
            if op.startswith('call'):
                look.append((nxt, where(nxt) + ' (return address)'))
                if target is not None and lo <= target < hi:
                    callees.append((pc, target))
            elif op == 'sti':
                look.append((nxt, where(nxt) + ' (after sti)'))
                if i + 1 < len(body):
                    look.append((body[i + 1][3], where(body[i + 1][3]) + ' (after sti\'s shadow)'))
            elif op in ('popf', 'popfq'):
                look.append((nxt, where(nxt) + ' (after popf)'))
            elif op.startswith('j') and target is not None and lo <= target < hi:
                jumps.append((pc, target, '%s (jump from %s to another page)' %
                              (where(target) if a <= target < end else '%#x' % target,
                               where(pc))))
            if op.startswith('ret') or (op.startswith('jmp') and
                                        (target is None or not a <= target < end)):
                if op.startswith('jmp') and target is not None and lo <= target < hi:
                    callees.append((pc, target))	# a tail call
                break
        out[name] = (a, look, callees, nxt - 1 if body else a, jumps)
    return out, lo, hi


def fastpath_conflicts(fp, shift=0, sizes=None):
    """For each fast path (a root and the __fastpath callees it reaches),
    the pairs of lookups that share a slot, with the whole image moved
    by shift bytes."""
    by_entry = {v[0]: n for n, v in fp.items()}
    bad = []
    for root, (entry, _, _, _, _) in sorted(fp.items(), key=lambda x: x[1][0]):
        looks = {entry: root + ' (entry)'}
        seen, todo = set(), [root]
        while todo:
            n = todo.pop()
            if n in seen:
                continue
            seen.add(n)
            _, look, callees, _, jumps = fp[n]
            for pc, what in look:
                looks.setdefault(pc, what)
            for pc, t, what in jumps:
                if (pc + shift) >> 12 != (t + shift) >> 12:
                    looks.setdefault(t, what)
            for pc, t in callees:
                callee = by_entry.get(t)
                if callee is None:
                    continue
                if (pc + shift) >> 12 != (t + shift) >> 12:
                    looks.setdefault(t, callee + ' (entry, called from another page)')
                todo.append(callee)
        slots = collections.defaultdict(list)
        for pc, what in looks.items():
            slots[jc_hash(pc + shift)].append((pc + shift, what))
        if sizes is not None:
            sizes.append((root, len(looks), len(slots)))
        for slot, v in sorted(slots.items()):
            if len(v) > 1:
                bad.append((root, slot, sorted(v)))
    return bad


def fastpath_crosses(fp, shift):
    """Fast paths that would cross a page with the image moved by shift."""
    out = []
    for n, (a, _, _, last, _) in fp.items():
        if ((a + shift) ^ (last + shift)) >> 12:
            out.append(n)
    return out


def check(elf):
    fp, lo, hi = fastpaths(elf)
    sizes = []
    bad = fastpath_conflicts(fp, 0, sizes)
    cross = fastpath_crosses(fp, 0)
    print('tbjc: %d __fastpath functions, %#x-%#x (page offset %#x, %d bytes)' %
          (len(fp), lo, hi, lo & (PAGE - 1), hi - lo))
    print('tbjc: jump-cache lookups (slots) per fast path: ' +
          ', '.join('%s %d (%d)' % s for s in sizes))
    for root, slot, v in bad:
        print('tbjc: CONFLICT in the fast path of %s, slot %#05x:' % (root, slot))
        for pc, what in v:
            print('    %#x %s' % (pc, what))
    for n in cross:
        print('tbjc: the fast path of %s crosses a page' % n)
    if bad or cross:
        print('tbjc: QEMU\'s jump cache evicts these on every call '
              '(docs/design.md, "call_rcu()\'s cost and QEMU\'s jump cache")')
        return 1
    return 0


def place(elf):
    """The smallest pad before .text.hot that leaves no conflict."""
    fp, lo, _ = fastpaths(elf)
    base = lo & (PAGE - 1)
    for pad in range(0, PAGE, 16):
        shift = pad - base
        bad = fastpath_conflicts(fp, shift)
        if not bad and not fastpath_crosses(fp, shift):
            print(pad)
            return 0
    sys.exit('tbjc: no pad before .text.hot separates every fast path\'s lookups')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('log', nargs='?')
    ap.add_argument('--elf')
    ap.add_argument('--check', metavar='ELF', help='the __fastpath functions of ELF, no log')
    ap.add_argument('--place', metavar='ELF', help='print the pad before .text.hot')
    ap.add_argument('--hot', type=float, default=0.5)
    ap.add_argument('--tail', type=int, default=50, help='MB of the log to count')
    a = ap.parse_args()
    if a.check:
        return check(a.check)
    if a.place:
        return place(a.place)
    if not a.log or not a.elf:
        ap.error('a log and --elf, or --check/--place ELF')

    with open(a.log, 'rb') as f:
        f.seek(0, 2)
        f.seek(max(0, f.tell() - a.tail * 1000000))
        text = f.read().decode('ascii', 'replace')
    count = collections.Counter()
    for m in re.finditer(r'^Trace \d+: \S+ \[[0-9a-f]+/([0-9a-f]+)/([0-9a-f]+)/', text, re.M):
        count[(int(m.group(1), 16), m.group(2))] += 1
    if not count:
        sys.exit('tbjc: no "Trace" lines in %s (run QEMU with -d exec,nochain)' % a.log)
    top = max(count.values())
    look, syms = lookup_pcs(a.elf)
    starts = sorted(syms)
    slots = collections.defaultdict(list)
    for (pc, flags), n in count.items():
        if n >= a.hot * top:
            slots[jc_hash(pc)].append((pc, flags, n))
    hot = sum(len(v) for v in slots.values())
    print('%d hot blocks (>= %.2f of the hottest, %d runs), %d slots' %
          (hot, a.hot, top, len(slots)))
    bad = 0
    for slot, blocks in sorted(slots.items()):
        if len(blocks) < 2:
            continue
        lookups = sum(pc in look for pc, _, _ in blocks)
        bad += lookups >= 2
        print('slot %#05x%s' % (slot, '  CONFLICT' if lookups >= 2 else ''))
        for pc, flags, n in sorted(blocks):
            print('    %#x %-40s flags %s runs %d %s' %
                  (pc, symbolize(pc, syms, starts), flags, n,
                   'lookup' if pc in look else 'chained'))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
