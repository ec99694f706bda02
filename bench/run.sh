#!/usr/bin/env bash
# The tcpopt benchmark (issue 5): reproduces the seed experiments on the namespace testbed,
# direct TCP against tcpopt and the peers a user might pick instead.
#
#   bench/run.sh [--quick] [--only N[,N...]] [--modes "direct tcpopt haproxy kcptun"] [--out DIR]
#   bench/run.sh --issue9 [--modes ...] [--out DIR]    (= --only 2,3,9 with issue 9's sizes)
#
#   1  throughput vs RTT: 4 parallel streams (iperf3 -R -P 4, 4 x 100 MB in total) server ->
#      client, 250 Mbit/s, RTT 0 50 100 200 250 ms, loss 0 and 0.5%
#   2  small-window client: window scaling off at the client, 3 runs of 3 x 3 MiB over one
#      connection at 200 ms RTT
#   3  short transactions: 1500 x 256 KiB, a new client connection each, concurrency 23,
#      100 ms RTT: p50/p99, connections the server saw, packets on the WAN
#   4  the peers (HAProxy pair with BBR, kcptun pair) run in 1-3 as modes "haproxy", "kcptun"
#   5  efficiency: branch/DC pair on loopback, no WAN: throughput and CPU seconds per GB, after a
#      warm-up by volume: rounds of EFF_WARMUP_ROUND (2G) until the JIT compiler threads take at
#      most 10% of the relays' CPU in a round, at most EFF_WARMUP_ROUNDS (8); EFF_PROFILE=1 adds
#      two unrecorded tcpopt runs after it, one under perf record, one under perf trace -s
#   6  many flows: 10,000 idle flows through a warm pair at 2 ms RTT, 1 Gbit/s: node RSS idle ->
#      holding -> after close, per flow (bench/experiments/flows.sh, load by bench/tools/flowgen.c)
#   7  flow rate: new 1 KiB echo flows, 64 at a time, 2 and 100 ms RTT, direct vs tcpopt: flows/s,
#      setup latency p50/p99 (bench/experiments/flows.sh)
#   9  issue 9 (one pipe at the link rate); "9" runs all of 9.1-9.4, each can be chosen alone:
#      9.1 bulk grid: fixed 4 x 100 MB (iperf3 -P 4 -n 400M, whole transfer), 250 Mbit/s, rows
#          BULK9_ROWS (RTT/loss, default the issue's table: 0/0 60/0 60/1 150/0 150/0.5 300/0
#          300/0.5 300/2)
#      9.2 the same transfer on a 600 Mbit/s link at 100 ms (tcpopt restarted with link 600 Mbit)
#      9.3 interactive beside bulk: a 1 KB request/echo every 50 ms on its own connection while
#          4 bulk streams (400 MB) run, 100 ms RTT: echo p50/p99 and the bulk's goodput; tcpopt's
#          modes are first warmed by volume until their JIT settles (INTERACTIVE_WARMUP_ROUND(S))
#      9.4 fairness: FAIR_FLOWS (8) bulk flows for FAIR_SECONDS (15 s, first 3 s not counted),
#          100 ms RTT: each flow's share of the total
#      --issue9 also uses 600 transactions in 3, after TX_WARMUP_9 (1200) unrecorded ones per
#      mode (TX_WARMUP elsewhere, default 0), and a 12 s cap per small-window run in 2.
#      Mode "tcpopt-nolink" is tcpopt with no `link` block in the node configs; it runs
#      NOLINK_ONLY (default 9.1,9.2) only.
#      Off the issue's grid (9.1-9.4; use a fresh --out, the CSVs do not record them):
#      BULK9_FLOWS (4) streams sharing BULK9_BYTES (400M), BULK9_DIRECTION=up for uploads (client
#      sends; iperf3 then counts the server's bytes until the client finished, not what a relay
#      still held: a rate, not a whole transfer), INTERACTIVE_RTT, FAIR_RTT (100 ms each), FAST_MBIT
#      (600) and FAST_RTT (100) for 9.2, SW_RTT (200) for 2, TX_RTT (100) and TX_CONCURRENCY (23) for 3.
#  10  application profiles (issue 10; only with --only 10): OneConnect, 1500 x 256 KiB HTTP/1.1
#      requests at concurrency 23 (direct, HAProxy http-reuse, tcpopt without and with reuse), and
#      TLS page loads with and without dynamic record sizing (bench/experiments/profiles.sh)
#  11  issue 11, data reduction: 200 MB downloads at 250 Mbit/s, 100 ms RTT with the policy
#      deploy/examples/testbed/data-reduction.yaml (zstd + deduplication) and without: a file twice,
#      with 1% changed, a text/log/JSON corpus, fresh random data; WAN bytes, time, CPU s/GB
#      (bench/experiments/reduction.sh; run alone: --only 11 --modes tcpopt)
#
# Every run is capped in time (a capped run reports the bytes it moved, marked "capped").
# Results: bench/results/<UTC date>/ (CSV, results.md, throughput-vs-rtt.png, logs/).
# Needs root, iperf3, gcc, python3; haproxy and kcptun for their modes; the tcpopt mode runs
# ./tcpopt run --config (generated node configs, TLS certificates from `tcpopt certs`, openssl as fallback).
# The whole script is one brace group, read before it runs: editing run.sh while a benchmark
# runs cannot change the running one.
{
set -euo pipefail
. "$(dirname "$0")/testbed/lib.sh"
REPO_DIR="$(cd "$BENCH_DIR/.." && pwd)"

quick=0 only="1,2,3,5,6,7" modes="direct tcpopt haproxy kcptun" out="" issue9=0
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1; shift ;;
    --issue9) issue9=1; only="2,3,9"; modes="direct tcpopt tcpopt-nolink haproxy kcptun"; shift ;;
    --only) only="$2"; shift 2 ;;
    --modes) modes="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    -h|--help) sed -n '2,50p' "$0"; exit 0 ;;
    *) fail "unknown option $1 (see --help)" ;;
  esac
done
wants() { [[ ",$only," == *",$1,"* ]] || { [[ "$1" =~ ^[1-3]$ ]] && [[ ",$only," == *",4,"* ]]; } ||
  { [[ "$1" == 9.* ]] && [[ ",$only," == *",9,"* ]]; } || { [ "$1" = 9 ] && [[ ",$only," == *",9."* ]]; }; }
NOLINK_ONLY="${NOLINK_ONLY:-9.1,9.2}"
wants_for() { # wants_for MODE N: tcpopt-nolink runs only NOLINK_ONLY
  wants "$2" && { [ "$1" != tcpopt-nolink ] || [[ ",$NOLINK_ONLY," == *",$2,"* ]]; }
}

LINK_MBIT=250
if [ "$quick" -eq 1 ]; then
  RTTS="0 100 200"; LOSSES="0 0.5"; BULK_BYTES=100M; BULK_CAP=25; WARMUP_BYTES=100M
  SW_RUNS=1; SW_CAP=45; TX_REQUESTS=300; TX_CAP=60; EFF_SECONDS=5
else
  RTTS="0 50 100 200 250"; LOSSES="0 0.5"; BULK_BYTES=400M; BULK_CAP=60; WARMUP_BYTES=400M
  SW_RUNS=3; SW_CAP=60; TX_REQUESTS=1500; TX_CAP=150; EFF_SECONDS=10
