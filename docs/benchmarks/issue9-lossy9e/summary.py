import json, re, sys, glob, os, datetime
# summary.py RUNDIR...: per 9.1 row: Mbit/s, seconds, the client's first three 1-s intervals, and from the DC's ss
# trace during the row: samples in PROBE_RTT (cwnd_gain 1) and the kernel's / BBR's minimum RTT at the row's end
def secs(t): return int(t[0:2])*3600+int(t[3:5])*60+float(t[6:])
for run in sys.argv[1:]:
    trace = open(os.path.join(run, "ss-dc.txt")).read().split("\nT ")
    blocks = []
    for blk in trace:
        t = blk.split("\n", 1)[0].replace("T ", "").strip()
        if not re.match(r"\d\d:\d\d:\d\d", t): continue
        wan = [l for l in blk.split("\n") if "bbr:(" in l]
        if wan: blocks.append((secs(t), max(wan, key=lambda l: int((re.search(r"bytes_acked:(\d+)", l) or [0, "0"])[1]))))
    up = open(os.path.join(run, "uptime.txt")).read().split()
    for f in sorted(glob.glob(os.path.join(run, "logs", "bulk9-*.json")), key=os.path.getmtime):
        d = json.load(open(f)); e = d["end"]["sum_received"]
        t0 = datetime.datetime.utcfromtimestamp(d["start"]["timestamp"]["timesecs"])
        lo = t0.hour * 3600 + t0.minute * 60 + t0.second; hi = lo + e["seconds"] + 1
        rows = [l for t, l in blocks if lo <= t <= hi]
        probe = sum(1 for l in rows if "cwnd_gain:1)" in l)
        last = rows[-1] if rows else ""
        kmin = (re.search(r" minrtt:([\d.]+)", last) or [0, "?"])[1]; bmin = (re.search(r"mrtt:([\d.]+)", last) or [0, "?"])[1]
        first = " ".join("%.0f" % (i["sum"]["bits_per_second"] / 1e6) for i in d["intervals"][:3])
        print("%-14s %-36s %s  %6.1f Mbit/s %5.2f s  first 3 s: %-12s PROBE_RTT samples %2d of %3d  min RTT kernel %s BBR %s" % (
            os.path.basename(run), os.path.basename(f)[6:-5], t0.strftime("%H:%M:%S"), e["bits_per_second"] / 1e6, e["seconds"], first,
            probe, len(rows), kmin, bmin))
