package io.tcpopt.reduction.store;

import java.util.zip.CRC32C;

/** CRC-32C (Castagnoli), the check carried beside every fingerprint; hardware-accelerated by the JDK. */
public final class Crc {
  private Crc() {}

  public static int of(byte[] data, int offset, int length) {
    CRC32C c = new CRC32C();
    c.update(data, offset, length);
    return (int) c.getValue();
  }

  public static int of(byte[] data) {
    return of(data, 0, data.length);
  }
}
