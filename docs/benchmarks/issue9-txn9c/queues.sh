#!/usr/bin/env bash
# queues.sh OUTFILE: every 50 ms, where the response bytes wait (sums of Recv-Q / Send-Q, bytes), until killed:
# T time | dcleg_rq: DC's server legs not yet read by the DC | dcwan_sq / dcwan_notsent: DC's WAN socket |
# brwan_rq: branch's WAN socket not yet read | brleg_sq: branch's client legs not yet taken by the client | cl_rq: clients' sockets not yet read by Python
. /work/wt/txn9c/bench/testbed/lib.sh
sum() { awk -v c=$1 '{s+=$c; n++} END {printf "%d/%d", s, n}'; }
while :; do
  t=$(date +%s.%N)
  a=$(ip netns exec $NS_DC ss -tnH state established '( dport = :8081 )' | sum 1)
  b=$(ip netns exec $NS_DC ss -tinH state established '( sport = :7800 )' | tr '\n' ' ')
  sq=$(echo "$b" | awk '{print $2}'); ns=$(echo "$b" | grep -o 'notsent:[0-9]*' | cut -d: -f2)
  c=$(ip netns exec $NS_BRANCH ss -tnH state established '( dport = :7800 )' | sum 1)
  d=$(ip netns exec $NS_BRANCH ss -tnH state established '( sport = :8081 )' | sum 2)
  e=$(ip netns exec $NS_CLIENT ss -tnH state established '( dport = :8081 )' | sum 1)
  echo "$t dcleg_rq $a dcwan_sq ${sq:-0} dcwan_notsent ${ns:-0} brwan_rq $c brleg_sq $d cl_rq $e"
  sleep 0.05
done
