# Experiment 10 of bench/run.sh (issue 10): the application profiles against the seed articles.
# Sourced by run.sh at start; uses its helpers (spawn, stop, progress, start_tcpopt, stop_tcpopt,
# wait_listen) and writes oneconnect.csv, tls.csv and profiles.md. 100 ms RTT, 250 Mbit/s.
#
#   10a OneConnect (F5's lab): 1500 x 256 KiB over HTTP/1.1, a new client connection each
#       (Connection: close), concurrency 23 (loadgen.py fetch). Per mode: the server connections
#       that served the run's requests (and those the server accepted during the run: a proxy may
#       keep connections from the warm-up), packets on the WAN (the link emulator's count), on the client's and the server's
#       LAN links (both directions; one TCP segment per packet: gso_max_segs 1 on the LAN veths), wall time. Modes: direct; haproxy-reuse (an HAProxy pair: TCP
#       at the branch, HTTP with `http-reuse always` at the DC); tcpopt (optimized, no reuse:
#       server port 8081); tcpopt-reuse (the http-reuse profile on port 8080).
#   10b TLS (F5's dynamic record sizing article): page-like loads, one new TLS connection each
#       (tlsload.py page: GET 50 KiB, then 2 MiB on the same connection), TLS_RUNS runs 1.5 s
#       apart: median connect, handshake, time to first byte, first response, whole page. Modes:
#       direct-tls (the client's TLS to the server); tcpopt-tls-drs (the branch terminates the
#       client's TLS with the server's certificate, dynamic record sizing on, and the DC
#       re-encrypts to the server: client-ssl + server-ssl); tcpopt-tls-full (the same with full
#       16 KB records from the start).
#
# One tcpopt pair serves all tcpopt modes (one policy, a sequence per server port); direct and
# HAProxy modes run before it starts.

OC_PORT=8080 OC_PLAIN_PORT=8081 OC_HAPROXY_PORT=18080 TLS_PORT=8443 TLS_FULL_PORT=8444 PROFILES_RTT=100
if [ "${quick:-0}" -eq 1 ]; then
  OC_REQUESTS=300 OC_CAP=60 TLS_RUNS=5
else
  OC_REQUESTS=1500 OC_CAP=150 TLS_RUNS=10
fi
OC_SIZE=262144 OC_CONCURRENCY=23 WEB_NAME=www.testbed

lan_packets() { # lan_packets NS DEV: packets both ways on a LAN link
  ip -n "$1" -s -j link show dev "$2" | "$PYTHON" -c 'import json,sys; s=json.load(sys.stdin)[0]["stats64"]; print(s["rx"]["packets"] + s["tx"]["packets"])'
}

http_server_snapshot() { # http_server_snapshot NAME FILE: the loadgen server NAME's stats now, copied to FILE
  local file="$STATE_DIR/$1.stats"
  rm -f "$file"
  kill -USR1 "${PIDS[$1]}"
  for _ in $(seq 50); do [ -s "$file" ] && break; sleep 0.02; done
  cp "$file" "$2"
}

# The web server's certificate (SAN www.testbed and its address) from a CA of its own: the
# server presents it, the branch presents it to clients (client-ssl), clients and the DC trust the CA.
web_certs() {
  WEB_CERTS="$STATE_DIR/web-certs"
  [ -f "$WEB_CERTS/www.crt" ] && return 0
  mkdir -p "$WEB_CERTS"
  (
    cd "$WEB_CERTS"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 7 -subj "/CN=bench web CA" -keyout ca.key -out ca.crt
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=$WEB_NAME" -keyout www.key -out www.csr
    printf 'subjectAltName=DNS:%s,IP:%s\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n' "$WEB_NAME" "$SERVER_IP" > www.ext
    openssl x509 -req -in www.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 7 -extfile www.ext -out www.crt
    chmod 600 www.key ca.key
  ) > "$RESULTS/logs/web-certs.log" 2>&1 || fail "cannot make the web server's certificate (logs/web-certs.log)"
}

