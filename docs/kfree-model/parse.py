#!/usr/bin/env python3
"""Issue 31: kfree_rcu()'s and call_rcu()'s grace periods, batches and peak
memory from boots of the scratch build (scratch.patch), paired and checked
against the queueing model of docs/design.md."""
import re, sys, glob, statistics as st
KV = re.compile(r'(\w+)=(\S+)')
def kv(line):
    d = {}
    for k, v in KV.findall(line):
        try: d[k] = int(v)
        except ValueError: d[k] = v
    return d
def boot(lines):
    rows, buf = [], []
    for line in lines:
        if 'scratch name=' in line:
            buf.append(kv(line.split('scratch ', 1)[1]))
        elif 'bench name=gc ' in line or 'bench name=kfree_rcu ' in line:
            d = kv(line.split('bench ', 1)[1]); d['scr'] = buf; buf = []
            rows.append(d)
        elif 'bench name=kfree_rcu_mem' in line:
            rows[-1]['mem'] = kv(line.split('bench ', 1)[1])
    return rows
def boots(args):
    """(name, cpus, lines) per boot: boot logs named <tag>-c<cpus>-<n>.log,
    or rows files (rows.txt[.gz]) whose boots start with '== boot <name>'."""
    import gzip
    for a in args:
        for f in sorted(glob.glob(a)):
            op = gzip.open if f.endswith('.gz') else open
            with op(f, 'rt', errors='replace') as fh:
                lines = fh.readlines()
            if f.endswith('.log'):
                name = f.rsplit('/', 1)[-1][:-4]
                yield name, int(re.search(r'-c(\d+)-', name).group(1)), lines
                continue
            cur, buf = None, []
            for line in lines + ['== boot END-c0-0\n']:
                if line.startswith('== boot '):
                    if cur:
                        yield cur, int(re.search(r'-c(\d+)-', cur).group(1)), buf
                    cur, buf = line.split()[2], []
                else:
                    buf.append(line)
def g(r, name):
    for s in r['scr']:
        if s['name'] == name: return s
    return None
def pairs(rows):
    out = []
    gc = [r for r in rows if r['name'] == 'gc']
    if len(gc) == 2: out.append(('gc', gc[1], gc[0]))
    kb = [r for r in rows if r['name'] == 'kfree_rcu']
    for i in range(0, len(kb) - 1, 2):
        lab = 'bench' if kb[i]['paced'] == 0 else 'paced'
        out.append((lab, kb[i], kb[i + 1]))
    return out
def peak(r):  # objects
    return r['max_in_flight'] if r['name'] == 'gc' else r['mem']['objs']
def mean(r):
    return r['mean_in_flight'] if r['name'] == 'gc' else r['mem']['mean_kb'] * 1024 // 32
