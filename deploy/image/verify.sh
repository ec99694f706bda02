#!/usr/bin/env bash
# Checks the tcpopt image tarball without Docker: unpacks its layers (docker-save layout:
# manifest.json, config.json, one tar.gz per layer) into a temporary root, then runs the image's
# own entrypoint in it, chrooted, in fresh mount and PID namespaces with /proc mounted (as a
# container runtime would):
#   1. ENTRYPOINT --help                          as root, in the image's working directory
#   2. ENTRYPOINT certs --out /tmp/x --nodes a,b  and checks the PEM files (openssl, if present)
#   3. ENTRYPOINT certs ... into /tmp/y           as numeric uid 65534 (no /etc/passwd in the image)
#   4. nft, ip                                    versions, then a tproxy rule and a policy route
#                                                 in a new network namespace
#   5. ENTRYPOINT demo                            controller, service-node pair on Netty's epoll
#                                                 transport and a checked transfer, inside a new
#                                                 network namespace (lo only)
#
#   sudo deploy/image/verify.sh [cli/target/jib-image.tar]
#
# Needs root, python3 (reads the JSON), unshare and chroot (util-linux, coreutils).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tarball="${1:-$here/../../cli/target/jib-image.tar}"

die() { echo "verify: FAIL: $*" >&2; exit 1; }
step() { echo "verify: $*"; }

[[ $EUID -eq 0 ]] || die "needs root (chroot, unshare)"
[[ -f "$tarball" ]] || die "no image at $tarball (mvn -B -Pimage -pl cli -am -DskipTests package)"
for tool in python3 unshare chroot tar; do
  command -v "$tool" > /dev/null || die "needs $tool"
done

work="$(mktemp -d /tmp/tcpopt-image-verify.XXXXXX)"
cleanup() {
  # /proc was mounted inside a private mount namespace that is gone; nothing else is mounted.
  rm -rf --one-file-system "$work"
}
trap cleanup EXIT

tar -xf "$tarball" -C "$work"
[[ -f "$work/manifest.json" ]] || die "no manifest.json in $tarball"

# Layers in order, the config file, and the container settings from it.
mapfile -t layers < <(python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))[0]
print(m["Config"])
for layer in m["Layers"]:
    print(layer)
