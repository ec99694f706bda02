#!/usr/bin/env bash
# ab.sh NAME LABEL:JAR:OPTS:PART... : runs PART (93 | 3 | bulk | 5) of bench/run.sh for tcpopt once per
# LABEL, in order, under one hold of the bench lock; OPTS names a JVM flag set below; GC and safepoint log on every run.
set -u
NAME=$1; shift
O=/work/brief/out/gc9d
cd /work/wt/gc9d
flock /work/brief/bench.lock bash -c '
O='$O'; NAME='$NAME'
opts_of() { # the nodes run through ./tcpopt: its default flags come first, these after them
  case "$1" in
    launcher) echo "-Xmx1g" ;;
    bench) echo "-Xmx1g -XX:G1PeriodicGCInterval=0 -XX:MinHeapFreeRatio=40 -XX:MaxHeapFreeRatio=70" ;;
    zgc) echo "-Xmx1g -XX:-UseG1GC -XX:+UseZGC -XX:ZUncommitDelay=10" ;;
    shen) echo "-Xmx1g -XX:-UseG1GC -XX:+UseShenandoahGC -XX:ShenandoahUncommitDelay=10000" ;;
    g1p10) echo "-Xmx1g -XX:MaxGCPauseMillis=10" ;;
    g1min) echo "-Xmx1g -XX:MinHeapSize=128m" ;;
    jfr) echo "-Xmx1g -XX:StartFlightRecording=filename=$D,settings=profile" ;;
    par) echo "-Xmx1g -XX:-UseG1GC -XX:+UseParallelGC" ;;
    *) echo "$1" ;;
  esac
}
for spec in '"$*"'; do
  IFS=: read -r L J S PART <<< "$spec"
  D=$O/$NAME-$L; mkdir -p $D
  opts="$(opts_of "$S") -Xlog:gc,gc+cpu,safepoint:file=$D/gc-%p.log:utctime,uptimemillis"
  echo "start $L $(date -u +%T) $(cat /proc/loadavg) opts=$opts" | tee $D/uptime.txt
  case "$PART" in
    93) args=(--issue9 --only 9.3) ;;
    3) args=(--issue9 --only 3) ;;
    bulk) args=(--issue9 --only 9.1) ;;
    5) args=(--only 5) ;;
  esac
  TCPOPT_WAN_EXPRESS=${TCPOPT_WAN_EXPRESS-true} TCPOPT_NS_PREFIX=gc9d- TCPOPT_JAR=$O/jars/$J.jar TCPOPT_JAVA_OPTS="$opts" \
    bench/run.sh "${args[@]}" --modes tcpopt --out $D > $D/bench.out 2>&1
  echo "end $L $(date -u +%T) $(cat /proc/loadavg)" | tee -a $D/uptime.txt
  for f in $D/*.csv; do [ $(wc -l < $f) -gt 1 ] && echo "$L $(basename $f) $(tail -n 1 $f)"; done
done'
