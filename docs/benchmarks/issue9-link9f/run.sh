#!/bin/bash
# run.sh LABEL JAR [MODES] [ONLY]: one bench run (default --issue9 --only 9.2) with the ss/CPU trace; call under the lock.
# TREE: the tree whose bench/ runs (default the worktree); ROWS -> BULK9_ROWS.
label="$1"; jar="$2"; modes="${3:-tcpopt tcpopt-nolink}"; only="${4:-9.2}"; o=/work/brief/out/link9f/$label
tree="${TREE:-/work/wt/link9f}"
mkdir -p "$o"; echo "start $(date -u +%T) $(uptime)" > "$o/uptime.txt"
STATE=$tree/bench/target/state/link9f/tcpopt-testbed /work/brief/out/link9f/sstrace.sh "$o/ss-dc.txt" "${TRACE_IV:-0.2}" & tp=$!
cd "$tree" && BULK9_ROWS="${ROWS:-300/0.5}" TCPOPT_NS_PREFIX=link9f- TCPOPT_JAR="$jar" bench/run.sh --issue9 --only "$only" --modes "$modes" --out "$o" > "$o/run.log" 2>&1
kill $tp 2>/dev/null
echo "end $(date -u +%T) $(uptime)" >> "$o/uptime.txt"
grep -E "Mbit/s rtt|warmed|re-dialled|echo p50" "$o/run.log" | sed "s/^/$label /"
