package io.tcpopt.reduction.chunk;

/**
 * Chunk size bounds of content-defined chunking. Only the sending side chunks, so two nodes with
 * different settings still interoperate (they just find fewer common chunks).
 *
 * @param min no boundary before this many bytes (the chunker does not even hash them)
 * @param normal the target size: below it the boundary test is 4x harder, above it 4x easier
 *     (normalized chunking), a power of two
 * @param max a boundary is forced here; at most {@link #PROTOCOL_MAX}
 */
public record ChunkerSettings(int min, int normal, int max) {
  /** The largest chunk a receiver accepts (docs/data-reduction.md). */
  public static final int PROTOCOL_MAX = 1 << 16;

  /**
   * 512 B .. 2 KiB normal .. 16 KiB: about 2.3 KiB on average on random data. Small chunks keep
   * scattered edits cheap (1% of a file changed in 1 KiB runs costs about 6% of its chunks, 10% with
   * a 4 KiB target), for 25 bytes of reference per chunk.
   */
  public static final ChunkerSettings DEFAULT = new ChunkerSettings(512, 2048, 16384);

  public ChunkerSettings {
    if (Integer.bitCount(normal) != 1 || normal < 256 || normal > (1 << 15)) {
      throw new IllegalArgumentException("normal chunk size must be a power of two in 256..32768, got " + normal);
    }
    if (min < 64 || min > normal) {
      throw new IllegalArgumentException("min chunk size must be in 64.." + normal + ", got " + min);
    }
    if (max < normal || max > PROTOCOL_MAX) {
      throw new IllegalArgumentException("max chunk size must be in " + normal + ".." + PROTOCOL_MAX + ", got " + max);
    }
  }
}
