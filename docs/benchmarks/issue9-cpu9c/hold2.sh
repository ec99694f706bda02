#!/bin/bash
# hold 2: experiment 5, main vs gather (TlsWriteGather), ABAB, HAProxy in the first
cd /work/wt/cpu9c
O=/work/brief/out/cpu9c
M=$O/jars/main-dd118ec.jar G=$O/jars/gather-775c020.jar
run() { # run LABEL JAR MODES [env...]
  local label=$1 jar=$2 modes=$3; shift 3
  echo "$label start $(date -u +%H:%M:%S) $(cat /proc/loadavg)"
  env "$@" TCPOPT_NS_PREFIX=cpu9c- TCPOPT_JAR=$jar bench/run.sh --only 5 --modes "$modes" --out $O/h2-$label > $O/h2-$label.log 2>&1
  echo "$label end $(date -u +%H:%M:%S) $(cat /proc/loadavg) $(grep tcpopt $O/h2-$label/efficiency.csv) $(grep haproxy $O/h2-$label/efficiency.csv)"
}
run main1 $M "tcpopt haproxy"
run gather1 $G tcpopt EFF_PROFILE=1
run main2 $M tcpopt
run gather2 $G tcpopt
