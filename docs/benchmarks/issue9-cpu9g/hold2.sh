#!/bin/bash
cd /work/wt/cpu9g
echo "$(date -u +%H:%M:%S) trace c2 $(uptime | sed 's/.*load/load/')"
JAR=/work/brief/out/cpu9g/jars/c2.jar TAG=-c2 /work/brief/out/cpu9g/trace.sh
python3 /work/brief/out/cpu9g/count.py /work/brief/out/cpu9g/trace-c2/dc.strace /work/brief/out/cpu9g/trace-c2/branch.strace
/work/brief/out/cpu9g/ab.sh /work/brief/out/cpu9g/ab4 "main|main|||tcpopt haproxy" "c2|c2||" "c2|c2||" "main|main||"
