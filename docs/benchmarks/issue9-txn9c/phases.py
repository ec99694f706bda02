#!/usr/bin/env python3
"""phases.py DIR: per-step times (ms) of txdiag.py's client.jsonl and server.jsonl, joined by request number,
and the server's first writes / clients' last bytes per 100 ms (lockstep shows as bursts)."""
import json, sys, collections
d = sys.argv[1]
cl = {c["i"]: c for c in (json.loads(l) for l in open(d + "/client.jsonl"))}
sv = {}
for l in open(d + "/server.jsonl", errors="ignore").read().replace("\0", "").splitlines():
    if l.strip():
        t = json.loads(l); sv[t.get("i")] = t
rows = []
for i, c in cl.items():
    s = sv.get(i)
    if not s: continue
    rows.append({
        "client connect (its loop)": c["conn"] - c["t0"],
        "client conn -> server accept (branch, OPEN, DC)": s["accept"] - c["conn"],
        "server accept -> request read": s["req"] - s["accept"],
        "server write -> client first byte (DC, WAN, branch)": c["first"] - s["write"],
        "client first -> last byte": c["last"] - c["first"],
        "server write -> drained": s["drained"] - s["write"],
        "total": c["last"] - c["t0"],
    })
def q(v, p): v = sorted(v); return v[min(len(v) - 1, int(p * len(v)))]
print("n=%d" % len(rows))
for k in rows[0]:
    v = [r[k] * 1000 for r in rows]
    print("%-52s p10 %6.1f p50 %6.1f p90 %6.1f p99 %6.1f mean %6.1f" % (k, q(v, .1), q(v, .5), q(v, .9), q(v, .99), sum(v) / len(v)))
t0 = min(c["t0"] for c in cl.values())
for name, ts in (("server first writes", [s["write"] for s in sv.values() if "write" in s]), ("client last bytes", [c["last"] for c in cl.values()])):
    h = collections.Counter(int((t - t0) / 0.1) for t in ts)
    print("%s per 100 ms: %s" % (name, " ".join(str(h.get(k, 0)) for k in range(max(h) + 1))))
