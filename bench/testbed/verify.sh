#!/usr/bin/env bash
# Verifies the link emulator against its settings (issue 5):
#   1. RTT measured by a UDP echo within 5% of the setting (50, 100, 200 ms),
#   2. iperf3 rate within 5% of the setting (250 Mbit/s; 4 CUBIC streams at 50 ms RTT),
#      as goodput against the TCP/IP ceiling (1448 payload bytes per 1500-byte packet) and
#      as IP bytes leaving the emulator,
#   3. a 64 KB-window TCP flow at 200 ms RTT (window scaling off in the client namespace,
#      iperf3 -w 64K) gets about 64 KB per RTT.
# Builds its own testbed and tears it down on exit. Prints a markdown report; with
# --out FILE also writes it there.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
out=""
[ "${1:-}" = "--out" ] && out="$2"
require_root
trap '"$TESTBED_DIR/down.sh" >/dev/null 2>&1 || true' EXIT
trap 'exit 130' INT TERM

report=()
say() { report+=("$*"); printf '%s\n' "$*"; }
json() { "$PYTHON" -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
check() { awk -v m="$1" -v s="$2" -v tol="$3" 'BEGIN { d = (m - s) / s; if (d < 0) d = -d; print (d <= tol ? "PASS" : "FAIL") }'; }
pass=0 fail=0
tally() { if [ "$1" = PASS ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi; }

"$TESTBED_DIR/up.sh" --rtt 50 --rate 250 --loss 0 --queue 1000 2>/dev/null
say "# Link emulator verification"
say ""
say "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), kernel $(uname -r)"
say ""
say "| check | setting | measured | result |"
say "|---|---|---|---|"

for rtt in 50 100 200; do
  "$TESTBED_DIR/link.sh" --rtt "$rtt" 2>/dev/null
  r="$(in_ns "$NS_CLIENT" "$PYTHON" "$BENCH_DIR/tools/loadgen.py" rtt --host "$SERVER_IP" --count 30 --interval 0.02)"
  avg="$(json "d['avg_ms']" <<< "$r")"; mdev="$(json "d['mdev_ms']" <<< "$r")"
  verdict="$(check "$avg" "$rtt" 0.05)"; tally "$verdict"
  say "| RTT (UDP echo, 30 probes) | $rtt ms | $avg ms (mdev $mdev ms, min $(json "d['min_ms']" <<< "$r"), max $(json "d['max_ms']" <<< "$r")) | $verdict |"
done

"$TESTBED_DIR/link.sh" --rtt 50 2>/dev/null
in_ns "$NS_SERVER" iperf3 -s -D -B "$SERVER_IP" -p 5201
sleep 0.3
before="$(wan_packets)"
r="$(in_ns "$NS_CLIENT" iperf3 -c "$SERVER_IP" -p 5201 -R -C cubic -P 4 -t 12 -O 4 -J)"
after="$(wan_packets)"
goodput="$(json "round(d['end']['sum_received']['bits_per_second'] / 1e6, 1)" <<< "$r")"
ceiling="$(awk 'BEGIN { printf "%.1f", 250 * 1448 / 1500 }')"
verdict="$(check "$goodput" "$ceiling" 0.05)"; tally "$verdict"
say "| iperf3 goodput, 4 CUBIC streams, 50 ms RTT | 250 Mbit/s (goodput ceiling $ceiling) | $goodput Mbit/s | $verdict |"
ip_rate="$("$PYTHON" - "$before" "$after" <<'PY'
import json, sys
b, a = json.loads(sys.argv[1]), json.loads(sys.argv[2])
# 16 s covers -t 12 plus the 4 omitted seconds; the bytes are what left the bottleneck
print(round((a["down"]["tx_bytes"] - b["down"]["tx_bytes"]) * 8 / 16.0 / 1e6, 1))
PY
)"
say "| IP bytes leaving the emulator during that run (16 s incl. omitted start) | 250 Mbit/s | $ip_rate Mbit/s | info |"

"$TESTBED_DIR/link.sh" --rtt 200 2>/dev/null
in_ns "$NS_CLIENT" sysctl -q -w net.ipv4.tcp_window_scaling=0
r="$(in_ns "$NS_CLIENT" iperf3 -c "$SERVER_IP" -p 5201 -R -C cubic -w 64K -t 15 -O 3 -J)"
in_ns "$NS_CLIENT" sysctl -q -w net.ipv4.tcp_window_scaling=1
small="$(json "round(d['end']['sum_received']['bits_per_second'] / 1e6, 3)" <<< "$r")"
expected="$(awk 'BEGIN { printf "%.3f", 65535 * 8 / 0.2 / 1e6 }')"
verdict="$(check "$small" "$expected" 0.05)"; tally "$verdict"
say "| 64 KB window (no window scaling), 200 ms RTT | 64 KB/RTT = $expected Mbit/s | $small Mbit/s | $verdict |"
say ""
say "$pass passed, $fail failed"
[ -z "$out" ] || printf '%s\n' "${report[@]}" > "$out"
[ "$fail" -eq 0 ]
