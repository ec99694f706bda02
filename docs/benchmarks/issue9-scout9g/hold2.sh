#!/usr/bin/env bash
# hold 2: bulk of other shapes (1 flow, 16 flows, upload), main's jar (851e3bc), bench of d918da3
cd /work/wt/scout9g
O=/work/brief/out/scout9g
J=$O/jars/main-851e3bc.jar
run() { # run OUT MODES ROWS [ENV...]
  local out="$1" modes="$2" rows="$3"; shift 3
  echo "$out $modes $rows $*: $(date -u +%H:%M:%S) $(cut -d' ' -f1-3 /proc/loadavg)"
  env "$@" BULK9_ROWS="$rows" TCPOPT_NS_PREFIX=scout9g- TCPOPT_JAR=$J \
    bench/run.sh --issue9 --only 9.1 --modes "$modes" --out $O/$out >> $O/$out.log 2>&1
}
echo "start $(date -u +%H:%M:%S) $(uptime)"
$O/sstrace.sh $O/h2-ss.txt & SS=$!
run h2-one "tcpopt haproxy" "150/0.5 300/0" BULK9_FLOWS=1
run h2-one "direct" "300/0" BULK9_FLOWS=1
run h2-sixteen "tcpopt haproxy" "150/0.5 300/0" BULK9_FLOWS=16
run h2-up "tcpopt haproxy" "150/0.5 300/0" BULK9_DIRECTION=up
run h2-up "direct" "300/0" BULK9_DIRECTION=up
kill $SS
echo "end $(date -u +%H:%M:%S) $(uptime)"
