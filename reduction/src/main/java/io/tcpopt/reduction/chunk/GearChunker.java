package io.tcpopt.reduction.chunk;

/**
 * Content-defined chunking with a Gear rolling hash and normalized chunking (FastCDC, Xia et al.,
 * USENIX ATC 2016): a boundary falls after a byte where the top bits of {@code hash = (hash << 1) +
 * GEAR[byte]} are zero, so it depends only on the 64 bytes before it and on where the chunk began.
 * An insertion or deletion therefore moves the boundaries next to it only, and the chunks after
 * the edit are found again — the property deduplication needs.
 *
 * <p>Incremental: {@link #next} continues the current chunk across calls, so the boundaries are the
 * same whatever the sizes of the pieces the stream arrives in. One instance per stream, not
 * thread-safe. The Gear table is fixed (SplitMix64 from {@link #GEAR_SEED}) and part of the
 * interoperable definition in docs/data-reduction.md, so that two nodes cut the same data alike.
 */
public final class GearChunker {
  /** "TCPO-CDC". */
  public static final long GEAR_SEED = 0x5443504f2d434443L;
  static final long[] GEAR = gearTable(GEAR_SEED);

  private final int min;
  private final int normal;
  private final int max;
  private final long maskHard;
  private final long maskEasy;
  private int length;
  private long hash;

  public GearChunker(ChunkerSettings s) {
    this.min = s.min();
    this.normal = s.normal();
    this.max = s.max();
    int bits = Integer.numberOfTrailingZeros(s.normal());
    this.maskHard = topBits(bits + 2);
    this.maskEasy = topBits(bits - 2);
  }

  private static long topBits(int n) {
    return n <= 0 ? 0 : -1L << (64 - n);
  }

  /**
   * Scans {@code data[offset, offset + length)} as the continuation of the current chunk.
   *
   * @return how many of these bytes complete the chunk (a boundary falls right after them; the next
   *     call starts a new chunk), or -1 when the chunk goes on past them (all were consumed)
   */
  public int next(byte[] data, int offset, int count) {
    int i = 0;
    if (length < min) {
      int skip = Math.min(min - length, count);
      i = skip;
      length += skip;
      if (length < min) {
        return -1;
      }
    }
    // Two loops, one per mask (bytes that bring the chunk up to the normal size, then the rest up
    // to the maximum), each bounded by the bytes at hand: the per-byte work is one shift, one add
    // and one test, with no size checks (GearChunkerTest checks the boundaries against a
    // byte-at-a-time reference).
    final long[] gear = GEAR;
    final int start = offset + i;
    final int stop = offset + count;
    long h = hash;
    int p = start;
    int hardEnd = length < normal ? Math.min(stop, p + (normal - length)) : p;
    while (p < hardEnd) {
      h = (h << 1) + gear[data[p++] & 0xff];
      if ((h & maskHard) == 0) {
        return cut(p - offset);
      }
    }
    int easyEnd = Math.min(stop, p + (max - (length + (p - start))));
    while (p < easyEnd) {
      h = (h << 1) + gear[data[p++] & 0xff];
      if ((h & maskEasy) == 0) {
        return cut(p - offset);
      }
    }
    int len = length + (p - start);
    if (len >= max) {
      return cut(p - offset);
    }
    hash = h;
    length = len;
    return -1;
  }

  private int cut(int consumed) {
    hash = 0;
    length = 0;
    return consumed;
  }

  /** Bytes of the current, unfinished chunk. */
  public int pending() {
    return length;
  }

  /** Abandons the current chunk: the next byte starts a new one. */
  public void reset() {
    hash = 0;
    length = 0;
  }

  /** SplitMix64 (Steele, Lea, Flood 2014) from {@code seed}: 256 values. */
  static long[] gearTable(long seed) {
    long[] t = new long[256];
    long x = seed;
    for (int i = 0; i < 256; i++) {
      x += 0x9E3779B97F4A7C15L;
      long z = x;
      z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
      z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
      t[i] = z ^ (z >>> 31);
    }
    return t;
  }
}