profiles_policy() { # -> the policy: section both tcpopt nodes get (TCPOPT_POLICY)
  cat > "$STATE_DIR/profiles-policy.yaml" <<YAML
policy:
  prefix-lists: { BR: [198.18.1.0/24], SRV: [$SERVER_IP/32] }
  service-node-groups: { SNG: { site: branch } }
  http-reuse-profiles:
    bench-web: { parent: oneconnect, max-size: 64 }
  client-ssl-profiles:
    www-drs: { certificate: $WEB_CERTS/www.crt, private-key: $WEB_CERTS/www.key }
    www-full: { certificate: $WEB_CERTS/www.crt, private-key: $WEB_CERTS/www.key, allow-dynamic-record-sizing: false }
  server-ssl-profiles:
    www-backend: { ca-file: $WEB_CERTS/ca.crt, server-name: $WEB_NAME }
  data-policy:
    name: bench-profiles
    sequences:
      - { seq: 10, match: { source-prefix-list: BR, destination-prefix-list: SRV, destination-port: $OC_PORT }, action: { optimize: { service-node-group: SNG, http-reuse: bench-web } } }
      - { seq: 20, match: { source-prefix-list: BR, destination-prefix-list: SRV, destination-port: $TLS_PORT }, action: { optimize: { service-node-group: SNG, client-ssl: www-drs, server-ssl: www-backend } } }
      - { seq: 30, match: { source-prefix-list: BR, destination-prefix-list: SRV, destination-port: $TLS_FULL_PORT }, action: { optimize: { service-node-group: SNG, client-ssl: www-full, server-ssl: www-backend } } }
      - { seq: 40, match: { source-prefix-list: BR, destination-prefix-list: SRV }, action: { optimize: { service-node-group: SNG } } }
    default-action: pass-through
YAML
}

start_haproxy_reuse() { # the HAProxy pair: TCP relay at the branch, HTTP with http-reuse at the DC
  command -v haproxy > /dev/null || { echo "haproxy not installed"; return 1; }
  local dir="$STATE_DIR/haproxy-reuse"
  mkdir -p "$dir"
  write_haproxy_config "$dir/branch.cfg" "$BRANCH_LAN_IP:$OC_HAPROXY_PORT=$DC_WAN_IP:$OC_HAPROXY_PORT"
  printf 'global\n  maxconn 4000\n  nbthread 2\ndefaults\n  mode http\n  timeout connect 10s\n  timeout client 1h\n  timeout server 1h\n  timeout http-keep-alive 4s\n' > "$dir/dc.cfg"
  printf 'listen web\n  bind %s:%s\n  http-reuse always\n  server web %s:%s\n' "$DC_WAN_IP" "$OC_HAPROXY_PORT" "$SERVER_IP" "$OC_PORT" >> "$dir/dc.cfg"
  spawn haproxy-reuse-dc "$NS_DC" haproxy -db -f "$dir/dc.cfg"
  spawn haproxy-reuse-branch "$NS_BRANCH" haproxy -db -f "$dir/branch.cfg"
  wait_listen "$NS_BRANCH" "$OC_HAPROXY_PORT" 10 || { echo "haproxy did not start"; return 1; }
}

oneconnect_fetch() { # oneconnect_fetch HOST PORT REQUESTS JSON
  ip netns exec "$NS_CLIENT" "$PYTHON" "$BENCH_DIR/tools/loadgen.py" fetch --host "$1" --port "$2" --size "$OC_SIZE" \
    --requests "$3" --concurrency "$OC_CONCURRENCY" --new-connection --deadline "$OC_CAP" > "$4" 2>&1 || true
}

oneconnect_run() { # oneconnect_run MODE HOST PORT SERVER_NAME -> a row of oneconnect.csv
  local mode="$1" json="$RESULTS/logs/oneconnect-$1.json"
  # unrecorded warm-up (JIT, first use), then long enough for pooled connections to time out (4 s)
  oneconnect_fetch "$2" "$3" 100 "$RESULTS/logs/oneconnect-warm-up-$mode.json"
  sleep 5
  local stats_before="$RESULTS/logs/oneconnect-$mode-server-before.json" stats_after="$RESULTS/logs/oneconnect-$mode-server-after.json"
  local wan_before client_before server_before
  http_server_snapshot "$4" "$stats_before"; wan_before="$(wan_packets)"
  client_before="$(lan_packets "$NS_CLIENT" eth0)"; server_before="$(lan_packets "$NS_SERVER" eth0)"
  oneconnect_fetch "$2" "$3" "$OC_REQUESTS" "$json"
  sleep 0.5
  local wan_after client server
  http_server_snapshot "$4" "$stats_after"; wan_after="$(wan_packets)"
  client=$(( $(lan_packets "$NS_CLIENT" eth0) - client_before )); server=$(( $(lan_packets "$NS_SERVER" eth0) - server_before ))
  # server connections: those that served at least one of the run's requests (a proxy may keep
  # connections from the warm-up); opened: those the server accepted during the run
  local row
  row="$("$PYTHON" - "$json" "$wan_before" "$wan_after" "$stats_before" "$stats_after" <<'PY'
import json, sys
b, a = json.loads(sys.argv[2]), json.loads(sys.argv[3])
packets = sum(a[d]["rx_pkts"] - b[d]["rx_pkts"] for d in ("up", "down"))
sb, sa = json.load(open(sys.argv[4])), json.load(open(sys.argv[5]))
before = sb.get("requests_by_connection", {})
used = sum(1 for c, n in sa.get("requests_by_connection", {}).items() if n > before.get(c, 0))
opened = sa["connections"] - sb["connections"]
try:
    d = json.load(open(sys.argv[1]))
except Exception:
    print("0,0,0,0,0,%d,%d,%d,failed" % (used, opened, packets)); sys.exit()
status = "ok" if d["completed"] == d["requests"] else ("capped" if d["capped"] else "failed")
print("%d,%d,%.3f,%.4f,%.4f,%d,%d,%d,%s" % (d["requests"], d["completed"], d["total_s"], d["p50_s"] or 0, d["p99_s"] or 0, used, opened, packets, status))
PY
)"
  local req done total p50 p99 conns opened packets status
  IFS=, read -r req done total p50 p99 conns opened packets status <<< "$row"
  echo "$mode,$req,$done,$total,$p50,$p99,$conns,$opened,$packets,$client,$server,$status" >> "$RESULTS/oneconnect.csv"
  progress "  $mode: $done/$req in ${total} s, server connections used $conns (opened $opened), WAN packets $packets, client LAN $client, server LAN $server ($status)"
}

