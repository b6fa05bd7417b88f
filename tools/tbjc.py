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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('log')
    ap.add_argument('--elf', required=True)
    ap.add_argument('--hot', type=float, default=0.5)
    ap.add_argument('--tail', type=int, default=50, help='MB of the log to count')
    a = ap.parse_args()

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
