#!/bin/bash
# run.sh LABEL JAR [MODES]: one bench run of $ONLY (default 9.1) over $ROWS with the ss trace; call under the lock.
label="$1"; jar="$2"; modes="${3:-tcpopt}"; o=/work/brief/out/lossy9g/$label
mkdir -p "$o"; echo "start $(date -u +%T) $(uptime)" > "$o/uptime.txt"
/work/brief/out/lossy9g/sstrace.sh "$o/ss.txt" "${TRACE_IV:-0.1}" & tp=$!
cd /work/wt/lossy9g && BULK9_ROWS="${ROWS:-150/1 200/1 300/1}" TCPOPT_NS_PREFIX=lossy9g- TCPOPT_JAR="$jar" bench/run.sh --issue9 --only "${ONLY:-9.1}" --modes "$modes" --out "$o" > "$o/run.log" 2>&1
kill $tp 2>/dev/null
echo "end $(date -u +%T) $(uptime)" >> "$o/uptime.txt"
grep -E "Mbit/s rtt|p99|echo" "$o/run.log" | sed "s/^/$label /"