fi
SW_SIZE=3145728 SW_RTT="${SW_RTT:-200}" TX_SIZE=262144 TX_CONCURRENCY="${TX_CONCURRENCY:-23}" TX_RTT="${TX_RTT:-100}"
IPERF_PORT=5201 HTTP_PORT=8080 ECHO_PORT=7007
# issue 9: every run capped at BULK9_CAP s; rows "RTT/LOSS"; the environment may override
# BULK9_ROWS, BULK9_CAP, FAIR_FLOWS, FAIR_SECONDS, TX_REQUESTS9 and NOLINK_ONLY (say so in docs), and for
# scenarios off the issue's grid BULK9_FLOWS, BULK9_BYTES, BULK9_DIRECTION, INTERACTIVE_RTT, FAIR_RTT, FAST_MBIT,
# FAST_RTT (9.2), SW_RTT (2), TX_RTT and TX_CONCURRENCY (3); the CSVs record the RTT (and concurrency) of each row
if [ "$quick" -eq 0 ]; then
  BULK9_ROWS="${BULK9_ROWS:-0/0 60/0 60/1 150/0 150/0.5 300/0 300/0.5 300/2}" BULK9_CAP="${BULK9_CAP:-30}"
  FAIR_SECONDS="${FAIR_SECONDS:-15}" TX_REQUESTS9="${TX_REQUESTS9:-600}"
else
  BULK9_ROWS="${BULK9_ROWS:-0/0 150/0.5}" BULK9_CAP="${BULK9_CAP:-20}" FAIR_SECONDS="${FAIR_SECONDS:-8}"
  TX_REQUESTS9="${TX_REQUESTS9:-200}"
fi
BULK9_BYTES="${BULK9_BYTES:-400M}" BULK9_FLOWS="${BULK9_FLOWS:-4}" BULK9_DIRECTION="${BULK9_DIRECTION:-down}"
[[ "$BULK9_DIRECTION" =~ ^(down|up)$ ]] || fail "BULK9_DIRECTION is down or up, not $BULK9_DIRECTION"
FAST_MBIT="${FAST_MBIT:-600}" FAST_RTT="${FAST_RTT:-100}"
[ "$FAST_MBIT" != "$LINK_MBIT" ] || fail "FAST_MBIT is the faster link of 9.2, not the ${LINK_MBIT} Mbit/s of the other rows"
INTERACTIVE_RTT="${INTERACTIVE_RTT:-100}" INTERACTIVE_INTERVAL=0.05 INTERACTIVE_SIZE=1024
FAIR_FLOWS="${FAIR_FLOWS:-8}" FAIR_OMIT=3 FAIR_RTT="${FAIR_RTT:-100}"
# Unrecorded transactions each mode runs first (experiment 3): the nodes' setup path then runs
# compiled, as 9.3 and 5 warm the data path; every mode gets them, so the comparison stays even.
TX_WARMUP="${TX_WARMUP:-0}"
if [ "$issue9" -eq 1 ]; then
  TX_REQUESTS="$TX_REQUESTS9" SW_CAP=12 TX_WARMUP="${TX_WARMUP_9:-$([ "$quick" -eq 1 ] && echo 200 || echo 1200)}"
  [ "$quick" -eq 0 ] || SW_RUNS=2
fi

. "$BENCH_DIR/experiments/flows.sh"
. "$BENCH_DIR/experiments/profiles.sh"
. "$BENCH_DIR/experiments/reduction.sh"
require_root
command -v iperf3 >/dev/null || fail "needs iperf3"
stamp="$(date -u +%Y-%m-%dT%H%MZ)"
suffix=""; [ "$quick" -eq 0 ] || suffix=-quick
RESULTS="${out:-$BENCH_DIR/results/$stamp$suffix}"
mkdir -p "$RESULTS/logs"
exec > >(tee -a "$RESULTS/run.log") 2>&1
started_at=$(date +%s)
progress() { printf '[bench %s +%ss] %s\n' "$(date +%H:%M:%S)" "$(( $(date +%s) - started_at ))" "$*"; }

# ------------------------------------------------------------------ processes we start
declare -A PIDS=()   # name -> pid, every long-running process this script started
spawn() { # spawn NAME NS COMMAND... (runs in NS, output to logs/NAME.log)
  local name="$1" ns="$2"; shift 2
  ip netns exec "$ns" setsid "$@" < /dev/null > "$RESULTS/logs/$name.log" 2>&1 &
  PIDS[$name]=$!
}
stop() { # stop NAME...
  local name pid
  for name in "$@"; do
    pid="${PIDS[$name]:-}"
    [ -n "$pid" ] || continue
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    unset "PIDS[$name]"
  done
}
cleanup() {
  local rc=$?
  set +e
  [ "${#PIDS[@]}" -eq 0 ] || stop "${!PIDS[@]}"
  stop_tcpopt
  "$TESTBED_DIR/down.sh" > /dev/null 2>&1
  [ -z "${LOOP_NS:-}" ] || ! ns_exists "$LOOP_NS" || ip netns del "$LOOP_NS"
  progress "finished (exit $rc); results in $RESULTS"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

wait_listen() { # wait_listen NS PORT SECONDS
  local i
  for i in $(seq $(( $3 * 10 ))); do
    ip netns exec "$1" ss -Hltn "sport = :$2" | grep -q . && return 0
    sleep 0.1
  done
  return 1
}
json_get() { "$PYTHON" -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# ------------------------------------------------------------------ modes
# Each mode has a start, a stop and the address the client uses. direct and tcpopt: the
# client addresses the server itself (tcpopt intercepts transparently at the branch with
# TPROXY). haproxy and kcptun: the client is pointed at the relay on the branch.
target_host() { case "$1" in direct|tcpopt|tcpopt-nolink) echo "$SERVER_IP" ;; *) echo "$BRANCH_LAN_IP" ;; esac; }
service_port() { case "$1" in iperf) echo "$IPERF_PORT" ;; http) echo "$HTTP_PORT" ;; echo) echo "$ECHO_PORT" ;; esac; }
target_port() { # target_port MODE iperf|http|echo
  local base; base="$(service_port "$2")"
  case "$1" in haproxy) echo $(( base + 10000 )) ;; kcptun) echo $(( base + 20000 )) ;; *) echo "$base" ;; esac
}

tcpopt_ready_launcher() {
  [ -n "${TCPOPT_JAR:-}" ] && return 0
  [ -x "$REPO_DIR/tcpopt" ] || { echo "no ./tcpopt launcher in this checkout"; return 1; }
  if [ -z "${TCPOPT_BUILT:-}" ]; then
    progress "building tcpopt (./tcpopt builds its jar when stale)"
    "$REPO_DIR/tcpopt" --version > "$RESULTS/logs/tcpopt-build.log" 2>&1 || true
    [ -f "$REPO_DIR/cli/target/tcpopt.jar" ] || { echo "tcpopt jar did not build (logs/tcpopt-build.log)"; return 1; }
    TCPOPT_BUILT=1
  fi
}

