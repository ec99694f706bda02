package io.tcpopt.reduction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.common.policy.DataReduction;
import io.tcpopt.common.policy.DataReduction.Compression;
import io.tcpopt.reduction.PairSimulator.Transfer;
import io.tcpopt.reduction.store.Fingerprint;
import io.tcpopt.reduction.store.FingerprintFunction;
import io.tcpopt.reduction.store.StoreSettings;
import java.nio.file.Path;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two engines end to end through {@link PairSimulator}: every transfer is checked byte for byte
 * (SHA-256), whatever the segmentation, the reordering across streams, evictions, restarts and
 * forced fingerprint collisions.
 */
class ReductionPairTest {
  static final DataReduction DEDUP = new DataReduction(Compression.NONE, true);
  static final DataReduction DEDUP_ZSTD = new DataReduction(Compression.ZSTD, true);
  static final DataReduction ZSTD = new DataReduction(Compression.ZSTD, false);
  static final DataReduction LZ4 = new DataReduction(Compression.LZ4, false);
  static final DataReduction DEDUP_LZ4 = new DataReduction(Compression.LZ4, true);

  static Supplier<ReductionEngine> memory(long bytes) {
    return () -> ReductionEngine.open(ReductionSettings.of(StoreSettings.memory(bytes)));
  }

  static Supplier<ReductionEngine> engine(ReductionSettings s) {
    return () -> ReductionEngine.open(s);
  }

  static PairSimulator pair(long seed) {
    PairSimulator p = new PairSimulator(seed, memory(64 << 20), memory(64 << 20));
    p.settleControl();
    return p;
  }

  @Test
  void everyModeRoundTripsOverRandomSegmentations() {
    DataReduction[] modes = {DataReduction.OFF, LZ4, ZSTD, DEDUP, DEDUP_LZ4, DEDUP_ZSTD};
    byte[][] inputs = {TestData.random(1, 700_000), TestData.text(2, 900_000), TestData.repeated(3, 10_000, 60),
        new byte[300_000], new byte[] {42}, new byte[0]};
    long seed = 10;
    for (DataReduction mode : modes) {
      for (byte[] input : inputs) {
        PairSimulator p = pair(seed++);
        p.maxWrite = 1 + p.random.nextInt(100_000);
        p.flushChance = p.random.nextDouble();
        p.maxSegment = new int[] {1024, 16 << 10, 64 << 10, 1 << 20}[p.random.nextInt(4)];
        p.send('a', input, mode);
        p.send('b', input, mode);
        p.run();
      }
    }
  }

  @Test
  void aSecondTransferOfTheSameBytesIsMostlyReferences() {
    PairSimulator p = pair(20);
    byte[] file = TestData.random(21, 8 << 20);
    Transfer first = p.send('b', file, DEDUP_ZSTD);
    p.run();
    assertTrue(first.wanBytes > file.length, "random data crosses whole the first time: " + first.wanBytes);
    Transfer second = p.send('b', file, DEDUP_ZSTD);
    p.run();
    assertTrue(second.wanBytes < file.length * 0.03, "second transfer: " + second.wanBytes + " WAN bytes");
  }

  @Test
  void aBulkSecondTransferCostsAboutOnePercent() {
    PairSimulator p = pair(28);
    p.flushChance = 0; // flushes only when the credit runs out
    p.window = 4 << 20;
    byte[] file = TestData.random(29, 8 << 20);
    p.send('b', file, DEDUP);
    p.run();
    Transfer second = p.send('b', file, DEDUP);
    p.run();
    assertTrue(second.wanBytes < file.length * 0.015, "second transfer: " + second.wanBytes + " WAN bytes");
  }

  @Test
  void scatteredEditsCostLittle() {
    PairSimulator p = pair(22);
    byte[] file = TestData.random(23, 8 << 20);
    p.send('b', file, DEDUP);
    p.run();
    byte[] edited = TestData.edited(file, 24, 0.01, 1024);
    Transfer t = p.send('b', edited, DEDUP);
    p.run();
    assertTrue(t.wanBytes < edited.length * 0.10, "1% edited: " + t.wanBytes + " of " + edited.length);
  }

  @Test
  void compressionShrinksTextAndTheGuardLeavesRandomBytesAlone() {
    PairSimulator p = pair(25);
    p.flushChance = 0;
    byte[] text = TestData.text(26, 4 << 20);
    Transfer z = p.send('a', text, ZSTD);
    Transfer l = p.send('a', text, LZ4);
    byte[] noise = TestData.random(27, 4 << 20);
    Transfer r = p.send('a', noise, ZSTD);
    p.run();
    assertTrue(z.wanBytes < text.length / 3, "zstd: " + z.wanBytes);
    assertTrue(l.wanBytes < text.length / 2, "lz4: " + l.wanBytes);
    assertTrue(r.wanBytes < noise.length * 1.002, "incompressible: " + r.wanBytes);
    long[] guard = r.encoder.guardCounts();
    assertTrue(guard[0] <= 12, "full compression attempts on random data: " + guard[0] + ", skipped " + guard[1]);
  }