tls_run() { # tls_run MODE PORT -> a row of tls.csv
  local mode="$1" json="$RESULTS/logs/tls-$1.json"
  ip netns exec "$NS_CLIENT" "$PYTHON" "$BENCH_DIR/tools/tlsload.py" page --host "$SERVER_IP" --port "$2" --ca "$WEB_CERTS/ca.crt" \
    --sni "$WEB_NAME" --runs 2 --pause 0.2 > "$RESULTS/logs/tls-warm-up-$mode.json" 2>&1 || true
  ip netns exec "$NS_CLIENT" "$PYTHON" "$BENCH_DIR/tools/tlsload.py" page --host "$SERVER_IP" --port "$2" --ca "$WEB_CERTS/ca.crt" \
    --sni "$WEB_NAME" --runs "$TLS_RUNS" > "$json" 2>&1 || true
  local row
  row="$("$PYTHON" - "$json" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
    m = d["median"]
    print("%d,%d,%.1f,%.1f,%.1f,%.1f,%.1f,%s" % (d["runs"], d["completed"], m["connect_s"] * 1e3, m["handshake_s"] * 1e3, m["ttfb_s"] * 1e3,
          m["first_response_s"] * 1e3, m["page_s"] * 1e3, "ok" if d["completed"] == d["runs"] else "failed"))
except Exception:
    print("0,0,0,0,0,0,0,failed")
PY
)"
  echo "$mode,$row" >> "$RESULTS/tls.csv"
  progress "  $mode: medians (ms) connect,handshake,ttfb,first response,page = $(cut -d, -f3-7 <<< "$row") ($(cut -d, -f8 <<< "$row"))"
}

profiles_report() {
  "$PYTHON" - "$RESULTS" <<'PY' > "$RESULTS/profiles.md"
import csv, os, sys
folder = sys.argv[1]
def rows(name):
    path = os.path.join(folder, name)
    return list(csv.DictReader(open(path))) if os.path.exists(path) else []
print("### 10a. OneConnect: %s x 256 KiB over HTTP/1.1, a new client connection each, concurrency 23, 100 ms RTT\n" % (rows("oneconnect.csv") or [{"requests": "?"}])[0]["requests"])
print("| mode | completed | wall time s | p50 s | p99 s | server connections used (opened) | WAN packets | client LAN packets | server LAN packets |")
print("|---|---|---|---|---|---|---|---|---|")
for r in rows("oneconnect.csv"):
    print("| %s | %s/%s%s | %s | %s | %s | %s (%s) | %s | %s | %s |" % (r["mode"], r["completed"], r["requests"], "" if r["status"] == "ok" else " " + r["status"],
          r["total_s"], r["p50_s"], r["p99_s"], r["server_connections"], r.get("server_connections_opened", "?"), r["wan_packets"],
          r["client_lan_packets"], r["server_lan_packets"]))
print("\n### 10b. TLS: page-like load (50 KiB, then 2 MiB on the same new TLS connection), 100 ms RTT, medians in ms\n")
print("| mode | runs | TCP connect | TLS handshake | time to first byte | first response | whole page |")
print("|---|---|---|---|---|---|---|")
for r in rows("tls.csv"):
    print("| %s | %s/%s%s | %s | %s | %s | %s | %s |" % (r["mode"], r["completed"], r["runs"], "" if r["status"] == "ok" else " " + r["status"],
          r["connect_ms"], r["handshake_ms"], r["ttfb_ms"], r["first_response_ms"], r["page_ms"]))
PY
}

