#!/usr/bin/env bash
# hold 3: main's jar (851e3bc), bench of 2037b38: 1/4/16 flows at 150/0.5 for tcpopt; a single direct flow
# at 300/0 with ss of the sender; the echo at 200 ms; fairness of 16 flows
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
for f in 1 4 16; do run h3-flows$f 9.1 tcpopt BULK9_FLOWS=$f BULK9_ROWS=150/0.5; done
$O/sstrace2.sh $O/h3-direct1-ss.txt scout9g-server 'sport = :5201' & SS=$!
run h3-direct1 9.1 direct BULK9_FLOWS=1 BULK9_ROWS="300/0 150/0" BULK9_CAP=20
kill $SS
run h3-echo200 9.3 "tcpopt direct haproxy" INTERACTIVE_RTT=200
run h3-fair16 9.4 "tcpopt haproxy" FAIR_FLOWS=16
echo "end $(date -u +%H:%M:%S) $(uptime)"
