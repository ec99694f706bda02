package io.tcpopt.reduction.codec;

/**
 * Decides, per stream, whether the next literal block is worth compressing. Data that does not
 * compress (already compressed or encrypted) is detected from the blocks themselves: a block of at
 * least 4 KiB that saves less than 1/32 of its size counts as a failure, and each consecutive failure doubles the
 * number of blocks sent as is without trying (1, 2, 4 … {@link #MAX_SKIP}). After a skip run, a
 * cheap probe (LZ4 on a {@link #PROBE_BYTES} sample) decides whether the next block is tried at
 * all, so an incompressible transfer pays a full compression attempt only about once per
 * {@code MAX_SKIP} blocks plus a small probe. One success ends the back-off. One instance per
 * stream, not thread-safe.
 */
public final class CompressionGuard {
  public static final int MAX_SKIP = 128;
  public static final int PROBE_BYTES = 4096;
  /** Blocks smaller than this are never compressed: too little to gain. */
  public static final int MIN_BLOCK = 64;
  /** Only a block at least this large that does not compress counts as a failure. */
  public static final int EVIDENCE_BYTES = 4096;

  private int failures;
  private int skip;
  private long tried;
  private long skipped;
  private byte[] probeOut;

  /** Whether to try compressing this block ({@code data[offset, offset + length)}). */
  public boolean shouldTry(byte[] data, int offset, int length) {
    if (length < MIN_BLOCK) {
      return false;
    }
    if (skip > 0) {
      skip--;
      skipped++;
      return false;
    }
    if (failures > 0 && !probeCompresses(data, offset, length)) {
      fail();
      skipped++;
      return false;
    }
    tried++;
    return true;
  }

  /** Whether compressing saved enough to send the compressed form. */
  public static boolean worthIt(int rawLength, int compressedLength) {
    return compressedLength >= 0 && compressedLength <= rawLength - (rawLength >>> 5) - 1;
  }

  /**
   * Reports the outcome of a block that {@link #shouldTry} let through. A small block that did not
   * compress says little about the stream (the tail of a flush, a short request): it does not
   * start or lengthen a back-off.
   */
  public void result(boolean compressed, int rawLength) {
    if (compressed) {
      failures = 0;
      skip = 0;
    } else if (rawLength >= EVIDENCE_BYTES) {
      fail();
    }
  }

  private void fail() {
    failures = Math.min(failures + 1, 31);
    skip = Math.min(MAX_SKIP, 1 << Math.min(failures - 1, 30));
  }

  private boolean probeCompresses(byte[] data, int offset, int length) {
    int n = Math.min(PROBE_BYTES, length);
    int start = offset + (length - n) / 2;
    if (probeOut == null) {
      probeOut = new byte[Codecs.lz4Bound(PROBE_BYTES)];
    }
    return worthIt(n, Codecs.lz4Compress(data, start, n, probeOut, 0, probeOut.length));
  }

  /** Blocks that were compressed or tried. */
  public long tried() {
    return tried;
  }

  /** Blocks sent as is without a full attempt. */
  public long skipped() {
    return skipped;
  }

  boolean backingOff() {
    return failures > 0;
  }
}
