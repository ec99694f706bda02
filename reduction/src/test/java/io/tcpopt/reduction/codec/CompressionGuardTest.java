package io.tcpopt.reduction.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

class CompressionGuardTest {
  private static final byte[] NOISE = noise();
  private static final byte[] TEXT = io.tcpopt.reduction.TestDataAccess.text(1, 1 << 16);

  private static byte[] noise() {
    byte[] b = new byte[1 << 16];
    new Random(1).nextBytes(b);
    return b;
  }

  /** Feeds {@code blocks} blocks of {@code data}, compressing when the guard says so; returns the attempts. */
  private static int attempts(CompressionGuard g, byte[] data, int length, int blocks) {
    int tried = 0;
    for (int i = 0; i < blocks; i++) {
      if (g.shouldTry(data, 0, length)) {
        tried++;
        byte[] out = new byte[Codecs.lz4Bound(length)];
        g.result(CompressionGuard.worthIt(length, Codecs.lz4Compress(data, 0, length, out, 0, out.length)), length);
      }
    }
    return tried;
  }

  @Test
  void incompressibleDataIsTriedRarely() {
    CompressionGuard g = new CompressionGuard();
    int tried = attempts(g, NOISE, NOISE.length, 2000);
    // 1 + 1 + 2 + 4 + ... then one per 128 + probe-refused ones: a handful in 2000 blocks
    assertTrue(tried <= 24, "full attempts: " + tried);
    assertTrue(g.backingOff());
  }

  @Test
  void compressibleDataIsAlwaysCompressedAndEndsABackOff() {
    CompressionGuard g = new CompressionGuard();
    assertEquals(100, attempts(g, TEXT, TEXT.length, 100));
    attempts(g, NOISE, NOISE.length, 500);
    assertTrue(g.backingOff());
    // text again: after at most one skip run the probe lets it through, and the back-off ends
    int tried = attempts(g, TEXT, TEXT.length, 300);
    assertTrue(tried > 150, "tried " + tried);
    assertFalse(g.backingOff());
  }

  @Test
  void smallBlocksThatDoNotCompressDoNotStartABackOff() {
    CompressionGuard g = new CompressionGuard();
    assertEquals(200, attempts(g, NOISE, 1000, 200));
    assertFalse(g.backingOff());
    assertFalse(g.shouldTry(NOISE, 0, CompressionGuard.MIN_BLOCK - 1), "too small to try");
  }

  @Test
  void codecsRoundTripAndRefuseGarbage() {
    byte[] out = new byte[Codecs.zstdBound(TEXT.length)];
    byte[] prefix = java.util.Arrays.copyOf(TEXT, 4096);
    int n = Codecs.zstdCompress(TEXT, 0, TEXT.length, prefix, out, 0, out.length);
    assertArrayEquals(TEXT, Codecs.zstdDecompress(out, 0, n, prefix, TEXT.length));
    assertThrows(CodecException.class, () -> Codecs.zstdDecompress(out, 0, n, null, TEXT.length),
        "a prefixed frame needs its prefix");
    assertThrows(CodecException.class, () -> Codecs.zstdDecompress(out, 0, n, prefix, TEXT.length - 1));
    byte[] l = new byte[Codecs.lz4Bound(TEXT.length)];
    int m = Codecs.lz4Compress(TEXT, 0, TEXT.length, l, 0, l.length);
    assertArrayEquals(TEXT, Codecs.lz4Decompress(l, 0, m, TEXT.length));
    assertThrows(CodecException.class, () -> Codecs.lz4Decompress(l, 0, m / 2, TEXT.length));
    assertEquals(-1, Codecs.lz4Compress(NOISE, 0, NOISE.length, l, 0, 100), "does not fit");
  }
}
