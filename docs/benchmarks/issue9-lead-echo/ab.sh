#!/bin/bash
# one hold: runs given as LABEL:JAR:RTT ...; A = main (8f8bf62), B = h/echo9h-probertt (e4a9775)
cd /work/wt/lead; O=/work/brief/out/lead/echoab; D=$O/$1; shift
for spec in "$@"; do
  IFS=: read -r r j rtt <<< "$spec"
  mkdir -p $D/$r
  s="$r $j rtt $rtt start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
  INTERACTIVE_RTT=$rtt TCPOPT_NS_PREFIX=lead- TCPOPT_JAR=/work/brief/out/lead/jars/$j.jar bench/run.sh --issue9 --only 9.3 --modes tcpopt --out $D/$r/r > $D/$r/run.log 2>&1
  echo "$s end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg): $(grep 'echo p50' $D/$r/run.log | sed 's/.*tcpopt: //')"
done
