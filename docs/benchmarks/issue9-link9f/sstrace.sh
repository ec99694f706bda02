#!/bin/bash
# sstrace.sh OUTFILE [INTERVAL]: every INTERVAL s (default 0.2): ss -tin of link9f-dc's WAN sockets (sport 7800),
# and the CPU ticks (utime+stime) of the two tcpopt nodes of the link9f- prefix (pid files of tcpopt-nodes.sh).
# Waits up to 3 min for the namespace; stops when it goes.
out="$1"; iv="${2:-0.2}"; ns=link9f-dc; st="${STATE:-/work/wt/link9f/bench/target/state/link9f/tcpopt-testbed}"
for i in $(seq 600); do ip netns list | grep -q "^$ns" && break; sleep 0.3; done
for i in $(seq 20000); do
  ip netns list | grep -q "^$ns" || break
  { echo "T $(date -u +%H:%M:%S.%N | cut -c1-12)"
    for n in dc branch; do p="$(cat $st/$n.pid 2>/dev/null)"; [ -n "$p" ] && [ -r /proc/$p/stat ] && echo "CPU $n $p $(awk '{print $14+$15}' /proc/$p/stat)"; done
    ip netns exec $ns ss -tinH state established '( sport = :7800 )' 2>/dev/null
    ip netns exec $ns ss -tnH state established "( dport = :5201 )" 2>/dev/null | sed "s/^/LAN /"
  } >> "$out"
  sleep "$iv"
done
