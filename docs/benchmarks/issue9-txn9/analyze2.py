import json, sys, re
d = sys.argv[1]
cl = {c["i"]: c for c in (json.loads(l) for l in open(d + "/client.jsonl"))}
sv = {}
for l in open(d + "/server.jsonl", errors="ignore").read().replace("\0", "").splitlines():
    if l.strip():
        t = json.loads(l); sv[t.get("i")] = t
def parse(f, key):
    out = {}
    for l in open(f):
        if "TIMING" not in l: continue
        m = re.search(r"leg \S*?:(\d+) local \S*?:(\d+) (.*)", l)
        rp, lp, rest = m.groups(); rest = rest.replace(" up ", " ").replace("start", "legstart", 1)
        kv = dict(zip(rest.split()[0::2], rest.split()[1::2]))
        kv = {k: (int(v) / 1000.0 if v.isdigit() and len(v) > 9 else v) for k, v in kv.items()}
        out[int(rp if key == "remote" else lp)] = kv
    return out
br = parse(d + "/branch.log", "remote")   # by client port
dc = parse(d + "/dc.log", "local")        # by the DC's port toward the server
rows = []
for i, c in cl.items():
    s = sv.get(i); b = br.get(c["port"]); x = dc.get(s["port"]) if s else None
    if not (s and b and x): continue
    # the DC's stream created = OPEN arrived
    r = {
      "client connect (py)": c["conn"] - c["t0"],
      "branch accept - conn": b["created"] - c["conn"],
      "branch OPEN sent - accept": b["open"] - b["created"],
      "req read at branch - accept": b["fromLeg"] - b["created"],
      "DC got OPEN - OPEN sent": x["created"] - b["open"],
      "DC connected - got OPEN": x["joined"] - x["created"],
      "DC req to leg - got OPEN": x["toLegDone"] - x["created"],
      "server accept - DC connected": s["accept"] - x["joined"],
      "server req read - DC req written": s["req"] - x["toLegDone"],
      "server write - req": s["write"] - s["req"],
      "DC first read - server write": x["fromLeg"] - s["write"],
      "DC first poll - DC first read": x["firstPoll"] - x["fromLeg"],
      "branch first data - DC first poll": b["firstData"] - x["firstPoll"],
      "client first - branch first data": c["first"] - b["firstData"],
      "DC last poll - first poll": x["lastPoll"] - x["firstPoll"],
      "server drained - write": s["drained"] - s["write"],
      "branch last written - DC last poll": b["toLegLast"] - x["lastPoll"],
      "client last - branch last written": c["last"] - b["toLegLast"],
      "total": c["last"] - c["t0"],
    }
    rows.append(r)
def q(v, p): v = sorted(v); return v[min(len(v)-1, int(p*len(v)))]
print("n=%d" % len(rows))
for k in rows[0]:
    v = [r[k]*1000 for r in rows]
    print("%-36s p10 %7.1f p50 %7.1f p90 %7.1f p99 %7.1f mean %7.1f" % (k, q(v,.1), q(v,.5), q(v,.9), q(v,.99), sum(v)/len(v)))
if len(sys.argv) > 2:
    xs = sorted(dc.values(), key=lambda x: x["firstPoll"] or 1e18)
    t0 = min(x["firstPoll"] for x in xs if x["firstPoll"])
    import collections
    h = collections.Counter(int((x["firstPoll"] - t0) / 0.1) for x in xs if x["firstPoll"])
    print("DC first polls per 100 ms:", " ".join(str(h.get(k, 0)) for k in range(max(h) + 1)))
    h2 = collections.Counter(int((x["lastPoll"] - t0) / 0.1) for x in xs if x["lastPoll"])
    print("DC last polls per 100 ms: ", " ".join(str(h2.get(k, 0)) for k in range(max(h2) + 1)))
