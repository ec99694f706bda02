package io.tcpopt.reduction;

import java.nio.charset.StandardCharsets;
import java.util.Random;

/** Seeded test data: random (incompressible), text-like (compressible), repeated blocks, edited copies. */
final class TestData {
  private TestData() {}

  static byte[] random(long seed, int n) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  /** Log lines and JSON records with a Zipf-ish vocabulary: compresses about 4:1 with zstd. */
  static byte[] text(long seed, int n) {
    Random r = new Random(seed);
    String[] words = new String[2000];
    for (int i = 0; i < words.length; i++) {
      StringBuilder w = new StringBuilder();
      int len = 2 + r.nextInt(8);
      for (int j = 0; j < len; j++) {
        w.append((char) ('a' + r.nextInt(26)));
      }
      words[i] = w.toString();
    }
    StringBuilder sb = new StringBuilder(n + 256);
    long t = 1_700_000_000L;
    while (sb.length() < n) {
      t += r.nextInt(3);
      if (r.nextBoolean()) {
        sb.append(t).append(" INFO  [worker-").append(r.nextInt(16)).append("] ");
        for (int i = 0, k = 4 + r.nextInt(10); i < k; i++) {
          sb.append(words[(int) Math.min(words.length - 1, Math.abs(r.nextGaussian()) * 200)]).append(' ');
        }
        sb.append('\n');
      } else {
        sb.append("{\"id\":").append(r.nextInt(1_000_000)).append(",\"user\":\"")
            .append(words[r.nextInt(300)]).append("\",\"status\":\"")
            .append(r.nextInt(4) == 0 ? "FAILED" : "OK").append("\",\"amount\":")
            .append(r.nextInt(10000) / 100.0).append("}\n");
      }
    }
    byte[] b = sb.toString().getBytes(StandardCharsets.US_ASCII);
    return java.util.Arrays.copyOf(b, n);
  }

  /** {@code count} copies of one random block. */
  static byte[] repeated(long seed, int block, int count) {
    byte[] one = random(seed, block);
    byte[] b = new byte[block * count];
    for (int i = 0; i < count; i++) {
      System.arraycopy(one, 0, b, i * block, block);
    }
    return b;
  }

  /**
   * A copy of {@code data} with about {@code fraction} of its bytes changed in scattered runs of
   * {@code run} bytes (overwrites, insertions and deletions in equal parts).
   */
  static byte[] edited(byte[] data, long seed, double fraction, int run) {
    Random r = new Random(seed);
    int edits = Math.max(1, (int) (data.length * fraction / run));
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(data.length + edits * run);
    int[] at = new int[edits];
    for (int i = 0; i < edits; i++) {
      at[i] = r.nextInt(data.length - run);
    }
    java.util.Arrays.sort(at);
    int pos = 0;
    for (int i = 0; i < edits; i++) {
      if (at[i] < pos) {
        continue;
      }
      out.write(data, pos, at[i] - pos);
      byte[] fresh = random(r.nextLong(), run);
      switch (i % 3) {
        case 0: // overwrite
          out.write(fresh, 0, run);
          pos = at[i] + run;
          break;
        case 1: // insert
          out.write(fresh, 0, run);
          pos = at[i];
          break;
        default: // delete
          pos = at[i] + run;
          break;
      }
    }
    out.write(data, pos, data.length - pos);
    return out.toByteArray();
  }
}
