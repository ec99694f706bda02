#!/usr/bin/env bash
# Builds the WAN testbed: namespaces client - branch - dc - server, the WAN between branch and
# dc as two TUN devices joined by the userspace link emulator (no netem on these kernels).
#   bench/testbed/up.sh [--rtt MS] [--rate MBIT] [--loss PCT] [--queue PKTS]
# Defaults: 100 ms RTT, 250 Mbit/s each way, no loss, 1000-packet drop-tail queue.
# Namespace names start with $TCPOPT_NS_PREFIX (default "tcpopt-"). On any failure the
# partial testbed is torn down again.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

rtt=100 rate=250 loss=0 queue=1000
while [ $# -gt 0 ]; do
  case "$1" in
    --rtt) rtt="$2"; shift 2 ;;
    --rate) rate="$2"; shift 2 ;;
    --loss) loss="$2"; shift 2 ;;
    --queue) queue="$2"; shift 2 ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    *) fail "unknown option $1 (see --help)" ;;
  esac
done
validate_number --rtt "$rtt"; validate_number --rate "$rate"; validate_number --loss "$loss"; validate_number --queue "$queue"

require_root
build_linkemu

cleanup_on_failure() {
  local rc=$?
  if [ "$rc" -ne 0 ]; then
    log "setup failed (exit $rc), tearing down"
    "$TESTBED_DIR/down.sh" >/dev/null 2>&1 || true
  fi
}
trap cleanup_on_failure EXIT
trap 'exit 130' INT TERM

for ns in "${ALL_NS[@]}"; do
  if ns_exists "$ns"; then
    log "stale $ns found, tearing the old testbed down first"
    "$TESTBED_DIR/down.sh"
    break
  fi
done
mkdir -p "$STATE_DIR"

log "namespaces ${ALL_NS[*]}"
for ns in "${ALL_NS[@]}"; do
  ip netns add "$ns"
  in_ns "$ns" ip link set lo up
done

# client <-> branch and dc <-> server: veth pairs, created inside the namespaces.
ip -n "$NS_CLIENT" link add eth0 type veth peer name lan0 netns "$NS_BRANCH"
ip -n "$NS_SERVER" link add eth0 type veth peer name lan0 netns "$NS_DC"
ip -n "$NS_CLIENT" addr add "$CLIENT_IP/24" dev eth0
ip -n "$NS_BRANCH" addr add "$BRANCH_LAN_IP/24" dev lan0
ip -n "$NS_DC" addr add "$DC_LAN_IP/24" dev lan0
ip -n "$NS_SERVER" addr add "$SERVER_IP/24" dev eth0

# branch <-> dc: one persistent TUN device in each namespace; the emulator joins them.
ip -n "$NS_BRANCH" tuntap add dev wan0 mode tun
ip -n "$NS_DC" tuntap add dev wan0 mode tun
ip -n "$NS_BRANCH" addr add "$BRANCH_WAN_IP/24" dev wan0
ip -n "$NS_DC" addr add "$DC_WAN_IP/24" dev wan0
for ns_dev in "$NS_CLIENT eth0" "$NS_BRANCH lan0" "$NS_BRANCH wan0" "$NS_DC wan0" "$NS_DC lan0" "$NS_SERVER eth0"; do
  set -- $ns_dev
  ip -n "$1" link set "$2" mtu 1500 txqueuelen 1000 up
done

ip -n "$NS_CLIENT" route add default via "$BRANCH_LAN_IP"
ip -n "$NS_SERVER" route add default via "$DC_LAN_IP"
ip -n "$NS_BRANCH" route add 198.19.0.0/16 via "$DC_WAN_IP" dev wan0
ip -n "$NS_DC" route add 198.18.1.0/24 via "$BRANCH_WAN_IP" dev wan0
# IPv6 beside IPv4 (nodad: usable at once); the TUN WAN carries both (linkemu copies IP packets)
ip -n "$NS_CLIENT" addr add "$CLIENT_IP6/64" dev eth0 nodad
ip -n "$NS_BRANCH" addr add "$BRANCH_LAN_IP6/64" dev lan0 nodad
ip -n "$NS_BRANCH" addr add "$BRANCH_WAN_IP6/64" dev wan0 nodad
ip -n "$NS_DC" addr add "$DC_WAN_IP6/64" dev wan0 nodad
ip -n "$NS_DC" addr add "$DC_LAN_IP6/64" dev lan0 nodad
ip -n "$NS_SERVER" addr add "$SERVER_IP6/64" dev eth0 nodad
ip -n "$NS_CLIENT" -6 route add default via "$BRANCH_LAN_IP6"
ip -n "$NS_SERVER" -6 route add default via "$DC_LAN_IP6"
ip -n "$NS_BRANCH" -6 route add 2001:2:0:1901::/64 via "$DC_WAN_IP6" dev wan0
ip -n "$NS_DC" -6 route add 2001:2:0:1801::/64 via "$BRANCH_WAN_IP6" dev wan0