' "$work/manifest.json")
config="$work/${layers[0]}"
layers=("${layers[@]:1}")
mapfile -t entrypoint < <(python3 -c '
import json, sys
print("\n".join(json.load(open(sys.argv[1]))["config"]["Entrypoint"]))' "$config")
workdir="$(python3 -c '
import json, sys
print(json.load(open(sys.argv[1]))["config"].get("WorkingDir") or "/")' "$config")"
mapfile -t env < <(python3 -c '
import json, sys
print("\n".join(json.load(open(sys.argv[1]))["config"].get("Env") or []))' "$config")
step "image $(basename "$tarball"): ${#layers[@]} layers, entrypoint ${entrypoint[*]}"

root="$work/rootfs"
mkdir -p "$root"
for layer in "${layers[@]}"; do
  tar -xzf "$work/$layer" -C "$root" --warning=no-unknown-keyword
done
mkdir -p "$root/proc"
[[ "$(stat -c %a "$root/tmp" 2>/dev/null)" == 777 ]] || die "the image has no world-writable /tmp"
step "unpacked: $(du -sh "$root" | cut -f1) (tarball $(du -h "$tarball" | cut -f1))"

# in_image USERSPEC WORKDIR CMD...: runs CMD in the unpacked image with only the image's
# environment (it survives unshare, sh and chroot, which all exec the next program). As root the
# working directory is WORKDIR; as another uid chroot(8) starts in / (it cannot do both).
in_image() {
  local user="$1" wd="$2"
  shift 2
  env -i "${env[@]}" unshare --mount --pid --fork --propagation private -- \
    /bin/sh -c 'root="$1"; user="$2"; wd="$3"; shift 3
                /bin/mount -t proc proc "$root/proc" || exit 97
                if [ "$user" = 0:0 ]; then
                  exec /usr/bin/unshare --root="$root" --wd="$wd" "$@"
                fi
                exec /usr/sbin/chroot --userspec="$user" "$root" "$@"' \
    in_image "$root" "$user" "$wd" "$@"
}

step "1. ${entrypoint[*]} --help (root, cwd $workdir)"
out="$(in_image 0:0 "$workdir" "${entrypoint[@]}" --help 2>&1)" || die "--help exited $?: $out"
grep -q 'certs' <<< "$out" || die "--help does not list the commands: $out"
sed 's/^/    /' <<< "$out" | head -n 20

step "2. certs --out /tmp/x --nodes a,b"
out="$(in_image 0:0 "$workdir" "${entrypoint[@]}" certs --out /tmp/x --nodes a,b 2>&1)" \
  || die "certs exited $?: $out"
sed 's/^/    /' <<< "$out"
for f in ca.crt a.crt a.key b.crt b.key; do
  [[ -s "$root/tmp/x/$f" ]] || die "certs wrote no /tmp/x/$f (has: $(ls "$root/tmp/x" 2>&1 | tr '\n' ' '))"
done
if command -v openssl > /dev/null; then
  for node in a b; do
    openssl verify -CAfile "$root/tmp/x/ca.crt" "$root/tmp/x/$node.crt" > /dev/null \
      || die "$node.crt does not verify against ca.crt"
  done
  step "   a.crt and b.crt verify against ca.crt (openssl)"
fi

step "3. certs --out /tmp/y --nodes c as uid 65534 (writes to the image's /tmp)"
out="$(in_image 65534:65534 "$workdir" "${entrypoint[@]}" certs --out /tmp/y --nodes c 2>&1)" \
  || die "certs as uid 65534 exited $?: $out"
[[ -s "$root/tmp/y/c.key" && "$(stat -c %u "$root/tmp/y/c.key")" == 65534 ]] \
  || die "certs as uid 65534 wrote no /tmp/y/c.key owned by 65534: $out"

step "4. nft and ip: versions, then TPROXY-style rules in a new network namespace"
in_image 0:0 / /usr/sbin/nft --version | sed 's/^/    /' || die "nft does not run"
in_image 0:0 / /usr/sbin/ip -V 2>&1 | sed 's/^/    /' || die "ip does not run"
# What transparent mode installs (TproxyRules), in a namespace that disappears with the command.
out="$(env -i "${env[@]}" unshare --net --mount --pid --fork --propagation private -- \
  /bin/sh -c 'root="$1"
              /bin/mount -t proc proc "$root/proc" || exit 97
              run() { /usr/sbin/chroot "$root" "$@" || exit 1; }
              run /usr/sbin/ip link set lo up
              run /usr/sbin/nft add table ip tcpopt_verify
              run /usr/sbin/nft add chain ip tcpopt_verify prerouting "{ type filter hook prerouting priority mangle; }"
              run /usr/sbin/nft add rule ip tcpopt_verify prerouting meta l4proto tcp tproxy to :1 meta mark set 1
              run /usr/sbin/ip rule add fwmark 1 lookup 100
              run /usr/sbin/ip route add local 0.0.0.0/0 dev lo table 100
              run /usr/sbin/nft list table ip tcpopt_verify
              run /usr/sbin/ip rule show fwmark 1' \
  nft "$root" 2>&1)" || die "nft/ip rules failed in the image: $out"
grep -q 'tproxy to :1' <<< "$out" && grep -q 'lookup 100' <<< "$out" || die "rules not listed: $out"
echo "    nft table with a tproxy rule and an ip rule installed and listed"

step "5. demo --duration 3s --size 8MiB --verbose (controller + service-node pair + transfer, own net namespace)"
# A fresh network namespace with only lo up: the demo's fixed ports cannot collide with the host.
out="$(env -i "${env[@]}" timeout 120 unshare --net --mount --pid --fork --propagation private -- \
  /bin/sh -c 'root="$1"; wd="$2"; shift 2
              /usr/sbin/ip link set lo up || exit 96
              /bin/mount -t proc proc "$root/proc" || exit 97
              exec /usr/bin/unshare --root="$root" --wd="$wd" "$@"' \
  demo "$root" "$workdir" "${entrypoint[@]}" demo --duration 3s --size 8MiB --verbose 2>&1)" \
  || die "demo exited $?: $out"
grep -q 'SHA-256 matches' <<< "$out" || die "demo transfer did not match: $out"
# NIO would carry the demo too, but not transparent interception: the nodes must have loaded Netty's
# native epoll transport (its library and the ones it links against, unpacked from the jar to /tmp).
# (--verbose: their INFO lines "service node NAME (site S) up: ..., epoll|nio").
[[ "$(grep -c 'service node .* up: .*, epoll$' <<< "$out")" == 2 ]] \
  || die "the demo's service nodes do not both run on Netty's native epoll transport: $(grep 'service node .* up: ' <<< "$out")"
grep 'service node .* up: ' <<< "$out" | sed 's/^.* - /    /'
grep 'transfer done' <<< "$out" | sed 's/^/    /'

step "OK"
