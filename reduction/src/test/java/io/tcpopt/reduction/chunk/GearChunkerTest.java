package io.tcpopt.reduction.chunk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class GearChunkerTest {
  private static final ChunkerSettings S = ChunkerSettings.DEFAULT;

  /** Chunk end offsets of {@code data} fed in pieces of random sizes (1..maxPiece) from {@code seed}. */
  static List<Integer> boundaries(byte[] data, long seed, int maxPiece) {
    GearChunker c = new GearChunker(S);
    Random r = new Random(seed);
    List<Integer> out = new ArrayList<>();
    int at = 0;
    while (at < data.length) {
      int piece = Math.min(data.length - at, 1 + r.nextInt(maxPiece));
      int off = at;
      int left = piece;
      while (left > 0) {
        int n = c.next(data, off, left);
        if (n < 0) {
          break;
        }
        out.add(off + n);
        off += n;
        left -= n;
      }
      at += piece;
    }
    return out;
  }

  static byte[] random(long seed, int n) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  @Test
  void theSameBoundariesWhateverTheReadSizes() {
    byte[] data = random(1, 4 << 20);
    List<Integer> whole = boundaries(data, 0, data.length);
    assertTrue(whole.size() > 500, "chunks: " + whole.size());
    for (int maxPiece : new int[] {1, 7, 1000, 4096, 65536, 300_000}) {
      assertEquals(whole, boundaries(data, maxPiece * 31L, maxPiece), "pieces up to " + maxPiece);
    }
  }

  @Test
  void sizesStayWithinBoundsAndNearTheTarget() {
    byte[] data = random(2, 8 << 20);
    List<Integer> ends = boundaries(data, 0, data.length);
    int prev = 0;
    for (int i = 0; i < ends.size(); i++) {
      int size = ends.get(i) - prev;
      assertTrue(size <= S.max(), "chunk " + i + " of " + size);
      assertTrue(size >= S.min(), "chunk " + i + " of " + size);
      prev = ends.get(i);
    }
    double average = (double) prev / ends.size();
    assertTrue(average > 2000 && average < 3000, "average chunk " + average);
  }

  @Test
  void lowEntropyDataIsCutAtTheMaximum() {
    byte[] zeros = new byte[1 << 20];
    List<Integer> ends = boundaries(zeros, 3, 5000);
    assertEquals(zeros.length / S.max(), ends.size());
    assertEquals(S.max(), (int) ends.get(0));
  }

  @Test
  void editsMoveOnlyTheBoundariesNearThem() {
    byte[] data = random(3, 16 << 20);
    byte[] edited = io.tcpopt.reduction.TestDataAccess.edited(data, 4, 0.01, 1024);
    Set<String> before = chunks(data);
    Set<String> after = chunks(edited);
    int kept = 0;
    for (String c : after) {
      if (before.contains(c)) {
        kept++;
      }
    }
    double keptShare = (double) kept / after.size();
    // 1% of the bytes changed in 1 KiB runs (about 160 places): most chunks are found again.
    assertTrue(keptShare >= 0.92, "chunks kept: " + keptShare);
  }

  /** The chunks of {@code data} as hex of their SHA-256. */
  private static Set<String> chunks(byte[] data) {
    Set<String> out = new HashSet<>();
    int prev = 0;
    for (int end : boundaries(data, 0, data.length)) {
      out.add(io.tcpopt.reduction.store.FingerprintFunction.SHA256_128.of(data, prev, end - prev).toString());
      prev = end;
    }
    return out;
  }

  /** The definition byte by byte (the chunker's first version): end offsets of {@code data}'s chunks. */
  static List<Integer> referenceBoundaries(byte[] data) {
    int bits = Integer.numberOfTrailingZeros(S.normal());
    long maskHard = -1L << (64 - (bits + 2));
    long maskEasy = -1L << (64 - (bits - 2));
    List<Integer> out = new ArrayList<>();
    long h = 0;
    int len = 0;
    for (int i = 0; i < data.length; i++) {
      len++;
      if (len > S.min()) {
        h = (h << 1) + GearChunker.GEAR[data[i] & 0xff];
      }
      if ((len > S.min() && (h & (len <= S.normal() ? maskHard : maskEasy)) == 0) || len >= S.max()) {
        out.add(i + 1);
        h = 0;
        len = 0;
      }
    }
    return out;
  }

  @Test
  void theBoundariesAreThoseOfTheByteByByteDefinition() {
    byte[] random = random(5, 8 << 20);
    byte[] mixed = random(6, 4 << 20);
    java.util.Arrays.fill(mixed, 1 << 20, 2 << 20, (byte) 7); // runs that only the maximum cuts
    for (byte[] data : new byte[][] {random, mixed}) {
      List<Integer> expected = referenceBoundaries(data);
      assertTrue(expected.size() > 1000, "chunks: " + expected.size());
      for (int maxPiece : new int[] {1, 3, 511, 513, 2048, 65536, data.length}) {
        assertEquals(expected, boundaries(data, maxPiece * 17L, maxPiece), "pieces up to " + maxPiece);
      }
    }
  }

  private static final long GEAR_0 = 0x3d71384e6000bb43L;
  private static final long GEAR_255 = 0x55a9645ca8b44ba1L;

  @Test
  void theGearTableIsTheDocumentedOne() {
    // docs/data-reduction.md: SplitMix64 from 0x5443504f2d434443, first and last entries.
    // SplitMix64's published first output for seed 0.
    assertEquals(0xe220a8397b1dcdafL, GearChunker.gearTable(0)[0]);
    assertEquals(256, GearChunker.GEAR.length);
    assertEquals(GEAR_0, GearChunker.GEAR[0]);
    assertEquals(GEAR_255, GearChunker.GEAR[255]);
  }
}
