#!/usr/bin/env bash
# harness.sh OUTDIR LOADGEN [RTTS]: experiment 3's load (600 x 256 KiB, a new connection each, concurrency 23)
# without tcpopt: (a) client and server on loopback in one namespace (the Python end hosts' CPU alone),
# (b) direct over the testbed WAN at 250 Mbit/s for each RTT in RTTS (default "0 100").
# Prints the loadgen JSON and the client's and server's CPU seconds per run.
set -euo pipefail
OUT="$1" LG="$2" RTTS="${3:-0 100}"
export TCPOPT_NS_PREFIX=txn9b-
B=/work/wt/txn9b/bench
. $B/testbed/lib.sh
mkdir -p "$OUT"
SRV=""
cleanup() { [ -z "$SRV" ] || kill $SRV 2>/dev/null || true; $B/testbed/down.sh >/dev/null 2>&1 || true; }
trap cleanup EXIT
cpu() { awk '{print ($14+$15)/100}' /proc/$1/stat; }
run() { # run NAME NS HOST
  local name="$1" ns="$2" host="$3" s0 c
  s0=$(cpu $SRV)
  echo "$name load $(cat /proc/loadavg) $(date -u +%H:%M:%S)" >> "$OUT/env.txt"
  /usr/bin/time -f "%U %S" -o "$OUT/$name.cputime" ip netns exec "$ns" python3 "$LG" fetch --host "$host" --port 8080 \
    --size 262144 --requests 600 --concurrency 23 --new-connection --deadline 150 > "$OUT/$name.json"
  c=$(awk '{print $1+$2}' "$OUT/$name.cputime")
  echo "$name $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('completed %d total %.3f s (%.2fx floor) p50 %.3f p99 %.3f' % (d['completed'], d['total_s'], d['total_s']/5.0332, d['p50_s'], d['p99_s']))" "$OUT/$name.json") client-cpu $c s server-cpu $(python3 -c "print(round($(cpu $SRV)-$s0,2))") s" | tee -a "$OUT/summary.txt"
}
$B/testbed/up.sh --rtt 100 --rate 250 --loss 0 --queue 1000 2>&1 | tail -1
# (a) loopback inside the client namespace
ip netns exec $NS_CLIENT ip link set lo up
ip netns exec $NS_CLIENT setsid python3 "$LG" serve --bind 127.0.0.1 --port 8080 > "$OUT/server-lo.out" 2>&1 &
SRV=$!; sleep 0.5
run loopback $NS_CLIENT 127.0.0.1
kill $SRV; wait $SRV 2>/dev/null || true
# (b) direct over the WAN
ip netns exec $NS_SERVER setsid python3 "$LG" serve --bind $SERVER_IP --port 8080 > "$OUT/server.out" 2>&1 &
SRV=$!; sleep 0.5
for rtt in $RTTS; do
  $B/testbed/link.sh --rtt "$rtt" 2>&1 | tail -1
  sleep 1
  run "direct-rtt$rtt" $NS_CLIENT $SERVER_IP
done
