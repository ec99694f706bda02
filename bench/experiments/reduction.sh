# Issue 11: data reduction on the testbed (sourced by bench/run.sh; benchmark 11, `--only 11`).
#
#   11 one tcpopt pair at 250 Mbit/s, 100 ms RTT, TLS; the client downloads 200 MB files from the
#      server (bench/tools/fileserve.py), each checked by SHA-256:
#      mode off (no data-reduction policy): a random file, a second random file, the corpus;
#      mode on (deploy/examples/testbed/data-reduction.yaml: zstd + deduplication), fresh caches:
#      random file A, A again, A with 1% changed (1 KiB runs at random places), the corpus
#      (bench/tools/corpus.py --size 200M --seed 1), a random file never sent before.
#      WAN bytes = bytes received on the branch's WAN interface during the transfer (IP, TCP and
#      TLS overhead included); CPU = user+system seconds of both node processes during it (and of
#      each node: cpu_branch_s, cpu_dc_s; of these, the JIT compiler threads': jit_branch_s, jit_dc_s,
#      and the garbage collector's threads': gc_branch_s, gc_dc_s).
#      REDUCTION_WINDOW (default 32MiB) is both modes' wan.stream-window; REDUCTION_MB the file size.
#      Warm-up, unrecorded, before each mode's measured transfers, so that the figures are the nodes'
#      steady state rather than the JIT compiling them (in a fresh node the C2 compiler threads took
#      40-60% of its CPU during the first minute, and still 3 CPU-s per node in the first 200 MB that
#      made the cache evict): downloads of throwaway random files of REDUCTION_WARMUP_MB (default 100),
#      each new one then again (new, repeat, new, repeat ...; 4 files, so the cache fills and evicts),
#      until the compiler threads took at most REDUCTION_WARMUP_JIT_PCT (default 10) percent of the
#      nodes' CPU in the last new and repeat downloads, bounded by REDUCTION_WARMUP (default 8
#      downloads) and REDUCTION_WARMUP_SECONDS (default 240). The log says why it stopped
#      (logs/reduction-MODE-warm-up.txt). REDUCTION_WARMUP=0 measures cold nodes, as runs 1-3 of
#      docs/benchmarks.md did.
#      REDUCTION_ROWS=random runs only the random-data rows (off: random, random again; on: random,
#      random never seen), each mode REDUCTION_REPEAT times (default 1) on the same nodes, for the
#      throughput target on random data; default all rows once.
#      Every transfer also logs each node thread's CPU seconds (logs/reduction-MODE-NAME-threads.txt,
#      threads of one name summed, e.g. the event loops).
# Results: reduction.csv, reduction.png in the results folder.

REDUCTION_MB="${REDUCTION_MB:-200}" REDUCTION_RTT=100 REDUCTION_PORT=8090
# Both modes run with this stream window (empty: the node's default, the link's BDP): credit counts
# LAN bytes, so a window of one BDP caps a reduced stream at the link rate however little crosses.
REDUCTION_WINDOW="${REDUCTION_WINDOW-32MiB}"
REDUCTION_WARMUP="${REDUCTION_WARMUP:-8}" REDUCTION_WARMUP_MB="${REDUCTION_WARMUP_MB:-100}"
REDUCTION_WARMUP_SECONDS="${REDUCTION_WARMUP_SECONDS:-240}" REDUCTION_WARMUP_JIT_PCT="${REDUCTION_WARMUP_JIT_PCT:-10}"
REDUCTION_ROWS="${REDUCTION_ROWS:-all}" REDUCTION_REPEAT="${REDUCTION_REPEAT:-1}"

