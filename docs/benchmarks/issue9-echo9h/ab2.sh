#!/bin/bash
# one hold: runs given as LABEL:JAR:RTT ...
cd /work/wt/echo9h; O=/work/brief/out/echo9h; D=$O/$1; shift
for spec in "$@"; do
  IFS=: read -r r j rtt <<< "$spec"
  echo "$r $j rtt $rtt start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
  mkdir -p $D/$r
  $O/trace.sh echo9h- $D/$r/ss.txt 200 & TP=$!
  INTERACTIVE_RTT=$rtt TCPOPT_NS_PREFIX=echo9h- TCPOPT_JAR=$O/jars/$j.jar bench/run.sh --issue9 --only 9.3 --modes tcpopt --out $D/$r/r > $D/$r/run.log 2>&1
  kill $TP
  echo "$r $j rtt $rtt end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg): $(grep 'echo p50' $D/$r/run.log | sed 's/.*tcpopt: //')"
done
