import re, sys
# start.py TRACE FROM TO: per sample of sstrace.sh's trace: the client's data bytes received (Mbit/s since the last
# sample, and MB so far in this window), the control connection's bytes, the DC's bulk WAN socket (the busiest):
# delivery rate, cwnd, unacked, notsent, app-limited, pacing, gain; its express socket's unacked/notsent/retrans;
# the DC LAN Recv-Q.
lo, hi = sys.argv[2], sys.argv[3]
def g(p, s, d=None):
    m = re.search(p, s); return m.group(1) if m else d
def secs(t): return int(t[0:2])*3600+int(t[3:5])*60+float(t[6:])
samples = []; cur = None
for line in open(sys.argv[1]):
    if line.startswith("T "):
        cur = {"t": line[2:].strip(), "wan": [], "lan": 0, "cl": []}; samples.append(cur); continue
    if cur is None: continue
    if line.startswith("LAN "): cur["lan"] += int(line.split()[1]); continue
    if line.startswith("CL "):
        if line[3:4].isspace() and cur["cl"]: cur["cl"][-1] += line[3:]
        else: cur["cl"].append(line[3:])
        continue
    if "bbr:(" in line or "cubic" in line: cur["wan"].append(line)
base = None; prev = None; prevdl = None
for s in samples:
    if not (lo <= s["t"] <= hi): continue
    cls = [(int(g(r"bytes_received:(\d+)", l, "0")), g(r"(\S+:\d+)\s+\S+:5201", l)) for l in s["cl"]]
    data = sum(b for b, _ in cls if b > 100000); ctrl = [b for b, _ in cls if b <= 100000]
    if base is None: base = data
    rate = ""
    if prev is not None and secs(s["t"]) > secs(prev[0]):
        rate = "%.0f" % ((data - prev[1]) * 8 / (secs(s["t"]) - secs(prev[0])) / 1e6)
    prev = (s["t"], data)
    out = "%s cl %4s %7.1fMB n%d ctrl%s" % (s["t"], rate, (data - base) / 1e6, len(cls), ctrl)
    if s["wan"]:
        wan = sorted(s["wan"], key=lambda l: -int(g(r"bytes_acked:(\d+)", l, "0")))
        b = wan[0]; dl = int(g(r" delivered:(\d+)", b, "0"))
        dr = "%.0f" % ((dl - prevdl[1]) * 1448 * 8 / (secs(s["t"]) - secs(prevdl[0])) / 1e6) if prevdl and secs(s["t"]) > secs(prevdl[0]) else ""
        prevdl = (s["t"], dl)
        out += " | dlv %4s cwnd %s unack %s ns %s %s pace %.0f g %s" % (dr, g(r"cwnd:(\d+)", b), g(r"unacked:(\d+)", b, "0"),
            g(r"notsent:(\d+)", b, "0"), "al" if "app_limited" in b else "  ", int(g(r"pacing_rate (\d+)bps", b, "0")) / 1e6,
            g(r"pacing_gain:([\d.]+)", b))
        for e in wan[1:]:
            out += " | ex unack %s ns %s retr %s rto %s" % (g(r"unacked:(\d+)", e, "0"), g(r"notsent:(\d+)", e, "0"), g(r"retrans:(\S+)", e, "-"), g(r"rto:(\d+)", e))
    out += " | lanQ %d" % s["lan"]
    print(out)
