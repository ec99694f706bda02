package io.tcpopt.servicenode;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.SplittableRandom;

/** Writes and reads test payloads, with a SHA-256 of every byte. */
final class Payload {
  private static final int BLOCK = 64 * 1024;

  private Payload() {}

  static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Writes {@code size} pseudo-random bytes (distinct per block and seed); returns their SHA-256. */
  static String write(OutputStream out, long size, long seed) throws IOException {
    MessageDigest md = sha256();
    byte[] block = new byte[BLOCK];
    new SplittableRandom(seed).nextBytes(block);
    long left = size;
    long n = 0;
    while (left > 0) {
      long stamp = seed * 31 + n++;
      for (int i = 0; i < 8; i++) {
        block[i] = (byte) (stamp >>> (8 * i));
      }
      int len = (int) Math.min(left, BLOCK);
      md.update(block, 0, len);
      out.write(block, 0, len);
      left -= len;
    }
    out.flush();
    return HexFormat.of().formatHex(md.digest());
  }

  /** Reads to EOF; returns the SHA-256 and count. Throws if the stream ends with an error (reset). */
  static Digest readAll(InputStream in) throws IOException {
    MessageDigest md = sha256();
    byte[] buf = new byte[BLOCK];
    long total = 0;
    int n;
    while ((n = in.read(buf)) >= 0) {
      md.update(buf, 0, n);
      total += n;
    }
    return new Digest(HexFormat.of().formatHex(md.digest()), total);
  }

  record Digest(String sha256, long bytes) {}
}