start_tcpopt() { # start_tcpopt testbed|LOOPBACK_NS [MBIT [--no-link]]; the nodes' pids go into PIDS for the CPU count
  tcpopt_ready_launcher || return 1
  local where=() pid
  [ "$1" = testbed ] || where=(--loopback "$1")
  JAVA_OPTS="${TCPOPT_JAVA_OPTS:--Xmx1g}" "$TESTBED_DIR/tcpopt-nodes.sh" up --bandwidth "${2:-$LINK_MBIT}" --rtt 250 "${where[@]}" ${3:-} || return 1
  local pids=($("$TESTBED_DIR/tcpopt-nodes.sh" pids "${where[@]}"))
  TCPOPT_PIDS=("${pids[@]}")
  TCPOPT_WHERE=("${where[@]}")
}
# The nodes' logs are kept as logs/nodes-HHMMSS-{branch,dc}.log (UTC when they stopped): the next start overwrites them.
stop_tcpopt() {
  "$TESTBED_DIR/tcpopt-nodes.sh" down "${TCPOPT_WHERE[@]}" 2> /dev/null || true
  local node stopped dir="$STATE_DIR/tcpopt-$([ "${#TCPOPT_WHERE[@]}" -eq 0 ] && echo testbed || echo loopback)"
  if [ "${#TCPOPT_PIDS[@]}" -gt 0 ]; then
    stopped="$(date -u +%H%M%S)"
    for node in branch dc; do cp "$dir/$node.log" "$RESULTS/logs/nodes-$stopped-$node.log" 2> /dev/null || true; done
  fi
  TCPOPT_PIDS=()
}
TCPOPT_PIDS=() TCPOPT_WHERE=()

write_haproxy_config() { # NAME LISTEN_IP LISTEN_PORT_BASE_OFFSET -> file; "FRONT_PORT:BACK_ADDR" pairs
  local file="$1"; shift
  {
    printf 'global\n  maxconn 4000\n  nbthread 2\n'
    printf 'defaults\n  mode tcp\n  timeout connect 10s\n  timeout client 1h\n  timeout server 1h\n'
    local pair i=0
    for pair in "$@"; do
      i=$((i + 1))
      printf 'listen relay%d\n  bind %s\n  server next %s\n' "$i" "${pair%%=*}" "${pair#*=}"
    done
  } > "$file"
}

start_haproxy() { # start_haproxy BRANCH_NS DC_NS testbed|loopback
  command -v haproxy > /dev/null || { echo "haproxy not installed"; return 1; }
  local dir="$STATE_DIR/haproxy-$3"
  mkdir -p "$dir"
  if [ "$3" = testbed ]; then
    write_haproxy_config "$dir/branch.cfg" \
      "$BRANCH_LAN_IP:$((IPERF_PORT + 10000))=$DC_WAN_IP:$((IPERF_PORT + 10000))" \
      "$BRANCH_LAN_IP:$((HTTP_PORT + 10000))=$DC_WAN_IP:$((HTTP_PORT + 10000))" \
      "$BRANCH_LAN_IP:$((ECHO_PORT + 10000))=$DC_WAN_IP:$((ECHO_PORT + 10000))"
    write_haproxy_config "$dir/dc.cfg" \
      "$DC_WAN_IP:$((IPERF_PORT + 10000))=$SERVER_IP:$IPERF_PORT" \
      "$DC_WAN_IP:$((HTTP_PORT + 10000))=$SERVER_IP:$HTTP_PORT" \
      "$DC_WAN_IP:$((ECHO_PORT + 10000))=$SERVER_IP:$ECHO_PORT"
  else
    write_haproxy_config "$dir/branch.cfg" "127.0.0.1:18202=127.0.0.1:7802"
    write_haproxy_config "$dir/dc.cfg" "127.0.0.1:7802=127.0.0.1:$IPERF_PORT"
  fi
  spawn haproxy-dc "$2" haproxy -db -f "$dir/dc.cfg"
  spawn haproxy-branch "$1" haproxy -db -f "$dir/branch.cfg"
  local port; [ "$3" = testbed ] && port=$((IPERF_PORT + 10000)) || port=18202
  wait_listen "$1" "$port" 10 || { echo "haproxy did not start: $(tail -2 "$RESULTS/logs/haproxy-branch.log")"; return 1; }
}

start_kcptun() { # kcptun client at the branch, server at the DC; one pair per service
  command -v kcptun-client > /dev/null || { echo "kcptun not installed"; return 1; }
  # Windows sized for the 250 Mbit/s x 250 ms BDP (~5800 packets of 1350 bytes); default
  # FEC (10 data + 3 parity shards); no encryption or compression, as tcpopt's
  # plaintext-free comparison would otherwise be unfair the other way.
  local opts=(--mode fast3 --crypt none --nocomp --sndwnd 8192 --rcvwnd 8192 --sockbuf 16777216 --quiet)
  local svc udp
  for svc in iperf http echo; do
    local base; base="$(service_port "$svc")"
    udp=$((base + 20000))
    spawn "kcptun-server-$svc" "$NS_DC" kcptun-server -l "$DC_WAN_IP:$udp" -t "$SERVER_IP:$base" "${opts[@]}"
    spawn "kcptun-client-$svc" "$NS_BRANCH" kcptun-client -l "$BRANCH_LAN_IP:$udp" -r "$DC_WAN_IP:$udp" "${opts[@]}"
  done
  wait_listen "$NS_BRANCH" $((IPERF_PORT + 20000)) 10 || { echo "kcptun-client did not start"; return 1; }
}

start_mode() {
  case "$1" in
    direct) return 0 ;;
    tcpopt) start_tcpopt testbed ;;
    tcpopt-nolink) start_tcpopt testbed "$LINK_MBIT" --no-link ;;
    haproxy) start_haproxy "$NS_BRANCH" "$NS_DC" testbed ;;
    kcptun) start_kcptun ;;
  esac
}
stop_mode() {
  case "$1" in
    tcpopt|tcpopt-nolink) stop_tcpopt ;;
    haproxy) stop haproxy-branch haproxy-dc ;;
    kcptun) stop kcptun-client-iperf kcptun-server-iperf kcptun-client-http kcptun-server-http \
                 kcptun-client-echo kcptun-server-echo ;;
  esac
}

# A mode is measured only if a small request gets through it end to end.
mode_works() {
  ip netns exec "$NS_CLIENT" "$PYTHON" "$BENCH_DIR/tools/loadgen.py" fetch --host "$(target_host "$1")" \
    --port "$(target_port "$1" http)" --size 100000 --requests 1 --deadline 15 > "$RESULTS/logs/check-$1.json" 2>&1
}

# ------------------------------------------------------------------ measurements
set_link() { "$TESTBED_DIR/link.sh" --rtt "$1" --loss "$2" --rate "$LINK_MBIT" 2> /dev/null; }

# The emulator changes the RTT of a live link in one step, which no real WAN does. Connections
# that outlive the change (tcpopt's warm sessions, kcptun's) would carry the old path's model
# into the next row: BBR keeps the old minimum RTT for its 10 s filter window, so after 0 -> 50 ms
# it runs at a fraction of the link for ~10 s. Every mode waits the same LINK_SETTLE seconds after
# an RTT change, as a link that has always had that RTT.
LINK_SETTLE="${LINK_SETTLE:-11}"
settle_link() { progress "  link settles ${LINK_SETTLE}s at the new RTT"; sleep "$LINK_SETTLE"; }

# iperf_bulk MODE JSON CAP BYTES [FLOWS [down|up]]: one capped transfer of BYTES in all over FLOWS (4)
# streams, server -> client (down) or client -> server (up); prints "mbit_s,seconds,bytes,capped,status"
iperf_bulk() {
  local mode="$1" json="$2" cap="$3" bytes="$4" flows="${5:-4}" reverse=-R
  [ "${6:-down}" = down ] || reverse=""
  spawn iperf3-server "$NS_SERVER" iperf3 -s -1 -B "$SERVER_IP" -p "$IPERF_PORT"
  wait_listen "$NS_SERVER" "$IPERF_PORT" 5 || true
  ip netns exec "$NS_CLIENT" timeout -s INT -k 10 "$cap" iperf3 -c "$(target_host "$mode")" \
    -p "$(target_port "$mode" iperf)" $reverse -C cubic -P "$flows" -n "$bytes" -J --connect-timeout 10000 > "$json" 2>&1 || true
  stop iperf3-server
  "$PYTHON" - "$json" "$cap" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("0,0,0,1,failed: unreadable iperf3 output"); sys.exit()
end = d.get("end", {}).get("sum_received")
if end and not d.get("error") and end.get("bytes"):
    print("%.2f,%.3f,%d,0,ok" % (end["bits_per_second"] / 1e6, end["seconds"], end["bytes"]))
else:
    moved = sum(i["sum"]["bytes"] for i in d.get("intervals", []))
    secs = sum(i["sum"]["seconds"] for i in d.get("intervals", [])) or float(sys.argv[2])
    status = "capped" if moved else "failed: " + str(d.get("error", "no data"))[:60].replace(",", ";")
    print("%.2f,%.3f,%d,1,%s" % (moved * 8 / secs / 1e6, secs, moved, status))
PY
}

