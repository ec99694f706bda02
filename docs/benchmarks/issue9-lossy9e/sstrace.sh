#!/bin/bash
# sstrace.sh OUTFILE [INTERVAL]: every INTERVAL s (default 0.1): ss -tin of lossy9e-dc's WAN sockets (sport 7800: the
# bulk and the express connection), the DC's LAN sockets to the iperf3 server (dport 5201; Recv-Q = bytes the DC node
# has not read), and the client's sockets to port 5201 (bytes_received: what iperf3's client got, control included).
# Waits up to 3 min for the namespace; stops when it goes.
out="$1"; iv="${2:-0.1}"; ns=lossy9e-dc
for i in $(seq 600); do ip netns list | grep -q "^$ns" && break; sleep 0.3; done
for i in $(seq 20000); do
  ip netns list | grep -q "^$ns" || break
  { echo "T $(date -u +%H:%M:%S.%N | cut -c1-12)"
    ip netns exec $ns ss -tinH state established '( sport = :7800 )' 2>/dev/null
    ip netns exec $ns ss -tnH state established '( dport = :5201 )' 2>/dev/null | sed 's/^/LAN /'
    ip netns exec lossy9e-client ss -tinH state established '( dport = :5201 )' 2>/dev/null | sed 's/^/CL /'
  } >> "$out"
  sleep "$iv"
done
