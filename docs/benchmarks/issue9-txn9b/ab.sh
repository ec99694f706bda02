#!/usr/bin/env bash
# ab.sh TAG NAME=JAR...: experiment 3 (--issue9 --only 3 --modes tcpopt) once per jar, in order, under one hold of the lock
cd /work/wt/txn9b
tag="$1"; shift
for pair in "$@"; do
  name="${pair%%=*}" jar="${pair#*=}" out="/work/brief/out/txn9b/$tag-$name"
  echo "$name $jar start $(date -u +%H:%M:%S) load $(cat /proc/loadavg)"
  TCPOPT_NS_PREFIX=txn9b- TCPOPT_JAR="$jar" bench/run.sh --issue9 --only 3 --modes tcpopt --out "$out" > "$out.log" 2>&1
  echo "$name end $(date -u +%H:%M:%S) load $(cat /proc/loadavg): $(grep 'tcpopt: ' "$out.log" | sed 's/.*tcpopt: //')"
done
