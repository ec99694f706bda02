#!/bin/bash
# Idle cost of the express connection: a loopback TLS pair (branch dials dc), idle for 60 s after
# the pool is up, once with the default (express on) and once with express-connection: false.
# Per WAN connection: ss -tniem 30 s after the pool is up and 60 s later (bytes, segments, skmem); each node's RSS.
set -u
J=$1; D=/work/brief/out/express9d/idle
cd $D
[ -f certs/ca.crt ] || java -jar $J certs --out certs --nodes branch-1,dc-1 >/dev/null
for mode in on off; do
  extra=""; [ $mode = off ] && extra="    express-connection: false"
  cat > dc.yaml <<Y
node: { name: dc-1, site: dc, roles: [service-node] }
service-node:
  wan:
    listen: 127.0.0.1:17902
    tls: { certificate: certs/dc-1.crt, private-key: certs/dc-1.key, trusted: certs/ca.crt }
    link: { bandwidth: 1Gbit, rtt: 1ms, pacing: false }
  peers: [ { name: branch-1, site: branch } ]
  serves: [127.0.0.0/8]
Y
  cat > branch.yaml <<Y
node: { name: branch-1, site: branch, roles: [service-node] }
service-node:
  wan:
    listen: 127.0.0.1:17901
    tls: { certificate: certs/branch-1.crt, private-key: certs/branch-1.key, trusted: certs/ca.crt }
    connections: 1
    link: { bandwidth: 1Gbit, rtt: 1ms, pacing: false }
$extra
  peers:
    - { name: dc-1, site: dc, address: 127.0.0.1:17902, prefixes: [127.0.0.0/8] }
  interception:
    listeners:
      - { listen: 127.0.0.1:17980, target: 127.0.0.1:17999, site: dc }
Y
  java -Xmx256m -jar $J run --config dc.yaml > dc-$mode.log 2>&1 & dcpid=$!
  sleep 3
  java -Xmx256m -jar $J run --config branch.yaml > branch-$mode.log 2>&1 & brpid=$!
  for i in $(seq 1 60); do # the pool up: up to 30 s, then 30 s more for JIT and the first keepalives to settle
    [ "$(ss -tnH state established '( dport = :17902 )' | wc -l)" -ge 1 ] && break; sleep 0.5
  done
  sleep 30
  echo "== $mode t=start $(date -u +%T) $(uptime)" > ss-$mode.txt
  ss -tniem state established '( dport = :17902 )' >> ss-$mode.txt
  ps -o pid,rss,args -p $dcpid,$brpid | cut -c1-60 >> ss-$mode.txt
  echo "cpu ticks (utime stime) dc: $(awk '{print $14, $15}' /proc/$dcpid/stat) branch: $(awk '{print $14, $15}' /proc/$brpid/stat)" >> ss-$mode.txt
  sleep 60
  echo "== $mode t=+60s $(date -u +%T) $(uptime)" >> ss-$mode.txt
  ss -tniem state established '( dport = :17902 )' >> ss-$mode.txt
  ps -o pid,rss,args -p $dcpid,$brpid | cut -c1-60 >> ss-$mode.txt
  echo "cpu ticks (utime stime) dc: $(awk '{print $14, $15}' /proc/$dcpid/stat) branch: $(awk '{print $14, $15}' /proc/$brpid/stat)" >> ss-$mode.txt
  kill $brpid; sleep 1; kill $dcpid; wait $brpid $dcpid 2>/dev/null
done
