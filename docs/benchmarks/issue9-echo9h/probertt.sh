#!/bin/bash
# probertt.sh RUNDIR...: ticks (time since the echo's first sample) where a node's express socket had cwnd 4 (PROBE_RTT) with segments unacked
for r in "$@"; do
  P=$(grep ", express" $r/r/logs/nodes-*-dc.log 2>/dev/null | tail -1 | sed -e 's/.*-> \/[0-9.]*:\([0-9]*\), express.*/\1/')
  out=$(python3 /work/brief/out/echo9h/ana.py $r/ss.txt $r/r/logs/interactive-tcpopt.json -30 30 $P 2>/dev/null | python3 -c "
import re, sys
hits = []
for line in sys.stdin:
    t = line.split('|')[0].strip()
    for m in re.finditer(r'(DC|BR):X\d+ rtt=[0-9.]+ cw=4 \S+ unack=(\d+)', line):
        hits.append('%s@%s' % (m.group(1), t))
print(' '.join(hits) or 'none')")
  echo "$(basename $r): $out"
done
