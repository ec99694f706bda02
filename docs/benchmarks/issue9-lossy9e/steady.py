import json, re, sys, glob, os, datetime
# steady.py RUNDIR...: per 9.1 row, from the DC's ss trace: mean delivery rate (Mbit/s of 1448-byte packets,
# retransmissions included) of the busiest WAN socket from 2 s after the row's start to 1 s before its end,
# mean pacing rate and bw estimate over those samples, share of samples with gain 1 / 1.25 / 0.75 / 2.89
def secs(t): return int(t[0:2])*3600+int(t[3:5])*60+float(t[6:])
def g(p, s, d=None):
    m = re.search(p, s); return m.group(1) if m else d
for run in sys.argv[1:]:
    trace = open(os.path.join(run, "ss-dc.txt")).read().split("\nT ")
    samples = []
    for blk in trace:
        t = blk.split("\n", 1)[0].replace("T ", "").strip()
        if not re.match(r"\d\d:\d\d:\d\d", t): continue
        wan = [l for l in blk.split("\n") if "bbr:(" in l]
        if not wan: continue
        best = max(wan, key=lambda l: int(g(r" delivered:(\d+)", l, "0")))
        samples.append((secs(t), best))
    for f in sorted(glob.glob(os.path.join(run, "logs", "bulk9-*.json"))):
        d = json.load(open(f)); e = d["end"]["sum_received"]
        t0 = d["start"]["timestamp"]["timesecs"]; t0s = datetime.datetime.utcfromtimestamp(t0)
        lo = t0s.hour*3600+t0s.minute*60+t0s.second + 2; hi = lo - 2 + e["seconds"] - 1
        s = [(t, l) for t, l in samples if lo <= t <= hi]
        if len(s) < 3: print(run, f, "few samples"); continue
        d0 = int(g(r" delivered:(\d+)", s[0][1])); d1 = int(g(r" delivered:(\d+)", s[-1][1]))
        rate = (d1 - d0) * 1448 * 8 / (s[-1][0] - s[0][0]) / 1e6
        pace = sum(int(g(r"pacing_rate (\d+)bps", l, "0")) for _, l in s) / len(s) / 1e6
        bw = sum(int(g(r"bw:(\d+)bps", l, "0")) for _, l in s) / len(s) / 1e6
        gains = {}
        for _, l in s:
            k = g(r"pacing_gain:([\d.]+)", l, "?"); gains[k] = gains.get(k, 0) + 1
        al = sum(1 for _, l in s if "app_limited" in l)
        ns0 = sum(1 for _, l in s if int(g(r"notsent:(\d+)", l, "0")) == 0)
        print("%-10s %-40s total %.1f  steady dlv %.1f pace %.1f bw %.1f  n %d al %d nsent0 %d gains %s" % (
            os.path.basename(run), os.path.basename(f)[6:-5], e["bits_per_second"] / 1e6, rate, pace, bw, len(s), al, ns0,
            " ".join("%s:%d" % (k, v) for k, v in sorted(gains.items()))))
