#!/bin/bash
# hold 4: 9.2 A/B, tcpopt only: main (dd118ec) vs gather (775c020 = landed e1bea05), ABAB
cd /work/wt/cpu9c
O=/work/brief/out/cpu9c
for L in main-dd118ec gather-775c020 main-dd118ec gather-775c020; do
  i=$((i+1))
  echo "$i $L start $(date -u +%H:%M:%S) $(cat /proc/loadavg)"
  TCPOPT_NS_PREFIX=cpu9c- TCPOPT_JAR=$O/jars/$L.jar bench/run.sh --issue9 --only 9.2 --modes "tcpopt" --out $O/h4-$i-$L > $O/h4-$i-$L.log 2>&1
  echo "$i $L end $(date -u +%H:%M:%S) $(cat /proc/loadavg) $(grep '^tcpopt' $O/h4-$i-$L/bulk9.csv)"
done
