package io.tcpopt.servicenode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.common.policy.DataReduction;
import io.tcpopt.common.policy.DataReduction.Compression;
import io.tcpopt.reduction.ReductionSettings;
import io.tcpopt.servicenode.flow.FlowRecord;
import io.tcpopt.servicenode.flow.FlowTableSnapshot;
import io.tcpopt.reduction.ReductionStats;
import io.tcpopt.reduction.store.Fingerprint;
import io.tcpopt.reduction.store.StoreSettings;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Data reduction through a loopback branch/DC pair, every transfer checked by SHA-256 of every byte:
 * repeated downloads cross as references whatever the write pattern (chunking is content-defined),
 * scattered edits cross as little, text compresses, random data passes through, and transfers in
 * both directions over caches that evict, with fingerprints that collide, and across restarts of
 * either node in the middle of a transfer (the interrupted transfer delivers an exact prefix, the
 * caches resynchronise by epoch, later transfers are exact).
 */
@Timeout(180)
class DataReductionTest {
  private static final DataReduction DEDUP_ZSTD = new DataReduction(Compression.ZSTD, true);
  private static final DataReduction ZSTD = new DataReduction(Compression.ZSTD, false);
  private static final int MIB = 1 << 20;

  static TestServer server;
  /** Uploads the server received, by upload id: SHA-256 and byte count, or the prefix it got before a reset. */
  static final Map<Long, byte[]> uploads = new ConcurrentHashMap<>();
  ReductionPair pair;

  @BeforeAll
  static void startServer() throws IOException {
    server = new TestServer(DataReductionTest::serve);
  }

  @AfterAll
  static void stopServer() throws IOException {
    server.close();
  }

  @AfterEach
  void stopPair() {
    if (pair != null) {
      pair.close();
    }
    try {
      server.rethrow();
    } finally {
      server.errors.clear();
    }
  }

  private ReductionPair pair(ReductionSettings branch, ReductionSettings dc) {
    pair = new ReductionPair(server.address(), 2, branch, dc);
    return pair;
  }

  private static ReductionSettings memory(long bytes) {
    return ReductionSettings.of(StoreSettings.memory(bytes));
  }

  // ---- the transfers ----------------------------------------------------------------------------

  /** A file of the test: random or text, optionally with 1% of it changed in 1 KiB runs at random places. */
  record File(long seed, int size, boolean text, long editSeed) {
    byte[] bytes() {
      byte[] b = new byte[size];
      if (text) {
        text(seed, b);
      } else {
        new SplittableRandom(seed).nextBytes(b);
      }
      if (editSeed != 0) {
        SplittableRandom r = new SplittableRandom(editSeed);
        for (int edited = 0; edited < size / 100; edited += 1024) {
          int at = r.nextInt(size - 1024);
          for (int i = 0; i < 1024; i++) {
            b[at + i] ^= (byte) (1 + r.nextInt(255));
          }
        }
      }
      return b;
    }

    private static void text(long seed, byte[] out) {
      SplittableRandom r = new SplittableRandom(seed);
      String[] words = new String[500];
      for (int i = 0; i < words.length; i++) {
        StringBuilder w = new StringBuilder();
        for (int j = 2 + r.nextInt(8); j > 0; j--) {
          w.append((char) ('a' + r.nextInt(26)));
        }
        words[i] = w.toString();
      }
      StringBuilder sb = new StringBuilder(out.length + 200);
      long t = 1_700_000_000L;
      while (sb.length() < out.length) {
        t += r.nextInt(3);
        sb.append(t).append(" INFO [worker-").append(r.nextInt(16)).append("] {\"user\":\"").append(words[r.nextInt(60)])
            .append("\",\"msg\":\"");
        for (int i = 4 + r.nextInt(8); i > 0; i--) {
          sb.append(words[(int) Math.min(words.length - 1, Math.abs(r.nextGaussian()) * 80)]).append(' ');
        }
        sb.append("\"}\n");
      }
      System.arraycopy(sb.toString().getBytes(StandardCharsets.US_ASCII), 0, out, 0, out.length);
    }
  }

