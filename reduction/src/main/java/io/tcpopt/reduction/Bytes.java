package io.tcpopt.reduction;

import java.util.Arrays;

/** A growable byte array with big-endian writers; the segment and control message builders use it. */
final class Bytes {
  private byte[] buf;
  private int length;

  Bytes(int capacity) {
    this(capacity, false);
  }

  /** {@code exact}: the array is {@code capacity} bytes, for a message whose length is known. */
  Bytes(int capacity, boolean exact) {
    buf = new byte[exact ? capacity : Math.max(16, capacity)];
  }

  int length() {
    return length;
  }

  byte[] array() {
    return buf;
  }

  void clear() {
    length = 0;
  }

  private void ensure(int more) {
    if (length + more > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, length + more));
    }
  }

  void u8(int v) {
    ensure(1);
    buf[length++] = (byte) v;
  }

  void u16(int v) {
    ensure(2);
    buf[length++] = (byte) (v >>> 8);
    buf[length++] = (byte) v;
  }

  void u32(int v) {
    ensure(4);
    putInt(buf, length, v);
    length += 4;
  }

  void u64(long v) {
    ensure(8);
    for (int i = 56; i >= 0; i -= 8) {
      buf[length++] = (byte) (v >>> i);
    }
  }

  void put(byte[] b, int offset, int n) {
    ensure(n);
    System.arraycopy(b, offset, buf, length, n);
    length += n;
  }

  /** Makes room for {@code n} bytes and returns the offset where they go. */
  int reserve(int n) {
    ensure(n);
    int at = length;
    length += n;
    return at;
  }

  void truncate(int newLength) {
    length = newLength;
  }

  byte[] toArray() {
    return Arrays.copyOf(buf, length);
  }

  static void putInt(byte[] b, int at, int v) {
    b[at] = (byte) (v >>> 24);
    b[at + 1] = (byte) (v >>> 16);
    b[at + 2] = (byte) (v >>> 8);
    b[at + 3] = (byte) v;
  }

  static int intAt(byte[] b, int at) {
    return ((b[at] & 0xff) << 24) | ((b[at + 1] & 0xff) << 16) | ((b[at + 2] & 0xff) << 8) | (b[at + 3] & 0xff);
  }

  static int u16At(byte[] b, int at) {
    return ((b[at] & 0xff) << 8) | (b[at + 1] & 0xff);
  }

  static long longAt(byte[] b, int at) {
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (b[at + i] & 0xff);
    }
    return v;
  }
}
