#!/usr/bin/env bash
# Changes the running WAN link without rebuilding the testbed or breaking connections:
#   bench/testbed/link.sh [--rtt MS] [--rate MBIT] [--loss PCT] [--queue PKTS]
# Unspecified settings keep their current value.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -f "$STATE_DIR/link.current" ] || fail "no testbed running with prefix '$PREFIX' (run up.sh first)"
. "$STATE_DIR/link.current"
rtt="$rtt_ms" rate="$rate_mbit" loss="$loss_pct" queue="$queue_pkts"
while [ $# -gt 0 ]; do
  case "$1" in
    --rtt) rtt="$2"; shift 2 ;;
    --rate) rate="$2"; shift 2 ;;
    --loss) loss="$2"; shift 2 ;;
    --queue) queue="$2"; shift 2 ;;
    *) fail "unknown option $1" ;;
  esac
done
validate_number --rtt "$rtt"; validate_number --rate "$rate"; validate_number --loss "$loss"; validate_number --queue "$queue"
pid="$(linkemu_pid)" || fail "link emulator is not running"
write_link_params "$rtt" "$rate" "$loss" "$queue"
kill -HUP "$pid"
sleep 0.1
log "link now: rtt ${rtt} ms, ${rate} Mbit/s, loss ${loss}%, queue ${queue} packets"
