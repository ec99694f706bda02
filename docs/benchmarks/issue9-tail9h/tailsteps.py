import re, sys
# tailsteps.py PREFIX HH:MM:SS.s HH:MM:SS.s: the DC bulk WAN socket per sample in a time range: new bytes (sent - retransmitted)
# since the range's first sample, data_segs_out, unacked, sacked, lost, notsent, rto, lastsnd
def g(p, s, d="0"):
    m = re.search(p, s); return m.group(1) if m else d
cur = None; lines = {}
for line in open(sys.argv[1] + ".dc", errors="replace"):
    if line.startswith("T "): cur = line[2:].strip(); lines[cur] = []; continue
    if cur is None: continue
    if line[:1].isspace() and lines[cur]: lines[cur][-1] += line
    else: lines[cur].append(line)
base = None
for t in sorted(lines):
    if not (sys.argv[2] <= t <= sys.argv[3]) or not lines[t]: continue
    w = max(lines[t], key=lambda l: int(g(r"bytes_sent:(\d+)", l)))
    nb = int(g(r"bytes_sent:(\d+)", w)) - int(g(r"bytes_retrans:(\d+)", w))
    base = nb if base is None else base
    print(t, "new+%d" % (nb - base), "segs", g(r"data_segs_out:(\d+)", w), "unacked", g(r"unacked:(\d+)", w), "sacked", g(r"sacked:(\d+)", w),
          "lost", g(r"lost:(\d+)", w), "notsent", g(r"notsent:(\d+)", w), "rto", g(r" rto:(\d+)", w), "lastsnd", g(r"lastsnd:(\d+)", w))