  @Test
  void referencesWorkAcrossStreamsAndBothDirections() {
    PairSimulator p = pair(30);
    byte[] file = TestData.random(31, 4 << 20);
    p.send('a', file, DEDUP);
    p.run();
    // b received the chunks from a: both hold them now, so b can send them back as references ...
    Transfer back = p.send('b', file, DEDUP);
    // ... and a can send them again on several concurrent streams.
    Transfer again1 = p.send('a', file, DEDUP);
    Transfer again2 = p.send('a', file, DEDUP);
    p.run();
    assertTrue(back.wanBytes < file.length * 0.03, "reverse direction: " + back.wanBytes);
    assertTrue(again1.wanBytes < file.length * 0.03, "again: " + again1.wanBytes);
    assertTrue(again2.wanBytes < file.length * 0.03, "again: " + again2.wanBytes);
  }

  @Test
  void concurrentStreamsOfTheSameNewDataStayExact() {
    // Literals of one stream and references of another race across connections: a reference is
    // only made to a chunk the peer acknowledged, or that the same stream introduced.
    for (long seed = 40; seed < 46; seed++) {
      PairSimulator p = pair(seed);
      byte[] file = TestData.repeated(seed, 30_000, 40);
      for (int i = 0; i < 5; i++) {
        p.send(i % 2 == 0 ? 'a' : 'b', file, DEDUP_ZSTD);
      }
      p.run();
      assertEquals(0, p.peerOf('a').stats().snapshot().nacksSent() + p.peerOf('b').stats().snapshot().nacksSent(),
          "no reference ahead of its literal");
    }
  }

  @Test
  void evictionsAtTheReceiverAreRepairedByNacks() {
    // b's cache is far smaller than what a knows it received: a references chunks b evicted; b's
    // EVICTED notices race the references, and what they miss is NACKed and resupplied.
    PairSimulator p = new PairSimulator(50, memory(64 << 20), memory(1 << 20));
    p.settleControl();
    // a's record of b is sized after b's cache (it forgets about as fast as b evicts); pretend b is
    // large so that a keeps references b can no longer resolve.
    p.peerOf('a').peerEpoch(p.b.epoch(), 1L << 40);
    byte[] file = TestData.random(51, 3 << 20);
    p.send('a', file, DEDUP);
    p.run();
    p.window = 4 << 20;
    p.controlWeight = 0; // notices come late
    p.send('a', file, DEDUP);
    p.send('a', file, DEDUP_ZSTD);
    p.run();
    PeerReduction.Records r = p.peerOf('b').records();
    assertEquals(0, r.wanted(), "nothing left waiting");
    assertTrue(p.peerOf('b').stats().snapshot().nacksSent() > 0, "the race was lost at least once: "
        + p.peerOf('a').stats().snapshot() + " " + p.peerOf('a').records() + " " + p.b.store().stats());
    assertTrue(p.b.store().stats().memoryBytes() <= 1 << 20);
  }

  @Test
  void aNackIsAnsweredFromTheCacheOrTheKeptReferenceBytes() {
    // The receiver loses its cache without telling (reset, EPOCH message not delivered yet): every
    // reference in flight is NACKed and resupplied.
    PairSimulator p = pair(52);
    byte[] file = TestData.random(53, 2 << 20);
    p.send('a', file, DEDUP);
    p.run();
    p.b.store().reset();
    p.control.clear();
    p.peerOf('b').pollControl(PairSimulator.CONTROL_MAX); // the EPOCH announcement is lost
    Transfer t = p.send('a', file, DEDUP);
    p.run();
    ReductionStats.Snapshot s = p.peerOf('b').stats().snapshot();
    assertTrue(s.nacksSent() > 0, "references to the wiped cache were NACKed");
    long resupplied = p.peerOf('a').stats().snapshot().resuppliedBytes();
    assertTrue(resupplied > file.length / 2, "the data crossed again in RESUPPLY messages: " + resupplied);
    assertTrue(t.wanBytes < file.length / 10, "as references first: " + t.wanBytes);
  }

  @Test
  void evictionsAtTheSenderAreHarmless() {
    // a's own cache is tiny: it forgets chunks it sent, yet still references what b holds, and
    // answers NACKs from the bytes it kept for unacknowledged references.
    PairSimulator p = new PairSimulator(54, memory(256 << 10), memory(64 << 20));
    p.settleControl();
    byte[] file = TestData.random(55, 3 << 20);
    p.send('a', file, DEDUP);
    p.run();
    Transfer t = p.send('a', file, DEDUP);
    p.run();
    assertTrue(t.wanBytes < file.length * 0.05, "references still work: " + t.wanBytes);
  }

