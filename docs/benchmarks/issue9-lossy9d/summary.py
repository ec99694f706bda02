import json, re, sys, glob, os, datetime
# summary.py RUNDIR...: per 9.1 row: total, the client's first three 1-s intervals (Mbit/s), and from the
# DC's ss trace during the row: samples in PROBE_RTT (cwnd_gain 1), the largest unacknowledged (packets)
def secs(t): return int(t[0:2])*3600+int(t[3:5])*60+float(t[6:])
for run in sys.argv[1:]:
    trace = open(os.path.join(run, "ss-dc.txt")).read().split("\nT ")
    for f in sorted(glob.glob(os.path.join(run, "logs", "bulk9-*.json"))):
        d = json.load(open(f)); e = d["end"]["sum_received"]
        t0 = datetime.datetime.utcfromtimestamp(d["start"]["timestamp"]["timesecs"]).strftime("%H:%M:%S")
        lo, hi = secs(t0), secs(t0) + e["seconds"] + 1
        probe = 0; unack = 0
        for blk in trace:
            t = blk.split("\n", 1)[0].replace("T ", "").strip()
            if not re.match(r"\d\d:\d\d:\d\d", t) or not (lo <= secs(t) <= hi): continue
            wan = [l for l in blk.split("\n") if "bbr:(" in l]
            if not wan: continue
            best = max(wan, key=lambda l: int((re.search(r" delivered:(\d+)", l) or [0, "0"])[1]))
            if "cwnd_gain:1)" in best: probe += 1
            m = re.search(r"unacked:(\d+)", best); unack = max(unack, int(m.group(1)) if m else 0)
        first = " ".join("%.0f" % (i["sum"]["bits_per_second"] / 1e6) for i in d["intervals"][:3])
        print("%-12s %-48s %s  %.1f Mbit/s %.2f s  first 3 s: %-12s probe_rtt samples %d  max unacked %d" % (
            os.path.basename(run), os.path.basename(f)[6:-5], t0, e["bits_per_second"] / 1e6, e["seconds"], first, probe, unack))
