#!/usr/bin/env python3
# analyze.py RUN: the DC WAN socket's unsent queue, smoothed RTT, pacing rate over the echo's measured window
import json, re, sys, bisect
out = '/work/brief/out/latency9b/'
run = sys.argv[1]
d = json.load(open(out + run + '/logs/interactive-tcpopt.json'))
samples = d['samples_s_ms']
snap = []  # (t, notsent, rtt, minrtt?, pacing, delivery, cwnd, unacked)
t = None; sect = None
for line in open(out + run + '-ss.txt'):
    if line.startswith('T '):
        t = float(line.split()[1]); continue
    if line.strip() in ('DC', 'BR'):
        sect = line.strip(); continue
    if sect != 'DC' or t is None: continue
    m = re.search(r' rtt:([\d.]+)/', line)
    if not m: continue
    def g(pat, conv=float, default=0):
        mm = re.search(pat, line); return conv(mm.group(1)) if mm else default
    def rate(pat):
        mm = re.search(pat + r'([\d.]+)([KMG]?)bps', line)
        if not mm: return 0
        return float(mm.group(1)) * {'': 1e-6, 'K': 1e-3, 'M': 1, 'G': 1e3}[mm.group(2)]
    snap.append((t, g(r'notsent:(\d+)', int), float(m.group(1)), g(r'minrtt:([\d.]+)'), rate('pacing_rate '), rate('delivery_rate '),
                 g(r'cwnd:(\d+)', int), g(r'unacked:(\d+)', int), g(r'pacing_gain:([\d.]+)'), rate(r'bbr:\(bw:')))
snap.sort()
bulk = json.load(open(out + run + '/logs/interactive-bulk-tcpopt.json')) if False else None
def pct(v, p):
    v = sorted(v); return v[max(0, min(len(v) - 1, int(round(p / 100.0 * len(v) + 0.5)) - 1))] if v else 0
# window: the samples of the run while the bulk ran: take echo times > idle p50 + 5 from the csv window instead: use interactive.csv columns
rows = open(out + run + '/interactive.csv').read().strip().splitlines()
print(rows[-1])
ts = [s[0] for s in snap]
if not snap: sys.exit()
# bulk window: the snapshots where unacked > 1000 packets
busy = [s for s in snap if s[7] > 1000]
if busy:
    a, b = busy[0][0], busy[-1][0]
    print('bulk on DC socket %.1f s; %d snapshots' % (b - a, len(busy)))
    for name, i, f in [('notsent KB', 1, 1/1000), ('srtt ms', 2, 1), ('pacing Mbit', 4, 1), ('delivery Mbit', 5, 1), ('cwnd', 6, 1), ('bbr bw Mbit', 9, 1)]:
        v = [s[i] * f for s in busy]
        print('  %-14s p10 %8.1f p50 %8.1f p90 %8.1f max %8.1f' % (name, pct(v, 10), pct(v, 50), pct(v, 90), max(v)))
    print('  minrtt %s' % sorted(set(s[3] for s in busy))[:3])
    ech = [(t0, ms) for t0, ms in samples if a <= t0 <= b]
    print('  echoes in window %d: p50 %.1f p90 %.1f p99 %.1f' % (len(ech), pct([e[1] for e in ech], 50), pct([e[1] for e in ech], 90), pct([e[1] for e in ech], 99)))
    if len(sys.argv) > 2:
        for t0, ms in ech:
            k = bisect.bisect_left(ts, t0)
            s = snap[min(k, len(snap) - 1)]
            print('%8.2f %7.1f | notsent %8d srtt %6.1f pacing %6.1f cwnd %5d gain %s' % (t0 - a, ms, s[1], s[2], s[4], s[6], s[8]))
