#!/bin/bash
O=/work/brief/out/stranger9i; J=$O/jars/main-95e2810.jar; H=$O/hold.sh
$H h2-knobs TCPOPT_JAR=$J FAST_RTT=200 FAIR_FLOWS=3 FAIR_RTT=200 bench/run.sh --issue9 --only 9.2,9.4 --modes "direct tcpopt haproxy"
( sleep 20; $O/sstrace.sh $O/h2-repeat-ss.txt 150 ) &
$H h2-repeat TCPOPT_JAR=$J BULK9_ROWS="30/1 200/0.5 30/1" bench/run.sh --issue9 --only 9.1 --modes "tcpopt haproxy"
wait
