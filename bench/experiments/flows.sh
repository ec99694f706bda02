# Experiments 6 and 7 of bench/run.sh (issue 13): many idle flows and the new-flow rate, driven by
# bench/tools/flowgen.c (an epoll load generator in C: the Python tools cannot open flows fast
# enough to measure a relay). Sourced by run.sh at start; uses its helpers (spawn, stop, progress,
# start_tcpopt, stop_tcpopt, set_link) and writes many_flows.csv and flow_rate.csv.
#
#   6  many flows: 2 ms RTT, 1 Gbit/s. A warm node pair (tcpopt) holds MF_FLOWS concurrent flows,
#      each after one 100-byte echo, then idle for MF_HOLD s. Resident memory (RSS) of each node:
#      idle (after a warm-up) -> holding -> MF_AFTER s after the flows closed; per idle flow.
#      direct: the same flows without the pair (that every flow was held and exact).
#   7  flow rate: new flows back to back (connect, 1 KiB echo, the server closes), 64 at a time, for
#      FR_SECONDS, at 2 ms and 100 ms RTT, direct and tcpopt: flows/s, setup latency p50/p99
#      (connect() to the first echoed byte), whole-flow p50/p99, and the CPU the two nodes spent per
#      flow (ms, from /proc: robust against the load others put on the machine) and the client and
#      echo server together (their own CPU, system calls included); every byte checked.
#      tcpopt is measured twice at each RTT: "cold", after the short warm-up below (the nodes are
#      minutes old: the JIT compiler still busy), and "steady", after FLOWS_STEADY_FLOWS more new
#      flows (bounded by FLOWS_STEADY_SECONDS), as a node that has run for days would be. Each row
#      also splits the nodes' CPU per flow by thread (/proc/PID/task/*/stat): the event loops, the
#      JIT compiler threads (near 0 once C2 settled) and the GC threads; the per-thread ticks of
#      each tcpopt row go to logs/node-threads-PHASE-rttRTT.txt.
#
# The pair runs with settings for many flows (FLOWS_TCPOPT_* below, the environment may override
# them): the testbed has one client address, which holds every flow (flows.max-per-client), and
# every new optimized flow reserves 192 KiB of the buffer budget (its 64 KiB initial window, a send
# queue of the peer's 64 KiB window, a leg read: 10,000 x 192 KiB = 1.9 GiB), so the budget and the
# JVM's direct-memory limit it must fit in are raised. The windows are the nodes' defaults (they
# start at 64 KiB and grow with the flow); FLOWS_TCPOPT_STREAM_WINDOW / FLOWS_TCPOPT_LAN set
# wan.stream-window / service-node.lan (runs before 2026-12-02 used 64KiB and { proxy-buffer-high:
# 64KiB, proxy-buffer-low: 16KiB }). The reservation is a worst case; what the flows really cost is
# the RSS the experiment reports.

FLOWGEN="$BENCH_DIR/target/flowgen"
MF_PORT=9000 FR_PORT=9001
if [ "${quick:-0}" -eq 1 ]; then
  MF_FLOWS=5000 MF_HOLD=5 MF_AFTER=20 FR_SECONDS=5
else
  MF_FLOWS=10000 MF_HOLD=10 MF_AFTER=30 FR_SECONDS=10
fi
MF_OPEN=90 MF_RATE_MBIT=1000 FR_CONCURRENCY=64 FR_SIZE=1024 FLOWS_WARM_SECONDS="${FLOWS_WARM_SECONDS:-15}"
# The steady state of experiment 7: this many more new flows (at 2 ms RTT), at most this long.
FLOWS_STEADY_FLOWS="${FLOWS_STEADY_FLOWS:-40000}" FLOWS_STEADY_SECONDS="${FLOWS_STEADY_SECONDS:-120}"
FLOWS_TCPOPT_STREAM_WINDOW="${FLOWS_TCPOPT_STREAM_WINDOW-}"
FLOWS_TCPOPT_LAN="${FLOWS_TCPOPT_LAN-}"
FLOWS_TCPOPT_FLOWS="${FLOWS_TCPOPT_FLOWS:-{ max-active: 12000, max-per-client: 12000, buffer-budget: 2560MiB \}}"
FLOWS_TCPOPT_JAVA_OPTS="${FLOWS_TCPOPT_JAVA_OPTS:--Xmx1g -XX:MaxDirectMemorySize=4g}"
# 4 WAN connections x the DC's default max-streams (4,096) carry the 10,000 flows optimized (one
# connection would pass the flows beyond 4,096 through); runs A and B used 4 as well.
FLOWS_TCPOPT_WAN_CONNECTIONS="${FLOWS_TCPOPT_WAN_CONNECTIONS:-4}"