def pair_stats(lab, k, c):
    """One kfree_rcu()/call_rcu() pair.  _k kfree_rcu(), _c call_rcu(); _x
    a ratio k/c; G a GP's length, W a batch's hand-off to its GP's end,
    S the mean gap between starts, span the longest e[i] - s[i-1], us.
    gps_x_row and the peaks are the bench rows' own figures."""
    gk, gc_, bk = g(k, 'scr_gp'), g(c, 'scr_gp'), g(k, 'scr_batch')
    if not (gk and gc_ and bk) or gk.get('len_mean_us') is None or bk.get('len_mean_us') is None: return None
    s = {}
    s['gps_x'] = gc_['n'] / max(gk['n'], 1)
    s['peak_x'] = peak(k) / max(peak(c), 1)
    s['mean_x'] = mean(k) / max(mean(c), 1)
    s['Gc'] = gc_['len_mean_us']; s['Gc_med'] = gc_['len_med_us']; s['Gc_max'] = gc_['len_max_us']
    s['Gk'] = gk['len_mean_us']; s['Gk_med'] = gk['len_med_us']; s['Gk_max'] = gk['len_max_us']
    s['Wk'] = bk['len_mean_us']   # batch hand-off to GP end
    s['busy_c'] = gc_['busy_pct']; s['busy_k'] = gk['busy_pct']
    s['rc'] = gc_['r_per_ms']; s['rk'] = gk['r_per_ms']
    s['Sc'] = gc_['start_gap_mean_us']; s['Sk'] = bk['start_gap_mean_us']
    # call_rcu peak where: waiting vs ready-not-invoked (at the GP end with most pending)
    s['c_pend'] = gc_['pend_max']; s['c_wait'] = gc_['pend_wait']; s['c_ready'] = gc_['pend_ready']
    s['k_pend'] = bk['pend_max']; s['k_wait'] = bk['pend_wait']; s['k_ready'] = bk['pend_ready']
    s['c_peak'] = peak(c); s['k_peak'] = peak(k)
    # call_rcu's peak against the model 2 r Gc (uniform GPs) and r * max span
    s['c_model_mean'] = gc_['model_mean']            # r (S + G)
    s['c_tail'] = gc_['span_max_us'] / max(gc_['len_mean_us'], 1)  # max(G_{i-1}+G_i)/G
    s['k_model_mean'] = bk['model_mean']             # r (S_b + W_b)
    s['c_span'] = gc_['span_max_us']; s['k_span'] = bk['span_max_us']
    # model check 1: peak = r x the longest span from a GP (batch) start to the next one's end
    s['c_span_chk'] = s['c_pend'] / max(s['rc'] * s['c_span'] / 1000, 1)
    s['k_span_chk'] = s['k_pend'] / max(s['rk'] * s['k_span'] / 1000, 1)
    # model check 2: the peak ratio from the two spans alone
    s['span_x'] = (s['rk'] * s['k_span']) / max(s['rc'] * s['c_span'], 1)
    # Little: mean in flight = r x mean time in flight; call 1.5 G, kfree S/2 + W
    s['c_mean'] = mean(c); s['k_mean'] = mean(k)
    s['c_mean_chk'] = s['c_mean'] / max(s['rc'] * 1.5 * s['Gc'] / 1000, 1)
    s['k_mean_chk'] = s['k_mean'] / max(s['rk'] * (s['Sk'] / 2 + s['Wk']) / 1000, 1)
    gk_row = k['gps'] if k['name'] == 'gc' else k['batches']
    gc_row = c['gps'] if c['name'] == 'gc' else c['batches']
    s['gps_x_row'] = gc_row / max(gk_row, 1)
    n_k = k['updates'] if k['name'] == 'gc' else k['threads'] * k['alloc_num'] * k['loops']
    n_c = c['updates'] if c['name'] == 'gc' else c['threads'] * c['alloc_num'] * c['loops']
    s['eff_k'] = peak(k) * gk_row / max(n_k, 1)
    s['eff_c'] = peak(c) * gc_row / max(n_c, 1)
    s['eff_goal'] = s['gps_x_row'] >= 3 and s['eff_k'] < s['eff_c']
    s['met_row'] = s['gps_x_row'] >= 3 and s['peak_x'] < 1
    s['r_x'] = s['rk'] / max(s['rc'], 1)
    s['peak_x_r'] = s['peak_x'] / max(s['r_x'], 1e-9)   # at one rate: peak / r
    s['c_ready_frac'] = max(s['c_ready'], 0) / max(s['c_pend'], 1)
    s['k_ready_frac'] = max(s['k_ready'], 0) / max(s['k_pend'], 1)
    s['Wk_Gc'] = s['Wk'] / max(s['Gc'], 1)
    s['unif3'] = (3 + s['Wk_Gc']) / 2   # the even-GP bound at 3x fewer GPs
    return s
