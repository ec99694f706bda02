#!/usr/bin/env bash
# Tears the testbed down: stops the link emulator and every process left in the testbed's
# namespaces, then deletes the namespaces (which removes their devices). Idempotent.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
require_root

if pid="$(linkemu_pid)"; then
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  kill -KILL "$pid" 2>/dev/null || true
fi
for ns in "${ALL_NS[@]}"; do
  ns_exists "$ns" || continue
  pids="$(ip netns pids "$ns" 2>/dev/null || true)"
  if [ -n "$pids" ]; then
    kill -TERM $pids 2>/dev/null || true
    for _ in $(seq 40); do
      [ -z "$(ip netns pids "$ns" 2>/dev/null || true)" ] && break
      sleep 0.05
    done
    pids="$(ip netns pids "$ns" 2>/dev/null || true)"
    [ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
  fi
  ip netns del "$ns"
done
rm -f "$STATE_DIR/linkemu.pid" "$STATE_DIR/link.current"
log "testbed down"