bulk_run() { # bulk_run MODE RTT LOSS -> CSV row in bulk.csv
  local mode="$1" rtt="$2" loss="$3" row
  row="$(iperf_bulk "$mode" "$RESULTS/logs/bulk-$1-rtt$2-loss$3.json" "$BULK_CAP" "$BULK_BYTES")"
  echo "$mode,$rtt,$loss,$row" >> "$RESULTS/bulk.csv"
  progress "  $mode rtt=${rtt}ms loss=${loss}%: $(cut -d, -f1 <<< "$row") Mbit/s in $(cut -d, -f2 <<< "$row") s ($(cut -d, -f5 <<< "$row"))"
}

# One unrecorded transfer after a mode starts, so that no measured run pays for JIT
# compilation (tcpopt) or first-use costs; the same for every mode.
warm_up() {
  set_link 0 0
  spawn iperf3-server "$NS_SERVER" iperf3 -s -1 -B "$SERVER_IP" -p "$IPERF_PORT"
  wait_listen "$NS_SERVER" "$IPERF_PORT" 5 || true
  ip netns exec "$NS_CLIENT" timeout -s INT -k 10 30 iperf3 -c "$(target_host "$1")" -p "$(target_port "$1" iperf)" \
    -R -C cubic -P 4 -n "$WARMUP_BYTES" -J > "$RESULTS/logs/warm-up-$1.json" 2>&1 || true
  stop iperf3-server
  progress "  $1 warmed up ($WARMUP_BYTES over RTT 0, not recorded)"
}

small_window_run() { # small_window_run MODE RUN
  local mode="$1" run="$2" json="$RESULTS/logs/small-window-$1-$2.json"
  ip netns exec "$NS_CLIENT" "$PYTHON" "$BENCH_DIR/tools/loadgen.py" fetch --host "$(target_host "$mode")" \
    --port "$(target_port "$mode" http)" --size "$SW_SIZE" --requests 3 --deadline "$SW_CAP" --times > "$json" 2>&1 || true
  local row
  row="$("$PYTHON" - "$json" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception:
    print("0,0,,failed"); sys.exit()
times = d.get("times_s") or []
timed_out = all(e.startswith("TimeoutError") for e in d.get("first_errors") or [])
status = "ok" if d["completed"] == d["requests"] else ("capped" if timed_out else "failed")
print("%.3f,%d,%s,%s" % (sum(times) if status == "ok" else d["total_s"], d["completed"], ";".join("%.3f" % t for t in times), status))
PY
)"
  echo "$mode,$SW_RTT,$run,$row" >> "$RESULTS/small_window.csv"
  progress "  $mode run $run: 3 x 3 MiB in $(cut -d, -f1 <<< "$row") s ($(cut -d, -f4 <<< "$row"))"
}

server_stats() {
  local pid="${PIDS[http-server]}"
  rm -f "$STATE_DIR/http.stats"
  kill -USR1 "$pid"
  for _ in $(seq 50); do [ -s "$STATE_DIR/http.stats" ] && break; sleep 0.02; done
  json_get "$STATE_DIR/http.stats" "d['connections']"
}

transactions_warm_up() { # transactions_warm_up MODE: TX_WARMUP unrecorded transactions, in runs of TX_REQUESTS
  local left="$TX_WARMUP" n round=0
  while [ "$left" -gt 0 ]; do
    n=$((left < TX_REQUESTS ? left : TX_REQUESTS)); left=$((left - n)); round=$((round + 1))
    ip netns exec "$NS_CLIENT" "$PYTHON" "$BENCH_DIR/tools/loadgen.py" fetch --host "$(target_host "$1")" \
      --port "$(target_port "$1" http)" --size "$TX_SIZE" --requests "$n" --concurrency "$TX_CONCURRENCY" \
      --new-connection --deadline "$TX_CAP" > "$RESULTS/logs/transactions-warm-up-$1-$round.json" 2>&1 || true
  done
  [ "$TX_WARMUP" -eq 0 ] || progress "  $1 warmed up for 3: $TX_WARMUP unrecorded transactions"
}

transactions_run() { # transactions_run MODE
  local mode="$1" json="$RESULTS/logs/transactions-$1.json"
  local conns_before wan_before conns_after wan_after
  transactions_warm_up "$mode"
  conns_before="$(server_stats)"; wan_before="$(wan_packets)"
  ip netns exec "$NS_CLIENT" "$PYTHON" "$BENCH_DIR/tools/loadgen.py" fetch --host "$(target_host "$mode")" \
    --port "$(target_port "$mode" http)" --size "$TX_SIZE" --requests "$TX_REQUESTS" --concurrency "$TX_CONCURRENCY" \
    --new-connection --deadline "$TX_CAP" > "$json" 2>&1 || true
  sleep 0.5
  conns_after="$(server_stats)"; wan_after="$(wan_packets)"
  local row
  row="$("$PYTHON" - "$json" "$wan_before" "$wan_after" <<'PY'
import json, sys
b, a = json.loads(sys.argv[2]), json.loads(sys.argv[3])
packets = sum(a[d]["rx_pkts"] - b[d]["rx_pkts"] for d in ("up", "down"))
try:
    d = json.load(open(sys.argv[1]))
except Exception:
    print("0,0,0,0,0,%d,failed" % packets); sys.exit()
status = "ok" if d["completed"] == d["requests"] else ("capped" if d["capped"] else "failed")
print("%d,%d,%.3f,%.4f,%.4f,%d,%s" % (d["requests"], d["completed"], d["total_s"], d["p50_s"] or 0, d["p99_s"] or 0, packets, status))
PY
)"
  local conns=$((conns_after - conns_before))
  IFS=, read -r req done total p50 p99 packets status <<< "$row"
  echo "$mode,$TX_RTT,$TX_CONCURRENCY,$req,$done,$total,$p50,$p99,$conns,$packets,$status" >> "$RESULTS/transactions.csv"
  progress "  $mode: $done/$req in ${total} s, p50 ${p50} s, p99 ${p99} s, server connections $conns, WAN packets $packets ($status)"
}

# ------------------------------------------------------------------ issue 9
# Connections that outlive a row (tcpopt's sessions, kcptun's) wait LINK_SETTLE after the RTT
# grows (BBR's 10 s min-RTT filter, see above); a smaller RTT takes effect at once. direct and
# haproxy open new connections for every transfer and do not wait.
# tcpopt's WAN connection is re-dialled instead when the RTT more than doubles (from the warm-up's
# 0 ms above all): BBR keeps the old, far smaller min-RTT until its 10 s filter expires and sizes
# its window from it (2 x bw x 0.3 ms: ~80 packets), the first round trips of the next transfer are
# window-limited at 6-12 Mbit/s, and after an idle period that sample replaces the bandwidth
# estimate, which BBR then probes back up by 25% every 8 round trips (15-25 s at 150-200 ms;
# measured with ss, docs/benchmarks.md issue 9). A real path does not jump from 0.3 to 150 ms; a
# new connection learns the new path in STARTUP, and one unrecorded 200 MB transfer warms it.
LAST_RTT=""
rtt_grows() { [ -n "$LAST_RTT" ] && awk -v a="$1" -v b="$LAST_RTT" -v f="$2" 'BEGIN { exit !(a > b * f) }'; }
redial_tcpopt() { # redial_tcpopt MODE RTT: resets the branch's WAN connections, waits for the new session, warms it
  local i log="$STATE_DIR/tcpopt-testbed/branch.log" sessions
  progress "  RTT ${LAST_RTT} -> $2 ms: $1's WAN connection re-dialled and warmed (200 MB, not recorded)"
  sessions="$(grep -c "session to peer" "$log" 2> /dev/null || true)"
  ip netns exec "$NS_BRANCH" ss -K -tn 'dport = :7800' > /dev/null 2>&1 || true
  sleep 1
  # The TCP connection alone is not a session: TLS and the HELLO take a few more round trips (at
  # 300 ms the warm-up's flows once started before it and were passed through, 3 Mbit/s direct).
  for i in $(seq 60); do
    [ "$(grep -c "session to peer" "$log" 2> /dev/null || true)" -gt "${sessions:-0}" ] && break
    sleep 0.5
  done
  iperf_bulk "$1" "$RESULTS/logs/redial-warm-up-$1-rtt$2.json" 20 200M > /dev/null
}
link_to() { # link_to MODE RTT LOSS [MBIT]
  "$TESTBED_DIR/link.sh" --rtt "$2" --loss "$3" --rate "${4:-$LINK_MBIT}" 2> /dev/null
  case "$1" in
    direct|haproxy) ;;
    tcpopt|tcpopt-nolink) if rtt_grows "$2" 2; then redial_tcpopt "$1" "$2"; elif rtt_grows "$2" 1; then settle_link; fi ;;
    *) if rtt_grows "$2" 1; then settle_link; fi ;;
  esac
  LAST_RTT="$2"
}

