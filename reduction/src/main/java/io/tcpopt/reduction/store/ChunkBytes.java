package io.tcpopt.reduction.store;

import java.util.Arrays;

/**
 * A chunk held by the memory tier: {@code length} bytes at {@code offset} of one of the tier's
 * pages. Pages are written once and never reused (a page is garbage once no chunk of it is held or
 * referenced), so these bytes never change: a sender may keep this to answer a NACK after the
 * cache has let the chunk go. Immutable.
 */
public final class ChunkBytes {
  private final byte[] page;
  private final int offset;
  private final int length;
  private final int crc;
  /** The page's number in allocation order (the tier moves a chunk met again out of an old page). */
  final long pageNumber;

  ChunkBytes(byte[] page, int offset, int length, int crc, long pageNumber) {
    this.page = page;
    this.offset = offset;
    this.length = length;
    this.crc = crc;
    this.pageNumber = pageNumber;
  }

  public int length() {
    return length;
  }

  public int crc() {
    return crc;
  }

  /** The page (shared: never to be modified); the chunk is at {@link #offset()}. */
  public byte[] page() {
    return page;
  }

  public int offset() {
    return offset;
  }

  boolean matches(int length, int crc) {
    return this.length == length && this.crc == crc;
  }

  /** Copies bytes {@code [from, length)} of the chunk to {@code dst} at {@code at}. */
  public void copyTo(int from, byte[] dst, int at) {
    System.arraycopy(page, offset + from, dst, at, length - from);
  }

  /** Whether the chunk's first {@code n} bytes are {@code prefix[0, n)}. */
  public boolean startsWith(byte[] prefix, int n) {
    return n <= length && Arrays.equals(page, offset, offset + n, prefix, 0, n);
  }

  /** Whether the chunk is exactly {@code data[from, from + n)}. */
  public boolean sameAs(byte[] data, int from, int n) {
    return n == length && Arrays.equals(page, offset, offset + n, data, from, from + n);
  }

  /** A copy of the chunk's bytes in an array of its own. */
  public byte[] toArray() {
    return Arrays.copyOfRange(page, offset, offset + length);
  }
}
