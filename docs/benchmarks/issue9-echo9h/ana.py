#!/usr/bin/env python3
# ana.py ss.txt interactive.json [t_from t_to]: per tick, express + bulk socket state on both nodes, link drops
import json, re, sys
ss = open(sys.argv[1]).read().split('\n')
d = json.load(open(sys.argv[2])); samples = d['samples_s_ms']; t0 = samples[0][0]
lo = float(sys.argv[3]) if len(sys.argv) > 3 else -1e9; hi = float(sys.argv[4]) if len(sys.argv) > 4 else 1e9
def kv(info, k):
    m = re.search(r'(?:^|\s)' + k + r'[: ]([0-9./a-zA-Z]+)', info); return m.group(1) if m else '-'
ticks = []; cur = None; side = None; sock = None
for line in ss:
    if line.startswith('T '):
        cur = {'t': float(line[2:]), 'DC': [], 'BR': [], 'L': None}; ticks.append(cur)
    elif line in ('DC', 'BR'): side = line
    elif line.startswith('L '):
        try: cur['L'] = json.loads(line[2:])
        except Exception: pass
    elif line.strip() == '': continue
    elif not line[0].isspace():
        parts = line.split(); sock = {'local': parts[3], 'peer': parts[4], 'sendq': int(parts[2]), 'info': ''}; cur[side].append(sock)
    else: sock['info'] += line
exp_ports = set(sys.argv[5].split(',')) if len(sys.argv) > 5 else set()
prev = {}
for tk in ticks:
    rt = tk['t'] - t0
    if rt < lo or rt > hi: continue
    row = ['%6.2f' % rt]
    for side in ('DC', 'BR'):
        for s in tk[side]:
            port = s['peer'].rsplit(':', 1)[1] if side == 'DC' else s['local'].rsplit(':', 1)[1]
            i = s['info']; tag = ('X' if port in exp_ports else 'b') + port[-3:]
            sent = int(kv(i, 'bytes_sent')) if kv(i, 'bytes_sent') != '-' else 0
            key = side + port; ds = sent - prev.get(key, sent); prev[key] = sent
            row.append('%s:%s rtt=%s cw=%s pace=%s unack=%s nots=%s retr=%s q=%d ds=%dk' % (side, tag, kv(i, 'rtt').split('/')[0], kv(i, 'cwnd'),
                kv(i, 'pacing_rate'), kv(i, 'unacked'), kv(i, 'notsent'), kv(i, 'retrans'), s['sendq'], ds // 1024))
    if tk['L']:
        row.append('L ' + ' '.join('%s:dq%s mq%s' % (k[:6], v['drop_queue'], v['max_queue_pkts']) for k, v in tk['L'].items()))
    echo = [('%.2f:%.0f' % (t - t0, ms)) for t, ms in samples if tk['t'] - 0.1 <= t < tk['t']]
    row.append('echo ' + ' '.join(echo))
    print(' | '.join(row))
