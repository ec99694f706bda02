package io.tcpopt.common.policy;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What an optimize action asks of the WAN leg's data reduction (issue 11): a compression codec
 * for the bytes that cross the WAN and whether repeated data is sent as references to a chunk
 * cache at each end. Policy YAML, inside {@code optimize}:
 *
 * <pre>
 * data-reduction: { compression: zstd, deduplication: on }   # each key optional: none / off
 * </pre>
 *
 * @param compression codec for stream bytes sent as literals; {@link Compression#NONE} sends them as is
 * @param deduplication chunk the stream and send chunks the peer already holds as references
 */
public record DataReduction(Compression compression, boolean deduplication) {
  /** Neither compression nor deduplication: the bytes cross the WAN as they are. */
  public static final DataReduction OFF = new DataReduction(Compression.NONE, false);

  /** The compression codecs of {@code data-reduction.compression}. */
  public enum Compression {
    NONE("none"),
    /** Fast, modest ratio. */
    LZ4("lz4"),
    /** Slower, better ratio. */
    ZSTD("zstd");

    private final String yamlName;

    Compression(String yamlName) {
      this.yamlName = yamlName;
    }

    public String yamlName() {
      return yamlName;
    }

    /** The codec of a policy word, or null when the word names none. */
    public static Compression ofYaml(String word) {
      for (Compression c : values()) {
        if (c.yamlName.equals(word)) {
          return c;
        }
      }
      return null;
    }
  }

  public DataReduction {
    Objects.requireNonNull(compression, "compression");
  }

  public boolean isOff() {
    return compression == Compression.NONE && !deduplication;
  }

  /** The canonical YAML mapping ({@link PolicyDocument#toYaml()}). */
  Map<String, Object> toYamlMap() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("compression", compression.yamlName());
    out.put("deduplication", deduplication); // YAML prints true/false; on/off parse back the same
    return out;
  }

  @Override
  public String toString() {
    return "compression " + compression.yamlName() + ", deduplication " + (deduplication ? "on" : "off");
  }
}
