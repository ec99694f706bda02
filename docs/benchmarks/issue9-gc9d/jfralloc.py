#!/usr/bin/env python3
"""jfralloc.py FILE.jfr: sampled allocation weight by class and by the first tcpopt/netty frame (jfr print)."""
import subprocess, sys, re, collections
out = subprocess.run(["jfr", "print", "--events", "jdk.ObjectAllocationSample", "--stack-depth", "12", sys.argv[1]],
                     capture_output=True, text=True).stdout
by_class, by_site = collections.Counter(), collections.Counter()
total = 0
for ev in out.split("jdk.ObjectAllocationSample")[1:]:
    m = re.search(r"objectClass = (\S+)", ev); w = re.search(r"weight = ([\d.,]+) (\w+)", ev)
    if not m or not w:
        continue
    val = float(w.group(1).replace(",", "")) * {"bytes": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9}.get(w.group(2), 1)
    frames = re.findall(r"^\s+([\w.$<>]+)\(", ev, re.M)
    site = next((f for f in frames if f.startswith("io.tcpopt")), frames[0] if frames else "?")
    by_class[m.group(1)] += val; by_site[site + " <- " + m.group(1)] += val; total += val
print("total sampled weight %.1f MB" % (total / 1e6))
for k, v in by_class.most_common(12): print("%6.1f%% %s" % (100 * v / total, k))
print()
for k, v in by_site.most_common(20): print("%6.1f%% %s" % (100 * v / total, k))
