package io.tcpopt.common.config;

import io.tcpopt.common.net.HostPort;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;

/**
 * A parsed YAML document seen through its field paths. Every typed getter names the path of the
 * value it refuses, so configuration and policy readers turn any mistake into one {@link
 * ConfigException} line. Readers call {@link #requireOnly} so that a misspelt key is an error
 * rather than a silently ignored setting.
 */
public final class ConfigTree {
  private static final Pattern SIZE = Pattern.compile("(?i)^\\s*(\\d+(?:\\.\\d+)?)\\s*(b|k|kb|kib|m|mb|mib|g|gb|gib)?\\s*$");
  private static final Pattern RATE =
      Pattern.compile("(?i)^\\s*(\\d+(?:\\.\\d+)?)\\s*(bit|kbit|mbit|gbit|bps|kbps|mbps|gbps)?(?:/s)?\\s*$");
  private static final Pattern DURATION = Pattern.compile("(?i)^\\s*(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h)\\s*$");

  private final String path;
  private final Object value;

  private ConfigTree(String path, Object value) {
    this.path = path;
    this.value = value;
  }

  /**
   * The largest YAML document accepted, in characters (1 MiB: about 50,000 prefixes; a config file
   * or policy is far smaller). Together with at most {@value #MAX_COLLECTION_ALIASES} aliases to
   * collections and {@value #MAX_NESTING} levels of nesting, this bounds the time and memory any
   * document (a "billion laughs" alias bomb, a deeply nested one, megabytes of prefixes) can cost
   * before it is refused with one line.
   */
  public static final int MAX_DOCUMENT_CHARS = 1 << 20;
  static final int MAX_COLLECTION_ALIASES = 10;
  static final int MAX_NESTING = 32;

  /** Reads a YAML file; a missing, oversized or unreadable file or a syntax error is a {@link ConfigException}. */
  public static ConfigTree load(Path file) {
    return parse(readDocument(file), file.toString());
  }

  /**
   * The text of a YAML file, refused without reading it when it is larger than {@link
   * #MAX_DOCUMENT_CHARS} could need in UTF-8.
   */
  public static String readDocument(Path file) {
    try {
      long size = Files.size(file);
      if (size > 4L * MAX_DOCUMENT_CHARS) {
        throw new ConfigException("", file + ": too large (" + size + " bytes); a YAML document may have at most "
            + (MAX_DOCUMENT_CHARS >> 20) + " MiB");
      }
      return Files.readString(file);
    } catch (IOException e) {
      throw new ConfigException("", "cannot read " + file + ": " + e.getMessage());
    }
  }

  /** Parses YAML text; {@code source} names it in error messages. */
  public static ConfigTree parse(String yaml, String source) {
    if (yaml.length() > MAX_DOCUMENT_CHARS) {
      throw new ConfigException("", source + ": too large (" + yaml.length() + " characters); a YAML document may have at most "
          + (MAX_DOCUMENT_CHARS >> 20) + " MiB");
    }
    LoaderOptions options = new LoaderOptions();
    options.setAllowDuplicateKeys(false);
    options.setMaxAliasesForCollections(MAX_COLLECTION_ALIASES);
    options.setNestingDepthLimit(MAX_NESTING);
    options.setCodePointLimit(MAX_DOCUMENT_CHARS);
    try {
      Object root = new Yaml(new SafeConstructor(options)).load(yaml);
      return new ConfigTree("", root == null ? Map.of() : root);
    } catch (MarkedYAMLException e) {
      String where = e.getProblemMark() == null ? "" : " at line " + (e.getProblemMark().getLine() + 1);
      throw new ConfigException("", source + ": invalid YAML" + where + ": " + e.getProblem());
    } catch (YAMLException e) {
      throw new ConfigException("", source + ": invalid YAML: " + limitReason(e.getMessage()));
    }
  }

