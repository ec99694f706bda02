#!/usr/bin/env bash
# hold 1: off-grid bulk rows, main's jar (851e3bc)
cd /work/wt/scout9g
O=/work/brief/out/scout9g
J=$O/jars/main-851e3bc.jar
echo "start $(date -u +%H:%M:%S) $(uptime)"
$O/sstrace.sh $O/h1-ss.txt & SS=$!
BULK9_ROWS="100/0.5 250/1 45/2 200/0 120/0.5" TCPOPT_NS_PREFIX=scout9g- TCPOPT_JAR=$J \
  bench/run.sh --issue9 --only 9.1 --modes "tcpopt tcpopt-nolink haproxy" --out $O/h1-rows > $O/h1-rows.log 2>&1
echo "mid $(date -u +%H:%M:%S) $(uptime)"
BULK9_ROWS="200/0" TCPOPT_NS_PREFIX=scout9g- TCPOPT_JAR=$J \
  bench/run.sh --issue9 --only 9.1 --modes "direct" --out $O/h1-rows >> $O/h1-rows.log 2>&1
kill $SS
echo "end $(date -u +%H:%M:%S) $(uptime)"
