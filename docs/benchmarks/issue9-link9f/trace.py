#!/usr/bin/env python3
"""trace.py SS_FILE [FROM TO]: per sample of the DC's bulk WAN socket (the one with the most bytes_acked):
time, BBR bw, pacing_gain, pacing_rate, delivery_rate, cwnd, unacked, notsent, app_limited, sndbuf/rwnd limited,
and the nodes' CPU % since the previous sample (dc, branch)."""
import re, sys
def num(pat, line, conv=float, default=None):
    m = re.search(pat, line)
    return conv(m.group(1)) if m else default
def rate(s):
    if s is None: return None
    m = re.match(r'([\d.]+)([KMG]?)bps', s)
    v = float(m.group(1)); return v * {'': 1e-6, 'K': 1e-3, 'M': 1, 'G': 1e3}[m.group(2)]
samples = []; cur = None
for line in open(sys.argv[1]):
    if line.startswith('T '):
        cur = {'t': line.split()[1], 'socks': [], 'cpu': {}}; samples.append(cur)
    elif line.startswith('CPU ') and cur:
        _, n, p, ticks = line.split(); cur['cpu'][n] = int(float(ticks))
    elif line.startswith('LAN ') and cur is not None:
        cur['lanq'] = cur.get('lanq', 0) + int(line.split()[1])
    elif cur is not None and 'bytes_acked' in line:
        cur['socks'].append(line)
prev = None; prevt = None
def secs(t):
    h, m, s = t.split(':'); return int(h) * 3600 + int(m) * 60 + float(s)
out = []
for s in samples:
    if not s['socks']: prev = s; continue
    sock = max(s['socks'], key=lambda l: num(r'bytes_acked:(\d+)', l, int, 0))
    cpu = ''
    if prev and prev['cpu'] and s['cpu']:
        dt = secs(s['t']) - secs(prev['t'])
        if dt > 0:
            cpu = ' '.join('%s %3.0f%%' % (n, (s['cpu'].get(n, 0) - prev['cpu'].get(n, 0)) / dt) for n in ('dc', 'branch'))
    prev = s
    acked = num(r'bytes_acked:(\d+)', sock, int, 0)
    bbr = re.search(r'bbr:\(bw:([\d.]+[KMG]?bps),mrtt:([\d.]+),pacing_gain:([\d.]+),cwnd_gain:([\d.]+)\)', sock)
    print('%s acked %7.1fMB bw %6s gain %4s pacing %6s deliv %6s cwnd %5s unacked %5s notsent %8s %s rwndlim %s sndbuflim %s lanRecvQ %s | %s' % (
        s['t'], acked / 1e6, '%.0f' % rate(bbr.group(1)) if bbr else '-', bbr.group(3) if bbr else '-',
        '%.0f' % rate(num(r'pacing_rate (\S+)', sock, str)) if 'pacing_rate' in sock else '-',
        '%.0f' % rate(num(r'delivery_rate (\S+)', sock, str)) if 'delivery_rate' in sock else '-',
        num(r'cwnd:(\d+)', sock, int), num(r'unacked:(\d+)', sock, int), num(r'notsent:(\d+)', sock, int),
        'APPLIM' if 'app_limited' in sock else '      ', num(r'rwnd_limited:(\S+)', sock, str), num(r'sndbuf_limited:(\S+)', sock, str), s.get('lanq', '-'), cpu))
