import re, sys
# startrate.py TRACE...: per recorded transfer (the client's 4 data connections, >= 400 MB): what the DC's bulk WAN
# socket sent (bytes_sent, retransmissions included) from 0.3 s before the client's first bytes to 1.7 s after
# (Mbit/s), its largest unacknowledged (packets) then, and the samples in it in which the DC node held bytes from
# the LAN (Recv-Q > 1 MB) while its WAN socket had nothing unsent: the sender out of stream credit.
def g(p, s, d=None):
    m = re.search(p, s); return m.group(1) if m else d
def secs(t): return int(t[0:2])*3600+int(t[3:5])*60+float(t[6:])
for path in sys.argv[1:]:
    samples = []; cur = None
    for line in open(path):
        if line.startswith("T "):
            cur = {"t": secs(line[2:].strip()), "wan": [], "lan": 0, "cl": []}; samples.append(cur); continue
        if cur is None: continue
        if line.startswith("CL "):
            b = line[3:]
            if b[:1].isspace() and cur["cl"]: cur["cl"][-1] += b
            else: cur["cl"].append(b)
        elif line.startswith("LAN "): cur["lan"] += int(line.split()[1])
        elif line.startswith("BR "): pass
        elif line[:1].isspace() and cur["wan"]: cur["wan"][-1] += line
        else: cur["wan"].append(line)
    for s in samples:
        s["w"] = max(s["wan"], key=lambda l: int(g(r"bytes_sent:(\d+)", l, "0")), default="")
        conns = {g(r"(\S+:\d+)\s+\S+:5201", l): int(g(r"bytes_received:(\d+)", l, "0")) for l in s["cl"]}
        s["data"] = {k: v for k, v in conns.items() if v > 200000}
    seen = {}
    for i, s in enumerate(samples):
        if len(s["data"]) == 4: seen.setdefault(tuple(sorted(s["data"])), []).append(i)
    for key, idx in sorted(seen.items(), key=lambda kv: kv[1][0]):
        if sum(samples[idx[-1]]["data"].values()) < 400e6: continue
        t0 = samples[idx[0]]["t"]
        win = [s for s in samples if t0 - 0.3 <= s["t"] <= t0 + 1.7]
        sent = int(g(r"bytes_sent:(\d+)", win[-1]["w"], "0")) - int(g(r"bytes_sent:(\d+)", win[0]["w"], "0"))
        dt = win[-1]["t"] - win[0]["t"]
        unack = max(int(g(r"unacked:(\d+)", s["w"], "0")) for s in win)
        stall = sum(1 for s in win if s["lan"] > 1e6 and g(r"notsent:(\d+)", s["w"]) is None)
        print("%-28s %s  DC sent %5.0f Mbit/s, max unacked %5d, credit-stalled samples %2d of %2d" % (
            path.split("/")[0], "%02d:%02d:%05.2f" % (t0 // 3600 % 24, t0 // 60 % 60, t0 % 60), sent * 8 / dt / 1e6, unack, stall, len(win)))
