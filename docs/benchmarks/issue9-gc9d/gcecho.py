#!/usr/bin/env python3
"""gcecho.py RUNDIR: joins 9.3's echo samples (logs/interactive-tcpopt.json, during the bulk) with the nodes'
safepoint pauses (gc-*.log, -Xlog:...safepoint:...:utctime): for echoes above the p95, how many overlap a pause
of either node longer than 5 ms; pause counts and sizes during the bulk."""
import glob, json, re, sys, datetime, os
d = sys.argv[1]
j = json.load(open(os.path.join(d, "logs/interactive-tcpopt.json")))
bulk = json.load(open(os.path.join(d, "logs/interactive-bulk-tcpopt.json")))
t_start = bulk["start"]["timestamp"]["timesecs"]
dur = bulk["end"]["sum_received"]["seconds"] if "sum_received" in bulk["end"] else bulk["end"]["sum"]["seconds"]
samples = [(t, ms) for t, ms in j["samples_s_ms"] if t_start <= t <= t_start + dur]
pat = re.compile(r'^\[(\S+?)\]\[\d+ms\] Safepoint "(\w+)".*Total: (\d+) ns')
gcpat = re.compile(r'^\[(\S+?)\]\[\d+ms\] GC\(\d+\) (Pause.*?) (\d+\.\d+)ms')
pauses = []  # (start, end, ms, what, file)
gcs = []
for f in glob.glob(os.path.join(d, "gc-*.log")):
    for line in open(f):
        m = pat.match(line)
        if m:
            end = datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%f%z").timestamp()
            ms = int(m.group(3)) / 1e6
            pauses.append((end - ms / 1000, end, ms, m.group(2), os.path.basename(f)))
        m = gcpat.match(line)
        if m:
            end = datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%f%z").timestamp()
            gcs.append((end, float(m.group(3)), m.group(2)))
inbulk = [p for p in pauses if t_start <= p[1] <= t_start + dur]
big = [p for p in inbulk if p[2] > 5]
lat = sorted(ms for _, ms in samples)
p50, p95, p99 = (lat[int(len(lat) * q)] for q in (0.5, 0.95, 0.99))
print("%s: %d echoes in %.1f s of bulk: p50 %.1f p95 %.1f p99 %.1f max %.1f" % (d, len(lat), dur, p50, p95, p99, lat[-1]))
print("safepoints during bulk: %d, total %.1f ms, >5 ms: %d (%s)" % (len(inbulk), sum(p[2] for p in inbulk), len(big),
      ", ".join("%.0f" % p[2] for p in sorted(big, key=lambda p: -p[2])[:15])))
gin = [g for g in gcs if t_start <= g[0] <= t_start + dur]
print("GC pauses during bulk: %d, total %.1f ms, max %.1f" % (len(gin), sum(g[1] for g in gin), max([g[1] for g in gin] or [0])))
slow = [(t, ms) for t, ms in samples if ms >= p95]
hit = 0
for t, ms in slow:
    ov = [p for p in pauses if p[0] <= t + ms / 1000 and p[1] >= t and p[2] > 5]
    if ov:
        hit += 1
print("echoes >= p95 (%d): %d overlap a pause > 5 ms" % (len(slow), hit))
allhit = sum(1 for t, ms in samples if any(p[0] <= t + ms / 1000 and p[1] >= t and p[2] > 5 for p in pauses))
print("all echoes overlapping a pause > 5 ms: %d of %d" % (allhit, len(samples)))
for t, ms in sorted(slow, key=lambda s: -s[1])[:8]:
    ov = [p for p in pauses if p[0] <= t + ms / 1000 and p[1] >= t and p[2] > 1]
    print("  %s %.1f ms  pauses: %s" % (datetime.datetime.utcfromtimestamp(t).strftime("%H:%M:%S.%f")[:-3], ms,
          ", ".join("%s %.1f" % (p[3], p[2]) for p in ov) or "-"))
