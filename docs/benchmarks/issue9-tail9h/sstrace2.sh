#!/bin/bash
# sstrace2.sh OUTPREFIX [INTERVAL]: two loops inside the namespaces (no ip netns exec per sample): every INTERVAL s
# ss -tin of tail9h-dc's WAN sockets (sport 7800) -> OUTPREFIX.dc, and of the client's sockets to 5201 -> OUTPREFIX.cl.
out="$1"; iv="${2:-0.05}"
for i in $(seq 600); do ip netns list | grep -q "^tail9h-client" && break; sleep 0.3; done
ip netns exec tail9h-dc bash -c "for i in \$(seq 40000); do echo \"T \$(date -u +%H:%M:%S.%N | cut -c1-12)\"; ss -tinH state established '( sport = :7800 )' 2>/dev/null || break; sleep $iv; done" > "$out.dc" 2>/dev/null & a=$!
ip netns exec tail9h-client bash -c "for i in \$(seq 40000); do echo \"T \$(date -u +%H:%M:%S.%N | cut -c1-12)\"; ss -tinH state established '( dport = :5201 )' 2>/dev/null || break; sleep $iv; done" > "$out.cl" 2>/dev/null & b=$!
trap 'kill $a $b 2>/dev/null' TERM INT EXIT
while ip netns list | grep -q "^tail9h-dc"; do sleep 1; done
