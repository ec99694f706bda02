#!/bin/bash
O=/work/brief/out/stranger9i; J=$O/jars/main-95e2810.jar; H=$O/hold.sh
$H h5-30-1 TCPOPT_JAR=$J BULK9_ROWS="30/1 30/1" bench/run.sh --issue9 --only 9.1 --modes "tcpopt haproxy"
