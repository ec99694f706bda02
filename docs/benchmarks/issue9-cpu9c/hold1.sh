#!/bin/bash
# hold 1: main's jar, experiment 5: A (default allocator, with HAProxy, profile), B (pooled allocator), A again if time
cd /work/wt/cpu9c
J=/work/brief/out/cpu9c/jars/main-dd118ec.jar
O=/work/brief/out/cpu9c
t0=$(date +%s)
echo "A start $(date -u +%H:%M:%S) $(uptime)"
EFF_PROFILE=1 TCPOPT_NS_PREFIX=cpu9c- TCPOPT_JAR=$J bench/run.sh --only 5 --modes "tcpopt haproxy" --out $O/h1-A > $O/h1-A.log 2>&1
echo "B start $(date -u +%H:%M:%S) $(uptime)"
TCPOPT_JAVA_OPTS="-Xmx1g -Dio.netty.allocator.type=pooled" TCPOPT_NS_PREFIX=cpu9c- TCPOPT_JAR=$J bench/run.sh --only 5 --modes "tcpopt" --out $O/h1-B > $O/h1-B.log 2>&1
echo "B end $(date -u +%H:%M:%S) $(uptime)"
if [ $(( $(date +%s) - t0 )) -lt 360 ]; then
  TCPOPT_NS_PREFIX=cpu9c- TCPOPT_JAR=$J bench/run.sh --only 5 --modes "tcpopt" --out $O/h1-A2 > $O/h1-A2.log 2>&1
  echo "A2 end $(date -u +%H:%M:%S) $(uptime)"
fi
