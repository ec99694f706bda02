#!/usr/bin/env bash
# ab.sh NAME LABEL... (jars in /work/brief/out/txn9e/jars/LABEL.jar): experiment 3 (tcpopt) once per jar label, in
# the order given, under one hold of the bench lock (txn9c's ab.sh, prefix txn9e-, the launcher's flags).
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
  TCPOPT_NS_PREFIX=txn9e- TCPOPT_JAR=$O/jars/$L.jar bench/run.sh --issue9 --only 3 --modes tcpopt --out $D > $D/bench.out 2>&1
  echo "end $L $(date -u +%T) $(cat /proc/loadavg)" | tee -a $D/uptime.txt
  echo "$L $(tail -1 $D/*/transactions.csv 2>/dev/null || tail -1 $D/transactions.csv)"
done'
