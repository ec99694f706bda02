#!/bin/bash
# hold2: 9.3 interactive beside bulk and 5 loopback efficiency, main (express off by default) vs on1 (express on by default), under one lock hold
cd /work/wt/express9d
O=/work/brief/out/express9d
J=$O/jars
run() { # label jar args...
  local label=$1 jar=$2; shift 2
  echo "$label start $(date -u +%T) $(uptime)" >> $O/runs.txt
  TCPOPT_NS_PREFIX=express9d- TCPOPT_JAR=$J/$jar bench/run.sh "$@" --out $O/$label > $O/$label.log 2>&1
  local rc=$?
  echo "$label end $(date -u +%T) $(uptime) rc=$rc" >> $O/runs.txt
}
run echoA main-00521f2.jar --issue9 --only 9.3 --modes tcpopt
run echoB on1.jar --issue9 --only 9.3 --modes tcpopt
run effA main-00521f2.jar --only 5 --modes tcpopt
run effB on1.jar --only 5 --modes tcpopt
