#!/bin/bash
# run.sh LABEL JAR [MODES]: one 9.1 run of $ROWS (default 300/1 150/1) with the ss trace; call under the lock.
label="$1"; jar="$2"; modes="${3:-tcpopt tcpopt-nolink}"; o=/work/brief/out/tail9h/$label
mkdir -p "$o"; echo "start $(date -u +%T) $(uptime)" > "$o/uptime.txt"
/work/brief/out/tail9h/sstrace2.sh "$o/ss" "${TRACE_IV:-0.05}" & tp=$!
cd /work/wt/tail9h && BULK9_ROWS="${ROWS:-300/1 150/1}" TCPOPT_NS_PREFIX=tail9h- TCPOPT_JAR="$jar" bench/run.sh --issue9 --only "${ONLY:-9.1}" --modes "$modes" --out "$o" > "$o/run.log" 2>&1
kill $tp 2>/dev/null
echo "end $(date -u +%T) $(uptime)" >> "$o/uptime.txt"
grep -E "Mbit/s rtt|link settles|re-dialled" "$o/run.log" | sed "s/^/$label /"
