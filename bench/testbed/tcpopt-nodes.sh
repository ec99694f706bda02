#!/usr/bin/env bash
# Starts or stops a tcpopt branch/DC node pair for the testbed (or on loopback).
#   bench/testbed/tcpopt-nodes.sh up [--loopback NS] [--bandwidth MBIT] [--rtt MS] [--no-link] [--policy FILE]
#   bench/testbed/tcpopt-nodes.sh down [--loopback NS]
# Testbed: the branch node runs in the branch namespace with transparent interception
# (TPROXY, port 7900) of 198.18.1.0/24 -> 198.19.1.0/24; the DC node in the dc namespace;
# the client addresses the server itself. Loopback (efficiency benchmark): both nodes in NS,
# the branch node forwards the explicit listener 127.0.0.1:18201 to 127.0.0.1:5201 via the DC.
# Node configs follow deploy/examples/testbed/ (docs/running-a-pair.md) and are written to the state directory with
# their own TLS certificates (`tcpopt certs`, or openssl: one CA, one certificate per node). The nodes run
# through ./tcpopt, with its JVM flags (JAVA_OPTS is added after them), and run the jar TCPOPT_JAR when set.
# `up` returns once the branch node listens and holds an established WAN session.
# --no-link writes no `link` block (the node's defaults for an unknown link; issue 9).
# TCPOPT_POLICY=FILE appends FILE (a `policy:` section) to both nodes' configs: each node decides
# with it, the DC its server-side profiles (bench/experiments/profiles.sh).
# TCPOPT_STREAM_WINDOW=SIZE sets wan.stream-window on both nodes.
# TCPOPT_FLOWS="{ ... }" and TCPOPT_LAN="{ ... }" set service-node.flows and service-node.lan on both
# nodes (issue 13: a single testbed client holding 10,000 flows needs max-per-client and a budget for them).
# --policy FILE: the branch node's bootstrap policy (its `policy:` section), e.g. the data-reduction
# example (issue 11); without it the node optimizes every flow a peer serves.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
REPO_DIR="$(cd "$BENCH_DIR/.." && pwd)"

action="${1:-}"; shift || true
loopback="" bandwidth=250 rtt=250 no_link=0 policy=""
while [ $# -gt 0 ]; do
  case "$1" in
    --loopback) loopback="$2"; shift 2 ;;
    --bandwidth) bandwidth="$2"; shift 2 ;;
    --rtt) rtt="$2"; shift 2 ;;
    --no-link) no_link=1; shift ;;
    --policy) policy="$2"; shift 2 ;;
    *) fail "unknown option $1" ;;
  esac
done
kind="${loopback:+loopback}"; kind="${kind:-testbed}"
dir="$STATE_DIR/tcpopt-$kind"
branch_ns="${loopback:-$NS_BRANCH}"
dc_ns="${loopback:-$NS_DC}"

node_pid() { # node_pid NAME: the pid of a node we started, if it still runs
  local pid
  [ -f "$dir/$1.pid" ] || return 1
  pid="$(cat "$dir/$1.pid")"
  [ -n "$pid" ] && kill -0 "$pid" 2> /dev/null || return 1
  printf '%s\n' "$pid"
}

stop_nodes() {
  local name pid
  for name in branch dc; do
    pid="$(node_pid "$name")" || continue
    kill -TERM "$pid" 2> /dev/null || true
    for _ in $(seq 100); do kill -0 "$pid" 2> /dev/null || break; sleep 0.05; done
    kill -KILL "$pid" 2> /dev/null || true
    rm -f "$dir/$name.pid"
  done
}

tcpopt_command() {
  [ -z "${TCPOPT_JAR:-}" ] || [ -f "$TCPOPT_JAR" ] || fail "TCPOPT_JAR=$TCPOPT_JAR does not exist"
  [ -x "$REPO_DIR/tcpopt" ] || fail "no ./tcpopt launcher in $REPO_DIR"
  command=("$REPO_DIR/tcpopt")
}

