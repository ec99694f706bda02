#!/usr/bin/env python3
# pcap.py DIR EXPRESS_PORT [t0]: per-node delays of the echo from tcpdump -tt -q text: DC in (WAN->LAN), server (LAN out->in),
# DC out (LAN->WAN); branch out (LAN->WAN), WAN+DC (WAN out->in), branch in (WAN->LAN). Events matched by cumulative payload.
import re, subprocess, sys
d, exp = sys.argv[1], sys.argv[2]
def events(ns):
    txt = subprocess.run(['tcpdump', '-r', '%s/%s.pcap' % (d, ns), '-n', '-tt', '-q'], capture_output=True, text=True).stdout
    ev = []
    for line in txt.splitlines():
        m = re.match(r'([0-9.]+) .*IP (\S+)\.(\d+) > (\S+)\.(\d+): tcp (\d+)', line)
        if not m or int(m.group(6)) == 0: continue
        ev.append((float(m.group(1)), m.group(3), m.group(5), int(m.group(6))))
    return ev
def series(ev, pred):
    out, cum = [], 0
    for t, sp, dp, n in ev:
        if pred(sp, dp, n): cum += n; out.append((t, cum))
    return out
def at(series_, k, unit):  # time the k-th unit (1-based) completed
    for t, cum in series_:
        if cum >= k * unit: return t
    return None
def pct(v, p): v = sorted(v); return v[min(len(v) - 1, int(p / 100 * len(v)))] if v else float('nan')
dc, br = events('dc'), events('branch')
# WAN records: size of one echo on the WAN from the most common length
from collections import Counter
wl = Counter(n for t, sp, dp, n in dc if sp == exp and n > 900).most_common(1)[0][0]
S = {'dc_wan_in': series(dc, lambda s, p, n: s == exp and n > 900), 'dc_lan_out': series(dc, lambda s, p, n: p == '7007'),
     'dc_lan_in': series(dc, lambda s, p, n: s == '7007'), 'dc_wan_out': series(dc, lambda s, p, n: p == exp and n > 900),
     'br_lan_in': series(br, lambda s, p, n: p == '7007'), 'br_wan_out': series(br, lambda s, p, n: s == exp and n > 900),
     'br_wan_in': series(br, lambda s, p, n: p == exp and n > 900), 'br_lan_out': series(br, lambda s, p, n: s == '7007')}
def mode_len(ev, pred): return Counter(n for t, sp, dp, n in ev if pred(sp, dp, n)).most_common(1)[0][0]
unit = {k: 1024 for k in S}
unit['dc_wan_in'] = mode_len(dc, lambda s, p, n: s == exp and n > 900); unit['dc_wan_out'] = mode_len(dc, lambda s, p, n: p == exp and n > 900)
unit['br_wan_out'] = mode_len(br, lambda s, p, n: s == exp and n > 900); unit['br_wan_in'] = mode_len(br, lambda s, p, n: p == exp and n > 900)
print('units', unit)
n = min(v[-1][1] // unit[k] for k, v in S.items() if v)
rows = []
for k in range(1, n + 1):
    t = {name: at(s, k, unit[name]) for name, s in S.items()}
    if None in t.values(): continue
    rows.append((t['br_lan_in'], (t['br_wan_out'] - t['br_lan_in']) * 1e3, (t['dc_lan_out'] - t['dc_wan_in']) * 1e3, (t['dc_lan_in'] - t['dc_lan_out']) * 1e3,
                 (t['dc_wan_out'] - t['dc_lan_in']) * 1e3, (t['br_lan_out'] - t['br_wan_in']) * 1e3, (t['br_wan_in'] - t['br_wan_out']) * 1e3,
                 (t['br_lan_out'] - t['br_lan_in']) * 1e3))
names = ['br out', 'dc in', 'server', 'dc out', 'br in', 'wan rtt+dc', 'total']
t0 = float(sys.argv[3]) if len(sys.argv) > 3 else rows[0][0]
print('WAN record', wl, 'requests', len(rows))
for lo, hi in ((0, 1.3), (1.3, 16)):
    sel = [r for r in rows if lo <= r[0] - t0 < hi]
    print('t %.1f-%.1f (%d):' % (lo, hi, len(sel)), '  '.join('%s p50 %.1f p90 %.1f max %.1f' % (nm, pct([r[i + 1] for r in sel], 50), pct([r[i + 1] for r in sel], 90), max([r[i + 1] for r in sel] or [0])) for i, nm in enumerate(names)))
for r in rows:
    if r[7] > 225: print('%.2f ' % (r[0] - t0) + ' '.join('%s=%.1f' % (nm, r[i + 1]) for i, nm in enumerate(names)))