  /**
   * Server side: 'D' (download: the file, written in pieces of a seeded size), 'U' (upload: its
   * SHA-256 back), 'E' (echo: every byte back as it comes, until the client's FIN) or 'W' (the file,
   * then nothing until the client's FIN: no FIN of its own pushes the file's last bytes).
   */
  private static void serve(Socket s) throws Exception {
    DataInputStream in = new DataInputStream(s.getInputStream());
    int op = in.readByte();
    File f = new File(in.readLong(), in.readInt(), in.readBoolean(), in.readLong());
    long id = in.readLong();
    if (op == 'E') {
      in.transferTo(s.getOutputStream());
      s.shutdownOutput();
    } else if (op == 'W') {
      write(s.getOutputStream(), f.bytes(), id);
      while (in.read() >= 0) {
        // until the client closes
      }
    } else if (op == 'D') {
      try {
        write(s.getOutputStream(), f.bytes(), id);
        s.shutdownOutput();
        while (in.read() >= 0) {
          // until the client closes
        }
      } catch (IOException cut) {
        // a restart cut the download: the client checks what it got
      }
    } else {
      ByteArrayOutputStream got = new ByteArrayOutputStream(f.size());
      try {
        in.transferTo(got);
      } catch (IOException e) {
        uploads.put(id, got.toByteArray()); // reset: keep the prefix to check it
        return;
      }
      uploads.put(id, got.toByteArray());
      s.getOutputStream().write(sha256(got.toByteArray()).getBytes(StandardCharsets.US_ASCII));
      s.shutdownOutput();
    }
  }

  /** Writes in pieces of 1 B .. 256 KiB chosen by {@code seed}: a different pattern each transfer. */
  private static void write(OutputStream out, byte[] data, long seed) throws IOException {
    SplittableRandom r = new SplittableRandom(seed);
    for (int at = 0; at < data.length; ) {
      int n = Math.min(data.length - at, r.nextInt(4) == 0 ? 1 + r.nextInt(1024) : 1 + r.nextInt(256 << 10));
      out.write(data, at, n);
      at += n;
    }
    out.flush();
  }

  private static final AtomicLong nextId = new AtomicLong(1);

  private Socket connect(int op, File f, long id) throws IOException {
    Socket s = new Socket(pair.listener().getAddress(), pair.listener().getPort());
    s.setSoTimeout(60_000);
    DataOutputStream out = new DataOutputStream(s.getOutputStream());
    out.writeByte(op);
    out.writeLong(f.seed());
    out.writeInt(f.size());
    out.writeBoolean(f.text());
    out.writeLong(f.editSeed());
    out.writeLong(id);
    out.flush();
    return s;
  }

  /** Downloads {@code f} through the pair; asserts every byte (SHA-256); returns the DC's outgoing WAN/LAN byte counts for it. */
  private long[] download(File f) throws Exception {
    ReductionStats.Snapshot before = pair.dcStats();
    byte[] expected = f.bytes();
    try (Socket s = connect('D', f, nextId.getAndIncrement())) {
      s.shutdownOutput();
      byte[] got = s.getInputStream().readAllBytes();
      assertEquals(expected.length, got.length, "download length");
      assertEquals(sha256(expected), sha256(got), "download SHA-256");
    }
    ReductionStats.Snapshot after = pair.dcStats();
    return new long[] {after.wanBytesOut() - before.wanBytesOut(), after.lanBytesOut() - before.lanBytesOut()};
  }

  /** Uploads {@code f}; asserts the server's SHA-256 of what it got; returns the branch's outgoing WAN/LAN byte counts. */
  private long[] upload(File f) throws Exception {
    ReductionStats.Snapshot before = pair.branchStats();
    byte[] data = f.bytes();
    long id = nextId.getAndIncrement();
    try (Socket s = connect('U', f, id)) {
      write(s.getOutputStream(), data, id);
      s.shutdownOutput();
      String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
      assertEquals(sha256(data), answer, "upload SHA-256 at the server");
    }
    ReductionStats.Snapshot after = pair.branchStats();
    return new long[] {after.wanBytesOut() - before.wanBytesOut(), after.lanBytesOut() - before.lanBytesOut()};
  }