  /** SnakeYAML's words for the limits above, as one line naming the limit. */
  private static String limitReason(String message) {
    String m = message == null ? "" : message.strip().replaceAll("\\s*\\R\\s*", " ");
    if (m.contains("aliases")) {
      return "more than " + MAX_COLLECTION_ALIASES + " aliases to lists or mappings (alias bombs are refused)";
    }
    if (m.contains("Nesting Depth")) {
      return "nested more than " + MAX_NESTING + " levels deep";
    }
    if (m.contains("exceeds the limit")) {
      return "too large; a YAML document may have at most " + (MAX_DOCUMENT_CHARS >> 20) + " MiB";
    }
    return m;
  }

  /** Wraps an already parsed value, e.g. a section handed over from another document. */
  public static ConfigTree of(String path, Object value) {
    return new ConfigTree(path, value);
  }

  public String path() {
    return path;
  }

  public Object raw() {
    return value;
  }

  public boolean isMap() {
    return value instanceof Map;
  }

  public boolean isList() {
    return value instanceof List;
  }

  public ConfigException error(String reason) {
    return new ConfigException(path, reason);
  }

  // ---- maps ----------------------------------------------------------------------------------

  private Map<?, ?> map() {
    if (!(value instanceof Map)) {
      throw error("expected a mapping, got " + describe(value));
    }
    return (Map<?, ?>) value;
  }

  /** The keys of this mapping, in document order. */
  public List<String> keys() {
    List<String> keys = new ArrayList<>();
    for (Object k : map().keySet()) {
      keys.add(String.valueOf(k));
    }
    return keys;
  }

  public boolean has(String key) {
    return value instanceof Map && map().containsKey(key) && map().get(key) != null;
  }

  /** Fails on any key not in {@code allowed}, naming it. */
  public ConfigTree requireOnly(String... allowed) {
    Set<String> ok = Set.of(allowed);
    for (String key : keys()) {
      if (!ok.contains(key)) {
        throw new ConfigException(child(key), "unknown setting (expected one of " + String.join(", ", allowed) + ")");
      }
    }
    return this;
  }

  /** The child at {@code key}, which must be present. */
  public ConfigTree get(String key) {
    Object v = map().get(key);
    if (v == null) {
      throw new ConfigException(child(key), "is required");
    }
    return new ConfigTree(child(key), v);
  }

  /** The child at {@code key}, or an empty mapping when absent. */
  public ConfigTree section(String key) {
    Object v = value instanceof Map ? map().get(key) : null;
    return new ConfigTree(child(key), v == null ? Map.of() : v);
  }

  private String child(String key) {
    return path.isEmpty() ? key : path + "." + key;
  }

  // ---- lists ---------------------------------------------------------------------------------

  /** This node's items; a missing list is empty. */
  public List<ConfigTree> items() {
    if (value instanceof Map && ((Map<?, ?>) value).isEmpty()) {
      return List.of();
    }
    if (!(value instanceof List)) {
      throw error("expected a list, got " + describe(value));
    }
    List<?> list = (List<?>) value;
    List<ConfigTree> out = new ArrayList<>(list.size());
    for (int i = 0; i < list.size(); i++) {
      out.add(new ConfigTree(path + "[" + i + "]", list.get(i)));
    }
    return out;
  }

  /** The list at {@code key}, empty when absent. */
  public List<ConfigTree> list(String key) {
    return has(key) ? get(key).items() : List.of();
  }

  /** The entries of this mapping, as path-aware children keyed by name, in document order. */
  public Map<String, ConfigTree> entries() {
    Map<String, ConfigTree> out = new LinkedHashMap<>();
    for (Map.Entry<?, ?> e : map().entrySet()) {
      String key = String.valueOf(e.getKey());
      out.put(key, new ConfigTree(child(key), e.getValue() == null ? Map.of() : e.getValue()));
    }
    return Collections.unmodifiableMap(out);
  }

  // ---- scalars -------------------------------------------------------------------------------

  public String asString() {
    if (value instanceof Map || value instanceof List || value == null) {
      throw error("expected a value, got " + describe(value));
    }
    return String.valueOf(value);
  }

  public String string(String key) {
    return get(key).asString();
  }

  public String string(String key, String defaultValue) {
    return has(key) ? string(key) : defaultValue;
  }