reduction_files() { # the test files, made once per state directory
  local d="$STATE_DIR/reduction"
  mkdir -p "$d"
  [ -s "$d/random-a.bin" ] || head -c "${REDUCTION_MB}M" /dev/urandom > "$d/random-a.bin"
  [ -s "$d/random-b.bin" ] || head -c "${REDUCTION_MB}M" /dev/urandom > "$d/random-b.bin"
  [ -s "$d/random-c.bin" ] || head -c "${REDUCTION_MB}M" /dev/urandom > "$d/random-c.bin"
  local w
  for w in 1 2 3 4; do
    [ "$(stat -c %s "$d/warm-up-$w.bin" 2> /dev/null || echo 0)" = $((REDUCTION_WARMUP_MB << 20)) ] ||
      head -c "${REDUCTION_WARMUP_MB}M" /dev/urandom > "$d/warm-up-$w.bin"
  done
  [ -s "$d/corpus.bin" ] || "$PYTHON" "$BENCH_DIR/tools/corpus.py" --size "${REDUCTION_MB}M" --seed 1 --out "$d/corpus.bin"
  [ -s "$d/edited.bin" ] || "$PYTHON" - "$d/random-a.bin" "$d/edited.bin" <<'PY'
import random, sys
data = bytearray(open(sys.argv[1], "rb").read())
r = random.Random(11)
for _ in range(len(data) // 100 // 1024):      # 1% of the bytes, in 1 KiB runs at random places
    at = r.randrange(len(data) - 1024)
    data[at:at + 1024] = bytes(r.randrange(256) for _ in range(1024))
open(sys.argv[2], "wb").write(data)
PY
  echo "$d"
}

wan_rx_bytes() { # bytes received on the branch's WAN interface so far
  local ifc
  ifc="$(ip -n "$NS_BRANCH" -o -4 addr show | awk -v ip="$BRANCH_WAN_IP/" 'index($4, ip) == 1 { print $2 }')"
  ip netns exec "$NS_BRANCH" cat "/sys/class/net/$ifc/statistics/rx_bytes"
}

thread_cpu() { # thread_cpu PID jit|gc: user+system CPU seconds of the node's JIT compiler or GC threads so far
  local tck t c total=0; tck="$(getconf CLK_TCK)"
  for t in /proc/"$1"/task/*; do
    c="$(cat "$t/comm" 2> /dev/null)" || continue
    case "$2:$c" in
      jit:C1\ CompilerThre*|jit:C2\ CompilerThre*|gc:G1*|gc:GC\ Thread*|gc:VM\ Thread) ;;
      *) continue ;;
    esac
    total=$(( total + $(awk '{ print $14 + $15 }' "$t/stat" 2> /dev/null || echo 0) ))
  done
  awk -v t="$total" -v h="$tck" 'BEGIN { printf "%.2f", t / h }'
}

threads_cpu() { # threads_cpu PID...: "pid<TAB>thread name<TAB>CPU seconds" per thread name (digits dropped, so a pool sums)
  local tck pid; tck="$(getconf CLK_TCK)"
  for pid in "$@"; do
    for t in /proc/"$pid"/task/*; do
      printf '%s\t%s\t%s\n' "$pid" "$(tr -d '0-9' < "$t/comm" 2> /dev/null)" "$(awk '{ print $14 + $15 }' "$t/stat" 2> /dev/null || echo 0)"
    done
  done | awk -F'\t' -v h="$tck" '{ c[$1 "\t" $2] += $3 } END { for (k in c) printf "%s\t%.2f\n", k, c[k] / h }' | sort
}

threads_cpu_delta() { # threads_cpu_delta BEFORE AFTER: threads that used CPU in between, the busiest first
  awk -F'\t' 'NR == FNR { b[$1 "\t" $2] = $3; next } { d = $3 - b[$1 "\t" $2]; if (d > 0.004) printf "%s\t%s\t%.2f\n", $1, $2, d }' \
    "$1" "$2" | sort -t$'\t' -k3,3 -rn
}

node_cpu_split() { # "branch dc jit_branch jit_dc gc_branch gc_dc" CPU seconds so far
  echo "$(cpu_seconds "${TCPOPT_PIDS[0]}") $(cpu_seconds "${TCPOPT_PIDS[1]}") $(thread_cpu "${TCPOPT_PIDS[0]}" jit)" \
    "$(thread_cpu "${TCPOPT_PIDS[1]}" jit) $(thread_cpu "${TCPOPT_PIDS[0]}" gc) $(thread_cpu "${TCPOPT_PIDS[1]}" gc)"
}

reduction_warm_up() { # reduction_warm_up MODE: unrecorded downloads until the JIT has settled (see the header)
  local mode="$1" log="$RESULTS/logs/reduction-$1-warm-up.txt" n=0 start=$SECONDS c0 c1 file pct settled=0 quiet=0
  : > "$log"
  while [ "$n" -lt "$REDUCTION_WARMUP" ]; do
    if [ $(( SECONDS - start )) -ge "$REDUCTION_WARMUP_SECONDS" ]; then
      echo "stopped: $REDUCTION_WARMUP_SECONDS s bound reached" >> "$log"; break
    fi
    file="warm-up-$(( n / 2 % 4 + 1 )).bin"
    c0="$(node_cpu_split)"
    ip netns exec "$NS_CLIENT" timeout 300 "$PYTHON" "$BENCH_DIR/tools/fileserve.py" get --host "$SERVER_IP" --port "$REDUCTION_PORT" \
      --name "$file" > "$RESULTS/logs/reduction-$mode-warm-up-$n.json" 2>&1 || true
    c1="$(node_cpu_split)"
    n=$(( n + 1 ))
    pct="$(awk -v a="$c0" -v b="$c1" 'BEGIN { split(a, x, " "); split(b, y, " "); all = y[1] + y[2] - x[1] - x[2];
      jit = y[3] + y[4] - x[3] - x[4]; printf "%.0f", (all > 0 ? 100 * jit / all : 0) }')"
    echo "warm-up $n: $file, $(cut -c1-80 "$RESULTS/logs/reduction-$mode-warm-up-$((n - 1)).json"), JIT $pct% of the nodes' CPU" >> "$log"
    if [ "$pct" -le "$REDUCTION_WARMUP_JIT_PCT" ]; then quiet=$(( quiet + 1 )); else quiet=0; fi
    if [ "$quiet" -ge 2 ]; then # a new download and a repeat in a row
      settled=1; echo "stopped: settled (JIT <= $REDUCTION_WARMUP_JIT_PCT% in the last two)" >> "$log"; break
    fi
  done
  [ "$settled" = 1 ] || [ "$REDUCTION_WARMUP" = 0 ] || echo "not settled after $n downloads" >> "$log"
  progress "  warm-up ($mode): $(tail -1 "$log")"
}

reduction_transfer() { # reduction_transfer MODE NAME FILE
  local mode="$1" name="$2" file="$3" json rx0 rx1 cpu0 cpu1 expected split0 split1
  expected="$(sha256sum "$file" | cut -d' ' -f1)"
  json="$RESULTS/logs/reduction-$mode-$name.json"
  threads_cpu "${TCPOPT_PIDS[@]}" > "$RESULTS/logs/reduction-$mode-$name-threads-before.txt"
  rx0="$(wan_rx_bytes)"; cpu0="$(cpu_seconds "${TCPOPT_PIDS[@]}")"; split0="$(node_cpu_split)"
  ip netns exec "$NS_CLIENT" timeout 300 "$PYTHON" "$BENCH_DIR/tools/fileserve.py" get --host "$SERVER_IP" --port "$REDUCTION_PORT" \
    --name "$(basename "$file")" > "$json" 2> "$RESULTS/logs/reduction-$mode-$name.err" || true
  rx1="$(wan_rx_bytes)"; cpu1="$(cpu_seconds "${TCPOPT_PIDS[@]}")"; split1="$(node_cpu_split)"
  threads_cpu "${TCPOPT_PIDS[@]}" > "$RESULTS/logs/reduction-$mode-$name-threads-after.txt"
  { echo "# pid (branch ${TCPOPT_PIDS[0]}, dc ${TCPOPT_PIDS[1]}), thread name, CPU seconds during $mode $name"
    threads_cpu_delta "$RESULTS/logs/reduction-$mode-$name-threads-before.txt" "$RESULTS/logs/reduction-$mode-$name-threads-after.txt"
  } > "$RESULTS/logs/reduction-$mode-$name-threads.txt"
  rm -f "$RESULTS/logs/reduction-$mode-$name-threads-before.txt" "$RESULTS/logs/reduction-$mode-$name-threads-after.txt"
  local row
  row="$("$PYTHON" - "$json" "$expected" "$rx0" "$rx1" "$cpu0" "$cpu1" "$split0" "$split1" <<'PY'
import json, sys
wan = int(sys.argv[4]) - int(sys.argv[3]); cpu = float(sys.argv[6]) - float(sys.argv[5])
split = "".join(",%.2f" % (float(b) - float(a)) for a, b in zip(sys.argv[7].split(), sys.argv[8].split()))
try:
    r = json.load(open(sys.argv[1]))
    ok = "ok" if r["sha256"] == sys.argv[2] else "sha256-mismatch"
    lan, s = r["bytes"], r["seconds"]
    print("%d,%d,%.2f,%.2f,%.1f,%.2f,%.2f,%s%s" % (lan, wan, 100.0 * wan / lan if lan else 0, s, lan * 8 / s / 1e6 if s else 0,
                                                  cpu, cpu / (lan / 1e9) if lan else 0, ok, split))
except Exception as e:
    print("0,%d,0,0,0,%.2f,0,failed%s" % (wan, cpu, split))
PY
)"
  echo "$mode,$name,$row" >> "$RESULTS/reduction.csv"
  progress "  $mode $name: $(cut -d, -f3 <<< "$row")% of the bytes on the WAN, $(cut -d, -f4 <<< "$row") s, $(cut -d, -f5 <<< "$row") Mbit/s, $(cut -d, -f7 <<< "$row") CPU s/GB, $(cut -d, -f8 <<< "$row")"
}

reduction_experiments() {
  header reduction.csv "mode,transfer,lan_bytes,wan_bytes,wan_pct,seconds,mbit_s,cpu_s,cpu_s_per_gb,status,cpu_branch_s,cpu_dc_s,jit_branch_s,jit_dc_s,gc_branch_s,gc_dc_s"
  local files mode policy
  files="$(reduction_files)"
  "$TESTBED_DIR/up.sh" --rtt "$REDUCTION_RTT" --rate "$LINK_MBIT" --loss 0 --queue 1000
  spawn file-server "$NS_SERVER" "$PYTHON" "$BENCH_DIR/tools/fileserve.py" serve --bind "$SERVER_IP" --port "$REDUCTION_PORT" --dir "$files"
  wait_listen "$NS_SERVER" "$REDUCTION_PORT" 10 || fail "file server did not start"
  tcpopt_ready_launcher || fail "no tcpopt build"
  for mode in off on; do
    policy=()
    [ "$mode" = off ] || policy=(--policy "$REPO_DIR/deploy/examples/testbed/data-reduction.yaml")
    TCPOPT_STREAM_WINDOW="$REDUCTION_WINDOW" JAVA_OPTS="${TCPOPT_JAVA_OPTS:--Xmx2g}" "$TESTBED_DIR/tcpopt-nodes.sh" up --bandwidth "$LINK_MBIT" --rtt "$REDUCTION_RTT" "${policy[@]}" \
      > "$RESULTS/logs/start-reduction-$mode.txt" 2>&1 || fail "tcpopt did not start ($mode): $(tail -2 "$RESULTS/logs/start-reduction-$mode.txt")"
    TCPOPT_PIDS=($("$TESTBED_DIR/tcpopt-nodes.sh" pids)) TCPOPT_WHERE=()
    progress "[11] data reduction $mode"
    reduction_warm_up "$mode"
    local r s
    for r in $(seq "$REDUCTION_REPEAT"); do
      s=""; [ "$REDUCTION_REPEAT" = 1 ] || s="-$r"
      if [ "$mode" = off ]; then
        reduction_transfer off "random$s" "$files/random-b.bin"
        reduction_transfer off "random-again$s" "$files/random-b.bin"
        [ "$REDUCTION_ROWS" = random ] || reduction_transfer off "corpus$s" "$files/corpus.bin"
      elif [ "$REDUCTION_ROWS" = random ]; then
        # new data each time: A, then C (A and C are out of a 256 MiB cache by the next round)
        reduction_transfer on "random$s" "$files/random-a.bin"
        reduction_transfer on "random-new$s" "$files/random-c.bin"
      else
        reduction_transfer on "random$s" "$files/random-a.bin"
        reduction_transfer on "random-again$s" "$files/random-a.bin"
        reduction_transfer on "edited-1pct$s" "$files/edited.bin"
        reduction_transfer on "corpus$s" "$files/corpus.bin"
        reduction_transfer on "random-new$s" "$files/random-c.bin"
      fi
    done
    stop_tcpopt
  done
  stop file-server
  "$TESTBED_DIR/down.sh"
  "$PYTHON" - "$RESULTS" <<'PY'
import csv, os, sys
rows = list(csv.DictReader(open(os.path.join(sys.argv[1], "reduction.csv"))))
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit(0)
labels = ["%s\n%s" % (r["mode"], r["transfer"]) for r in rows]
fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
a.bar(labels, [float(r["wan_pct"]) for r in rows], color=["#999" if r["mode"] == "off" else "#2a7" for r in rows])
a.set_ylabel("WAN bytes, % of the file"); a.set_title("bytes on the WAN (200 MB downloads)")
b.bar(labels, [float(r["seconds"]) for r in rows], color=["#999" if r["mode"] == "off" else "#2a7" for r in rows])
b.set_ylabel("seconds"); b.set_title("transfer time, 250 Mbit/s, 100 ms RTT")
for ax in (a, b):
    ax.tick_params(axis="x", labelsize=7)
fig.tight_layout()
fig.savefig(os.path.join(sys.argv[1], "reduction.png"), dpi=110)
PY
}