  /** After a failed transfer: the flows of both nodes that are still open or did not complete, once they had 1 s to end. */
  private String flowsNotCompleted() throws InterruptedException {
    Thread.sleep(1000);
    StringBuilder out = new StringBuilder();
    for (ServiceNode node : List.of(pair.branch, pair.dc)) {
      FlowTableSnapshot flows = node.flows();
      out.append(node == pair.branch ? "branch" : "dc").append(": active ").append(flows.active()).append("; closed otherwise: ")
          .append(flows.closed().stream().filter(f -> !"completed".equals(f.closeReason())).toList()).append('\n');
    }
    return out.toString();
  }

  static String sha256(byte[] b) {
    return HexFormat.of().formatHex(Payload.sha256().digest(b));
  }

  private static double ratio(long[] wanLan) {
    return (double) wanLan[0] / wanLan[1];
  }

  // ---- the tests ---------------------------------------------------------------------------------

  @Test
  void aRepeatedDownloadCrossesAsReferencesWhateverTheWritePattern() throws Exception {
    pair(memory(64 * MIB), memory(64 * MIB)).mode = DEDUP_ZSTD;
    File f = new File(11, 8 * MIB, false, 0);
    long[] first = download(f);
    assertTrue(ratio(first) > 0.95, "random data crosses whole the first time: " + Arrays.toString(first));
    long[] second = download(f); // written in other pieces: the same chunks
    assertTrue(ratio(second) <= 0.05, "the second time as references: " + Arrays.toString(second));
    TestNodes.await(() -> pair.branch.flows().closed().size() >= 2, 10_000, "both flows closed at the branch");
    FlowRecord flow = pair.branch.flows().closed().get(pair.branch.flows().closed().size() - 1);
    assertEquals(f.size(), flow.bytesServerToClient());
    assertTrue(flow.wanBytes() > 0 && flow.reductionPercent() > 95, "the flow table shows the reduction: " + flow);
    assertEquals(DEDUP_ZSTD.toString(), flow.dataReduction());
    long[] edited = download(new File(11, 8 * MIB, false, 77));
    assertTrue(ratio(edited) <= 0.10, "1% scattered edits: " + Arrays.toString(edited));
    assertEquals(0, pair.branchStats().unavailable());
  }

  /**
   * Request and answer of a few bytes, with deduplication: the end of each message is in a chunk
   * that has not ended (no boundary yet), which the sender holds only while the leg is busy. It must
   * still cross at once when the leg goes quiet, the first time and when every chunk is known.
   */
  @Test
  void anExchangeOfSmallMessagesIsNotHeldBehindItsOpenChunk() throws Exception {
    pair(memory(64 * MIB), memory(64 * MIB)).mode = DEDUP_ZSTD;
    SplittableRandom r = new SplittableRandom(91);
    byte[][] messages = new byte[20][];
    for (int i = 0; i < messages.length; i++) {
      messages[i] = new byte[1 + r.nextInt(6000)];
      r.nextBytes(messages[i]);
    }
    for (int round = 0; round < 2; round++) { // the second time every chunk that ended is in both caches
      try (Socket s = connect('E', new File(0, 0, false, 0), nextId.getAndIncrement())) {
        s.setSoTimeout(5_000);
        for (byte[] m : messages) {
          s.getOutputStream().write(m);
          byte[] back = s.getInputStream().readNBytes(m.length);
          assertArrayEquals(m, back, "round " + round + ": the echo of " + m.length + " bytes");
        }
        s.shutdownOutput();
        assertEquals(-1, s.getInputStream().read(), "the echo ends with the client's FIN");
      }
    }
  }

