#!/bin/bash
# trace.sh PREFIX OUTFILE SECONDS: ss -tin of both nodes' WAN sockets (port 7800) and linkemu counters every ~0.1 s
pfx="$1"; out="$2"; secs="$3"
state=/work/wt/echo9h/bench/target/state/${pfx%-}
end=$(( $(date +%s) + secs ))
: > "$out"
while [ "$(date +%s)" -lt "$end" ]; do
  if ip netns list 2>/dev/null | grep -q "^${pfx}dc"; then
    echo "T $(date +%s.%N)" >> "$out"
    echo "DC" >> "$out"; ip netns exec "${pfx}dc" ss -tinH '( sport = :7800 )' >> "$out" 2>/dev/null
    echo "BR" >> "$out"; ip netns exec "${pfx}branch" ss -tinH '( dport = :7800 )' >> "$out" 2>/dev/null
    if [ -f "$state/linkemu.pid" ]; then kill -USR1 "$(cat "$state/linkemu.pid")" 2>/dev/null; echo "L $(cat "$state/linkemu.stats" 2>/dev/null)" >> "$out"; fi
  fi
  sleep 0.1
done
