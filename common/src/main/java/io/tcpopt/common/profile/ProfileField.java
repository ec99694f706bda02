package io.tcpopt.common.profile;

import io.tcpopt.common.config.ConfigTree;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * One setting of a {@link ProfileKind}: its YAML key, the reader that validates a value (throwing a
 * {@link io.tcpopt.common.config.ConfigException} that names the path) and the printer that writes
 * the value back in the form the reader accepts, for a policy's canonical YAML.
 */
record ProfileField(String key, Function<ConfigTree, Object> reader, Function<Object, Object> printer) {
  static final Set<String> TLS_PROTOCOLS = Set.of("TLSv1.2", "TLSv1.3");

  static ProfileField bool(String key) {
    return new ProfileField(key, ConfigTree::asBoolean, v -> v);
  }

  static ProfileField integer(String key, long min, long max) {
    return new ProfileField(key, t -> t.asLong(min, max), v -> v);
  }

  /** A size with units ({@code 64KiB}) between {@code min} and {@code max} bytes. */
  static ProfileField bytes(String key, long min, long max) {
    return new ProfileField(
        key,
        t -> {
          long n = t.asBytes();
          if (n < min || n > max) {
            throw t.error("must be between " + Sizes.format(min) + " and " + Sizes.format(max) + ", got " + Sizes.format(n));
          }
          return n;
        },
        v -> Sizes.format((Long) v));
  }

  /** A duration of at least {@code min} in whole milliseconds; {@code off} (zero) when {@code offAllowed}. */
  static ProfileField duration(String key, Duration min, boolean offAllowed) {
    return new ProfileField(
        key,
        t -> {
          Object raw = t.raw();
          if (offAllowed && (Boolean.FALSE.equals(raw) || "off".equals(String.valueOf(raw).trim()))) {
            return Duration.ZERO;
          }
          if (raw instanceof Boolean) {
            throw t.error("expected a duration such as 5s" + (offAllowed ? " or off" : "") + ", got \"" + raw + "\"");
          }
          Duration d = t.asDuration();
          if (d.toNanos() % 1_000_000L != 0 || d.compareTo(min) < 0) {
            throw t.error("must be at least " + Sizes.formatDurationOrOff(min) + " in whole milliseconds" + (offAllowed ? ", or off" : ""));
          }
          return d;
        },
        v -> Sizes.formatDurationOrOff((Duration) v));
  }

  /** A file path as the node reads it (relative to its working directory); checked by the node, not here. */
  static ProfileField path(String key) {
    return new ProfileField(
        key,
        t -> {
          String s = t.asString().trim();
          if (s.isEmpty()) {
            throw t.error("expected a file path");
          }
          return s;
        },
        v -> v);
  }

  /** A DNS host name (letters, digits, hyphens, dots), lower-cased. */
  static ProfileField hostName(String key) {
    return new ProfileField(
        key,
        t -> {
          String s = t.asString().trim().toLowerCase(java.util.Locale.ROOT);
          if (!s.matches("(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*")) {
            throw t.error("expected a DNS name such as www.example.com, got \"" + s + "\"");
          }
          return s;
        },
        v -> v);
  }

  /** A list of TLS protocol versions ({@code [TLSv1.2, TLSv1.3]}); older versions are refused. */
  static ProfileField tlsProtocols(String key) {
    return new ProfileField(
        key,
        t -> {
          List<ConfigTree> items = t.isList() ? t.items() : List.of(t);
          Set<String> out = new LinkedHashSet<>();
          for (ConfigTree item : items) {
            String p = item.asString().trim();
            if (!TLS_PROTOCOLS.contains(p)) {
              throw item.error("unsupported TLS protocol \"" + p + "\" (expected TLSv1.2 or TLSv1.3)");
            }
            out.add(p);
          }
          if (out.isEmpty()) {
            throw t.error("expected at least one of TLSv1.2, TLSv1.3");
          }
          return List.copyOf(out);
        },
        v -> new ArrayList<>((List<?>) v));
  }

  /**
   * An IPv4 network mask, F5 style ({@code 0.0.0.0}, {@code 255.255.255.0}) or as a prefix length
   * ({@code 24}); stored as the prefix length, printed dotted.
   */
  static ProfileField ipv4Mask(String key) {
    return new ProfileField(
        key,
        t -> {
          String s = String.valueOf(t.asString()).trim();
          if (s.matches("/?\\d{1,2}")) {
            int bits = Integer.parseInt(s.startsWith("/") ? s.substring(1) : s);
            if (bits <= 32) {
              return bits;
            }
          } else if (s.matches("\\d{1,3}(\\.\\d{1,3}){3}")) {
            long mask = 0;
            boolean ok = true;
            for (String part : s.split("\\.")) {
              int octet = Integer.parseInt(part);
              ok &= octet <= 255;
              mask = (mask << 8) | (octet & 0xff);
            }
            int bits = Long.bitCount(mask);
            long contiguous = bits == 0 ? 0 : (0xffffffffL << (32 - bits)) & 0xffffffffL;
            if (ok && mask == contiguous) {
              return bits;
            }
          }
          throw t.error("expected a contiguous IPv4 mask such as 0.0.0.0 or 255.255.255.0 (or a prefix length 0-32), got \"" + s + "\"");
        },
        v -> dotted((Integer) v));
  }

  static String dotted(int bits) {
    long mask = bits == 0 ? 0 : (0xffffffffL << (32 - bits)) & 0xffffffffL;
    return ((mask >> 24) & 0xff) + "." + ((mask >> 16) & 0xff) + "." + ((mask >> 8) & 0xff) + "." + (mask & 0xff);
  }
}