def med(xs): return st.median(xs) if xs else float('nan')
if __name__ == '__main__':
    import argparse
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('inputs', nargs='+', help='boot logs (globs) or rows.txt[.gz]')
    ap.add_argument('-v', action='store_true', help='every pair')
    ap.add_argument('--tsv', help='write one line per pair here')
    ap.add_argument('--rows', help='write the boots\' rows here (for a rows file)')
    a = ap.parse_args()
    groups, allp = {}, []
    rows_out = open(a.rows, 'w') if a.rows else None
    for name, cpus, lines in boots(a.inputs):
        if rows_out:
            rows_out.write('== boot %s\n' % name)
            rows_out.writelines(l.strip() + '\n' for l in lines
                                if 'scratch name=' in l or 'bench name=' in l)
        for lab, k, c in pairs(boot(lines)):
            s = pair_stats(lab, k, c)
            if s:
                s['cpus'], s['kind'], s['boot'] = cpus, lab, name
                groups.setdefault((cpus, lab), []).append(s)
                allp.append(s)
    keys = ['gps_x_row', 'peak_x', 'r_x', 'peak_x_r', 'mean_x', 'Gc', 'Gc_med', 'Gc_max', 'Gk', 'Wk',
            'busy_c', 'busy_k', 'c_tail', 'c_span_chk', 'k_span_chk', 'span_x', 'c_ready_frac',
            'k_ready_frac', 'eff_c', 'eff_k', 'Wk_Gc', 'unif3']
    for (cpus, lab), ss in sorted(groups.items()):
        print(f'== cpus={cpus} {lab}: {len(ss)} pairs; both goals met {sum(s["met_row"] for s in ss)}; '
              f'>=3x fewer GPs {sum(s["gps_x_row"] >= 3 for s in ss)}; '
              f'>=3x and eff_k < eff_c {sum(s["eff_goal"] for s in ss)}; '
              f'call_rcu ready > 10% of its peak {sum(s["c_ready_frac"] > 0.1 for s in ss)}; '
              f'kfree_rcu ready > 10% {sum(s["k_ready_frac"] > 0.1 for s in ss)}')
        print('   ' + ' '.join(f'{k}={med([s[k] for s in ss]):.3g}' for k in keys))
        if a.v:
            for s in ss:
                print('     %s gps_x=%.2f peak_x=%.2f span_x=%.2f c_tail=%.1f c_span=%d k_span=%d Gc=%d Gk=%d met=%d' % (
                    s['boot'], s['gps_x_row'], s['peak_x'], s['span_x'], s['c_tail'], s['c_span'], s['k_span'],
                    s['Gc'], s['Gk'], s['met_row']))
    print('== by call_rcu\'s tail, max(G[i-1] + G[i]) / mean G (2 for even GPs):')
    for lo, hi in [(0, 4), (4, 6), (6, 10), (10, 10**9)]:
        ss = [s for s in allp if lo <= s['c_tail'] < hi]
        if ss:
            print('   [%d, %s): %d pairs, peak k/c %.2f, both goals met %d' % (
                lo, hi if hi < 10**9 else 'inf', len(ss), med([s['peak_x'] for s in ss]),
                sum(s['met_row'] for s in ss)))
    print('== all: %d pairs; both goals met %d; >=3x and eff_k < eff_c %d; of the misses of that, %d had < 3x fewer GPs' % (
        len(allp), sum(s['met_row'] for s in allp), sum(s['eff_goal'] for s in allp),
        sum(s['gps_x_row'] < 3 for s in allp)))
    if a.tsv:
        cols = ['cpus', 'kind', 'boot', 'gps_x_row', 'peak_x', 'r_x', 'mean_x', 'Gc', 'Gc_max', 'Gk', 'Wk',
                'busy_c', 'c_tail', 'c_span', 'k_span', 'c_peak', 'c_ready', 'k_peak', 'k_ready',
                'c_span_chk', 'k_span_chk', 'eff_c', 'eff_k', 'met_row']
        with open(a.tsv, 'w') as o:
            o.write('\t'.join(cols) + '\n')
            for s in allp:
                o.write('\t'.join(('%.3g' % s[x]) if isinstance(s[x], float) and not isinstance(s[x], bool)
                                   else str(int(s[x])) if isinstance(s[x], bool) else str(s[x]) for x in cols) + '\n')
