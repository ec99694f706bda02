#!/usr/bin/env bash
# txn1.sh JAR OUTDIR: testbed at 100 ms / 250 Mbit/s, tcpopt nodes (as bench/run.sh starts them), 300 warm-up transactions,
# then (txn2: the new client first) 600 x 256 KiB at concurrency 23
# alternately with the old (main's) and the new (BufferedProtocol) loadgen client, twice each; the client's CPU per run.
set -euo pipefail
JAR="$1" OUT="$2"
export TCPOPT_NS_PREFIX=txn9b- TCPOPT_JAR="$JAR"
B=/work/wt/txn9b/bench
. $B/testbed/lib.sh
mkdir -p "$OUT"
SRV=""
cleanup() { [ -z "$SRV" ] || kill $SRV 2>/dev/null || true; JAVA_OPTS=-Xmx1g $B/testbed/tcpopt-nodes.sh down >/dev/null 2>&1 || true; $B/testbed/down.sh >/dev/null 2>&1 || true; }
trap cleanup EXIT
cpu() { awk '{print ($14+$15)/100}' /proc/$1/stat; }
run() { # run NAME LOADGEN CONCURRENCY REQUESTS
  local name="$1" lg="$2" c="$3" n="$4" s0
  s0=$(cpu $SRV)
  /usr/bin/time -f "%U %S" -o "$OUT/$name.cputime" ip netns exec $NS_CLIENT python3 "$lg" fetch --host $SERVER_IP --port 8080 \
    --size 262144 --requests "$n" --concurrency "$c" --new-connection --deadline 150 --times > "$OUT/$name.json"
  echo "$name $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg) $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('completed %d total %.3f s (%.2fx floor) p50 %.3f p99 %.3f min %.3f' % (d['completed'], d['total_s'], d['total_s']/5.0332, d['p50_s'], d['p99_s'], d['min_s']))" "$OUT/$name.json") client-cpu $(awk '{print $1+$2}' "$OUT/$name.cputime") s server-cpu $(python3 -c "print(round($(cpu $SRV)-$s0,2))") s" | tee -a "$OUT/summary.txt"
}
$B/testbed/up.sh --rtt 100 --rate 250 --loss 0 --queue 1000 2>&1 | tail -1
ip netns exec $NS_SERVER setsid python3 /tmp/txn9b/loadgen-old.py serve --bind $SERVER_IP --port 8080 > "$OUT/server.out" 2>&1 &
SRV=$!
JAVA_OPTS=-Xmx1g $B/testbed/tcpopt-nodes.sh up --bandwidth 250 --rtt 250 2>&1 | tail -1
sleep 0.5
run warm /tmp/txn9b/loadgen-new.py 23 300
for k in 1 2; do
  run new$k /tmp/txn9b/loadgen-new.py 23 600
  run old$k /tmp/txn9b/loadgen-old.py 23 600
done
cp $STATE_DIR/tcpopt-testbed/*.log "$OUT/" 2>/dev/null || true
cleanup; SRV=""
cd /work/wt/txn9b
echo "exp2 start $(date -u +%H:%M:%S) load $(cat /proc/loadavg)" >> "$OUT/summary.txt"
bench/run.sh --issue9 --only 2 --modes tcpopt --out "$OUT/exp2" > "$OUT/exp2.log" 2>&1 || true
echo "exp2 end $(date -u +%H:%M:%S) load $(cat /proc/loadavg)" >> "$OUT/summary.txt"
