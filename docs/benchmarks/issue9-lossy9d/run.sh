#!/bin/bash
# run.sh LABEL JAR [MODES]: one 9.1 run of $ROWS (default 300/0.5 300/2) with the ss trace; call under the lock
label="$1"; jar="$2"; modes="${3:-tcpopt tcpopt-nolink}"; o=/work/brief/out/lossy9d/$label
mkdir -p "$o"; echo "start $(date -u +%T) $(uptime)" > "$o/uptime.txt"
/work/brief/out/lossy9d/sstrace.sh "$o/ss-dc.txt" & tp=$!
cd /work/wt/lossy9d && BULK9_ROWS="${ROWS:-300/0.5 300/2}" TCPOPT_NS_PREFIX=lossy9d- TCPOPT_JAR="$jar" bench/run.sh --issue9 --only 9.1 --modes "$modes" --out "$o" > "$o/run.log" 2>&1
kill $tp 2>/dev/null
echo "end $(date -u +%T) $(uptime)" >> "$o/uptime.txt"
