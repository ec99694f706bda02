#!/usr/bin/env bash
# Assembles the root filesystem of the tcpopt container image from this machine's own Debian
# packages, so the image needs no base image from a registry (Jib builds it FROM scratch).
#
#   deploy/image/build-rootfs.sh OUT_DIR [JAR]
#
# OUT_DIR receives:
#   /opt/java                      a jlink'ed Java 17 runtime (modules: jdeps of JAR + EXTRA_MODULES),
#                                  headless (no GUI_LIBS)
#   /usr/sbin/nft, /usr/sbin/ip    nftables and iproute2, for transparent interception
#   /usr/sbin/sh, /usr/sbin/setsid dash and util-linux's setsid: the exit guard that removes the
#                                  policy routing rule if the JVM dies (docs/reliability.md)
#   /lib64, /lib/x86_64-linux-gnu  the glibc loader and every shared library the above need (ldd),
#                                  and those of the native libraries in JAR (Netty epoll, tcnative,
#                                  zstd-jni, lz4-java: libdl, librt, libpthread)
#   /etc/nsswitch.conf, /etc/hosts name resolution without /etc/passwd or a libc package
#   /tmp                           mode 1777 (JVM perf data, Netty's extracted native libraries)
#
# JAR defaults to cli/target/tcpopt.jar. Environment: JAVA_HOME (default
# /usr/lib/jvm/java-17-openjdk-amd64) for jdeps, jlink and the jmods.
# Idempotent: the runtime is rebuilt only when the jar's content changed; the rest is
# recopied every time (2-4 s on the 2-core build machine under load, 2026-12-03).
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 OUT_DIR [JAR]" >&2
  exit 2
fi

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
out="$1"
jar="${2:-$repo/cli/target/tcpopt.jar}"
java_home="${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}"
# Java 17 specifically: the image's runtime must match the release the project compiles for.
if [[ ! -x "$java_home/bin/jlink" || ! -d "$java_home/jmods" ]] \
    || ! "$java_home/bin/java" -version 2>&1 | grep -q '"17\.'; then
  java_home=/usr/lib/jvm/java-17-openjdk-amd64
fi

# Modules jdeps cannot see: reflective or service-loaded use (TLS EC keys, Hazelcast's
# management beans and Unsafe, JNDI lookups of gRPC/Netty, zip file systems, charsets).
EXTRA_MODULES=(jdk.crypto.ec jdk.unsupported java.management jdk.management java.naming jdk.zipfs
               java.logging java.xml jdk.charsets jdk.localedata jdk.net java.instrument)
# java.desktop is there for java.beans (SnakeYAML); its GUI libraries would pull in X11, fonts
# and sound, and nothing here draws: they are left out of the image.
GUI_LIBS=(libawt_xawt.so libjawt.so libsplashscreen.so libfontmanager.so libjsound.so liblcms.so
          libjavajpeg.so)
# Binaries copied with their libraries; transparent interception runs `nft` and `ip`, its exit
# guard `setsid` and a POSIX shell (dash, installed as sh).
TOOLS=(/usr/sbin/nft /usr/sbin/ip /usr/bin/setsid /bin/dash)

die() { echo "build-rootfs: $*" >&2; exit 1; }

[[ -f "$jar" ]] || die "no jar at $jar (build it first: mvn -B -pl cli -am -DskipTests package)"
[[ -x "$java_home/bin/jlink" ]] || die "no jlink in $java_home (apt-get install openjdk-17-jdk-headless)"
[[ -d "$java_home/jmods" ]] || die "no jmods in $java_home (apt-get install openjdk-17-jmods)"
for tool in "${TOOLS[@]}"; do
  [[ -x "$tool" ]] || die "missing $tool (apt-get install nftables iproute2 util-linux dash)"
done

mkdir -p "$out"
out="$(cd "$out" && pwd)"
[[ "$out" != "/" ]] || die "refusing to use / as OUT_DIR"

# --- Java runtime (jlink) ---------------------------------------------------------------------
# Keyed on the jar's content (entry names and CRCs), not its bytes: Maven rewrites the jar with new
# timestamps on every build, and jdeps + jlink take a minute or two on a small machine.
if command -v unzip > /dev/null; then
  jar_sum="$(unzip -v "$jar" | awk 'length($7) == 8 && $7 ~ /^[0-9a-f]+$/ { print $7, $8 }' | sha256sum | cut -d' ' -f1)"
else
  jar_sum="$(sha256sum "$jar" | cut -d' ' -f1)"
fi
stamp="$out.runtime-stamp"   # beside OUT_DIR, so it stays out of the image
if [[ -x "$out/opt/java/bin/java" && -f "$stamp" ]] && grep -qx "jar $jar_sum" "$stamp"; then
  echo "build-rootfs: runtime up to date ($(sed -n 's/^modules //p' "$stamp"))"
