import re, sys
# stalls.py TRACE: per transfer seen at the client (its data connections' bytes_received, 0.1 s samples): when it
# started and ended, the Mbit/s of its first 1 s after the first byte, time to 95% and 100% of its bytes, and every
# spell of >= 0.25 s in which the client got under 30% of the link's rate, with the DC bulk socket's state then
# (PROBE_RTT = cwnd_gain 1; app-limited; notsent; unacked; cwnd).
def g(p, s, d=None):
    m = re.search(p, s); return m.group(1) if m else d
def secs(t): return int(t[0:2])*3600+int(t[3:5])*60+float(t[6:])
samples = []; cur = None
for line in open(sys.argv[1]):
    if line.startswith("T "):
        cur = {"t": line[2:].strip(), "wan": [], "cl": []}; samples.append(cur); continue
    if cur is None: continue
    if line.startswith("CL "):
        if line[3:4].isspace() and cur["cl"]: cur["cl"][-1] += line[3:]
        else: cur["cl"].append(line[3:])
        continue
    if "bbr:(" in line: cur["wan"].append(line)
# client data = connections with > 1 MB received; a transfer = a set of ports
pts = []
for s in samples:
    conns = {g(r"(\S+:\d+)\s+\S+:5201", l): int(g(r"bytes_received:(\d+)", l, "0")) for l in s["cl"]}
    wan = sorted(s["wan"], key=lambda l: -int(g(r"bytes_acked:(\d+)", l, "0")))
    pts.append((secs(s["t"]), s["t"], conns, wan[0] if wan else ""))
# group by the set of data ports
transfers = {}
for t, ts, conns, w in pts:
    data = {k: v for k, v in conns.items() if v > 200000}
    if len(data) == 4:
        key = tuple(sorted(data))
        transfers.setdefault(key, []).append((t, ts, sum(data.values()), w))
for key, ps in sorted(transfers.items(), key=lambda kv: kv[1][0][0]):
    total = ps[-1][2]
    if total < 100e6: continue
    # the first sample of the transfer: find the last sample before with the same ports and few bytes (may be absent)
    t0 = ps[0][0]; b0 = ps[0][2]
    first = next((p for p in ps if p[0] >= t0 + 1.0), ps[-1])
    t95 = next(p for p in ps if p[2] >= 0.95 * total)[0]
    tend = next(p for p in ps if p[2] >= total)[0]
    print("transfer %s..%s %.0f MB; first byte seen by %s; first 1 s %.0f Mbit/s; 95%% at +%.2f s, all at +%.2f s (%.1f Mbit/s)" % (
        ps[0][1], ps[-1][1], total / 1e6, ps[0][1], (first[2] - b0) * 8 / (first[0] - t0) / 1e6, t95 - t0, tend - t0, total * 8 / (tend - t0) / 1e6))
    i = 0
    while i < len(ps) - 1:
        j = i
        while j + 1 < len(ps) and ps[j + 1][2] - ps[i][2] < 0.3 * 31.25e6 * (ps[j + 1][0] - ps[i][0]) and ps[j + 1][2] < total:
            j += 1
        if ps[j][0] - ps[i][0] >= 0.25:
            states = []
            for p in ps[i:j + 1]:
                w = p[3]
                states.append("%s:cw%s/g%s%s ns%s un%s" % (p[1][6:11], g(r"cwnd:(\d+)", w), g(r"cwnd_gain:([\d.]+)", w), " al" if "app_limited" in w else "",
                                                         g(r"notsent:(\d+)", w, "0"), g(r"unacked:(\d+)", w, "0")))
            print("  stall %.2f s from %s (+%.2f): %s" % (ps[j][0] - ps[i][0], ps[i][1], ps[i][0] - t0, "; ".join(states[:6])))
            i = j
        i += 1