  /**
   * A repeated transfer to a client that reads late: the sender's window fills with references and
   * waits for the grant the receiver owes, holding the bytes of the chunk not yet ended. Every byte,
   * the last chunk's included, must arrive while the server still holds its end open.
   */
  @Test
  void aTransferThatWaitsForItsWindowStillDeliversItsLastBytes() throws Exception {
    pair(memory(64 * MIB), memory(64 * MIB)).mode = DEDUP_ZSTD;
    File f = new File(101, 8 * MIB, false, 0);
    download(f); // the branch's cache holds it: the next one crosses as references
    for (int round = 0; round < 2; round++) {
      try (Socket s = connect('W', f, nextId.getAndIncrement())) {
        Thread.sleep(300); // the window fills while the client reads nothing
        byte[] got = s.getInputStream().readNBytes(f.size());
        assertEquals(sha256(f.bytes()), sha256(got), "round " + round + ": every byte before any FIN");
        s.shutdownOutput();
        assertEquals(-1, s.getInputStream().read(), "the server ends after the client");
      }
    }
  }

  @Test
  void compressionShrinksTextAndPassesRandomDataThrough() throws Exception {
    pair(memory(16 * MIB), memory(16 * MIB)).mode = ZSTD;
    long[] text = download(new File(21, 4 * MIB, true, 0));
    assertTrue(ratio(text) < 0.4, "text compresses: " + Arrays.toString(text));
    long[] random = download(new File(22, 4 * MIB, false, 0));
    assertTrue(ratio(random) <= 1.01, "random data passes through: " + Arrays.toString(random));
    pair.mode = DEDUP_ZSTD;
    long[] both = upload(new File(23, 4 * MIB, false, 0));
    assertTrue(ratio(both) <= 1.01, "random data with deduplication too: " + Arrays.toString(both));
  }

