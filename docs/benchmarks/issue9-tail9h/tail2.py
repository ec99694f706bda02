import re, sys
# tail2.py PREFIX: per transfer (the client's 4 data connections), the tail: from the DC bulk WAN socket's last new byte
# (bytes_sent - bytes_retrans within 64 KB of its value when the client had everything) to the client's last byte.
def g(p, s, d=None):
    m = re.search(p, s); return m.group(1) if m else d
def secs(t): return int(t[0:2])*3600+int(t[3:5])*60+float(t[6:])
def read(path):
    out = []; cur = None
    for line in open(path, errors="replace"):
        if line.startswith("T "):
            cur = [secs(line[2:].strip()), line[2:].strip(), []]; out.append(cur); continue
        if cur is None: continue
        if line[:1].isspace() and cur[2]: cur[2][-1] += line
        else: cur[2].append(line)
    return out
dc = read(sys.argv[1] + ".dc"); cl = read(sys.argv[1] + ".cl")
def nb(lines):
    w = max(lines, key=lambda l: int(g(r"bytes_sent:(\d+)", l, "0")), default="")
    return int(g(r"bytes_sent:(\d+)", w, "0")) - int(g(r"bytes_retrans:(\d+)", w, "0")), w
dcs = [(t, ts) + nb(ls) for t, ts, ls in dc]
transfers = {}
for t, ts, ls in cl:
    conns = {g(r"(\S+:\d+)\s+\S+:5201", l): int(g(r"bytes_received:(\d+)", l, "0")) for l in ls}
    data = {k: v for k, v in conns.items() if v > 200000}
    if len(data) == 4:
        transfers.setdefault(tuple(sorted(data)), []).append((t, ts, sum(data.values())))
for key, ps in sorted(transfers.items(), key=lambda kv: kv[1][0][0]):
    total = ps[-1][2]
    if total < 100e6: continue
    t0 = ps[0][0]; tend = next(p for p in ps if p[2] >= total)[0]
    before = [d for d in dcs if d[0] <= tend]
    if not before: continue
    fin = before[-1][2]
    tn = next(d for d in dcs if d[2] >= fin - 65536 and d[0] >= t0)[0]
    seg = [d for d in dcs if tn <= d[0] <= tend]
    print("%s %4.0f MB took %6.2f s; last new byte at +%.2f, tail %.2f s; in the tail: max sacked %s, lost %s; %d samples DC, %.3f s apart" % (
        ps[0][1], total / 1e6, tend - t0, tn - t0, tend - tn, max(int(g(r"sacked:(\d+)", d[3], "0")) for d in seg),
        max(int(g(r"lost:(\d+)", d[3], "0")) for d in seg), len(seg), (seg[-1][0] - seg[0][0]) / max(1, len(seg) - 1)))
