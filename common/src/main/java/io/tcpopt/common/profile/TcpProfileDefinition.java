package io.tcpopt.common.profile;

import io.tcpopt.common.config.ConfigException;
import io.tcpopt.common.config.ConfigTree;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.regex.Pattern;

/**
 * A user-defined profile as written in a policy's {@code tcp-profiles} section: a parent and the
 * fields it overrides ({@code null} = inherited). {@link TcpProfiles#resolve} turns definitions into
 * {@link TcpProfile}s.
 *
 * <pre>
 * tcp-profiles:
 *   bulk: { parent: tcp-wan-optimized, send-buffer: 8MiB, keepalive: off, proxy-buffer-high: 1MiB }
 * </pre>
 */
public record TcpProfileDefinition(
    String name,
    String parent,
    Long sendBuffer,
    Long receiveBuffer,
    Boolean nagle,
    String congestionControl,
    Duration keepalive,
    Duration idleTimeout,
    Long proxyBufferHigh,
    Long proxyBufferLow) {

  static final String[] KEYS = {
    "parent", "send-buffer", "receive-buffer", "nagle", "congestion-control",
    "keepalive", "idle-timeout", "proxy-buffer-high", "proxy-buffer-low"
  };
  private static final Pattern CONGESTION_CONTROL = Pattern.compile("[a-z][a-z0-9_]{0,15}");
  private static final long MAX_BUFFER = 1L << 30; // 1GiB: more is surely a typo

  public TcpProfileDefinition {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(parent, "parent");
  }

  /**
   * Reads one profile mapping. Every bad field is reported to {@code errors} as (path, reason); the
   * returned definition then leaves that field inherited.
   */
  public static TcpProfileDefinition parse(String name, ConfigTree tree, BiConsumer<String, String> errors) {
    try {
      tree.requireOnly(KEYS);
    } catch (ConfigException e) {
      errors.accept(e.path(), e.reason());
    }
    String parent = field(tree, "parent", errors, t -> t.asString().trim());
    return new TcpProfileDefinition(
        name,
        parent == null ? TcpProfiles.TCP : parent,
        field(tree, "send-buffer", errors, TcpProfileDefinition::buffer),
        field(tree, "receive-buffer", errors, TcpProfileDefinition::buffer),
        field(tree, "nagle", errors, ConfigTree::asBoolean),
        field(tree, "congestion-control", errors, TcpProfileDefinition::congestionControl),
        field(tree, "keepalive", errors, TcpProfileDefinition::keepalive),
        field(tree, "idle-timeout", errors, TcpProfileDefinition::idleTimeout),
        field(tree, "proxy-buffer-high", errors, TcpProfileDefinition::proxyBuffer),
        field(tree, "proxy-buffer-low", errors, TcpProfileDefinition::proxyBuffer));
  }

  private interface Reader<T> {
    T read(ConfigTree tree);
  }

  private static <T> T field(ConfigTree tree, String key, BiConsumer<String, String> errors, Reader<T> reader) {
    try {
      return tree.has(key) ? reader.read(tree.get(key)) : null;
    } catch (ConfigException e) {
      errors.accept(e.path(), e.reason());
      return null;
    }
  }

  private static long buffer(ConfigTree t) {
    if ("auto".equals(String.valueOf(t.raw()).trim())) {
      return 0;
    }
    long bytes = t.asBytes();
    if (bytes > MAX_BUFFER) {
      throw t.error("must be at most 1GiB, got " + Sizes.format(bytes));
    }
    return bytes;
  }

  private static long proxyBuffer(ConfigTree t) {
    long bytes = t.asBytes();
    if (bytes < 1024 || bytes > MAX_BUFFER) {
      throw t.error("must be between 1KiB and 1GiB, got " + Sizes.format(bytes));
    }
    return bytes;
  }

  private static String congestionControl(ConfigTree t) {
    String name = t.asString().trim();
    if (!CONGESTION_CONTROL.matcher(name).matches()) {
      throw t.error("expected a kernel congestion control name such as cubic or bbr, got \"" + name + "\"");
    }
    return name;
  }

  /** Linux takes the keepalive idle time in whole seconds, at most 32767 ({@code TCP_KEEPIDLE}). */
  private static Duration keepalive(ConfigTree t) {
    Duration d = durationOrOff(t);
    if (!d.isZero() && (d.toNanos() % 1_000_000_000L != 0 || d.getSeconds() > 32767)) {
      throw t.error("must be whole seconds between 1s and 32767s, or off");
    }
    return d;
  }

  private static Duration idleTimeout(ConfigTree t) {
    Duration d = durationOrOff(t);
    if (!d.isZero() && (d.toNanos() % 1_000_000L != 0 || d.compareTo(Duration.ofSeconds(1)) < 0)) {
      throw t.error("must be at least 1s (in whole milliseconds), or off");
    }
    return d;
  }

  /** A duration, or {@code off} (YAML also reads a bare off/false as false) for none. */
  private static Duration durationOrOff(ConfigTree t) {
    Object raw = t.raw();
    if (Boolean.FALSE.equals(raw) || "off".equals(String.valueOf(raw).trim())) {
      return Duration.ZERO;
    }
    if (raw instanceof Boolean) {
      throw t.error("expected a duration such as 60s or off, got \"" + raw + "\"");
    }
    return t.asDuration();
  }

  /** The canonical YAML mapping of this definition (only the fields it sets). */
  public Map<String, Object> toYamlMap() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("parent", parent);
    if (sendBuffer != null) {
      out.put("send-buffer", sendBuffer == 0 ? "auto" : Sizes.format(sendBuffer));
    }
    if (receiveBuffer != null) {
      out.put("receive-buffer", receiveBuffer == 0 ? "auto" : Sizes.format(receiveBuffer));
    }
    if (nagle != null) {
      out.put("nagle", nagle);
    }
    if (congestionControl != null) {
      out.put("congestion-control", congestionControl);
    }
    if (keepalive != null) {
      out.put("keepalive", Sizes.formatDurationOrOff(keepalive));
    }
    if (idleTimeout != null) {
      out.put("idle-timeout", Sizes.formatDurationOrOff(idleTimeout));
    }
    if (proxyBufferHigh != null) {
      out.put("proxy-buffer-high", Sizes.format(proxyBufferHigh));
    }
    if (proxyBufferLow != null) {
      out.put("proxy-buffer-low", Sizes.format(proxyBufferLow));
    }
    return out;
  }
}