build_flowgen() {
  local src="$BENCH_DIR/tools/flowgen.c"
  if [ ! -x "$FLOWGEN" ] || [ "$src" -nt "$FLOWGEN" ]; then
    command -v gcc > /dev/null || fail "needs gcc to build bench/tools/flowgen.c"
    mkdir -p "$(dirname "$FLOWGEN")"
    gcc -O2 -Wall -Wextra -o "$FLOWGEN.tmp" "$src"
    mv "$FLOWGEN.tmp" "$FLOWGEN"
  fi
}

# FLOWS_SNAPSHOTS=1: after each RSS sample of experiment 6, each node's heap (GC.heap_info), class
# histogram with unreachable objects too (GC.class_histogram -all: no collection, so the next sample
# is not disturbed) and, when its JAVA_OPTS turn Native Memory Tracking on, its native memory
# summary go to logs/snapshot-NODE-PHASE.txt. A diagnosis aid; not part of the figures.
flows_snapshot() { # flows_snapshot PHASE BRANCH_PID DC_PID
  [ "${FLOWS_SNAPSHOTS:-0}" = 1 ] && [ -n "$2" ] || return 0
  local node pid
  for node in branch dc; do
    pid="$2"; [ "$node" = branch ] || pid="$3"
    { date -u; grep -E '^Vm(RSS|HWM)' "/proc/$pid/status"; jcmd "$pid" GC.heap_info; jcmd "$pid" VM.native_memory summary
      jcmd "$pid" GC.class_histogram -all | head -45; } > "$RESULTS/logs/snapshot-$node-$1.txt" 2>&1 || true
  done
}

rss_kb() { # resident set size of PID in KiB (0 when gone)
  awk '/^VmRSS:/ { print $2; found=1 } END { if (!found) print 0 }' "/proc/$1/status" 2> /dev/null || echo 0
}

flows_servers_up() {
  spawn flowgen-echo "$NS_SERVER" "$FLOWGEN" serve --bind "$SERVER_IP" --port "$MF_PORT"
  spawn flowgen-close "$NS_SERVER" "$FLOWGEN" serve --bind "$SERVER_IP" --port "$FR_PORT" --close-after "$FR_SIZE"
  wait_listen "$NS_SERVER" "$MF_PORT" 5 && wait_listen "$NS_SERVER" "$FR_PORT" 5 || fail "flowgen servers did not start"
}

flowgen_client() { # flowgen_client MODE ARGS...: runs flowgen in the client namespace against the server
  local mode="$1"; shift
  ip netns exec "$NS_CLIENT" "$FLOWGEN" "$mode" --host "$SERVER_IP" "$@"
}

# The relay pair of a mode whose CPU experiment 7 counts (branch first, then DC): tcpopt's nodes,
# or the HAProxy pair.
RELAY_PIDS=()

# The HAProxy pair of experiment 7 (mode haproxy): the bound an ideal relay pair reaches on this
# machine. TCP mode, the same namespaces and link as tcpopt, no TLS, each with 2 threads (the
# event loops tcpopt has on 2 cores); the client is pointed at the branch's relay
# (BRANCH_LAN_IP:FR_PORT+10000), which connects to the DC's across the link, which connects to
# the flow-rate server. Neither relay has anything to warm up.
FR_HAPROXY_PORT=$((FR_PORT + 10000))
start_haproxy_flows() {
  command -v haproxy > /dev/null || { echo "haproxy not installed"; return 1; }
  local dir="$STATE_DIR/haproxy-flows"
  mkdir -p "$dir"
  write_haproxy_config "$dir/branch.cfg" "$BRANCH_LAN_IP:$FR_HAPROXY_PORT=$DC_WAN_IP:$FR_HAPROXY_PORT"
  write_haproxy_config "$dir/dc.cfg" "$DC_WAN_IP:$FR_HAPROXY_PORT=$SERVER_IP:$FR_PORT"
  spawn haproxy-flows-dc "$NS_DC" haproxy -db -f "$dir/dc.cfg"
  spawn haproxy-flows-branch "$NS_BRANCH" haproxy -db -f "$dir/branch.cfg"
  wait_listen "$NS_BRANCH" "$FR_HAPROXY_PORT" 10 && wait_listen "$NS_DC" "$FR_HAPROXY_PORT" 10 \
    || { echo "haproxy did not start: $(tail -2 "$RESULTS/logs/haproxy-flows-branch.log")"; return 1; }
  RELAY_PIDS=("${PIDS[haproxy-flows-branch]}" "${PIDS[haproxy-flows-dc]}")
}
stop_haproxy_flows() { stop haproxy-flows-branch haproxy-flows-dc; RELAY_PIDS=(); }

