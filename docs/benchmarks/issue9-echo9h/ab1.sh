#!/bin/bash
# one hold: B (traced), A, B, A at 200 ms
cd /work/wt/echo9h; O=/work/brief/out/echo9h
for r in B1 A1 B2 A2; do
  j=main; [ "${r:0:1}" = B ] && j=probe1
  echo "$r $j start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
  mkdir -p $O/ab1/$r
  $O/trace.sh echo9h- $O/ab1/$r/ss.txt 200 & TP=$!
  INTERACTIVE_RTT=200 TCPOPT_NS_PREFIX=echo9h- TCPOPT_JAR=$O/jars/$j.jar bench/run.sh --issue9 --only 9.3 --modes tcpopt --out $O/ab1/$r/r > $O/ab1/$r/run.log 2>&1
  kill $TP
  echo "$r $j end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg): $(grep 'echo p50' $O/ab1/$r/run.log | sed 's/.*tcpopt: //')"
done