else
  echo "build-rootfs: jdeps $jar"
  found="$("$java_home/bin/jdeps" --print-module-deps --ignore-missing-deps \
      --multi-release 17 "$jar" | tail -n 1)"
  [[ "$found" =~ ^[a-z][a-z0-9.,]*$ ]] || die "unexpected jdeps output: $found"
  modules="$(printf '%s\n' ${found//,/ } "${EXTRA_MODULES[@]}" | sort -u | paste -sd, -)"
  echo "build-rootfs: jlink $modules"
  rm -rf "$out/opt/java" "$stamp"
  mkdir -p "$out/opt"
  "$java_home/bin/jlink" --module-path "$java_home/jmods" --add-modules "$modules" \
      --strip-debug --no-header-files --no-man-pages --compress=2 \
      --output "$out/opt/java"
  for gui in "${GUI_LIBS[@]}"; do rm -f "$out/opt/java/lib/$gui"; done
  printf 'jar %s\nmodules %s\n' "$jar_sum" "$modules" > "$stamp"
fi

# --- shared libraries -------------------------------------------------------------------------
# Every library ldd resolves for the runtime's executables and libraries and for the tools, copied
# as a regular file under the name the loader looks for (no symlinks: Jib would follow them anyway).
rm -rf "$out/lib" "$out/lib64" "$out/usr"
mkdir -p "$out/lib/x86_64-linux-gnu" "$out/lib64" "$out/usr/sbin"

elf_files=("$out"/opt/java/bin/* "${TOOLS[@]}")
while IFS= read -r -d '' so; do elf_files+=("$so"); done \
  < <(find "$out/opt/java/lib" -name '*.so' -print0)
# The native libraries the jars unpack to /tmp at run time (Netty's epoll transport, netty-tcnative,
# zstd-jni, lz4-java) link against libdl, librt and libpthread, which nothing above needs: without
# them Netty falls back to NIO, so transparent interception cannot start, and the image has no
# OpenSSL and no zstd. Their Linux x86-64 builds are read here, only for ldd.
natives="$(mktemp -d)"
trap 'rm -rf "$natives"' EXIT
mapfile -t native_entries < <("$java_home/bin/jar" tf "$jar" | grep '\.so$' | grep -E 'x86_64|amd64|x86-64' | grep -v freebsd)
if [[ ${#native_entries[@]} -gt 0 ]]; then
  (cd "$natives" && "$java_home/bin/jar" xf "$jar" "${native_entries[@]}")
  while IFS= read -r -d '' so; do
    missing="$(ldd "$so" | awk '/=> not found/ { print $1 }' | paste -sd' ' -)"
    [[ -z "$missing" ]] || die "$(basename "$so") from the jar needs $missing, which this machine lacks"
    elf_files+=("$so")
  done < <(find "$natives" -name '*.so' -print0)
fi

declare -A copied=()
for elf in "${elf_files[@]}"; do
  # ldd prints "name => /path (addr)" for libraries and "/path (addr)" for the loader.
  while read -r lib; do
    [[ -n "$lib" && -z "${copied[$lib]:-}" ]] || continue
    case "$lib" in
      */ld-linux-x86-64.so.2) dest="$out/lib64/ld-linux-x86-64.so.2" ;;
      "$out"/*) continue ;;          # the runtime's own libraries, found through $ORIGIN
      *) dest="$out/lib/x86_64-linux-gnu/$(basename "$lib")" ;;
    esac
    cp -L "$lib" "$dest"
    copied[$lib]=1
  done < <(ldd "$elf" 2>/dev/null | awk '/=> \// { print $3 } /^[ \t]*\// { print $1 }')
done
# glibc's loader needs no ld.so.cache: /lib/x86_64-linux-gnu is one of its built-in directories.
[[ -f "$out/lib64/ld-linux-x86-64.so.2" ]] || die "ldd reported no loader"

for tool in "${TOOLS[@]}"; do
  cp -L "$tool" "$out/usr/sbin/$(basename "$tool")"
done
mv "$out/usr/sbin/dash" "$out/usr/sbin/sh"

# --- /etc and /tmp ----------------------------------------------------------------------------
# No /etc/passwd: the JVM runs as root or as any numeric uid (user.name is then "?").
# Docker and podman bind-mount their own /etc/hosts and /etc/resolv.conf over these.
mkdir -p "$out/etc/tcpopt" "$out/tmp" "$out/proc" "$out/sys" "$out/dev"
printf 'hosts: files dns\n' > "$out/etc/nsswitch.conf"
printf '127.0.0.1 localhost\n::1 localhost\n' > "$out/etc/hosts"
chmod 1777 "$out/tmp"

echo "build-rootfs: $out ($(du -sh "$out" | cut -f1))"