# A JIT-warm pair: FLOWS_WARM_SECONDS of new flows (the JIT compiler is still busy after a few
# seconds, the more so on a loaded machine) and a thousand held ones, not recorded.
flows_warm_up() {
  flowgen_client rate --port "$FR_PORT" --size "$FR_SIZE" --concurrency "$FR_CONCURRENCY" --duration "$FLOWS_WARM_SECONDS" --deadline 15 \
    > "$RESULTS/logs/flows-warm-up-$1.json" 2>&1 || true
  flowgen_client hold --port "$MF_PORT" --flows 1000 --concurrency 128 --hold 1 >> "$RESULTS/logs/flows-warm-up-$1.json" 2>&1 || true
}

many_flows_run() { # many_flows_run MODE -> a row of many_flows.csv
  local mode="$1" branch_pid="" dc_pid="" json="$RESULTS/logs/many-flows-$1.json"
  if [ "$mode" = tcpopt ]; then
    branch_pid="${TCPOPT_PIDS[0]}" dc_pid="${TCPOPT_PIDS[1]}"
  fi
  flows_warm_up "$mode"
  sleep "$MF_AFTER" # what the node keeps once a burst is over is its baseline
  local b0=0 d0=0 b1=0 d1=0 b2=0 d2=0 sockets=0
  [ -z "$branch_pid" ] || { b0="$(rss_kb "$branch_pid")"; d0="$(rss_kb "$dc_pid")"; }
  flows_snapshot idle "$branch_pid" "$dc_pid"
  # at most MF_OPEN s to open them all (a new flow through the pair costs a few hundred µs of CPU
  # at each node; on a loaded machine 10,000 take tens of seconds)
  ip netns exec "$NS_CLIENT" timeout -k 5 $((MF_OPEN + MF_HOLD + 60)) "$FLOWGEN" hold --host "$SERVER_IP" --port "$MF_PORT" \
    --flows "$MF_FLOWS" --concurrency 256 --size 100 --duration "$MF_OPEN" --hold "$MF_HOLD" --deadline 30 > "$json" 2> "$RESULTS/logs/many-flows-$mode.err" &
  local client=$!
  for _ in $(seq $((MF_OPEN * 10 + 400))); do grep -q '"held"' "$json" 2> /dev/null && break; kill -0 "$client" 2> /dev/null || break; sleep 0.1; done
  sleep 2
  sockets="$(ip netns exec "$NS_CLIENT" ss -Htn state established "dport = :$MF_PORT" | wc -l)"
  [ -z "$branch_pid" ] || { b1="$(rss_kb "$branch_pid")"; d1="$(rss_kb "$dc_pid")"; }
  flows_snapshot holding "$branch_pid" "$dc_pid"
  wait "$client" || true
  sleep "$MF_AFTER"
  [ -z "$branch_pid" ] || { b2="$(rss_kb "$branch_pid")"; d2="$(rss_kb "$dc_pid")"; }
  flows_snapshot after "$branch_pid" "$dc_pid"
  local row
  row="$("$PYTHON" - "$json" "$MF_FLOWS" "$sockets" "$b0" "$b1" "$b2" "$d0" "$d1" "$d2" <<'PY'
import json, sys
flows = int(sys.argv[2]); sockets = int(sys.argv[3])
b0, b1, b2, d0, d1, d2 = (int(x) / 1024 for x in sys.argv[4:10])
d = {}
try:
    for line in open(sys.argv[1]):
        d = json.loads(line)
except Exception:
    pass
held = d.get("held_to_the_end", 0)
status = "ok" if held == flows and not d.get("errors") and not d.get("mismatched_bytes") else "failed: " + d.get("last_error", "no result")[:60].replace(",", ";")
per = lambda idle, holding: (holding - idle) * 1024 / held if held and holding else 0
back = lambda idle, after: (after - idle) / idle * 100 if idle else 0
print("%d,%d,%d,%d,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%s" % (flows, held, sockets, d.get("errors", 0), b0, b1, b2, per(b0, b1), back(b0, b2),
      d0, d1, d2, per(d0, d1), back(d0, d2), status))
PY
)"
  echo "$mode,$row" >> "$RESULTS/many_flows.csv"
  IFS=, read -r _ held _ _ b0 b1 b2 bper bback d0 d1 d2 dper dback status <<< "$row"
  progress "  $mode: $held/$MF_FLOWS held ($status); branch RSS $b0 -> $b1 -> $b2 MiB ($bper KiB/flow, after close ${bback}% of baseline); dc $d0 -> $d1 -> $d2 MiB ($dper KiB/flow, ${dback}%)"
}

