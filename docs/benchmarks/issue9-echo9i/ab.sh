#!/bin/bash
# one hold: runs given as LABEL:JAR:RTT ... (JAR a label under /work/brief/out/echo9i/jars); INTERACTIVE_LOSS passes through if the run.sh takes it
cd /work/wt/echo9i; O=/work/brief/out/echo9i/ab; D=$O/$1; shift
for spec in "$@"; do
  IFS=: read -r r j rtt <<< "$spec"
  mkdir -p $D/$r
  s="$r $j rtt $rtt start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
  INTERACTIVE_RTT=$rtt TCPOPT_NS_PREFIX=echo9i- TCPOPT_JAR=/work/brief/out/echo9i/jars/$j.jar bench/run.sh --issue9 --only 9.3 --modes tcpopt --out $D/$r/r > $D/$r/run.log 2>&1
  echo "$s end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg): $(grep 'echo p50' $D/$r/run.log | sed 's/.*tcpopt: //')"
done
