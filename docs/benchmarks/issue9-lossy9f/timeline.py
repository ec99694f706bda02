import re, sys
# timeline.py TRACE [BIN]: per transfer (the client's 4 data connections), per BIN s (default 0.2): what the client got
# (Mbit/s), what the DC's bulk WAN socket sent (bytes_sent delta, Mbit/s), its state at the bin's end (pacing, delivery,
# cwnd, unacked/sacked/lost packets, notsent, Send-Q, app-limited, rwnd/sndbuf-limited ms in the bin), the DC LAN
# sockets' Recv-Q (bytes the DC node left unread) and the branch's WAN Recv-Q (bytes its node left unread).
# Then where the time beyond 400 MB at 240 Mbit/s went: start (first 1 s), middle, tail (last 5% of bytes).
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
binw = float(sys.argv[2]) if len(sys.argv) > 2 else 0.2
for key, ps in sorted(transfers.items(), key=lambda kv: kv[1][0]["t"]):
    for p in ps: p["got"] = sum(p["data"].values())
    total = ps[-1]["got"]
    if total < 100e6: continue
    t0 = ps[0]["t"]; tend = next(p for p in ps if p["got"] >= total)["t"]
    print("transfer from %s: %.0f MB, last byte at +%.2f s" % (ps[0]["ts"], total / 1e6, tend - t0))
    print("   t   client  dcsent pacing deliv  cwnd unack sack lost  notsent   sendq app rwnd sndbuf  dcLANrq  brRecvQ")
    prev = ps[0]; nxt = t0 + binw; lost = {"start": 0.0, "middle": 0.0, "tail": 0.0}
    for p in ps[1:]:
        if p["t"] < nxt and p is not ps[-1]: continue
        dt = p["t"] - prev["t"]; w = p["wan"]; pw = prev["wan"]
        def d(f, a=w, b=pw): return int(g(f, a, "0")) - int(g(f, b, "0"))
        def ms(f, a): return int(g(f + r":(\d+)ms", a, "0"))
        got = p["got"] - prev["got"]; sent = d(r"bytes_sent:(\d+)")
        sendq = int(w.split()[1]) if w else 0
        print("%5.1f %7.0f %7.0f %6.0f %5.0f %5s %5s %4s %4s %8s %7d %3s %4d %6d %8d %8d" % (
            p["t"] - t0, got * 8 / dt / 1e6, sent * 8 / dt / 1e6, int(g(r"pacing_rate (\d+)", w, "0")) / 1e6,
            int(g(r"delivery_rate (\d+)", w, "0")) / 1e6, g(r"cwnd:(\d+)", w, "-"), g(r"unacked:(\d+)", w, "0"),
            g(r"sacked:(\d+)", w, "0"), g(r"lost:(\d+)", w, "0"), g(r"notsent:(\d+)", w, "0"), sendq,
            "A" if "app_limited" in w else "", ms("rwnd_limited", w) - ms("rwnd_limited", pw), ms("sndbuf_limited", w) - ms("sndbuf_limited", pw), p["lan"], p["br"]))
        if p["t"] <= tend:
            phase = "start" if prev["t"] - t0 < 1.0 else "tail" if prev["got"] >= 0.95 * total else "middle"
            lost[phase] += dt - got / RATE
        prev = p; nxt = p["t"] + binw
        if p["t"] > tend + 0.5: break
    print("time beyond 240 Mbit/s: start %.2f s, middle %.2f s, tail %.2f s; ideal %.2f s, took %.2f s" % (
        lost["start"], lost["middle"], lost["tail"], total / RATE, tend - t0))