profiles_experiments() {
  command -v openssl > /dev/null || fail "experiment 10 needs openssl (the web server's certificate)"
  header oneconnect.csv "mode,requests,completed,total_s,p50_s,p99_s,server_connections,server_connections_opened,wan_packets,client_lan_packets,server_lan_packets,status"
  header tls.csv "mode,runs,completed,connect_ms,handshake_ms,ttfb_ms,first_response_ms,page_ms,status"
  "$TESTBED_DIR/up.sh" --rtt "$PROFILES_RTT" --rate "$LINK_MBIT" --loss 0 --queue 1000
  # The LAN links are veth pairs: with segmentation offload the kernel hands them 64 KB segments,
  # which their counters count as one packet each. One segment per packet makes the LAN counts
  # wire packets (as the WAN emulator's are), so they compare with F5's packet counts.
  local ns_dev
  for ns_dev in "$NS_CLIENT eth0" "$NS_BRANCH lan0" "$NS_DC lan0" "$NS_SERVER eth0"; do
    ip -n "${ns_dev% *}" link set dev "${ns_dev#* }" gso_max_segs 1
  done
  web_certs
  local port
  for port in "$OC_PORT" "$OC_PLAIN_PORT"; do
    spawn "web-$port" "$NS_SERVER" "$PYTHON" "$BENCH_DIR/tools/loadgen.py" serve --bind "$SERVER_IP" --port "$port" --stats "$STATE_DIR/web-$port.stats"
  done
  for port in "$TLS_PORT" "$TLS_FULL_PORT"; do
    spawn "tls-$port" "$NS_SERVER" "$PYTHON" "$BENCH_DIR/tools/tlsload.py" serve --bind "$SERVER_IP" --port "$port" \
      --cert "$WEB_CERTS/www.crt" --key "$WEB_CERTS/www.key"
  done
  for port in "$OC_PORT" "$OC_PLAIN_PORT" "$TLS_PORT" "$TLS_FULL_PORT"; do
    wait_listen "$NS_SERVER" "$port" 10 || fail "web server on $port did not start"
  done

  if [[ " $modes " == *" direct "* ]]; then
    progress "[10a] OneConnect, direct"
    oneconnect_run direct "$SERVER_IP" "$OC_PORT" "web-$OC_PORT"
    progress "[10b] TLS, direct"
    tls_run direct-tls "$TLS_PORT"
  fi
  if [[ " $modes " == *" haproxy "* ]]; then
    if start_haproxy_reuse > "$RESULTS/logs/start-haproxy-reuse.txt" 2>&1; then
      progress "[10a] OneConnect, haproxy-reuse"
      oneconnect_run haproxy-reuse "$BRANCH_LAN_IP" "$OC_HAPROXY_PORT" "web-$OC_PORT"
    else
      echo "haproxy-reuse: $(tr '\n' ' ' < "$RESULTS/logs/start-haproxy-reuse.txt")" >> "$RESULTS/unavailable.txt"
    fi
    stop haproxy-reuse-branch haproxy-reuse-dc
  fi
  if [[ " $modes " == *" tcpopt "* ]]; then
    profiles_policy
    if TCPOPT_POLICY="$STATE_DIR/profiles-policy.yaml" start_tcpopt testbed > "$RESULTS/logs/start-profiles-tcpopt.txt" 2>&1; then
      progress "[10a] OneConnect, tcpopt without and with reuse"
      oneconnect_run tcpopt "$SERVER_IP" "$OC_PLAIN_PORT" "web-$OC_PLAIN_PORT"
      oneconnect_run tcpopt-reuse "$SERVER_IP" "$OC_PORT" "web-$OC_PORT"
      progress "[10b] TLS, tcpopt terminating"
      tls_run tcpopt-tls-drs "$TLS_PORT"
      tls_run tcpopt-tls-full "$TLS_FULL_PORT"
    else
      progress "  tcpopt unavailable: $(tr '\n' ' ' < "$RESULTS/logs/start-profiles-tcpopt.txt")"
      echo "tcpopt (10): $(tr '\n' ' ' < "$RESULTS/logs/start-profiles-tcpopt.txt")" >> "$RESULTS/unavailable.txt"
    fi
    stop_tcpopt
  fi
  stop "web-$OC_PORT" "web-$OC_PLAIN_PORT" "tls-$TLS_PORT" "tls-$TLS_FULL_PORT"
  "$TESTBED_DIR/down.sh"
  profiles_report
}
