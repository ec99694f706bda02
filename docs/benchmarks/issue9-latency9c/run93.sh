#!/bin/bash
# run93.sh LABEL JAR [JAVA_OPTS] : one 9.3 run of tcpopt (caller holds the lock), with uptime before/after
label=$1; jar=$2; opts=$3
out=/work/brief/out/latency9c/$label
echo "$label start $(date -u +%H:%M:%S) $(uptime)" >> /work/brief/out/latency9c/runs.txt
cd /work/wt/latency9c
TCPOPT_JAVA_OPTS="$opts" TCPOPT_NS_PREFIX=latency9c- TCPOPT_JAR=$jar bench/run.sh --issue9 --only 9.3 --modes tcpopt --out $out > $out.log 2>&1
echo "$label end $(date -u +%H:%M:%S) $(uptime) rc=$?" >> /work/brief/out/latency9c/runs.txt
cat $out/interactive.csv | tail -1 >> /work/brief/out/latency9c/runs.txt
