#!/bin/bash
cd /work/brief/out/latency9c
TCPOPT_WAN_EXPRESS=true ./run93.sh expB2 /work/brief/out/latency9c/jars/express2.jar
./run93.sh mainA2 /work/brief/out/latency9c/jars/main-dd118ec.jar
echo "fair start $(date -u +%H:%M:%S) $(uptime)" >> runs.txt
cd /work/wt/latency9c && TCPOPT_WAN_EXPRESS=true TCPOPT_NS_PREFIX=latency9c- TCPOPT_JAR=/work/brief/out/latency9c/jars/express2.jar bench/run.sh --issue9 --only 9.4 --modes tcpopt --out /work/brief/out/latency9c/fairB2 > /work/brief/out/latency9c/fairB2.log 2>&1
echo "fair end $(date -u +%H:%M:%S) $(uptime)" >> /work/brief/out/latency9c/runs.txt
tail -1 /work/brief/out/latency9c/fairB2/fairness*.csv >> /work/brief/out/latency9c/runs.txt
