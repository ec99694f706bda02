package io.tcpopt.reduction.store;

/**
 * The 16-byte name of a chunk: by default the first 16 bytes of its SHA-256 ({@link
 * FingerprintFunction#SHA256_128}). It names a chunk in the cache and on the wire; it does not on
 * its own prove that two chunks are equal, so every reference also carries the chunk's length and
 * CRC-32C (see docs/data-reduction.md, "Collisions").
 */
public final class Fingerprint {
  public static final int BYTES = 16;

  private final long high;
  private final long low;

  public Fingerprint(long high, long low) {
    this.high = high;
    this.low = low;
  }

  /** Reads 16 bytes, big-endian, from {@code b} at {@code offset}. */
  public static Fingerprint read(byte[] b, int offset) {
    return new Fingerprint(longAt(b, offset), longAt(b, offset + 8));
  }

  /** Writes the 16 bytes, big-endian, into {@code b} at {@code offset}. */
  public void write(byte[] b, int offset) {
    putLong(b, offset, high);
    putLong(b, offset + 8, low);
  }

  public long high() {
    return high;
  }

  public long low() {
    return low;
  }

  static long longAt(byte[] b, int offset) {
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (b[offset + i] & 0xff);
    }
    return v;
  }

  static void putLong(byte[] b, int offset, long v) {
    for (int i = 7; i >= 0; i--) {
      b[offset + i] = (byte) v;
      v >>>= 8;
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Fingerprint && ((Fingerprint) o).high == high && ((Fingerprint) o).low == low;
  }

  @Override
  public int hashCode() {
    long h = high * 0x9E3779B97F4A7C15L ^ low;
    return (int) (h ^ (h >>> 32));
  }

  @Override
  public String toString() {
    return String.format("%016x%016x", high, low);
  }
}