for ns in "$NS_BRANCH" "$NS_DC"; do
  in_ns "$ns" sysctl -q -w net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 net.ipv6.conf.all.forwarding=1
done
# The optimizers (branch, dc) get the host settings of docs/running-a-pair.md: BBR, no slow
# start after idle (warm connections stay warm), a minimum RTT the kernel forgets within 10 s (a
# connection that outlives an RTT change, as the 150 -> 300 ms rows, learns the new one like a
# path that always had it), room for WAN-sized buffers by autotuning (32 MB);
# net.core.[rw]mem_max is not per namespace, so SO_SNDBUF/SO_RCVBUF stay capped by the host.
for ns in "$NS_BRANCH" "$NS_DC"; do
  in_ns "$ns" sysctl -q -w net.ipv4.tcp_congestion_control=bbr net.ipv4.tcp_slow_start_after_idle=0 net.ipv4.tcp_min_rtt_wlen=10 \
    net.ipv4.tcp_rmem="4096 131072 33554432" net.ipv4.tcp_wmem="4096 16384 33554432"
done
# End hosts behave as ordinary Linux hosts: CUBIC and the usual buffer limits.
# A non-initial namespace may refuse CUBIC as its default (only the init namespace's
# tcp_allowed_congestion_control may be); the load tools then choose it per socket
# (iperf3 -C cubic, httpbench.py sets TCP_CONGESTION).
for ns in "$NS_CLIENT" "$NS_SERVER"; do
  in_ns "$ns" sysctl -q -w net.ipv4.tcp_rmem="4096 131072 6291456" net.ipv4.tcp_wmem="4096 16384 4194304"
  in_ns "$ns" sysctl -q -w net.ipv4.tcp_congestion_control=cubic 2>/dev/null ||
    log "$ns: default congestion control stays $(in_ns "$ns" sysctl -n net.ipv4.tcp_congestion_control); tools select cubic per socket"
done

write_link_params "$rtt" "$rate" "$loss" "$queue"
log "link emulator: rtt ${rtt} ms, ${rate} Mbit/s, loss ${loss}%, queue ${queue} packets (each way)"
rm -f "$STATE_DIR/linkemu.log"
setsid "$LINKEMU" --ns-a "$NS_BRANCH" --dev-a wan0 --ns-b "$NS_DC" --dev-b wan0 \
  --params "$STATE_DIR/link.params" --stats "$STATE_DIR/linkemu.stats" --realtime \
  < /dev/null > "$STATE_DIR/linkemu.log" 2>&1 &
echo $! > "$STATE_DIR/linkemu.pid"
started=0
for _ in $(seq 100); do
  if grep -q "running between" "$STATE_DIR/linkemu.log" 2>/dev/null; then started=1; break; fi
  kill -0 "$(cat "$STATE_DIR/linkemu.pid")" 2>/dev/null || fail "link emulator died: $(tail -3 "$STATE_DIR/linkemu.log" 2>/dev/null)"
  sleep 0.05
done
[ "$started" -eq 1 ] || fail "link emulator did not start within 5 s: $(tail -3 "$STATE_DIR/linkemu.log" 2>/dev/null)"

# A UDP echo responder on the server stands in for ping (not installed here); verify.sh
# and the benchmark measure the RTT with it.
in_ns "$NS_SERVER" setsid "$PYTHON" "$BENCH_DIR/tools/loadgen.py" echo --bind "$SERVER_IP" --port 7 \
  < /dev/null > "$STATE_DIR/echo.log" 2>&1 &
sleep 0.3
in_ns "$NS_CLIENT" "$PYTHON" "$BENCH_DIR/tools/loadgen.py" rtt --host "$SERVER_IP" --port 7 --count 3 --interval 0 --timeout 5 \
  > "$STATE_DIR/first-rtt.json" || fail "client cannot reach server through the WAN"
log "testbed up (state in $STATE_DIR)"