cpu_ticks() { # cpu_ticks PID...: user + system clock ticks of the processes together
  local pid total=0
  for pid in "$@"; do total=$((total + $(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2> /dev/null || echo 0))); done
  echo "$total"
}

# Per-thread CPU of the nodes: one line per thread, "NODE NAME USER SYSTEM" (clock ticks), names
# with digits as N (Linux keeps 15 characters: tcpopt-branch-N and tcpopt-dc-N-io- are the event
# loops, "CN CompilerThre" the JIT compiler threads).
node_threads() { # node_threads PID... > file
  local pid t i=0 node
  for pid in "$@"; do
    node=branch; [ "$i" = 0 ] || node=dc
    for t in /proc/"$pid"/task/*; do
      # comm may hold spaces: the fields after the ")" are the stat fields from the 3rd on
      awk -v node="$node" -v name="$(sed 's/[0-9][0-9]*/N/g; s/ /_/g' "$t/comm" 2> /dev/null)" \
        '{ sub(/^.*\) /, ""); print node, name, $12, $13 }' "$t/stat" 2> /dev/null || true
    done
    i=$((i + 1))
  done
}

# FLOWS_JFR=1: each tcpopt node records a Java Flight Recording (settings=profile) during each flow
# rate run, logs/jfr-NODE-rttRTT.jfr (the setup path's profile; the recording costs CPU: a run with
# it is a diagnosis, not a figure).
flows_jfr() { # flows_jfr start|stop RTT
  [ "${FLOWS_JFR:-0}" = 1 ] && [ "$mode" = tcpopt ] || return 0
  local i=0 node
  for node in branch dc; do
    if [ "$1" = start ]; then
      jcmd "${TCPOPT_PIDS[$i]}" JFR.start name=rate settings=profile filename="$RESULTS/logs/jfr-$node-rtt$2.jfr" > /dev/null 2>&1 || true
    else
      jcmd "${TCPOPT_PIDS[$i]}" JFR.stop name=rate > /dev/null 2>&1 || true
    fi
    i=$((i + 1))
  done
}

