#!/bin/bash
# run.sh LABEL JAR [MODES]: one 9.1 run of $ROWS (default 300/0.5 300/2) with the ss trace; call under the lock.
# TCPOPT_JAVA_OPTS passes through (experiments only).
label="$1"; jar="$2"; modes="${3:-tcpopt}"; o=/work/brief/out/lossy9e/$label
mkdir -p "$o"; echo "start $(date -u +%T) $(uptime)" > "$o/uptime.txt"
/work/brief/out/lossy9e/sstrace.sh "$o/ss-dc.txt" "${TRACE_IV:-0.1}" & tp=$!
cd "${TREE:-/work/wt/lossy9e}" && BULK9_ROWS="${ROWS:-300/0.5 300/2}" TCPOPT_NS_PREFIX=lossy9e- TCPOPT_JAR="$jar" bench/run.sh --issue9 --only 9.1 --modes "$modes" --out "$o" > "$o/run.log" 2>&1
kill $tp 2>/dev/null
echo "end $(date -u +%T) $(uptime)" >> "$o/uptime.txt"
grep -E "Mbit/s rtt|link settles|re-dialled" "$o/run.log" | sed "s/^/$label /"
