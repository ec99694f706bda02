#!/bin/bash
# one hold: LABEL:JAR:RTT ...; each 9.3 run with ss -tin of both nodes' WAN sockets (port 7800) every 200 ms
cd /work/wt/echo9i; D=/work/brief/out/echo9i/diag/$1; shift
for spec in "$@"; do
  IFS=: read -r r j rtt <<< "$spec"
  mkdir -p $D/$r
  s="$r $j rtt $rtt start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
  ( while :; do for n in dc branch; do ts=$(date +%s.%N | cut -c1-14); ip netns exec echo9i-$n ss -tin '( sport = :7800 or dport = :7800 )' 2>/dev/null | awk -v t=$ts -v n=$n '{print t, n, $0}'; done; sleep 0.2; done >> $D/$r/ss.txt ) &
  SP=$!
  INTERACTIVE_RTT=$rtt TCPOPT_NS_PREFIX=echo9i- TCPOPT_JAR=/work/brief/out/echo9i/jars/$j.jar bench/run.sh --issue9 --only 9.3 --modes tcpopt --out $D/$r/r > $D/$r/run.log 2>&1
  kill $SP
  echo "$s end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg): $(grep 'echo p50' $D/$r/run.log | sed 's/.*tcpopt: //')"
done
