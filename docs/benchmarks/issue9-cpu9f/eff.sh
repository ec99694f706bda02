#!/bin/bash
# eff.sh HOLD "label|jar|java opts|modes" ... : experiment 5 runs back to back (call under the bench lock)
cd /work/wt/cpu9f
hold="$1"; shift
log=/work/brief/out/cpu9f/$hold.log
for spec in "$@"; do
  IFS='|' read -r label jar opts modes <<< "$spec"
  out=/work/brief/out/cpu9f/$hold-$label
  echo "== $label start $(date -u +%T) $(uptime)" >> "$log"
  TCPOPT_NS_PREFIX=cpu9f- TCPOPT_JAR="$jar" TCPOPT_JAVA_OPTS="$opts" bench/run.sh --only 5 --modes "$modes" --out "$out" >> "$log" 2>&1
  echo "== $label end $(date -u +%T) $(uptime)" >> "$log"
  grep -h . "$out/efficiency.csv" | sed "s/^/$label: /" >> "$log"
done
