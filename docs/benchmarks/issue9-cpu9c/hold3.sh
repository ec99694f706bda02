#!/bin/bash
# hold 3: 9.2 (600 Mbit/s, 100 ms) and 9.1's 0 ms / 0 row, direct and tcpopt, main at 0f91b4c (TlsWriteGather)
cd /work/wt/cpu9c
O=/work/brief/out/cpu9c
J=$O/jars/gather-775c020.jar
echo "9.2 start $(date -u +%H:%M:%S) $(cat /proc/loadavg)"
TCPOPT_NS_PREFIX=cpu9c- TCPOPT_JAR=$J bench/run.sh --issue9 --only 9.2 --modes "direct tcpopt" --out $O/h3-92 > $O/h3-92.log 2>&1
echo "9.1 start $(date -u +%H:%M:%S) $(cat /proc/loadavg)"
BULK9_ROWS="0/0" TCPOPT_NS_PREFIX=cpu9c- TCPOPT_JAR=$J bench/run.sh --issue9 --only 9.1 --modes "direct tcpopt" --out $O/h3-91 > $O/h3-91.log 2>&1
echo "end $(date -u +%H:%M:%S) $(cat /proc/loadavg)"