# The nodes' certificates: `tcpopt certs` (the project's demo CA), else openssl.
make_certs() {
  local certs="$dir/certs" n command
  [ -f "$certs/ca.crt" ] && return 0
  mkdir -p "$certs"
  tcpopt_command
  if "${command[@]}" certs --out "$certs" --nodes branch-1,dc-1 > "$dir/certs.log" 2>&1; then
    return 0
  fi
  command -v openssl > /dev/null || fail "cannot make certificates: tcpopt certs failed ($(tail -1 "$dir/certs.log")) and openssl is missing"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 7 \
    -subj "/CN=tcpopt bench CA" -keyout "$certs/ca.key" -out "$certs/ca.crt" 2> /dev/null
  for n in branch-1 dc-1; do
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=$n" \
      -keyout "$certs/$n.key" -out "$certs/$n.csr" 2> /dev/null
    printf 'subjectAltName=DNS:%s,DNS:localhost,IP:127.0.0.1,IP:%s,IP:%s\nextendedKeyUsage=serverAuth,clientAuth\nbasicConstraints=CA:FALSE\n' \
      "$n" "$BRANCH_WAN_IP" "$DC_WAN_IP" > "$certs/$n.ext"
    openssl x509 -req -in "$certs/$n.csr" -CA "$certs/ca.crt" -CAkey "$certs/ca.key" -CAcreateserial \
      -days 7 -extfile "$certs/$n.ext" -out "$certs/$n.crt" 2> /dev/null
  done
}

write_configs() {
  local certs="$dir/certs" branch_wan dc_wan peer_prefix interception
  if [ "$kind" = testbed ]; then
    branch_wan="$BRANCH_WAN_IP:7800" dc_wan="$DC_WAN_IP:7800" peer_prefix="198.19.1.0/24, '2001:2:0:1901::/64'"
    interception="    transparent: { port: 7900, install-rules: true, sources: [198.18.1.0/24, '2001:2:0:1801::/64'], destinations: [198.19.1.0/24, '2001:2:0:1901::/64'] }"
  else
    branch_wan="127.0.0.1:7801" dc_wan="127.0.0.1:7800" peer_prefix=127.0.0.0/8
    interception="    listeners:
      - { listen: 127.0.0.1:18201, target: 127.0.0.1:5201, site: dc }"
  fi
  # On loopback there is no WAN to pace for: a pacing cap at a WAN rate would limit each
  # WAN connection (and so the efficiency benchmark) to that rate.
  local link="{ bandwidth: ${bandwidth}Mbit, rtt: ${rtt}ms, pacing: true }"
  [ "$kind" = testbed ] || link="{ bandwidth: 10Gbit, rtt: 1ms, pacing: false }"
  # TCPOPT_WAN_CONNECTIONS: wan.connections of both nodes (default 1, the node default; with pacing
  # the link rate is split over the connections, so 4 would pace a lone flow at a quarter of the link).
  local conns="${TCPOPT_WAN_CONNECTIONS:-1}"
  local wan_common="    connections: $conns
    link: $link
    congestion-control: bbr"
  [ "$no_link" -eq 0 ] || wan_common="    connections: $conns
    congestion-control: bbr"
  # TCPOPT_WAN_EXPRESS=true|false: wan.express-connection of both nodes (the node default, true, when unset).
  [ -z "${TCPOPT_WAN_EXPRESS:-}" ] || wan_common="$wan_common
    express-connection: $TCPOPT_WAN_EXPRESS"
  # TCPOPT_STREAM_WINDOW (e.g. 32MiB): wan.stream-window of both nodes (issue 11: a reduced stream
  # moves LAN bytes faster than the link, and its window counts LAN bytes).
  [ -z "${TCPOPT_STREAM_WINDOW:-}" ] || wan_common="$wan_common
    stream-window: $TCPOPT_STREAM_WINDOW"
  local node_common=""
  [ -z "${TCPOPT_FLOWS:-}" ] || node_common="  flows: $TCPOPT_FLOWS
"
  [ -z "${TCPOPT_LAN:-}" ] || node_common="$node_common  lan: $TCPOPT_LAN
"
  cat > "$dir/branch.yaml" <<YAML
# generated by bench/testbed/tcpopt-nodes.sh
node: { name: branch-1, site: branch, roles: [service-node] }
service-node:
  wan:
    listen: $branch_wan
    tls: { certificate: $certs/branch-1.crt, private-key: $certs/branch-1.key, trusted: $certs/ca.crt }
$wan_common
  peers:
    - { name: dc-1, site: dc, address: $dc_wan, prefixes: [$peer_prefix] }
${node_common}  interception:
$interception
YAML
  if [ -n "$policy" ]; then
    [ -f "$policy" ] || fail "--policy $policy: no such file"
    { echo "policy:"; grep -v '^\s*#' "$policy" | grep -v '^\s*$' | sed 's/^/  /'; } >> "$dir/branch.yaml"
  fi
  cat > "$dir/dc.yaml" <<YAML
# generated by bench/testbed/tcpopt-nodes.sh
node: { name: dc-1, site: dc, roles: [service-node] }
service-node:
  wan:
    listen: $dc_wan
    tls: { certificate: $certs/dc-1.crt, private-key: $certs/dc-1.key, trusted: $certs/ca.crt }
$wan_common
  peers: [ { name: branch-1, site: branch } ]   # accepted, not dialled
  serves: [$peer_prefix]                         # the only destinations the branch's streams are connected to
${node_common}
YAML
  if [ -n "${TCPOPT_POLICY:-}" ]; then
    [ -f "$TCPOPT_POLICY" ] || fail "TCPOPT_POLICY=$TCPOPT_POLICY does not exist"
    cat "$TCPOPT_POLICY" >> "$dir/branch.yaml"
    cat "$TCPOPT_POLICY" >> "$dir/dc.yaml"
  fi
}