flow_rate_run() { # flow_rate_run MODE RTT [PHASE] -> a row of flow_rate.csv
  local mode="$1" rtt="$2" phase="${3:-cold}" branch0 branch1 dc0 dc1 server0 server1
  local json="$RESULTS/logs/flow-rate-$mode-$phase-rtt$rtt.json" threads="$RESULTS/logs/node-threads-$phase-rtt$rtt"
  local target=(--host "$SERVER_IP" --port "$FR_PORT")
  [ "$mode" != haproxy ] || target=(--host "$BRANCH_LAN_IP" --port "$FR_HAPROXY_PORT")
  flows_jfr start "$rtt-$phase"
  branch0="$(cpu_ticks "${RELAY_PIDS[@]:0:1}")" dc0="$(cpu_ticks "${RELAY_PIDS[@]:1:1}")"
  server0="$(cpu_ticks "${PIDS[flowgen-close]}")"
  [ "$mode" != tcpopt ] || node_threads "${TCPOPT_PIDS[@]}" > "$threads.0"
  ip netns exec "$NS_CLIENT" "$FLOWGEN" rate "${target[@]}" --size "$FR_SIZE" --concurrency "$FR_CONCURRENCY" --duration "$FR_SECONDS" --deadline 15 \
    > "$json" 2> "$RESULTS/logs/flow-rate-$mode-$phase-rtt$rtt.err" || true
  branch1="$(cpu_ticks "${RELAY_PIDS[@]:0:1}")" dc1="$(cpu_ticks "${RELAY_PIDS[@]:1:1}")"
  server1="$(cpu_ticks "${PIDS[flowgen-close]}")"
  [ "$mode" != tcpopt ] || node_threads "${TCPOPT_PIDS[@]}" > "$threads.1"
  flows_jfr stop "$rtt-$phase"
  local row
  # endpoints: the client's own CPU (flowgen reports its rusage) and the echo server's (/proc);
  # the relays' CPU per process (branch, DC), and tcpopt's split by thread: event loops, JIT
  # compiler, GC (the rest is in the total only)
  row="$("$PYTHON" - "$json" "$((branch1 - branch0 + dc1 - dc0))" "$(getconf CLK_TCK)" "$((server1 - server0))" "$threads" "$mode" \
    "$((branch1 - branch0))" "$((dc1 - dc0))" <<'PY'
import collections, json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception:
    print("0,0,0,0,0,0,0,0,0,0,0,0,0,failed: no result"); sys.exit()
status = "ok" if d["completed"] == d["started"] and not d["errors"] and not d["mismatched_bytes"] else "errors: " + d["last_error"][:60].replace(",", ";")
hz = int(sys.argv[3])
n = d["completed"]
cpu_ms = int(sys.argv[2]) * 1000 / hz / n if n else 0
ends_ms = (d.get("client_cpu_s", 0) * 1000 + int(sys.argv[4]) * 1000 / hz) / n if n else 0
groups = collections.Counter()
if sys.argv[6] == "tcpopt":
    def ticks(path):
        t = collections.Counter()
        for line in open(path):
            f = line.split()
            if len(f) == 4:
                t[(f[0], f[1])] += int(f[2]) + int(f[3])
        return t
    before, after = ticks(sys.argv[5] + ".0"), ticks(sys.argv[5] + ".1")
    with open(sys.argv[5] + ".txt", "w") as out:
        out.write("clock ticks (%d/s) per thread name during the run, %d flows\n" % (hz, n))
        for key in sorted(after, key=lambda k: -(after[k] - before[k])):
            used = after[key] - before[key]
            if used > 0:
                out.write("%-6s %-16s %6d\n" % (key[0], key[1], used))
            name = key[1]
            group = "loops" if name.startswith("tcpopt-") else "jit" if "Compiler" in name else "gc" if ("GC" in name or "G1" in name or "Conc" in name) else "other"
            groups[group] += used
ms = lambda g: groups[g] * 1000 / hz / n if n else 0
per = lambda ticks: ticks * 1000 / hz / n if n else 0
client_ms = d.get("client_cpu_s", 0) * 1000 / n if n else 0
print("%d,%d,%d,%.1f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%s" % (d["started"], n, d["errors"], d["flows_per_s"], d["setup_p50_ms"], d["setup_p99_ms"],
      d["flow_p50_ms"], d["flow_p99_ms"], cpu_ms, ms("loops"), ms("jit"), ms("gc"), ends_ms,
      per(int(sys.argv[7])), per(int(sys.argv[8])), client_ms, per(int(sys.argv[4])), status))
PY
)"
  echo "$mode,$phase,$rtt,$row" >> "$RESULTS/flow_rate.csv"
  IFS=, read -r _ done errors rate s50 s99 _ _ cpu loops jit gc ends branch dc client server status <<< "$row"
  progress "  $mode $phase rtt=${rtt}ms: $rate flows/s ($done flows, $errors errors), setup p50 $s50 ms p99 $s99 ms," \
    "relays' CPU $cpu ms/flow (branch $branch, DC $dc; tcpopt's event loops $loops, JIT $jit, GC $gc)," \
    "client + server $ends ms/flow (client $client, server $server) ($status)"
}

