#!/bin/bash
# exploratory: main's jar, default stream window (A) vs wan.stream-window 1MiB (B), loopback exp 5
cd /work/wt/cpu9g
O=/work/brief/out/cpu9g/win; n=0
for x in A B B A; do
  n=$((n+1)); w=""; [ $x = B ] && w=1MiB
  m="tcpopt"; [ $n = 1 ] && m="tcpopt haproxy"
  echo "$(date -u +%H:%M:%S) $x$n win=${w:-default} $(uptime | sed 's/.*load/load/')"
  TCPOPT_STREAM_WINDOW=$w TCPOPT_NS_PREFIX=cpu9g- TCPOPT_JAR=/work/brief/out/cpu9g/jars/main.jar bench/run.sh --only 5 --modes "$m" --out $O/$x$n > $O/$x$n.log 2>&1
  grep -h "CPU s/GB" $O/$x$n.log | tail -2
done
echo "$(date -u +%H:%M:%S) end $(uptime | sed 's/.*load/load/')"