  public long asLong(long min, long max) {
    long v;
    if (value instanceof Number && !(value instanceof Double || value instanceof Float)) {
      v = ((Number) value).longValue();
    } else {
      try {
        v = Long.parseLong(asString().trim());
      } catch (NumberFormatException e) {
        throw error("expected an integer, got " + describe(value));
      }
    }
    if (v < min || v > max) {
      throw error("must be between " + min + " and " + max + ", got " + v);
    }
    return v;
  }

  public int integer(String key, int defaultValue, int min, int max) {
    return has(key) ? (int) get(key).asLong(min, max) : defaultValue;
  }

  public boolean asBoolean() {
    if (value instanceof Boolean) {
      return (Boolean) value;
    }
    throw error("expected true or false, got " + describe(value));
  }

  public boolean bool(String key, boolean defaultValue) {
    return has(key) ? get(key).asBoolean() : defaultValue;
  }

  /** A duration such as {@code 250ms}, {@code 5s}, {@code 2m}. */
  public Duration asDuration() {
    Matcher m = DURATION.matcher(asString());
    if (!m.matches()) {
      throw error("expected a duration such as 250ms, 5s or 2m, got " + describe(value));
    }
    double n = Double.parseDouble(m.group(1));
    double millis;
    switch (m.group(2).toLowerCase()) {
      case "ms": millis = n; break;
      case "s": millis = n * 1_000; break;
      case "m": millis = n * 60_000; break;
      default: millis = n * 3_600_000; break;
    }
    return Duration.ofNanos((long) (millis * 1_000_000));
  }

  public Duration duration(String key, Duration defaultValue) {
    return has(key) ? get(key).asDuration() : defaultValue;
  }

  /** A size in bytes such as {@code 64KiB}, {@code 4MB}, {@code 1048576}; K/M/G are powers of 1024. */
  public long asBytes() {
    Matcher m = SIZE.matcher(asString());
    if (!m.matches()) {
      throw error("expected a size such as 65536, 64KiB or 4MiB, got " + describe(value));
    }
    double n = Double.parseDouble(m.group(1));
    String unit = m.group(2) == null ? "b" : m.group(2).toLowerCase();
    long mul = unit.startsWith("k") ? 1L << 10 : unit.startsWith("m") ? 1L << 20 : unit.startsWith("g") ? 1L << 30 : 1;
    return (long) (n * mul);
  }

  public long bytes(String key, long defaultValue) {
    return has(key) ? get(key).asBytes() : defaultValue;
  }

  /** A rate in bits per second such as {@code 250Mbit} or {@code 1Gbit}; units are powers of 1000. */
  public long asBitsPerSecond() {
    Matcher m = RATE.matcher(asString());
    if (!m.matches()) {
      throw error("expected a rate such as 250Mbit or 1Gbit, got " + describe(value));
    }
    double n = Double.parseDouble(m.group(1));
    String unit = m.group(2) == null ? "bit" : m.group(2).toLowerCase();
    long mul = unit.startsWith("k") ? 1_000L : unit.startsWith("m") ? 1_000_000L : unit.startsWith("g") ? 1_000_000_000L : 1;
    return (long) (n * mul);
  }

  public long bitsPerSecond(String key, long defaultValue) {
    return has(key) ? get(key).asBitsPerSecond() : defaultValue;
  }

  /** {@code HOST:PORT} or {@code [V6]:PORT} ({@link HostPort}), resolved without DNS for literals; port 0 allowed. */
  public InetSocketAddress asSocketAddress() {
    try {
      return HostPort.parse(asString()).resolve();
    } catch (IllegalArgumentException e) {
      throw error(e.getMessage());
    }
  }

  public InetSocketAddress socketAddress(String key) {
    return get(key).asSocketAddress();
  }

  public List<String> strings(String key) {
    List<String> out = new ArrayList<>();
    for (ConfigTree item : list(key)) {
      out.add(item.asString());
    }
    return out;
  }

  private static String describe(Object v) {
    if (v == null) {
      return "nothing";
    }
    if (v instanceof Map) {
      return "a mapping";
    }
    if (v instanceof List) {
      return "a list";
    }
    return "\"" + v + "\"";
  }
}
