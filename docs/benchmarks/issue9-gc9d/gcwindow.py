#!/usr/bin/env python3
"""gcwindow.py RUNDIR START END (UTC HH:MM:SS): safepoint pauses of each node (gc-*.log) between START and END:
count, total and largest, and the GC pauses among them."""
import glob, re, sys, os
d, a, b = sys.argv[1:4]
pat = re.compile(r'^\[\S+T(\d\d:\d\d:\d\d\.\d+)\S*\]\[\d+ms\] Safepoint "(\w+)".*Total: (\d+) ns')
for f in sorted(glob.glob(os.path.join(d, "gc-*.log"))):
    ps = [(m.group(2), int(m.group(3)) / 1e6) for m in map(pat.match, open(f)) if m and a <= m.group(1) <= b]
    if not ps:
        continue
    big = sorted((ms for _, ms in ps if ms > 1), reverse=True)
    print("%s %s: %d safepoints, %.1f ms in all, > 1 ms: %s" % (d, os.path.basename(f), len(ps), sum(ms for _, ms in ps),
          " ".join("%.0f" % ms for ms in big[:12]) or "-"))
