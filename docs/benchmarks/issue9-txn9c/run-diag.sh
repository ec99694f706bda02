#!/usr/bin/env bash
# run-diag.sh JAR OUTDIR [WARM]: (txn9's run-diag.sh, prefix txn9c-) testbed at 100 ms, tcpopt nodes, 2 x WARM warm-up
# transactions, then 600 measured ones with per-step wall-clock timestamps at client and server (txdiag.py). Caller holds the lock.
set -euo pipefail
JAR="$1" OUT="$2" WARM="${3:-600}"
export TCPOPT_NS_PREFIX=txn9c- TCPOPT_JAR="$JAR"
B=/work/wt/txn9c/bench
TX=/work/wt/txn9c/docs/benchmarks/issue9-txn9/txdiag.py
. $B/testbed/lib.sh
mkdir -p "$OUT"
cleanup() { kill $SRV 2>/dev/null || true; $B/testbed/tcpopt-nodes.sh down >/dev/null 2>&1 || true; $B/testbed/down.sh >/dev/null 2>&1 || true; }
trap cleanup EXIT
$B/testbed/up.sh --rtt 100 --rate 250 --loss 0 --queue 1000 2>&1 | tail -1
ip netns exec $NS_SERVER setsid python3 $TX serve --bind $SERVER_IP --port 8081 --log "$OUT/server.jsonl" > "$OUT/server.out" 2>&1 &
SRV=$!
JAVA_OPTS="${TCPOPT_JAVA_OPTS:--Xmx1g}" $B/testbed/tcpopt-nodes.sh up --bandwidth 250 --rtt 250 2>&1 | tail -1
sleep 0.5
echo "start $(date -u +%T) load $(cat /proc/loadavg)" > "$OUT/env.txt"
for w in 1 2; do
  ip netns exec $NS_CLIENT python3 $TX fetch --host $SERVER_IP --port 8081 --requests "$WARM" > "$OUT/warm$w.json"
done
mv "$OUT/server.jsonl" "$OUT/server-warm.jsonl"
cpu() { local p; for p in $($B/testbed/tcpopt-nodes.sh pids) $SRV; do echo -n "$p:$(awk '{print $14 + $15}' /proc/$p/stat) "; done; }
C0=$(cpu)
[ -z "${QUEUES:-}" ] || { $(dirname "$0")/queues.sh > "$OUT/queues.txt" 2>&1 & QS=$!; }
ip netns exec $NS_CLIENT python3 $TX fetch --host $SERVER_IP --port 8081 --log "$OUT/client.jsonl" > "$OUT/result.json"
[ -z "${QUEUES:-}" ] || kill $QS
echo "CPU ticks (of $(getconf CLK_TCK)/s) pid:before -> pid:after, nodes (tcpopt-nodes.sh pids) then the server: $C0 -> $(cpu)" >> "$OUT/env.txt"
echo "end $(date -u +%T) load $(cat /proc/loadavg)" >> "$OUT/env.txt"
cat "$OUT/warm1.json" "$OUT/warm2.json" "$OUT/result.json"
