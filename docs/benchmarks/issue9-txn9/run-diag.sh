#!/usr/bin/env bash
# run-diag.sh JAR OUTDIR [WARM_REQUESTS]: testbed at 100 ms, tcpopt nodes, warm-up transactions, then
# 600 measured transactions with per-phase timestamps at client and server, ss samples of the WAN sockets.
set -euo pipefail
JAR="$1" OUT="$2" WARM="${3:-600}"
export TCPOPT_NS_PREFIX=txn9- TCPOPT_JAR="$JAR"
B=/work/wt/txn9/bench
. $B/testbed/lib.sh
mkdir -p "$OUT"
cleanup() { kill $SRV 2>/dev/null || true; JAVA_OPTS=-Xmx1g $B/testbed/tcpopt-nodes.sh down >/dev/null 2>&1 || true; $B/testbed/down.sh >/dev/null 2>&1 || true; }
trap cleanup EXIT
$B/testbed/up.sh --rtt 100 --rate 250 --loss 0 --queue 1000 2>&1 | tail -1
ip netns exec $NS_SERVER setsid python3 /tmp/txn9/diag/txdiag.py serve --bind $SERVER_IP --port 8081 --log "$OUT/server.jsonl" > "$OUT/server.out" 2>&1 &
SRV=$!
JAVA_OPTS="${TCPOPT_JAVA_OPTS:--Xmx1g}" $B/testbed/tcpopt-nodes.sh up --bandwidth 250 --rtt 250 2>&1 | tail -1
sleep 0.5
echo "load at start: $(cat /proc/loadavg)" > "$OUT/env.txt"
for w in 1 2; do
  ip netns exec $NS_CLIENT python3 /tmp/txn9/diag/txdiag.py fetch --host $SERVER_IP --port 8081 --requests "$WARM" > "$OUT/warm$w.json"
done
mv "$OUT/server.jsonl" "$OUT/server-warm.jsonl"
( while :; do echo "T $(date +%s.%N)"; ip netns exec $NS_DC ss -tinH "sport = :7800"; sleep 0.05; done ) > "$OUT/ss-dc.txt" 2>&1 &
SS=$!
ip netns exec $NS_CLIENT python3 /tmp/txn9/diag/txdiag.py fetch --host $SERVER_IP --port 8081 --log "$OUT/client.jsonl" > "$OUT/result.json"
kill $SS
echo "load at end: $(cat /proc/loadavg)" >> "$OUT/env.txt"
cp $STATE_DIR/tcpopt-testbed/*.log "$OUT/" 2>/dev/null || true
cat "$OUT/warm1.json" "$OUT/warm2.json" "$OUT/result.json"