# FLOWS_PROFILE=1: after the steady rows, one more 2 ms flow-rate run (not recorded) with `perf
# record -g` on both nodes and their JIT symbol maps (jcmd Compiler.perfmap), into
# logs/perf-NODE.data and logs/perf-NODE.txt (perf report, children off: self time by symbol). A
# diagnosis; perf costs CPU.
flows_profile() {
  [ "${FLOWS_PROFILE:-0}" = 1 ] && command -v perf > /dev/null || return 0
  set_flows_link 2
  local i=0 node perfs=()
  for node in branch dc; do
    perf record -F 499 -g -p "${TCPOPT_PIDS[$i]}" -o "$RESULTS/logs/perf-$node.data" > "$RESULTS/logs/perf-$node.log" 2>&1 &
    perfs+=($!)
    i=$((i + 1))
  done
  sleep 1
  flowgen_client rate --port "$FR_PORT" --size "$FR_SIZE" --concurrency "$FR_CONCURRENCY" --duration "$FR_SECONDS" --deadline 15 \
    > "$RESULTS/logs/flow-rate-profile.json" 2>&1 || true
  i=0
  for node in branch dc; do
    jcmd "${TCPOPT_PIDS[$i]}" Compiler.perfmap > /dev/null 2>&1 || true
    kill -INT "${perfs[$i]}" 2> /dev/null || true
    i=$((i + 1))
  done
  wait "${perfs[@]}" 2> /dev/null || true
  for node in branch dc; do
    perf report -i "$RESULTS/logs/perf-$node.data" --no-children --sort dso,sym --stdio 2> /dev/null | head -400 > "$RESULTS/logs/perf-$node.txt" || true
  done
  progress "  profile: logs/perf-branch.txt, logs/perf-dc.txt ($(tr -d '\n' < "$RESULTS/logs/flow-rate-profile.json" | head -c 120))"
  # then the system calls of each node (perf trace -s: calls by thread and system call) for 5 s of flows
  local traces=()
  i=0
  for node in branch dc; do
    perf trace -s -p "${TCPOPT_PIDS[$i]}" -o "$RESULTS/logs/syscalls-$node.txt" > /dev/null 2>&1 &
    traces+=($!)
    i=$((i + 1))
  done
  sleep 1
  flowgen_client rate --port "$FR_PORT" --size "$FR_SIZE" --concurrency "$FR_CONCURRENCY" --duration 5 --deadline 15 \
    > "$RESULTS/logs/flow-rate-syscalls.json" 2>&1 || true
  kill -INT "${traces[@]}" 2> /dev/null || true
  wait "${traces[@]}" 2> /dev/null || true
  progress "  system calls: logs/syscalls-branch.txt, logs/syscalls-dc.txt ($(tr -d '\n' < "$RESULTS/logs/flow-rate-syscalls.json" | head -c 120))"
}

# The steady state: FLOWS_STEADY_FLOWS new flows at 2 ms RTT (at most FLOWS_STEADY_SECONDS), not
# recorded but for their count and how much of the nodes' CPU each thread took in their last
# seconds (5 s or less: the JIT compiler should be near 0 there; logs/flows-steady.json,
# logs/node-threads-steady-warm-up-tail.txt).
flows_steady_warm_up() {
  set_flows_link 2
  local tail="$RESULTS/logs/node-threads-steady-warm-up-tail"
  flowgen_client rate --port "$FR_PORT" --size "$FR_SIZE" --concurrency "$FR_CONCURRENCY" --count "$FLOWS_STEADY_FLOWS" \
    --duration "$FLOWS_STEADY_SECONDS" --deadline 15 > "$RESULTS/logs/flows-steady.json" 2>&1 &
  local client=$! t0=$SECONDS
  node_threads "${TCPOPT_PIDS[@]}" > "$tail.1"
  while kill -0 "$client" 2> /dev/null && [ $((SECONDS - t0)) -lt $((FLOWS_STEADY_SECONDS + 30)) ]; do
    sleep 5
    mv "$tail.1" "$tail.0"
    node_threads "${TCPOPT_PIDS[@]}" > "$tail.1"
  done
  wait "$client" || true
  t0=5
  "$PYTHON" - "$tail" "$t0" <<'PY' > "$tail.txt"
import collections, sys
def ticks(path):
    t = collections.Counter()
    for line in open(path):
        f = line.split()
        if len(f) == 4:
            t[f[1]] += int(f[2]) + int(f[3])
    return t
a, b = ticks(sys.argv[1] + ".0"), ticks(sys.argv[1] + ".1")
print("clock ticks per thread name (both nodes) in the last (at most) %s s of the steady-state warm-up" % sys.argv[2])
for k in sorted(b, key=lambda k: -(b[k] - a[k])):
    if b[k] - a[k] > 0:
        print("%-16s %6d" % (k, b[k] - a[k]))
PY
  progress "  steady state: $(tr -d '\n' < "$RESULTS/logs/flows-steady.json" | head -c 200)"
  progress "  $(head -4 "$tail.txt" | tr '\n' ';')"
}

