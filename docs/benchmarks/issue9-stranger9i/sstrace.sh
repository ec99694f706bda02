#!/bin/bash
# sstrace.sh OUT SECONDS: the DC's WAN sockets (port 7800) every ~0.1 s, bounded
out="$1"; n=$(( $2 * 10 ))
for i in $(seq "$n"); do
  echo "T $(date +%s.%N)"
  ip netns exec stranger9i-dc ss -tin 'sport = :7800' 2>/dev/null
  sleep 0.1
done > "$out"
