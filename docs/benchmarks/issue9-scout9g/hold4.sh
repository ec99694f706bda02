#!/usr/bin/env bash
# hold 4: repeats of hold 3's two misses on a quieter machine: the echo at 200 ms (tcpopt), 1 and 4 streams at 150/0.5
cd /work/wt/scout9g
O=/work/brief/out/scout9g
J=$O/jars/main-851e3bc.jar
run() { # run OUT ONLY MODES [ENV...]
  local out="$1" only="$2" modes="$3"; shift 3
  echo "$out $only $modes $*: $(date -u +%H:%M:%S) $(cut -d' ' -f1-3 /proc/loadavg)"
  env "$@" TCPOPT_NS_PREFIX=scout9g- TCPOPT_JAR=$J \
    bench/run.sh --issue9 --only "$only" --modes "$modes" --out $O/$out >> $O/$out.log 2>&1
}
echo "start $(date -u +%H:%M:%S) $(uptime)"
$O/sstrace.sh $O/h4-ss.txt & SS=$!
run h4-echo200 9.3 tcpopt INTERACTIVE_RTT=200
kill $SS
for f in 1 4; do run h4-flows$f 9.1 tcpopt BULK9_FLOWS=$f BULK9_ROWS=150/0.5; done
echo "end $(date -u +%H:%M:%S) $(uptime)"
