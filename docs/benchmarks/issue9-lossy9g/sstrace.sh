#!/bin/bash
# sstrace.sh OUTFILE [INTERVAL]: every INTERVAL s: ss -tin of lossy9g-dc's WAN sockets (sport 7800), the DC's LAN
# sockets to iperf3 (dport 5201), the branch's WAN sockets (dport 7800: Recv-Q = bytes the branch node has not read)
# and the client's sockets to port 5201 (bytes_received). Stops when the namespace goes.
out="$1"; iv="${2:-0.1}"; ns=lossy9g-dc
for i in $(seq 600); do ip netns list | grep -q "^$ns" && break; sleep 0.3; done
for i in $(seq 20000); do
  ip netns list | grep -q "^$ns" || break
  { echo "T $(date -u +%H:%M:%S.%N | cut -c1-12)"
    ip netns exec $ns ss -tinH state established '( sport = :7800 )' 2>/dev/null
    ip netns exec $ns ss -tnH state established '( dport = :5201 )' 2>/dev/null | sed 's/^/LAN /'
    ip netns exec lossy9g-branch ss -tnH state established '( dport = :7800 )' 2>/dev/null | sed 's/^/BR /'
    ip netns exec lossy9g-client ss -tinH state established '( dport = :5201 )' 2>/dev/null | sed 's/^/CL /'
  } >> "$out"
  sleep "$iv"
done