bulk9_run() { # bulk9_run MODE MBIT RTT LOSS -> bulk9.csv; a row repeated in BULK9_ROWS keeps each log (-2, -3, ...)
  local mode="$1" mbit="$2" rtt="$3" loss="$4" row json n=1
  json="$RESULTS/logs/bulk9-$mode-${mbit}mbit-rtt$rtt-loss$loss.json"
  while [ -e "$json" ]; do n=$((n + 1)); json="$RESULTS/logs/bulk9-$mode-${mbit}mbit-rtt$rtt-loss$loss-$n.json"; done
  row="$(iperf_bulk "$mode" "$json" "$BULK9_CAP" "$BULK9_BYTES" \
    "$BULK9_FLOWS" "$BULK9_DIRECTION")"
  echo "$mode,$mbit,$rtt,$loss,$row" >> "$RESULTS/bulk9.csv"
  progress "  $mode ${mbit} Mbit/s rtt=${rtt}ms loss=${loss}%: $(cut -d, -f1 <<< "$row") Mbit/s in $(cut -d, -f2 <<< "$row") s ($(cut -d, -f5 <<< "$row"))"
}

bulk9_grid() {
  local spec
  for spec in $BULK9_ROWS; do
    link_to "$1" "${spec%/*}" "${spec#*/}"
    bulk9_run "$1" "$LINK_MBIT" "${spec%/*}" "${spec#*/}"
  done
}

# 9.2: the link at FAST_MBIT; tcpopt is restarted with its link block saying so (tcpopt-nolink
# has none) and warmed by volume, as for 9.3: measured seconds after the restart, its JVMs were what
# the row showed (docs/benchmarks.md, issue 9, link9f). tcpopt-nolink keeps the nodes that ran 9.1: a
# warm-up on the unlimited link would teach them a pacing cap of Gbit/s (LearnedRates) that the next
# connection's STARTUP overshoots the 600 Mbit/s link with. Every mode gets one unrecorded 200 MB
# transfer at the new rate.
bulk9_fast() {
  local mode="$1"
  if [ "$mode" = tcpopt ]; then
    stop_tcpopt
    start_tcpopt testbed "$FAST_MBIT" > "$RESULTS/logs/start-$mode-$FAST_MBIT.txt" 2>&1 ||
      { progress "  tcpopt did not restart at $FAST_MBIT Mbit/s: $(tail -2 "$RESULTS/logs/start-$mode-$FAST_MBIT.txt" | tr '\n' ' ')"; return 0; }
    jit_warm_up "$mode" 9.2
  fi
  link_to "$mode" "$FAST_RTT" 0 "$FAST_MBIT"
  iperf_bulk "$mode" "$RESULTS/logs/warm-up-$mode-$FAST_MBIT.json" 20 200M > /dev/null
  bulk9_run "$mode" "$FAST_MBIT" "$FAST_RTT" 0
  "$TESTBED_DIR/link.sh" --rate "$LINK_MBIT" 2> /dev/null
}

# 9.3 and tcpopt's 9.2 (nodes restarted for it) measure warm JVM nodes, as experiment 5 does: before
# them, tcpopt's modes get rounds of INTERACTIVE_WARMUP_ROUND (1G) over an unlimited link at RTT 0
# until the JIT compiler threads took at most 10% of the nodes' CPU in a round, at most
# INTERACTIVE_WARMUP_ROUNDS (6), each capped at 60 s; logs/interactive-warm-up.txt. Without it the
# nodes are about a minute old when the bulk starts and their compiler took more CPU than their event
# loops (docs/benchmarks.md, issue 9, where the echo waits).
INTERACTIVE_WARMUP_ROUND="${INTERACTIVE_WARMUP_ROUND:-1G}" INTERACTIVE_WARMUP_ROUNDS="${INTERACTIVE_WARMUP_ROUNDS:-6}"
jit_warm_up() { # jit_warm_up MODE ROW
  case "$1" in tcpopt|tcpopt-nolink) [ "${#TCPOPT_PIDS[@]}" -gt 0 ] || return 0 ;; *) return 0 ;; esac
  local round cpu0 jit0 cpu jit log="$RESULTS/logs/interactive-warm-up.txt"
  "$TESTBED_DIR/link.sh" --rtt 0 --loss 0 --rate 0 2> /dev/null
  LAST_RTT=0
  for round in $(seq "$INTERACTIVE_WARMUP_ROUNDS"); do
    cpu0="$(cpu_seconds "${TCPOPT_PIDS[@]}")"; jit0="$(jit_cpu_seconds "${TCPOPT_PIDS[@]}")"
    iperf_bulk "$1" "$RESULTS/logs/interactive-warm-up-$1-$2-$round.json" 60 "$INTERACTIVE_WARMUP_ROUND" > /dev/null
    cpu="$(awk -v a="$cpu0" -v b="$(cpu_seconds "${TCPOPT_PIDS[@]}")" 'BEGIN { printf "%.2f", b - a }')"
    jit="$(awk -v a="$jit0" -v b="$(jit_cpu_seconds "${TCPOPT_PIDS[@]}")" 'BEGIN { printf "%.2f", b - a }')"
    echo "$1 warm-up for $2, round $round ($INTERACTIVE_WARMUP_ROUND, unlimited link): nodes $cpu CPU s, JIT compiler threads $jit" >> "$log"
    awk -v c="$cpu" -v j="$jit" 'BEGIN { exit !(j <= 0.1 * c) }' && break
  done
  progress "  $1 warmed up for $2: $round round(s) of $INTERACTIVE_WARMUP_ROUND ($(tail -1 "$log" | cut -d: -f2-))"
}

