import re, sys
# parse.py ss-dc.txt [from to]: one line per sample of the largest-delivered WAN socket
lo = sys.argv[2] if len(sys.argv) > 2 else ""; hi = sys.argv[3] if len(sys.argv) > 3 else "99"
t = None; prev = None
def g(p, s, d="-"):
    m = re.search(p, s); return m.group(1) if m else d
for line in open(sys.argv[1]):
    if line.startswith("T "):
        t = line[2:].strip(); continue
    if "bbr" not in line or not (lo <= t <= hi): continue
    dl = int(g(r" delivered:(\d+)", line, "0"))
    rate = ""
    if prev and dl >= prev[1]:
        h = lambda x: int(x[0:2])*3600+int(x[3:5])*60+float(x[6:])
        dt = h(t) - h(prev[0]); rate = "%.0f" % ((dl - prev[1]) * 1448 * 8 / dt / 1e6) if dt > 0 else ""
    prev = (t, dl)
    print(t, "cwnd", g(r"cwnd:(\d+)", line), "dlv/s", rate, "bw", "%.0f" % (int(g(r"bw:(\d+)bps", line, "0"))/1e6), "pace", "%.0f" % (int(g(r"pacing_rate (\d+)bps", line, "0"))/1e6),
          "gain", g(r"pacing_gain:([\d.]+)", line), "unack", g(r"unacked:(\d+)", line), "sack", g(r"sacked:(\d+)", line),
          "lost", g(r"lost:(\d+)", line), "nsent", g(r"notsent:(\d+)", line, "0"), "al" if "app_limited" in line else "  ",
          "rtt", g(r" rtt:([\d.]+)", line), "bbrmin", g(r"bbr:\(.*?mrtt:([\d.]+)", line), "minrtt", g(r" minrtt:([\d.]+)", line),
          "busy", g(r"busy:(\d+)", line), "rwl", g(r"rwnd_limited:(\d+)", line), "sbl", g(r"sndbuf_limited:(\d+)", line))
