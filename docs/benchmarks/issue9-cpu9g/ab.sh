#!/bin/bash
# ab.sh OUTDIR "label|jar|java_opts|stream_window|modes" ...  (one lock hold taken by the caller)
cd /work/wt/cpu9g
O=$1; shift; mkdir -p $O; n=0
for spec in "$@"; do
  IFS='|' read -r l j o w m <<< "$spec"; n=$((n+1))
  echo "$(date -u +%H:%M:%S) $l$n jar=$j opts='$o' win=${w:-default} $(uptime | sed 's/.*load/load/')"
  TCPOPT_STREAM_WINDOW=$w TCPOPT_JAVA_OPTS="-Xmx1g $o" TCPOPT_NS_PREFIX=cpu9g- TCPOPT_JAR=/work/brief/out/cpu9g/jars/$j.jar \
    bench/run.sh --only 5 --modes "${m:-tcpopt}" --out $O/$l$n > $O/$l$n.log 2>&1
  grep -h "CPU s/GB" $O/$l$n.log | grep -v direct | tail -2
done
echo "$(date -u +%H:%M:%S) end $(uptime | sed 's/.*load/load/')"