# 9.3: the echo client runs on its own connection for the whole bulk transfer (its first
# second before the bulk starts is the idle baseline); samples sent while the bulk ran count.
interactive_run() { # interactive_run MODE -> interactive.csv
  local mode="$1" json="$RESULTS/logs/interactive-$1.json" bulk_start bulk_end row
  jit_warm_up "$mode" 9.3
  link_to "$mode" "$INTERACTIVE_RTT" 0
  ip netns exec "$NS_CLIENT" setsid "$PYTHON" "$BENCH_DIR/tools/loadgen.py" interactive --host "$(target_host "$mode")" \
    --port "$(target_port "$mode" echo)" --size "$INTERACTIVE_SIZE" --interval "$INTERACTIVE_INTERVAL" \
    --count $(( (BULK9_CAP + 10) * 20 )) --deadline $(( BULK9_CAP + 10 )) < /dev/null > "$json" 2> "$RESULTS/logs/interactive-$1.err" &
  PIDS[interactive]=$!
  sleep 1
  bulk_start="$(date +%s.%N)"
  row="$(iperf_bulk "$mode" "$RESULTS/logs/interactive-bulk-$mode.json" "$BULK9_CAP" "$BULK9_BYTES" "$BULK9_FLOWS" \
    "$BULK9_DIRECTION")"
  bulk_end="$(date +%s.%N)"
  stop interactive
  row="$("$PYTHON" - "$json" "$bulk_start" "$bulk_end" "$row" <<'PY'
import json, sys
start, end, bulk = float(sys.argv[2]), float(sys.argv[3]), sys.argv[4].split(",")
def pct(v, p):
    if not v:
        return 0.0
    v = sorted(v)
    return v[max(0, min(len(v) - 1, int(round(p / 100.0 * len(v) + 0.5)) - 1))]
try:
    d = json.load(open(sys.argv[1]))
except Exception:
    print("0,0,0,0,0,0,%s,%s,%s,failed" % (bulk[0], bulk[1], bulk[4])); sys.exit()
during = [ms for t, ms in d["samples_s_ms"] if start <= t <= end]
idle = [ms for t, ms in d["samples_s_ms"] if t < start]
status = "ok" if during and not d["errors"] and not d["unanswered"] else (
    "failed: " + ";".join(d["errors"])[:60].replace(",", ";") if d["errors"] else "unanswered %d" % d["unanswered"])
print("%d,%d,%.1f,%.1f,%.1f,%.1f,%s,%s,%s,%s" % (len(during), d["unanswered"], pct(during, 50), pct(during, 99),
      max(during) if during else 0, pct(idle, 50), bulk[0], bulk[1], bulk[4], status))
PY
)"
  echo "$mode,$INTERACTIVE_RTT,$row" >> "$RESULTS/interactive.csv"
  IFS=, read -r n unanswered p50 p99 max idle mbit secs bstatus status <<< "$row"
  progress "  $mode: echo p50 ${p50} ms p99 ${p99} ms max ${max} ms ($n samples, idle p50 ${idle} ms); bulk ${mbit} Mbit/s ($bstatus); $status"
}

# 9.4: FAIR_FLOWS bulk flows at once for FAIR_SECONDS; each flow's bytes after the first
# FAIR_OMIT seconds, from iperf3's per-stream intervals.
fairness_run() { # fairness_run MODE -> fairness.csv
  local mode="$1" json="$RESULTS/logs/fairness-$1.json" row
  link_to "$mode" "$FAIR_RTT" 0
  spawn iperf3-server "$NS_SERVER" iperf3 -s -1 -B "$SERVER_IP" -p "$IPERF_PORT"
  wait_listen "$NS_SERVER" "$IPERF_PORT" 5 || true
  ip netns exec "$NS_CLIENT" timeout -s INT -k 10 $(( FAIR_SECONDS + FAIR_OMIT + 20 )) iperf3 -c "$(target_host "$mode")" \
    -p "$(target_port "$mode" iperf)" -R -C cubic -P "$FAIR_FLOWS" -t "$FAIR_SECONDS" -O "$FAIR_OMIT" -J \
    --connect-timeout 10000 > "$json" 2>&1 || true
  stop iperf3-server
  row="$("$PYTHON" - "$json" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
    per, secs = {}, 0.0
    for interval in d["intervals"]:
        if interval["sum"].get("omitted"):
            continue
        secs += interval["sum"]["seconds"]
        for s in interval["streams"]:
            per[s["socket"]] = per.get(s["socket"], 0) + s["bytes"]
    rates = [per[k] * 8 / secs / 1e6 for k in sorted(per)]
    mean = sum(rates) / len(rates)
    jain = sum(rates) ** 2 / (len(rates) * sum(r * r for r in rates))
    dev = max(abs(r - mean) / mean for r in rates) * 100
    print("%d,%.1f,%.1f,%.1f,%.1f,%.1f,%.3f,%s,%s" % (len(rates), secs, sum(rates), min(rates), max(rates), dev, jain,
          ";".join("%.1f" % r for r in rates), "ok" if not d.get("error") else "failed: " + d["error"][:50].replace(",", ";")))
except Exception as e:
    print("0,0,0,0,0,0,0,,failed: %s" % str(e)[:50].replace(",", ";"))
PY
)"
  echo "$mode,$row" >> "$RESULTS/fairness.csv"
  IFS=, read -r n secs total lo hi dev jain rates status <<< "$row"
  progress "  $mode: $n flows, $total Mbit/s in all, per flow $lo..$hi Mbit/s, largest deviation from the mean ${dev}%, Jain $jain ($status)"
}

# ------------------------------------------------------------------ efficiency (loopback)
cpu_seconds() { # total user+system CPU seconds of the given pids
  local pid total=0 tck; tck="$(getconf CLK_TCK)"
  for pid in "$@"; do
    [ -r "/proc/$pid/stat" ] || continue
    total=$(( total + $(awk '{ print $14 + $15 }' "/proc/$pid/stat") ))
  done
  awk -v t="$total" -v h="$tck" 'BEGIN { printf "%.2f", t / h }'
}

