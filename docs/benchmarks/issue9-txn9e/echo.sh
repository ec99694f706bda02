#!/usr/bin/env bash
# echo.sh NAME LABEL...: 9.3 (echo beside bulk, tcpopt) once per jar label, in the order given, under one hold of the bench lock.
set -u
NAME=$1; shift
O=/work/brief/out/txn9e
cd /work/wt/txn9e
flock /work/brief/bench.lock bash -c '
O='$O'; NAME='$NAME'
i=0
for L in '"$*"'; do
  i=$((i+1)); D=$O/$NAME-$i-$L; mkdir -p $D
  echo "start $L $(date -u +%T) $(cat /proc/loadavg)" | tee $D/uptime.txt
  TCPOPT_NS_PREFIX=txn9e- TCPOPT_JAR=$O/jars/$L.jar bench/run.sh --issue9 --only 9.3 --modes tcpopt --out $D > $D/bench.out 2>&1
  echo "end $L $(date -u +%T) $(cat /proc/loadavg)" | tee -a $D/uptime.txt
  grep -h "9.3\|echo" $D/bench.out | tail -2
done'
