#!/bin/bash
# hold1: 9.4 fairness and 9.1 bulk, main (express off by default) vs on1 (express on by default), back to back under one lock hold
cd /work/wt/express9d
O=/work/brief/out/express9d
J=$O/jars
run() { # label jar args...
  local label=$1 jar=$2; shift 2
  echo "$label start $(date -u +%T) $(uptime)" >> $O/runs.txt
  TCPOPT_NS_PREFIX=express9d- TCPOPT_JAR=$J/$jar bench/run.sh "$@" --out $O/$label > $O/$label.log 2>&1
  echo "$label end $(date -u +%T) $(uptime) rc=$?" >> $O/runs.txt
}
run fairA main-00521f2.jar --issue9 --only 9.4 --modes tcpopt
run fairB on1.jar --issue9 --only 9.4 --modes tcpopt
BULK9_ROWS="0/0 150/0.5 300/0" run bulkA main-00521f2.jar --issue9 --only 9.1 --modes "tcpopt tcpopt-nolink"
BULK9_ROWS="0/0 150/0.5 300/0" run bulkB on1.jar --issue9 --only 9.1 --modes "tcpopt tcpopt-nolink"
