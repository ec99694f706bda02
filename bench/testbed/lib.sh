# Shared by the testbed scripts (sourced, not run). Names every namespace with one prefix so
# the testbed never touches anything outside its own namespaces, and keeps its state
# (emulator pid, parameters, logs) under bench/target/state/<prefix>.
#
#   client 198.18.1.2 -- 198.18.1.1 branch 198.18.0.1 == WAN (linkemu) == 198.18.0.2 dc 198.19.1.1 -- 198.19.1.2 server
#
# and IPv6 beside it (benchmarking range 2001:2::/48; a /64's last group mirrors the IPv4 /24):
#
#   client 2001:2:0:1801::2 -- ::1 branch 2001:2:0:1800::1 == WAN == ::2 dc 2001:2:0:1901::1 -- ::2 server

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TESTBED_DIR="$BENCH_DIR/testbed"
PREFIX="${TCPOPT_NS_PREFIX:-tcpopt-}"
NS_CLIENT="${PREFIX}client"
NS_BRANCH="${PREFIX}branch"
NS_DC="${PREFIX}dc"
NS_SERVER="${PREFIX}server"
ALL_NS=("$NS_CLIENT" "$NS_BRANCH" "$NS_DC" "$NS_SERVER")
STATE_DIR="$BENCH_DIR/target/state/${PREFIX%-}"
LINKEMU="$BENCH_DIR/target/linkemu"
# Debian's python3 (has matplotlib); any python3 works for the load tools.
PYTHON="${PYTHON:-$( [ -x /usr/bin/python3 ] && echo /usr/bin/python3 || command -v python3 )}"

CLIENT_IP=198.18.1.2
BRANCH_LAN_IP=198.18.1.1
BRANCH_WAN_IP=198.18.0.1
DC_WAN_IP=198.18.0.2
DC_LAN_IP=198.19.1.1
SERVER_IP=198.19.1.2
CLIENT_IP6=2001:2:0:1801::2
BRANCH_LAN_IP6=2001:2:0:1801::1
BRANCH_WAN_IP6=2001:2:0:1800::1
DC_WAN_IP6=2001:2:0:1800::2
DC_LAN_IP6=2001:2:0:1901::1
SERVER_IP6=2001:2:0:1901::2

log() { printf '[testbed %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
fail() { printf 'testbed: %s\n' "$*" >&2; exit 1; }
in_ns() { local ns="$1"; shift; ip netns exec "$ns" "$@"; }
ns_exists() { [ -e "/var/run/netns/$1" ]; }

require_root() {
  [ "$(id -u)" -eq 0 ] || fail "needs root (network namespaces, TUN devices)"
  command -v ip >/dev/null || fail "needs iproute2 (ip)"
  [ -c /dev/net/tun ] || fail "needs /dev/net/tun"
}

build_linkemu() {
  local src="$BENCH_DIR/linkemu/linkemu.c"
  if [ ! -x "$LINKEMU" ] || [ "$src" -nt "$LINKEMU" ]; then
    command -v gcc >/dev/null || fail "needs gcc to build the link emulator"
    mkdir -p "$(dirname "$LINKEMU")"
    gcc -O2 -Wall -Wextra -pthread -o "$LINKEMU.tmp" "$src"
    mv "$LINKEMU.tmp" "$LINKEMU"
  fi
}

# Writes the emulator's parameter file for a symmetric link: half the RTT each way.
write_link_params() {
  local rtt_ms="$1" rate_mbit="$2" loss_pct="$3" queue_pkts="$4"
  mkdir -p "$STATE_DIR"
  local one_way
  one_way="$(awk -v r="$rtt_ms" 'BEGIN { printf "%.3f", r / 2 }')"
  cat > "$STATE_DIR/link.params.tmp" <<PARAMS
# written by bench/testbed: rtt ${rtt_ms} ms, rate ${rate_mbit} Mbit/s, loss ${loss_pct}%, queue ${queue_pkts} packets
delay-ms $one_way
rate-mbit $rate_mbit
loss-pct $loss_pct
queue-pkts $queue_pkts
PARAMS
  mv "$STATE_DIR/link.params.tmp" "$STATE_DIR/link.params"
  printf 'rtt_ms=%s rate_mbit=%s loss_pct=%s queue_pkts=%s\n' "$rtt_ms" "$rate_mbit" "$loss_pct" "$queue_pkts" > "$STATE_DIR/link.current"
}

linkemu_pid() {
  local pid
  [ -f "$STATE_DIR/linkemu.pid" ] || return 1
  pid="$(cat "$STATE_DIR/linkemu.pid")"
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q "linkemu.*$NS_BRANCH" || return 1
  printf '%s\n' "$pid"
}

# Counts of packets that crossed the WAN so far (both directions), from the emulator.
wan_packets() {
  local pid
  pid="$(linkemu_pid)" || fail "link emulator is not running"
  rm -f "$STATE_DIR/linkemu.stats"
  kill -USR1 "$pid"
  for _ in $(seq 50); do [ -s "$STATE_DIR/linkemu.stats" ] && break; sleep 0.02; done
  cat "$STATE_DIR/linkemu.stats"
}

validate_number() {
  [[ "$2" =~ ^[0-9]+([.][0-9]+)?$ ]] || fail "$1: not a number: '$2'"
}
