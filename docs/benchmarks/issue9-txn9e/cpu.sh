#!/usr/bin/env bash
# cpu.sh JAR OUTDIR [PERF]: experiment 3's load (loadgen.py fetch --new-connection, 600 x 256 KiB, concurrency 23,
# testbed at 100 ms / 250 Mbit/s) through tcpopt nodes started as bench/run.sh starts them; 1200 unrecorded
# transactions, then 600 measured ones, with each node's and the server's CPU ticks over the measured 600
# (and with PERF=1, `perf record -g` of both nodes over them: the JVMs run with frame pointers and write
# /tmp/perf-PID.map at exit). The caller holds the bench lock. Prefix txn9e-.
set -euo pipefail
JAR="$1" OUT="$2" PERF="${3:-0}"
export TCPOPT_NS_PREFIX=txn9e- TCPOPT_JAR="$JAR"
B=/work/wt/txn9e/bench
. $B/testbed/lib.sh
mkdir -p "$OUT"
cleanup() { kill $SRV 2>/dev/null || true; $B/testbed/tcpopt-nodes.sh down >/dev/null 2>&1 || true; $B/testbed/down.sh >/dev/null 2>&1 || true; }
trap cleanup EXIT
$B/testbed/up.sh --rtt 100 --rate 250 --loss 0 --queue 1000 2>&1 | tail -1
ip netns exec $NS_SERVER setsid python3 $B/tools/loadgen.py serve --bind $SERVER_IP --port 8081 > "$OUT/server.out" 2>&1 &
SRV=$!
OPTS="-Xmx1g"
[ "$PERF" = 0 ] || OPTS="$OPTS -XX:+PreserveFramePointer -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit"
JAVA_OPTS="$OPTS ${EXTRA_JAVA_OPTS:-}" $B/testbed/tcpopt-nodes.sh up --bandwidth 250 --rtt 250 2>&1 | tail -1
sleep 0.5
fetch() { ip netns exec $NS_CLIENT python3 $B/tools/loadgen.py fetch --host $SERVER_IP --port 8081 --size 262144 --requests 600 \
  --concurrency 23 --new-connection --deadline 150; }
echo "start $(date -u +%T) load $(cat /proc/loadavg)" > "$OUT/env.txt"
fetch > "$OUT/warm1.json"; fetch > "$OUT/warm2.json"
PIDS="$($B/testbed/tcpopt-nodes.sh pids | tr '\n' ' ')"
cpu() { local p; for p in $PIDS $SRV; do echo -n "$p:$(awk '{print $14 + $15}' /proc/$p/stat) "; done; }
C0=$(cpu)
echo "measured from $(date -u +%T.%N)" >> "$OUT/env.txt"
[ "$PERF" = 0 ] || { perf record -F 497 -g -p "$(echo $PIDS | tr ' ' ,)" -o "$OUT/perf.data" > "$OUT/perf.out" 2>&1 & PP=$!; sleep 0.3; }
fetch > "$OUT/result.json"
[ "$PERF" = 0 ] || { kill -INT $PP; wait $PP || true; }
C1=$(cpu)
echo "measured to $(date -u +%T.%N)" >> "$OUT/env.txt"
echo "CPU ticks (of $(getconf CLK_TCK)/s), branch dc server: $C0 -> $C1" >> "$OUT/env.txt"
echo "end $(date -u +%T) load $(cat /proc/loadavg)" >> "$OUT/env.txt"
python3 - "$C0" "$C1" "$OUT/result.json" <<'PY' | tee -a "$OUT/env.txt"
import json, sys
b = [int(x.split(':')[1]) for x in sys.argv[1].split()]; a = [int(x.split(':')[1]) for x in sys.argv[2].split()]
r = json.load(open(sys.argv[3])); n = r["completed"]
ms = [(y - x) * 10.0 / n for x, y in zip(b, a)]
print("total %.3f s p50 %.4f p99 %.4f; CPU ms per transaction: branch %.2f dc %.2f server %.2f" % (r["total_s"], r["p50_s"], r["p99_s"], *ms))
PY
$B/testbed/tcpopt-nodes.sh down > /dev/null 2>&1 || true
cp $B/target/state/txn9e/tcpopt-testbed/{branch,dc}.log "$OUT/" 2>/dev/null || true
sleep 1
