#!/bin/bash
# trace2.sh PREFIX OUTDIR SECONDS: after the express re-dial, tcpdump (headers) of the express port and the echo port in both nodes' namespaces
pfx="$1"; out="$2"; secs="$3"
log=/work/wt/echo9h/bench/target/state/echo9h/tcpopt-testbed/dc.log
end=$(( $(date +%s) + secs ))
while [ "$(date +%s)" -lt "$end" ]; do
  n=$(grep -c ", express" "$log" 2>/dev/null || echo 0)
  [ "${n:-0}" -ge 2 ] && break
  sleep 0.5
done
port=$(grep ", express" "$log" | tail -1 | sed -e 's/.*-> \/[0-9.]*:\([0-9]*\), express.*/\1/')
echo "express port $port" > "$out/tcpdump.txt"
for ns in dc branch; do
  ip netns exec "${pfx}$ns" timeout $(( end - $(date +%s) )) tcpdump -i any -n -s 96 -w "$out/$ns.pcap" "tcp port $port or tcp port 7007" 2>> "$out/tcpdump.txt" &
done
wait
