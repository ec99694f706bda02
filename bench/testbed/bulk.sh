#!/usr/bin/env bash
# One bulk transfer server -> client on the running testbed; prints the goodput in Mbit/s.
#   bench/testbed/bulk.sh [--target HOST] [--port PORT] [--seconds S] [--streams N]
# iperf3 -R with CUBIC end hosts; the server side runs in the server namespace for this one
# test only. The default target is the server itself (direct, or intercepted by tcpopt).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
target="$SERVER_IP" port=5201 seconds=5 streams=1
while [ $# -gt 0 ]; do
  case "$1" in
    --target) target="$2"; shift 2 ;;
    --port) port="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --streams) streams="$2"; shift 2 ;;
    *) fail "unknown option $1" ;;
  esac
done
require_root
ns_exists "$NS_CLIENT" || fail "no testbed with prefix '$PREFIX' (run up.sh first)"
in_ns "$NS_SERVER" iperf3 -s -1 -B "$SERVER_IP" -p 5201 < /dev/null > "$STATE_DIR/bulk-server.log" 2>&1 &
server=$!
trap 'kill "$server" 2> /dev/null || true; wait "$server" 2> /dev/null || true' EXIT
for _ in $(seq 50); do in_ns "$NS_SERVER" ss -Hltn "sport = :5201" | grep -q . && break; sleep 0.1; done
json="$STATE_DIR/bulk-client.json"
in_ns "$NS_CLIENT" timeout -s INT -k 5 $((seconds + 20)) iperf3 -c "$target" -p "$port" -R -C cubic -P "$streams" \
  -t "$seconds" -J --connect-timeout 10000 > "$json" 2>&1 || true
"$PYTHON" - "$json" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
    print("%.3f" % (d["end"]["sum_received"]["bits_per_second"] / 1e6))
except Exception:
    sys.exit("bulk.sh: iperf3 failed: " + open(sys.argv[1]).read()[-300:])
PY