  @Test
  void mixedDirectionsOverEvictingCachesStayExact() throws Exception {
    // Caches far smaller than the data: chunks are evicted while references to them are in flight.
    pair(memory(512 << 10), memory(1 * MIB)).mode = DEDUP_ZSTD;
    ExecutorService clients = Executors.newFixedThreadPool(6);
    try {
      List<Future<long[]>> done = new ArrayList<>();
      for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 6; i++) {
          File f = new File(30 + (i % 3), 2 * MIB, i % 2 == 0, 0);
          boolean up = (i + round) % 2 == 0;
          done.add(clients.submit(() -> up ? upload(f) : download(f)));
        }
        for (Future<long[]> d : done) {
          try {
            d.get(120, TimeUnit.SECONDS);
          } catch (ExecutionException e) {
            throw new AssertionError("a transfer failed; flows not completed:\n" + flowsNotCompleted(), e.getCause());
          }
        }
        done.clear();
      }
    } finally {
      clients.shutdownNow();
    }
    assertTrue(pair.dc.reduction().engine().store().stats().memoryBytes() <= 1 * MIB);
  }

  @Test
  void collidingFingerprintsStayExact() throws Exception {
    // A test build's fingerprint: the chunk's first byte only, so nearly every chunk collides with others.
    ReductionSettings weak = memory(16 * MIB).withFingerprints((data, off, len) -> {
      byte[] f = new byte[Fingerprint.BYTES];
      f[0] = data[off];
      return Fingerprint.read(f, 0);
    });
    pair(weak, weak).mode = DEDUP_ZSTD;
    File a = new File(41, 2 * MIB, false, 0);
    File b = new File(42, 2 * MIB, true, 0);
    download(a);
    upload(b);
    download(b);
    upload(a);
    download(a);
  }

  @Test
  void aDcRestartMidTransferLeavesAnExactPrefixAndTheCachesResynchronise() throws Exception {
    pair(memory(64 * MIB), memory(64 * MIB)).mode = DEDUP_ZSTD;
    File f = new File(51, 16 * MIB, false, 0);
    byte[] expected = f.bytes();
    upload(f); // the branch now knows the DC's cache holds f
    try (Socket s = connect('D', f, nextId.getAndIncrement())) {
      s.shutdownOutput();
      byte[] prefix = readUntilCut(s.getInputStream(), 2 * MIB, pair::restartDc);
      assertArrayEquals(Arrays.copyOf(expected, prefix.length), prefix, "what arrived before the restart is exact");
      assertTrue(prefix.length < expected.length, "the restart cut the transfer");
    }
    // The new DC has a new, empty cache: the branch forgets what the old one held.
    long[] again = upload(f);
    assertTrue(ratio(again) > 0.9, "the old cache's chunks are not referenced: " + Arrays.toString(again));
    long[] third = download(f);
    assertTrue(ratio(third) <= 0.05, "the new caches agree again: " + Arrays.toString(third));
  }

  @Test
  void aBranchRestartMidUploadLeavesAnExactPrefixAndTheCachesResynchronise() throws Exception {
    pair(memory(64 * MIB), memory(64 * MIB)).mode = DEDUP_ZSTD;
    File f = new File(61, 16 * MIB, false, 0);
    byte[] data = f.bytes();
    download(f); // the DC knows the branch holds f
    long id = nextId.getAndIncrement();
    try (Socket s = connect('U', f, id)) {
      OutputStream out = s.getOutputStream();
      out.write(data, 0, 4 * MIB);
      out.flush();
      TestNodes.await(() -> pair.dcStats().lanBytesIn() > 0 || pair.branchStats().wanBytesOut() > 2 * MIB, 10_000, "upload under way");
      pair.restartBranch();
      try {
        out.write(data, 4 * MIB, data.length - 4 * MIB);
      } catch (IOException expectedReset) {
        // the branch went away with the connection
      }
    }
    TestNodes.await(() -> uploads.containsKey(id), 10_000, "the server saw the cut upload");
    byte[] prefix = uploads.get(id);
    assertTrue(prefix.length < data.length, "the restart cut the upload");
    assertArrayEquals(Arrays.copyOf(data, prefix.length), prefix, "what the server got is exact");
    long[] down = download(f); // the new branch's cache is empty: the DC must not reference the old one
    assertTrue(ratio(down) > 0.9, "no reference to the old branch cache: " + Arrays.toString(down));
    long[] up = upload(f);
    assertTrue(ratio(up) <= 0.05, "the caches agree again: " + Arrays.toString(up));
  }

  @Test
  void aDiskCacheKeepsItsEpochAcrossARestart(@TempDir Path dir) throws Exception {
    ReductionSettings disk = ReductionSettings.of(StoreSettings.memory(4 * MIB).withDisk(dir, 64 * MIB));
    pair(memory(64 * MIB), disk).mode = DEDUP_ZSTD;
    File f = new File(71, 8 * MIB, false, 0);
    upload(f);
    long epoch = pair.dc.reduction().cacheEpoch();
    pair.restartDc();
    assertEquals(epoch, pair.dc.reduction().cacheEpoch(), "the disk tier keeps the epoch");
    long[] again = upload(f);
    assertTrue(ratio(again) <= 0.05, "the branch still references what the DC's disk holds: " + Arrays.toString(again));
  }

  @Test
  void aCacheResetWithReferencesInFlightIsRepaired() throws Exception {
    pair(memory(64 * MIB), memory(64 * MIB)).mode = DEDUP_ZSTD;
    File f = new File(81, 8 * MIB, false, 0);
    upload(f);
    pair.dc.reduction().engine().store().reset(); // the EPOCH notice races the next upload's references
    upload(f);
    upload(f);
  }

  /** Reads {@code in} until it ends or fails, running {@code cut} once {@code after} bytes arrived. */
  private static byte[] readUntilCut(InputStream in, int after, Runnable cut) {
    ByteArrayOutputStream got = new ByteArrayOutputStream();
    byte[] buf = new byte[64 << 10];
    boolean cutDone = false;
    try {
      for (int n; (n = in.read(buf)) >= 0; ) {
        got.write(buf, 0, n);
        if (!cutDone && got.size() >= after) {
          cutDone = true;
          cut.run();
        }
      }
    } catch (IOException reset) {
      // the cut reset the client leg
    }
    return got.toByteArray();
  }
}
