#!/bin/bash
# sstrace.sh OUTFILE: every ~0.3 s, ss -tin of lossy9d-dc's WAN sockets (sport 7800) and its LAN sockets to the
# iperf3 server (dport 5201, Recv-Q = bytes the DC node has not read), and lossy9d-branch's WAN sockets
# (Recv-Q = in-order bytes the branch node has not read). Waits up to 3 min for the namespace; stops when it goes.
out="$1"; ns=lossy9d-dc
for i in $(seq 600); do ip netns list | grep -q "^$ns" && break; sleep 0.3; done
for i in $(seq 5000); do
  ip netns list | grep -q "^$ns" || break
  { echo "T $(date -u +%H:%M:%S.%N | cut -c1-12)"
    ip netns exec $ns ss -tinH state established '( sport = :7800 )' 2>/dev/null
    ip netns exec $ns ss -tnH state established '( dport = :5201 )' 2>/dev/null | sed 's/^/LAN /'
    ip netns exec lossy9d-branch ss -tnH state established '( dport = :7800 )' 2>/dev/null | sed 's/^/BR /'
  } >> "$out"
  sleep 0.3
done
