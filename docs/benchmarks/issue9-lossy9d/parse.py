import re, sys
# parse.py ss-dc.txt [from to]: per sample: the DC's busiest WAN socket, plus the DC's LAN Recv-Q sum (bytes
# from the iperf3 server the DC node has not read) and the branch's WAN Recv-Q (in-order bytes not read)
lo = sys.argv[2] if len(sys.argv) > 2 else ""; hi = sys.argv[3] if len(sys.argv) > 3 else "99"
def g(p, s, d="-"):
    m = re.search(p, s); return m.group(1) if m else d
h = lambda x: int(x[0:2])*3600+int(x[3:5])*60+float(x[6:])
samples = []; cur = None
for line in open(sys.argv[1]):
    if line.startswith("T "):
        cur = {"t": line[2:].strip(), "wan": [], "lan": 0, "br": 0}; samples.append(cur); continue
    if cur is None: continue
    if line.startswith("LAN "):
        cur["lan"] += int(line.split()[1]); continue
    if line.startswith("BR "):
        cur["br"] = max(cur["br"], int(line.split()[1])); continue
    if "bbr" in line or "cubic" in line:
        cur["wan"].append(line)
prev = {}
for s in samples:
    t = s["t"]
    if not (lo <= t <= hi) or not s["wan"]: continue
    best = max(s["wan"], key=lambda l: int(g(r" delivered:(\d+)", l, "0")))
    key = g(r"(\S+:7800\s+\S+)", best)
    dl = int(g(r" delivered:(\d+)", best, "0"))
    rate = ""
    if key in prev and dl >= prev[key][1]:
        dt = h(t) - h(prev[key][0]); rate = "%.0f" % ((dl - prev[key][1]) * 1448 * 8 / dt / 1e6) if dt > 0 else ""
    prev[key] = (t, dl)
    print(t, "cwnd", g(r"cwnd:(\d+)", best), "dlv/s", rate, "bw", "%.0f" % (int(g(r"bw:(\d+)bps", best, "0"))/1e6),
          "pace", "%.0f" % (int(g(r"pacing_rate (\d+)bps", best, "0"))/1e6), "gain", g(r"pacing_gain:([\d.]+)", best),
          "unack", g(r"unacked:(\d+)", best), "sack", g(r"sacked:(\d+)", best), "lost", g(r"lost:(\d+)", best),
          "nsent", g(r"notsent:(\d+)", best, "0"), "al" if "app_limited" in best else "  ",
          "rtt", g(r" rtt:([\d.]+)", best), "lanQ", s["lan"], "brQ", s["br"])