jit_cpu_seconds() { # user+system CPU seconds of the JIT compiler threads (C1, C2) of the given pids
  local pid t total=0 tck; tck="$(getconf CLK_TCK)"
  for pid in "$@"; do
    for t in /proc/"$pid"/task/*; do
      grep -q '^C[12] Compiler' "$t/comm" 2> /dev/null || continue
      total=$(( total + $(awk '{ print $14 + $15 }' "$t/stat" 2> /dev/null || echo 0) ))
    done
  done
  awk -v t="$total" -v h="$tck" 'BEGIN { printf "%.2f", t / h }'
}

EFF_WARMUP_ROUND="${EFF_WARMUP_ROUND:-2G}" EFF_WARMUP_ROUNDS="${EFF_WARMUP_ROUNDS:-8}"
efficiency_warm_up() { # efficiency_warm_up MODE PORT PIDS...: logs each round to logs/efficiency-warm-up.txt
  local mode="$1" port="$2" round cpu0 jit0 cpu jit; shift 2
  for round in $(seq "$EFF_WARMUP_ROUNDS"); do
    spawn iperf3-server "$LOOP_NS" iperf3 -s -1 -B 127.0.0.1 -p "$IPERF_PORT"
    wait_listen "$LOOP_NS" "$IPERF_PORT" 5 || true
    cpu0="$(cpu_seconds "$@")"; jit0="$(jit_cpu_seconds "$@")"
    ip netns exec "$LOOP_NS" timeout -s INT -k 10 120 iperf3 -c 127.0.0.1 -p "$port" -R -C cubic -P 4 -n "$EFF_WARMUP_ROUND" \
      > "$RESULTS/logs/efficiency-warm-up-$mode-$round.txt" 2>&1 || true
    stop iperf3-server
    cpu="$(awk -v a="$cpu0" -v b="$(cpu_seconds "$@")" 'BEGIN { printf "%.2f", b - a }')"
    jit="$(awk -v a="$jit0" -v b="$(jit_cpu_seconds "$@")" 'BEGIN { printf "%.2f", b - a }')"
    echo "$mode warm-up round $round ($EFF_WARMUP_ROUND): relays $cpu CPU s, JIT compiler threads $jit" >> "$RESULTS/logs/efficiency-warm-up.txt"
    awk -v c="$cpu" -v j="$jit" 'BEGIN { exit !(j <= 0.1 * c) }' && break
  done
  progress "  $mode warmed up: $round round(s) of $EFF_WARMUP_ROUND ($(tail -1 "$RESULTS/logs/efficiency-warm-up.txt" | cut -d: -f2-))"
}

# EFF_PROFILE=1: after tcpopt's measured run (which it does not disturb), one more run of
# EFF_SECONDS with `perf record -g` on both nodes and their JIT symbol maps (jcmd Compiler.perfmap):
# logs/perf-eff-NODE.txt (self time by dso and symbol); then one with `perf trace -s` (system calls
# per thread and call): logs/syscalls-eff-NODE.txt; the CPU of each node thread over each run in
# logs/threads-eff-*.txt. A diagnosis: perf costs CPU.
efficiency_profile() { # efficiency_profile BRANCH_PID DC_PID
  [ "${EFF_PROFILE:-0}" = 1 ] && command -v perf > /dev/null || return 0
  local kind node i tools
  for kind in record trace; do
    tools=()
    i=0
    spawn iperf3-server "$LOOP_NS" iperf3 -s -1 -B 127.0.0.1 -p "$IPERF_PORT"
    wait_listen "$LOOP_NS" "$IPERF_PORT" 5 || true
    node_threads "$@" > "$RESULTS/logs/threads-eff-$kind.before"
    for node in branch dc; do
      if [ "$kind" = record ]; then
        perf record -F 499 -g -p "${@:$((i + 1)):1}" -o "$RESULTS/logs/perf-eff-$node.data" > "$RESULTS/logs/perf-eff-$node.log" 2>&1 &
      else
        perf trace -s -p "${@:$((i + 1)):1}" -o "$RESULTS/logs/syscalls-eff-$node.txt" > /dev/null 2>&1 &
      fi
      tools+=($!)
      i=$((i + 1))
    done
    sleep 1
    ip netns exec "$LOOP_NS" timeout -s INT -k 10 $((EFF_SECONDS + 20)) iperf3 -c 127.0.0.1 -p 18201 -R -C cubic -P 4 \
      -t "$EFF_SECONDS" > "$RESULTS/logs/efficiency-profile-$kind.txt" 2>&1 || true
    [ "$kind" != record ] || { jcmd "$1" Compiler.perfmap > /dev/null 2>&1 || true; jcmd "$2" Compiler.perfmap > /dev/null 2>&1 || true; }
    kill -INT "${tools[@]}" 2> /dev/null || true
    wait "${tools[@]}" 2> /dev/null || true
    node_threads "$@" > "$RESULTS/logs/threads-eff-$kind.after"
    stop iperf3-server
  done
  for node in branch dc; do
    perf report -i "$RESULTS/logs/perf-eff-$node.data" --no-children --sort dso,sym --stdio 2> /dev/null | head -400 \
      > "$RESULTS/logs/perf-eff-$node.txt" || true
  done
  progress "  profile: logs/perf-eff-{branch,dc}.txt, logs/syscalls-eff-{branch,dc}.txt ($(grep -m1 receiver "$RESULTS/logs/efficiency-profile-record.txt" | tr -s ' ' | cut -c1-80))"
}

efficiency() {
  LOOP_NS="${PREFIX}loop"
  ! ns_exists "$LOOP_NS" || ip netns del "$LOOP_NS"
  ip netns add "$LOOP_NS"
  ip netns exec "$LOOP_NS" ip link set lo up
  ip netns exec "$LOOP_NS" sysctl -q -w net.ipv4.tcp_rmem="4096 131072 33554432" net.ipv4.tcp_wmem="4096 16384 33554432"
  local mode port pids why json
  for mode in direct $(printf '%s\n' $modes | grep -xE 'tcpopt|haproxy' || true); do
    why=""
    case "$mode" in
      direct) port=$IPERF_PORT; pids=() ;;
      tcpopt) port=18201
              if ! start_tcpopt "$LOOP_NS" > "$RESULTS/logs/start-efficiency-tcpopt.txt" 2>&1; then
                why="$(tr '\n,' ' ;' < "$RESULTS/logs/start-efficiency-tcpopt.txt")"
                progress "  tcpopt unavailable: $why"; stop_mode tcpopt
                echo "tcpopt,0,0,0,0,0,unavailable" >> "$RESULTS/efficiency.csv"; continue
              fi
              pids=("${TCPOPT_PIDS[@]}") ;;
      haproxy) port=18202
               if ! start_haproxy "$LOOP_NS" "$LOOP_NS" loopback > "$RESULTS/logs/start-efficiency-haproxy.txt" 2>&1; then
                 progress "  haproxy unavailable: $(tr '\n' ' ' < "$RESULTS/logs/start-efficiency-haproxy.txt")"; stop_mode haproxy; continue
               fi
               pids=("${PIDS[haproxy-branch]}" "${PIDS[haproxy-dc]}") ;;
    esac
    # warm-up by volume (unrecorded): rounds of EFF_WARMUP_ROUND (new flows each, so the setup
    # path warms too) until the JIT compiler threads took at most 10% of the relays' CPU in a
    # round, at most EFF_WARMUP_ROUNDS rounds; then the measured run against a fresh server
    efficiency_warm_up "$mode" "$port" "${pids[@]}"
    spawn iperf3-server "$LOOP_NS" iperf3 -s -1 -B 127.0.0.1 -p "$IPERF_PORT"
    wait_listen "$LOOP_NS" "$IPERF_PORT" 5 || true
    json="$RESULTS/logs/efficiency-$mode.json"
    local cpu_before cpu_after
    cpu_before="$(cpu_seconds "${pids[@]}")"; local jit_before; jit_before="$(jit_cpu_seconds "${pids[@]}")"
    ip netns exec "$LOOP_NS" timeout -s INT -k 10 $((EFF_SECONDS + 20)) iperf3 -c 127.0.0.1 -p "$port" -R -C cubic -P 4 \
      -t "$EFF_SECONDS" -J > "$json" 2>&1 || true
    cpu_after="$(cpu_seconds "${pids[@]}")"
    echo "$mode: JIT compiler threads $(awk -v a="$jit_before" -v b="$(jit_cpu_seconds "${pids[@]}")" 'BEGIN { printf "%.2f", b - a }') CPU s of $(awk -v a="$cpu_before" -v b="$cpu_after" 'BEGIN { printf "%.2f", b - a }') in the measured run" \
      >> "$RESULTS/logs/efficiency-warm-up.txt"
    stop iperf3-server
    [ "$mode" != tcpopt ] || efficiency_profile "${pids[@]}"
    stop_mode "$mode"
    local row
    row="$("$PYTHON" - "$json" "$cpu_before" "$cpu_after" <<'PY'
import json, sys
cpu = float(sys.argv[3]) - float(sys.argv[2])
try:
    end = json.load(open(sys.argv[1]))["end"]["sum_received"]
    gb = end["bytes"] / 1e9
    print("%.1f,%.2f,%d,%.2f,%.3f,ok" % (end["bits_per_second"] / 1e6, end["seconds"], end["bytes"], cpu, cpu / gb if gb else 0))
except Exception as e:
    print("0,0,0,%.2f,0,failed" % cpu)
PY
)"
    echo "$mode,$row" >> "$RESULTS/efficiency.csv"
    progress "  $mode: $(cut -d, -f1 <<< "$row") Mbit/s, relay CPU $(cut -d, -f4 <<< "$row") s = $(cut -d, -f5 <<< "$row") CPU s/GB"
  done
  ip netns del "$LOOP_NS"
}

# ------------------------------------------------------------------ main
cat >> "$RESULTS/environment.txt" <<ENV
date: $(date -u '+%Y-%m-%d %H:%M UTC')
command: bench/run.sh ${suffix:+--quick }$([ "$issue9" -eq 1 ] && echo "--issue9 " || echo "--only $only ")--modes "$modes"
machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/ { print $2 }') GB RAM, kernel $(uname -r)
load average at start: $(cut -d' ' -f1-3 /proc/loadavg)
tools: $(iperf3 --version | head -1); $(haproxy -v 2>/dev/null | head -1 | cut -d' ' -f1-3); kcptun $(kcptun-client -v 2>/dev/null | awk '{ print $3 }'); $(java -version 2>&1 | head -1)
commit: $(git -C "$REPO_DIR" rev-parse --short HEAD 2>/dev/null || echo unknown)
tcpopt: ${TCPOPT_JAR:-./tcpopt of this checkout}
link: ${LINK_MBIT} Mbit/s each way, drop-tail queue 1000 packets, userspace TUN emulator (bench/linkemu)
transactions (3): $TX_REQUESTS x $TX_SIZE B at concurrency $TX_CONCURRENCY, after $TX_WARMUP unrecorded ones per mode
ENV
! wants 9 || cat >> "$RESULTS/environment.txt" <<ENV
issue 9: bulk rows (RTT ms/loss %) $BULK9_ROWS at ${LINK_MBIT} Mbit/s and ${FAST_RTT}/0 at ${FAST_MBIT} Mbit/s, ${BULK9_BYTES} each over ${BULK9_FLOWS} streams, ${BULK9_DIRECTION}load (cap ${BULK9_CAP} s); interactive ${INTERACTIVE_SIZE} B every ${INTERACTIVE_INTERVAL} s at ${INTERACTIVE_RTT} ms; fairness ${FAIR_FLOWS} flows ${FAIR_SECONDS} s (first ${FAIR_OMIT} s not counted) at ${FAIR_RTT} ms; tcpopt-nolink runs ${NOLINK_ONLY}
ENV
# --out into an earlier results folder adds rows (e.g. a mode measured later) to its tables.
header() { [ -s "$RESULTS/$1" ] || echo "$2" > "$RESULTS/$1"; }
header bulk.csv "mode,rtt_ms,loss_pct,mbit_s,seconds,bytes,capped,status"
header small_window.csv "mode,rtt_ms,run,total_s,completed,download_s,status"
header transactions.csv "mode,rtt_ms,concurrency,requests,completed,total_s,p50_s,p99_s,server_connections,wan_packets,status"
header efficiency.csv "mode,mbit_s,seconds,bytes,relay_cpu_s,cpu_s_per_gb,status"
header many_flows.csv "mode,flows,held,client_sockets,errors,branch_idle_mib,branch_holding_mib,branch_after_mib,branch_kib_per_flow,branch_after_vs_idle_pct,dc_idle_mib,dc_holding_mib,dc_after_mib,dc_kib_per_flow,dc_after_vs_idle_pct,status"
header flow_rate.csv "mode,phase,rtt_ms,started,completed,errors,flows_per_s,setup_p50_ms,setup_p99_ms,flow_p50_ms,flow_p99_ms,node_cpu_ms_per_flow,node_loops_cpu_ms_per_flow,node_jit_cpu_ms_per_flow,node_gc_cpu_ms_per_flow,endpoints_cpu_ms_per_flow,branch_cpu_ms_per_flow,dc_cpu_ms_per_flow,client_cpu_ms_per_flow,server_cpu_ms_per_flow,status"
if wants 9; then
  header bulk9.csv "mode,link_mbit,rtt_ms,loss_pct,mbit_s,seconds,bytes,capped,status"
  header interactive.csv "mode,rtt_ms,samples,unanswered,p50_ms,p99_ms,max_ms,idle_p50_ms,bulk_mbit_s,bulk_seconds,bulk_status,status"
  header fairness.csv "mode,flows,seconds,total_mbit_s,min_mbit_s,max_mbit_s,max_deviation_pct,jain,flow_mbit_s,status"
fi
progress "results in $RESULTS ($([ -n "$suffix" ] && echo quick || echo full) run, benchmarks $only, modes $modes)"

if wants 1 || wants 2 || wants 3 || wants 9; then
  "$TESTBED_DIR/up.sh" --rtt 0 --rate "$LINK_MBIT" --loss 0 --queue 1000
  spawn http-server "$NS_SERVER" "$PYTHON" "$BENCH_DIR/tools/loadgen.py" serve --bind "$SERVER_IP" --port "$HTTP_PORT" --stats "$STATE_DIR/http.stats"
  wait_listen "$NS_SERVER" "$HTTP_PORT" 10 || fail "HTTP server did not start"
  spawn echo-server "$NS_SERVER" "$PYTHON" "$BENCH_DIR/tools/loadgen.py" tcp-echo --bind "$SERVER_IP" --port "$ECHO_PORT"
  wait_listen "$NS_SERVER" "$ECHO_PORT" 10 || fail "echo server did not start"
  for mode in $modes; do
    progress "mode $mode: starting"
    if ! start_mode "$mode" > "$RESULTS/logs/start-$mode.txt" 2>&1 || ! mode_works "$mode"; then
      why="$(tr '\n' ' ' < "$RESULTS/logs/start-$mode.txt")"
      why="${why:-no traffic through it: $(tail -c 200 "$RESULTS/logs/check-$mode.json" 2>/dev/null)}"
      progress "mode $mode unavailable: $why"
      echo "$mode: ${why//$'\n'/ }" >> "$RESULTS/unavailable.txt"
      stop_mode "$mode"
      continue
    fi
    warm_up "$mode"
    LAST_RTT=0
    if wants_for "$mode" 1; then
      progress "[1] throughput vs RTT, $mode"
      last_rtt=0
      for loss in $LOSSES; do
        for rtt in $RTTS; do
          set_link "$rtt" "$loss"
          if [ "$rtt" != "$last_rtt" ]; then settle_link; last_rtt="$rtt"; fi
          bulk_run "$mode" "$rtt" "$loss"
        done
      done
      LAST_RTT="$last_rtt"
    fi
    if wants_for "$mode" 9.1; then
      progress "[9.1] fixed-size bulk, $mode"
      bulk9_grid "$mode"
    fi
    if wants_for "$mode" 2; then
      progress "[2] small-window client, $mode"
      link_to "$mode" "$SW_RTT" 0
      ip netns exec "$NS_CLIENT" sysctl -q -w net.ipv4.tcp_window_scaling=0
      for run in $(seq "$SW_RUNS"); do small_window_run "$mode" "$run"; done
      ip netns exec "$NS_CLIENT" sysctl -q -w net.ipv4.tcp_window_scaling=1
    fi
    if wants_for "$mode" 9.3; then
      progress "[9.3] interactive beside bulk, $mode"
      interactive_run "$mode"
    fi
    if wants_for "$mode" 9.4; then
      progress "[9.4] fairness of $FAIR_FLOWS flows, $mode"
      fairness_run "$mode"
    fi
    if wants_for "$mode" 3; then
      progress "[3] short transactions, $mode"
      link_to "$mode" "$TX_RTT" 0
      transactions_run "$mode"
    fi
    if wants_for "$mode" 9.2; then
      progress "[9.2] fixed-size bulk at $FAST_MBIT Mbit/s, $mode"
      bulk9_fast "$mode"
    fi
    stop_mode "$mode"
  done
  stop http-server echo-server
  "$TESTBED_DIR/down.sh"
fi
if wants 5; then
  progress "[5] efficiency on loopback"
  efficiency
fi
if wants 11; then
  progress "[11] data reduction"
  reduction_experiments
fi
if wants 6 || wants 7; then
  progress "[6, 7] many flows and flow rate"
  flows_experiments
fi
# ---- issue 10 (application profiles): not in the default set, run with --only 10
if wants 10; then
  progress "[10] application profiles: OneConnect, TLS termination"
  profiles_experiments
fi
"$PYTHON" "$BENCH_DIR/tools/report.py" "$RESULTS"
progress "report: $RESULTS/results.md"
exit 0
}
