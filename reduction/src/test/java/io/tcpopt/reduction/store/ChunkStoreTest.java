package io.tcpopt.reduction.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChunkStoreTest {
  private static byte[] chunk(long seed, int n) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  private static Fingerprint fp(byte[] b) {
    return FingerprintFunction.SHA256_128.of(b, 0, b.length);
  }

  /** Records evictions and epoch changes. */
  static final class Heard implements ChunkStore.Listener {
    final List<Fingerprint> evicted = new ArrayList<>();
    final List<Long> epochs = new ArrayList<>();

    @Override
    public void evicted(List<Fingerprint> fingerprints) {
      evicted.addAll(fingerprints);
    }

    @Override
    public void epochChanged(long epoch) {
      epochs.add(epoch);
    }
  }

  @Test
  void memoryTierIsABoundedLru() {
    try (ChunkStore s = ChunkStore.open(StoreSettings.memory(256 << 10))) {
      Heard heard = new Heard();
      s.addListener(heard);
      List<byte[]> chunks = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        byte[] c = chunk(i, 4000);
        chunks.add(c);
        s.put(fp(c), c, Crc.of(c));
        s.get(fp(chunks.get(0)), 4000, Crc.of(chunks.get(0))); // chunk 0 stays in use
      }
      assertTrue(s.stats().memoryBytes() <= 256 << 10, "bounded: " + s.stats());
      assertArrayEquals(chunks.get(0), s.get(fp(chunks.get(0)), 4000, Crc.of(chunks.get(0))), "recently used stays");
      assertNull(s.get(fp(chunks.get(1)), 4000, Crc.of(chunks.get(1))), "least recently used went");
      assertTrue(heard.evicted.contains(fp(chunks.get(1))));
      assertFalse(heard.evicted.contains(fp(chunks.get(0))));
      assertEquals(200 - s.stats().memoryChunks(), heard.evicted.size());
    }
  }

  @Test
  void aLookupWithAnotherLengthOrCrcIsAMissAndACollidingPutReplaces() {
    try (ChunkStore s = ChunkStore.open(StoreSettings.memory(1 << 20))) {
      byte[] one = chunk(1, 3000);
      byte[] two = chunk(2, 3000);
      Fingerprint same = new Fingerprint(1, 2);
      s.put(same, one, Crc.of(one));
      assertNull(s.get(same, 3000, Crc.of(two)));
      assertNull(s.get(same, 2999, Crc.of(one)));
      s.put(same, two, Crc.of(two));
      assertNull(s.get(same, 3000, Crc.of(one)));
      assertArrayEquals(two, s.get(same, 3000, Crc.of(two)));
    }
  }

  @Test
  void shareReturnsTheHeldBytesForTheSameBytesAndACopyOtherwise() {
    try (ChunkStore s = ChunkStore.open(StoreSettings.memory(1 << 20))) {
      byte[] buffer = new byte[10_000];
      byte[] c = chunk(4, 3000);
      System.arraycopy(c, 0, buffer, 100, c.length);
      ChunkBytes first = s.share(fp(c), buffer, 100, 3000, Crc.of(c));
      assertNotSame(buffer, first.page());
      assertArrayEquals(c, first.toArray());
      ChunkBytes found = s.find(fp(c), 3000, Crc.of(c));
      assertSame(first.page(), found.page(), "stored");
      assertEquals(first.offset(), found.offset(), "stored");
      java.util.Arrays.fill(buffer, (byte) 0); // the caller reuses its buffer: the cache is unaffected
      assertArrayEquals(c, s.get(fp(c), 3000, Crc.of(c)));
      ChunkBytes again = s.share(fp(c), c.clone(), 0, 3000, Crc.of(c));
      assertSame(first.page(), again.page(), "the same bytes again: the held bytes, no copy");
      assertEquals(first.offset(), again.offset());

      // same fingerprint, length and CRC claimed for other bytes (a forced collision): never the held bytes
      byte[] other = chunk(5, 3000);
      ChunkBytes shared = s.share(fp(c), other, 0, 3000, Crc.of(c));
      assertArrayEquals(other, shared.toArray());
      assertArrayEquals(c, first.toArray(), "bytes once handed out never change");
    }
  }

  @Test
  void aHeldChunkIsFoundByItsBytesWithoutItsFingerprint() {
    try (ChunkStore s = ChunkStore.open(StoreSettings.memory(64 << 10))) {
      byte[] c = chunk(6, 3000);
      assertNull(s.shareKnown(c, 0, c.length, Crc.of(c)), "not held yet");
      s.put(fp(c), c, Crc.of(c));
      byte[] buffer = new byte[5000];
      System.arraycopy(c, 0, buffer, 7, c.length);
      ChunkStore.Held h = s.shareKnown(buffer, 7, c.length, Crc.of(c));
      assertEquals(fp(c), h.fingerprint(), "the fingerprint it was stored under");
      assertArrayEquals(c, h.bytes().toArray());

      // other bytes claiming the same CRC and length (as a collision would): not found
      byte[] other = chunk(7, 3000);
      assertNull(s.shareKnown(other, 0, other.length, Crc.of(c)));
      // the same fingerprint now names other bytes (a forced collision replaced it): not found either
      s.put(fp(c), other, Crc.of(other));
      assertNull(s.shareKnown(c, 0, c.length, Crc.of(c)));
      assertEquals(fp(c), s.shareKnown(other, 0, other.length, Crc.of(other)).fingerprint());
      // evicted: not found
      for (int i = 0; i < 40; i++) {
        byte[] x = chunk(100 + i, 3000);
        s.put(fp(x), x, Crc.of(x));
      }
      assertNull(s.shareKnown(other, 0, other.length, Crc.of(other)));
    }
  }

  @Test
  void chunksShareLargePagesAndAChunkMetAgainLeavesAnOldPage() {
    long capacity = 16L << 20;
    try (ChunkStore s = ChunkStore.open(StoreSettings.memory(capacity))) {
      List<byte[]> chunks = new ArrayList<>();
      List<ChunkBytes> held = new ArrayList<>();
      for (int i = 0; i < 400; i++) { // 1.2 MB: one page of 1 MiB (capacity / 16) and a bit
        byte[] c = chunk(1000 + i, 3000);
        chunks.add(c);
        held.add(s.share(fp(c), c, 0, c.length, Crc.of(c)));
      }
      assertSame(held.get(0).page(), held.get(300).page(), "not an array per chunk");
      assertTrue(held.get(0).page().length >= 1 << 20, "pages of " + held.get(0).page().length);
      // ~2.5 cache sizes of other chunks later (evicting all the rest), chunk 0, used all along, has
      // moved out of its old page: the old pages can go
      byte[] keep = chunks.get(0);
      for (int i = 0; i < 14_000; i++) {
        byte[] c = chunk(5000 + i, 3000);
        s.put(fp(c), c, Crc.of(c));
        if (i % 100 == 0) {
          assertNotNull(s.find(fp(keep), keep.length, Crc.of(keep)), "in use, so held");
        }
      }
      ChunkBytes now = s.find(fp(keep), keep.length, Crc.of(keep));
      assertNotSame(held.get(0).page(), now.page(), "moved to a newer page");
      assertArrayEquals(keep, now.toArray());
      assertArrayEquals(keep, held.get(0).toArray(), "what a sender kept is unchanged");
      assertNull(s.find(fp(chunks.get(1)), 3000, Crc.of(chunks.get(1))), "unused: evicted");
    }
  }

  @Test
  void resetStartsANewEpoch() {
    try (ChunkStore s = ChunkStore.open(StoreSettings.memory(1 << 20))) {
      Heard heard = new Heard();
      s.addListener(heard);
      byte[] c = chunk(3, 5000);
      s.put(fp(c), c, Crc.of(c));
      long before = s.epoch();
      long after = s.reset();
      assertNotEquals(before, after);
      assertNotEquals(0, after);
      assertEquals(List.of(after), heard.epochs);
      assertNull(s.get(fp(c), c.length, Crc.of(c)));
    }
  }

  // ---- the disk tier --------------------------------------------------------------------------

  private static StoreSettings disk(Path dir) {
    // 256 KiB of memory, 2 MiB of disk in 256 KiB segments
    return new StoreSettings(256 << 10, dir, 2 << 20, 256 << 10);
  }

  private static List<byte[]> fill(ChunkStore s, long seed, int count) {
    List<byte[]> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      byte[] c = chunk(seed + i, 1000 + (int) ((seed + i) % 7000));
      s.put(fp(c), c, Crc.of(c));
      out.add(c);
    }
    return out;
  }

  private static int held(ChunkStore s, List<byte[]> chunks) {
    int n = 0;
    for (byte[] c : chunks) {
      byte[] got = s.get(fp(c), c.length, Crc.of(c));
      if (got != null) {
        assertArrayEquals(c, got);
        n++;
      }
    }
    return n;
  }

  @Test
  void theDiskTierSurvivesARestartWithItsEpoch(@TempDir Path dir) {
    long epoch;
    List<byte[]> chunks;
    try (ChunkStore s = ChunkStore.open(disk(dir))) {
      epoch = s.epoch();
      chunks = fill(s, 100, 300); // ~1.3 MB: more than memory, less than disk
      assertEquals(300, held(s, chunks));
    }
    try (ChunkStore s = ChunkStore.open(disk(dir))) {
      assertEquals(epoch, s.epoch());
      assertEquals(300, held(s, chunks), "every chunk back from disk");
    }
  }

  @Test
  void theDiskTierIsBoundedAndEvictsWholeOldSegments(@TempDir Path dir) throws IOException {
    try (ChunkStore s = ChunkStore.open(disk(dir))) {
      Heard heard = new Heard();
      s.addListener(heard);
      List<byte[]> first = fill(s, 1000, 200);
      fill(s, 5000, 2000); // ~9 MB through a 2 MiB disk tier
      assertTrue(s.stats().diskBytes() <= 2 << 20, "bounded: " + s.stats());
      assertTrue(held(s, first) < 20, "the oldest segments went");
      assertTrue(heard.evicted.size() > 1000, "evictions are reported: " + heard.evicted.size());
      long onDisk;
      try (Stream<Path> files = Files.list(dir)) {
        onDisk = files.filter(p -> p.toString().endsWith(".seg")).mapToLong(p -> p.toFile().length()).sum();
      }
      assertTrue(onDisk <= 2 << 20, "files: " + onDisk);
    }
  }

  @Test
  void aTruncatedSegmentKeepsItsIntactRecords(@TempDir Path dir) throws IOException {
    List<byte[]> chunks;
    try (ChunkStore s = ChunkStore.open(disk(dir))) {
      chunks = fill(s, 200, 40); // one segment, the active one
    }
    Path seg = onlySegment(dir);
    long size = Files.size(seg);
    try (RandomAccessFile f = new RandomAccessFile(seg.toFile(), "rw")) {
      f.setLength(size - 100); // a crash in the middle of the last record
    }
    try (ChunkStore s = ChunkStore.open(disk(dir))) {
      s.stats();
      int n = 0;
      for (byte[] c : chunks.subList(0, 39)) {
        n += s.contains(fp(c), c.length, Crc.of(c)) ? 1 : 0;
      }
      assertEquals(39, n, "all but the cut record");
      byte[] last = chunks.get(39);
      assertNull(s.get(fp(last), last.length, Crc.of(last)));
      assertEquals(39, held(s, chunks.subList(0, 39)));
      // and it goes on appending after the last intact record
      List<byte[]> more = fill(s, 900, 10);
      assertEquals(10, held(s, more));
    }
    try (ChunkStore s = ChunkStore.open(disk(dir))) {
      assertEquals(39, held(s, chunks.subList(0, 39)));
    }
  }

  @Test
  void corruptedChunkBytesAreDetectedOnReadAndDropped(@TempDir Path dir) throws IOException {
    List<byte[]> chunks;
    try (ChunkStore s = ChunkStore.open(new StoreSettings(64 << 10, dir, 2 << 20, 256 << 10))) {
      chunks = fill(s, 300, 40);
    }
    Path seg = onlySegment(dir);
    try (RandomAccessFile f = new RandomAccessFile(seg.toFile(), "rw")) {
      // flip one byte in the data of the first record (after the 28-byte segment and record headers)
      f.seek(28 + 28 + 10);
      int b = f.read();
      f.seek(28 + 28 + 10);
      f.write(b ^ 0x40);
    }
    try (ChunkStore s = ChunkStore.open(new StoreSettings(64 << 10, dir, 2 << 20, 256 << 10))) {
      Heard heard = new Heard();
      s.addListener(heard);
      byte[] first = chunks.get(0);
      assertNull(s.get(fp(first), first.length, Crc.of(first)), "never served corrupt");
      assertEquals(List.of(fp(first)), heard.evicted);
      assertEquals(39, held(s, chunks.subList(1, 40)));
    }
  }

  @Test
  void aCorruptHeaderFileStartsAnEmptyCacheUnderANewEpoch(@TempDir Path dir) throws IOException {
    long epoch;
    List<byte[]> chunks;
    try (ChunkStore s = ChunkStore.open(disk(dir))) {
      epoch = s.epoch();
      chunks = fill(s, 400, 50);
    }
    byte[] meta = Files.readAllBytes(dir.resolve(DiskTier.META));
    meta[9] ^= 1;
    Files.write(dir.resolve(DiskTier.META), meta);
    try (ChunkStore s = ChunkStore.open(disk(dir))) {
      assertNotEquals(epoch, s.epoch());
      assertEquals(0, held(s, chunks));
      assertEquals(0, s.stats().diskChunks());
    }
  }

  @Test
  void aCorruptIndexFileIsRebuiltFromItsSegment(@TempDir Path dir) throws IOException {
    List<byte[]> chunks;
    try (ChunkStore s = ChunkStore.open(disk(dir))) {
      chunks = fill(s, 500, 700); // several sealed segments with index files
    }
    List<Path> indexes;
    try (Stream<Path> files = Files.list(dir)) {
      indexes = files.filter(p -> p.toString().endsWith(".idx")).sorted().toList();
    }
    assertTrue(indexes.size() >= 2, "sealed segments: " + indexes);
    byte[] idx = Files.readAllBytes(indexes.get(0));
    idx[idx.length / 2] ^= 0x10;
    Files.write(indexes.get(0), idx);
    Files.write(indexes.get(1), new byte[] {1, 2, 3}); // and a truncated one
    try (ChunkStore s = ChunkStore.open(disk(dir))) {
      assertEquals(700, held(s, chunks));
    }
  }

  @Test
  void foreignAndGarbageFilesAreDiscarded(@TempDir Path dir) throws IOException {
    List<byte[]> chunks;
    try (ChunkStore s = ChunkStore.open(disk(dir))) {
      chunks = fill(s, 600, 30);
    }
    Files.write(dir.resolve("00000000000000ff.seg"), new byte[] {9, 9, 9}); // not a segment
    Files.write(dir.resolve("not-a-segment.seg"), new byte[100]);
    try (ChunkStore s = ChunkStore.open(disk(dir))) {
      assertEquals(30, held(s, chunks));
      fill(s, 700, 5);
    }
    assertFalse(Files.exists(dir.resolve("00000000000000ff.seg")));
    assertFalse(Files.exists(dir.resolve("not-a-segment.seg")));
  }

  private static Path onlySegment(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      List<Path> segs = files.filter(p -> p.toString().endsWith(".seg")).toList();
      assertEquals(1, segs.size(), "segments: " + segs);
      return segs.get(0);
    }
  }
}
