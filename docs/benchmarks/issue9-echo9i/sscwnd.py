import sys, re, collections
# express connection at the DC: the WAN socket whose bytes_sent stays smallest once the bulk ran; histogram of its cwnd while >= 4 unacked
rows = collections.defaultdict(list)
peer = None
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) < 3 or p[1] != 'dc':
        continue
    if p[2] == 'ESTAB':
        peer = p[-1]; continue
    if peer and 'cwnd:' in line:
        f = dict(re.findall(r'(\w+):([\d./]+)', line))
        rows[peer].append((float(p[0]), int(f.get('cwnd', 0)), int(f.get('unacked', 0)), int(f.get('bytes_sent', 0)), f.get('rtt', ''), 'cubic' if ' cubic ' in line else 'bbr'))
        peer = None
big = {k: max(r[3] for r in v) for k, v in rows.items()}
for k, v in rows.items():
    if big[k] < 5e6 and big[k] > 50_000 and len(v) > 40:
        busy = [r for r in v if r[2] >= 1]
        print(k, v[-1][5], 'samples', len(v), 'with data in flight', len(busy))
        print('  cwnd histogram (in flight):', sorted(collections.Counter(r[1] for r in busy).items()))
        print('  unacked histogram:', sorted(collections.Counter(r[2] for r in busy).items()))
        print('  cwnd <= 4 at:', ['%.1f %s' % (r[0] - v[0][0], r[4]) for r in v if r[1] <= 4][:12])