start_node() { # start_node NAME NS
  local command
  tcpopt_command
  ip netns exec "$2" setsid "${command[@]}" run --config "$dir/$1.yaml" < /dev/null > "$dir/$1.log" 2>&1 &
  echo $! > "$dir/$1.pid"
}

wait_ready() {
  local port i
  [ "$kind" = testbed ] && port=7900 || port=18201
  for i in $(seq 600); do
    for name in branch dc; do
      node_pid "$name" > /dev/null || fail "$name node exited: $(tail -3 "$dir/$name.log" | tr '\n' ' ')"
    done
    # Ready = listening, and the session is through TLS and HELLO: the branch node logs
    # "session to peer" then; a TCP connection alone is not yet a usable session.
    if ip netns exec "$branch_ns" ss -Hltn "sport = :$port" | grep -q . &&
       ip netns exec "$branch_ns" ss -Htn state established "dport = :7800" | grep -q . &&
       grep -q "session to peer" "$dir/branch.log"; then
      return 0
    fi
    sleep 0.1
  done
  fail "nodes not ready after 60 s (branch listening on $port, logging a session to its peer): $(tail -3 "$dir/branch.log" | tr '\n' ' ')"
}

case "$action" in
  up)
    require_root
    for ns in "$branch_ns" "$dc_ns"; do ns_exists "$ns" || fail "namespace $ns does not exist (run up.sh first)"; done
    mkdir -p "$dir"
    stop_nodes
    trap 'rc=$?; [ $rc -eq 0 ] || stop_nodes' EXIT
    make_certs
    write_configs
    start_node dc "$dc_ns"
    start_node branch "$branch_ns"
    wait_ready
    log "tcpopt nodes up ($kind): branch pid $(cat "$dir/branch.pid"), dc pid $(cat "$dir/dc.pid"); logs in $dir"
    ;;
  down)
    stop_nodes
    ;;
  pids)
    node_pid branch || true
    node_pid dc || true
    ;;
  *) fail "usage: tcpopt-nodes.sh up|down|pids [--loopback NS] [--bandwidth MBIT] [--rtt MS] [--no-link]" ;;
esac
