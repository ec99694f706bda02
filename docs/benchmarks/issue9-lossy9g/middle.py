import sys, subprocess, statistics as st
# middle.py TRACE: per transfer of timeline.py's 0.5 s bins, from 1 s to 1 s before the last byte: median pacing,
# mean client and DC-sent Mbit/s, bins with cwnd <= 4 (PROBE_RTT).
out = subprocess.run(["python3", "timeline.py", sys.argv[1], "0.5"], capture_output=True, text=True).stdout.splitlines()
rows = []; head = None
def flush():
    if head and rows:
        last = rows[-1][0]; mid = [r for r in rows if 1.0 <= r[0] <= last - 1.0]
        if mid:
            print(f"{head}  pacing p50 {st.median(r[3] for r in mid):.0f}  client {st.mean(r[1] for r in mid):.1f}  dcsent {st.mean(r[2] for r in mid):.1f}  probe_rtt bins {sum(1 for r in mid if r[5] <= 4)}")
for l in out:
    if l.startswith("transfer from"):
        flush(); head = l.split(":")[0] + ":" + l.split(":")[1] + ":" + l.split(":")[2][:6] + l.split(",")[0][-7:]; rows = []
    else:
        f = l.split()
        if len(f) > 6 and f[0].replace(".", "").isdigit():
            rows.append([float(f[0]), float(f[1]), float(f[2]), float(f[3]), float(f[4]), float(f[5])])
flush()