# Experiments 6 and 7 on their own testbed (the link at 1 Gbit/s), each mode started once.
flows_experiments() {
  build_flowgen
  "$TESTBED_DIR/up.sh" --rtt 2 --rate "$MF_RATE_MBIT" --loss 0 --queue 1000
  flows_servers_up
  local mode rtt
  for mode in direct $(printf '%s\n' $modes | grep -xE 'tcpopt|haproxy' || true); do
    set_flows_link 2
    if [ "$mode" = haproxy ]; then
      wants 7 || continue
      if ! start_haproxy_flows > "$RESULTS/logs/start-flows-haproxy.txt" 2>&1; then
        progress "  haproxy unavailable: $(tr '\n' ' ' < "$RESULTS/logs/start-flows-haproxy.txt")"
        echo "haproxy (7): $(tr '\n' ' ' < "$RESULTS/logs/start-flows-haproxy.txt")" >> "$RESULTS/unavailable.txt"
        stop_haproxy_flows
        continue
      fi
      progress "[7] flow rate, haproxy pair (TCP mode, no TLS)"
      for rtt in 2 100; do
        set_flows_link "$rtt"
        flow_rate_run haproxy "$rtt" none
      done
      stop_haproxy_flows
      continue
    fi
    if [ "$mode" = tcpopt ] && ! TCPOPT_STREAM_WINDOW="$FLOWS_TCPOPT_STREAM_WINDOW" TCPOPT_LAN="$FLOWS_TCPOPT_LAN" \
        TCPOPT_WAN_CONNECTIONS="$FLOWS_TCPOPT_WAN_CONNECTIONS" \
        TCPOPT_FLOWS="$FLOWS_TCPOPT_FLOWS" TCPOPT_JAVA_OPTS="$FLOWS_TCPOPT_JAVA_OPTS" start_tcpopt testbed > "$RESULTS/logs/start-flows-tcpopt.txt" 2>&1; then
      progress "  tcpopt unavailable: $(tr '\n' ' ' < "$RESULTS/logs/start-flows-tcpopt.txt")"
      echo "tcpopt (6, 7): $(tr '\n' ' ' < "$RESULTS/logs/start-flows-tcpopt.txt")" >> "$RESULTS/unavailable.txt"
      stop_tcpopt
      continue
    fi
    [ "$mode" != tcpopt ] || RELAY_PIDS=("${TCPOPT_PIDS[@]}")
    if wants 6; then
      progress "[6] many flows, $mode ($MF_FLOWS flows, 2 ms RTT)"
      many_flows_run "$mode"
    fi
    if wants 7; then
      progress "[7] flow rate, $mode"
      [ "$mode" = tcpopt ] && ! wants 6 && flows_warm_up "$mode"
      for rtt in 2 100; do
        set_flows_link "$rtt"
        flow_rate_run "$mode" "$rtt" "$([ "$mode" = tcpopt ] && echo cold || echo none)"
      done
      if [ "$mode" = tcpopt ] && [ "$FLOWS_STEADY_FLOWS" -gt 0 ]; then
        progress "[7] flow rate, $mode at steady state (after $FLOWS_STEADY_FLOWS more flows, at most $FLOWS_STEADY_SECONDS s)"
        flows_steady_warm_up
        for rtt in 2 100; do
          set_flows_link "$rtt"
          flow_rate_run "$mode" "$rtt" steady
        done
        flows_profile
      fi
    fi
    [ "$mode" != tcpopt ] || { stop_tcpopt; RELAY_PIDS=(); }
  done
  stop flowgen-echo flowgen-close
  "$TESTBED_DIR/down.sh"
}
set_flows_link() { "$TESTBED_DIR/link.sh" --rtt "$1" --loss 0 --rate "$MF_RATE_MBIT" 2> /dev/null; }