  @Test
  void aStreamThatEndedStillAnswersForItsTail() {
    // As below, but b asks soon after a's stream ended: a still holds the references' bytes.
    PairSimulator p = new PairSimulator(58, memory(256 << 10), memory(64 << 20));
    Transfer t = endedWhileThePeerLostItsCache(p, TestData.random(59, 2 << 20));
    while (!t.inFlight.isEmpty()) {
      t.decoder.offer(t.inFlight.poll());
      p.settleControl();
      for (byte[] out; (out = t.decoder.poll()) != null; ) {
        t.output.write(out, 0, out.length);
      }
    }
    p.settleControl();
    for (byte[] out; (out = t.decoder.poll()) != null; ) {
      t.output.write(out, 0, out.length);
    }
    org.junit.jupiter.api.Assertions.assertArrayEquals(TestData.random(59, 2 << 20), t.output.toByteArray(),
        "every byte, the tail resupplied from the ended stream's references");
    assertTrue(p.peerOf('a').stats().snapshot().nacksReceived() > 0, "the tail needed NACKs");
    t.decoder.close();
  }

  /**
   * {@code file} sent from a to b once; b loses its cache and a does not hear of it; a sends it
   * again as references, none acknowledged, and ends the stream. Returns the second transfer with
   * its segments still in flight.
   */
  private static Transfer endedWhileThePeerLostItsCache(PairSimulator p, byte[] file) {
    p.settleControl();
    p.send('a', file, DEDUP);
    p.run();
    p.b.store().reset(); // b loses the chunks ...
    p.control.clear();
    p.peerOf('b').pollControl(PairSimulator.CONTROL_MAX); // ... a does not hear of it ...
    p.window = 16 << 20;
    Transfer t = p.sendKeeping('a', file, DEDUP);
    // ... and a's acknowledgements never come back, then a's stream ends.
    while (t.sent < file.length) {
      t.writeSome();
    }
    t.encoder.close(true);
    return t;
  }

  @Test
  void aChunkThePeerCannotSupplyFailsTheStreamNeverTheBytes() {
    PairSimulator p = new PairSimulator(56, memory(256 << 10), memory(64 << 20));
    byte[] file = TestData.random(57, 2 << 20);
    Transfer t = endedWhileThePeerLostItsCache(p, file);
    // Long after: a kept the ended stream's references for a while only, and its own tiny cache
    // has long forgotten the chunks.
    p.peerOf('a').expireLingering();
    int delivered = 0;
    ReductionException failure = null;
    try {
      while (!t.inFlight.isEmpty()) {
        t.decoder.offer(t.inFlight.poll());
        p.settleControl();
        for (byte[] out; (out = t.decoder.poll()) != null; ) {
          t.output.write(out, 0, out.length);
          delivered += out.length;
        }
      }
      p.settleControl();
      while (t.decoder.poll() != null) {
        delivered++;
      }
    } catch (ReductionException e) {
      failure = e;
    }
    assertTrue(failure != null && failure.getMessage().contains("no longer held"), "failure: " + failure);
    byte[] got = t.output.toByteArray();
    assertEquals(delivered, got.length);
    org.junit.jupiter.api.Assertions.assertArrayEquals(java.util.Arrays.copyOf(file, got.length), got,
        "what was delivered is an exact prefix");
    assertTrue(got.length < file.length);
    t.decoder.close();
  }

  @Test
  void forcedFingerprintCollisionsStayByteExact() {
    // Fingerprints of one byte of SHA-256: about 9000 chunks share 256 names.
    FingerprintFunction weak = (data, offset, length) -> {
      Fingerprint f = FingerprintFunction.SHA256_128.of(data, offset, length);
      return new Fingerprint(0, f.low() & 0xff);
    };
    ReductionSettings s = ReductionSettings.of(StoreSettings.memory(64 << 20)).withFingerprints(weak);
    PairSimulator p = new PairSimulator(60, engine(s), engine(s));
    p.settleControl();
    byte[] one = TestData.random(61, 6 << 20);
    byte[] two = TestData.random(62, 6 << 20);
    p.send('a', one, DEDUP);
    p.send('b', two, DEDUP_ZSTD);
    p.run();
    p.send('a', one, DEDUP);
    p.send('a', two, DEDUP);
    p.send('b', one, DEDUP_LZ4);
    p.run();
    // Even a constant fingerprint is only slow, never wrong.
    ReductionSettings constant = s.withFingerprints((d, o, l) -> new Fingerprint(7, 7));
    PairSimulator q = new PairSimulator(63, engine(constant), engine(constant));
    q.settleControl();
    q.send('a', TestData.repeated(64, 5000, 50), DEDUP);
    q.send('b', TestData.random(65, 500_000), DEDUP);
    q.run();
    q.send('a', TestData.repeated(64, 5000, 50), DEDUP);
    q.run();
  }

