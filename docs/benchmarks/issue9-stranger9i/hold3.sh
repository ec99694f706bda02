#!/bin/bash
O=/work/brief/out/stranger9i; J=$O/jars/main-95e2810.jar; H=$O/hold.sh
$H h3-swtx TCPOPT_JAR=$J SW_RTT=100 TX_RTT=200 TX_CONCURRENCY=8 TX_REQUESTS9=300 TX_WARMUP_9=300 bench/run.sh --issue9 --only 2,3 --modes "direct tcpopt haproxy"
