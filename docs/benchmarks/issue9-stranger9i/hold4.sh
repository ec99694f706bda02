#!/bin/bash
O=/work/brief/out/stranger9i; J=$O/jars/main-95e2810.jar; H=$O/hold.sh
$H h4-sw100 TCPOPT_JAR=$J SW_RTT=100 bench/run.sh --issue9 --only 2 --modes "tcpopt haproxy"
