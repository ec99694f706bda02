import re, sys
# tail.py TRACE (lossy9f's sstrace.sh format; parsing from its timeline.py): per transfer, from the DC bulk WAN socket's
# last new byte to the client's last byte, as tail2.py does.
RATE = 240e6 / 8
def g(p, s, d=None):
    m = re.search(p, s); return m.group(1) if m else d
def secs(t): return int(t[0:2])*3600+int(t[3:5])*60+float(t[6:])
samples = []; cur = None; last = None
for line in open(sys.argv[1]):
    if line.startswith("T "):
        cur = {"t": secs(line[2:].strip()), "ts": line[2:].strip(), "wan": [], "lan": [], "br": [], "cl": []}; samples.append(cur); last = None; continue
    if cur is None: continue
    for tag, key in (("LAN ", "lan"), ("BR ", "br"), ("CL ", "cl")):
        if line.startswith(tag):
            body = line[len(tag):]
            if body[:1].isspace() and cur[key]: cur[key][-1] += body
            else: cur[key].append(body)
            break
    else:
        if line[:1].isspace() and cur["wan"]: cur["wan"][-1] += line
        else: cur["wan"].append(line)
def q(l, i): return int(l.split()[i])
pts = []
for s in samples:
    conns = {g(r"(\S+:\d+)\s+\S+:5201", l): int(g(r"bytes_received:(\d+)", l, "0")) for l in s["cl"]}
    data = {k: v for k, v in conns.items() if v > 200000}
    wan = max(s["wan"], key=lambda l: int(g(r"bytes_sent:(\d+)", l, "0")), default="")
    pts.append(dict(t=s["t"], ts=s["ts"], data=data, wan=wan, lan=sum(q(l, 0) for l in s["lan"]), br=max([q(l, 0) for l in s["br"]] or [0])))
transfers = {}
for p in pts:
    if len(p["data"]) == 4:
        transfers.setdefault(tuple(sorted(p["data"])), []).append(p)

# tail.py TRACE: per transfer, the tail: from the DC bulk WAN socket's last new byte (bytes_sent - bytes_retrans within
# 64 KB of its value when the client had everything) to the client's last byte; the sampling is ~0.1-0.15 s.
def nb(w): return int(g(r"bytes_sent:(\d+)", w, "0")) - int(g(r"bytes_retrans:(\d+)", w, "0"))
for key, ps in sorted(transfers.items(), key=lambda kv: kv[1][0]["t"]):
    for p in ps: p["got"] = sum(p["data"].values())
    total = ps[-1]["got"]
    if total < 100e6: continue
    t0 = ps[0]["t"]; iend = next(i for i, p in enumerate(ps) if p["got"] >= total); tend = ps[iend]["t"]
    fin = nb(ps[iend]["wan"])
    inew = next(i for i, p in enumerate(ps) if nb(p["wan"]) >= fin - 65536)
    tn = ps[inew]["t"]
    seg = ps[inew:iend + 1]
    rtx = nb and (int(g(r"bytes_retrans:(\d+)", ps[iend]["wan"], "0")) - int(g(r"bytes_retrans:(\d+)", ps[inew]["wan"], "0")))
    print("%s %4.0f MB took %6.2f s; last new byte at +%.2f, tail %.2f s; in the tail: max sacked %s, max lost %s, %d KB retransmitted" % (
        ps[0]["ts"], total / 1e6, tend - t0, tn - t0, tend - tn, max(int(g(r"sacked:(\d+)", p["wan"], "0")) for p in seg),
        max(int(g(r"lost:(\d+)", p["wan"], "0")) for p in seg), rtx / 1024))