  @Test
  void restartsWithoutDiskStartANewEpochAndResynchronise() {
    PairSimulator p = pair(70);
    byte[] file = TestData.random(71, 4 << 20);
    long epochB = p.b.epoch();
    p.send('a', file, DEDUP);
    p.run();
    Transfer cut = p.sendKeeping('a', file, DEDUP);
    for (int i = 0; i < 40; i++) {
      cut.writeSome();
      if (!cut.inFlight.isEmpty()) {
        cut.deliverOne();
      }
    }
    p.restart('b'); // mid-transfer: the stream is lost, what it delivered was an exact prefix
    assertTrue(p.b.epoch() != epochB);
    p.settleControl();
    Transfer t = p.send('a', file, DEDUP);
    p.run();
    assertTrue(t.wanBytes > file.length, "b's cache is new: everything crosses again: " + t.wanBytes);
    p.restart('a');
    p.settleControl();
    // a forgot what b holds and b forgets what a held (a's epoch is new): literals again, both ways,
    // though concurrent streams of the same data teach each side what the other holds as they go.
    Transfer u = p.send('a', file, DEDUP);
    Transfer v = p.send('b', file, DEDUP);
    p.run();
    assertTrue(u.wanBytes + v.wanBytes > file.length, u.wanBytes + ", " + v.wanBytes);
    Transfer w = p.send('a', file, DEDUP);
    p.run();
    assertTrue(w.wanBytes < file.length * 0.03, "after the resynchronisation: " + w.wanBytes);
  }

  @Test
  void aDiskCacheKeepsItsEpochAndItsChunksAcrossARestart(@TempDir Path dir) {
    ReductionSettings withDisk = ReductionSettings.of(StoreSettings.memory(8 << 20).withDisk(dir, 64 << 20));
    PairSimulator p = new PairSimulator(80, memory(64 << 20), engine(withDisk));
    p.settleControl();
    long epochB = p.b.epoch();
    byte[] file = TestData.random(81, 4 << 20);
    p.send('a', file, DEDUP);
    p.run();
    Transfer cut = p.sendKeeping('a', file, DEDUP_ZSTD);
    for (int i = 0; i < 30; i++) {
      cut.writeSome();
      if (!cut.inFlight.isEmpty()) {
        cut.deliverOne();
      }
    }
    p.restart('b');
    assertEquals(epochB, p.b.epoch(), "the disk cache keeps its epoch");
    p.settleControl();
    Transfer t = p.send('a', file, DEDUP);
    p.run();
    assertTrue(t.wanBytes < file.length * 0.03, "a's knowledge of b is still good: " + t.wanBytes);
    // A restart of the sender: it forgets what b holds, sends literals again, and relearns.
    p.restart('a');
    p.settleControl();
    Transfer u = p.send('a', file, DEDUP);
    p.run();
    Transfer v = p.send('a', file, DEDUP);
    p.run();
    assertTrue(u.wanBytes > file.length / 2 && v.wanBytes < file.length * 0.03, u.wanBytes + " then " + v.wanBytes);
  }

  @Test
  void memoryStaysBoundedUnderALongMixedLoad() {
    ReductionSettings small = ReductionSettings.of(StoreSettings.memory(2 << 20)).withMaxKnownChunks(2000);
    PairSimulator p = new PairSimulator(90, engine(small), engine(small));
    p.settleControl();
    byte[][] corpus = new byte[8][];
    for (int i = 0; i < corpus.length; i++) {
      corpus[i] = i % 2 == 0 ? TestData.random(91 + i, 600_000) : TestData.text(91 + i, 600_000);
    }
    DataReduction[] modes = {DEDUP, DEDUP_ZSTD, DEDUP_LZ4, ZSTD};
    long deadline = System.nanoTime() + 60_000_000_000L;
    for (int round = 0; round < 25 && System.nanoTime() < deadline; round++) {
      for (int k = 0; k < 4; k++) {
        p.send(p.random.nextBoolean() ? 'a' : 'b', corpus[p.random.nextInt(corpus.length)],
            modes[p.random.nextInt(modes.length)]);
      }
      p.run();
      for (char node : new char[] {'a', 'b'}) {
        PeerReduction.Records r = p.peerOf(node).records();
        assertTrue(r.known() <= 2000, "known " + r.known());
        assertEquals(0, r.retained(), "reference bytes kept after every acknowledgement");
        assertEquals(0, r.wanted());
        ReductionEngine e = node == 'a' ? p.a : p.b;
        assertTrue(e.store().stats().memoryBytes() <= 2 << 20, "cache " + e.store().stats());
      }
    }
  }
}
