package io.tcpopt.servicenode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.servicenode.flow.FlowRecord;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issue 9's scheduling, end to end through a branch/DC pair on loopback with one WAN connection,
 * the WAN a {@link WanLinkProxy} limited to {@link #RATE} each way (so the DC's WAN connection is
 * the bottleneck and its stream scheduler decides who sends): bulk downloads sharing the
 * connection get equal shares, and a 1 KB request/echo beside them is not queued behind their
 * bytes. Timings are logged. The latency bound, idle p50 + 200 ms, leaves room for a shared and
 * loaded machine, yet fails when the kernel holds the bulk's bytes: the DC's WAN socket here is
 * limited by the link, not by the node, so its unsent limit ({@code UnsentLimit}) stays at 128 KiB
 * (p50 55–81 ms, idle 2–22 ms); with an eighth of the send buffer unsent (1.56 MB, main before
 * this) the p50 was 270–280 ms, with deep queues (no TCP_NOTSENT_LOWAT, 16 MiB write watermarks,
 * 4 MiB stream queues) 1.4 s at 12 MB/s, and behind the bulk streams' windows it would be
 * 4 × 4 MiB at 6 MB/s, 2.8 s.
 */
class WanSchedulingTest {
  private static final Logger log = LoggerFactory.getLogger(WanSchedulingTest.class);
  private static final long RATE = 6_000_000;
  private static final int BULK = 4;
  private static final long BULK_LIMIT = 1L << 30;
  private static final int ECHO = 1024;
  private static final int RESPONSES = 6;
  private static final int RESPONSE = 256 * 1024;

  static ProxiedWanPair pair;
  static TestServer server;
  static WanLinkProxy link;
  static TestNodes nodes;

  private ExecutorService clients;
  private final AtomicBoolean stop = new AtomicBoolean();
  private final List<Socket> sockets = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    // The one connection's scheduler alone, without the express connection (on by default): ExpressWanSchedulingTest runs the same with it.
    // A 512 KiB start window lets each short response leave whole without waiting for a WINDOW_UPDATE, as the testbed's start credit does.
    startPair("    stream-window: 4MiB\n    initial-stream-window: 512KiB\n    express-connection: false\n");
  }

  /** The pair with one WAN connection and {@code wanExtra} in both nodes' {@code wan} sections. */
  static void startPair(String wanExtra) throws Exception {
    pair = ProxiedWanPair.start(WanSchedulingTest::serve, 1, wanExtra, RATE);
    server = pair.server;
    link = pair.link;
    nodes = pair.nodes;
  }

  @AfterAll
  static void stopAll() throws Exception {
    if (pair != null) {
      pair.close();
    }
  }

  @BeforeEach
  void clients() {
    clients = Executors.newCachedThreadPool();
  }

  @AfterEach
  void stopClients() throws Exception {
    stop.set(true);
    for (Socket s : sockets) {
      s.close();
    }
    clients.shutdownNow();
    assertTrue(clients.awaitTermination(10, TimeUnit.SECONDS));
    server.rethrow();
  }

  /**
   * 'B': bulk, the server writes until the client goes; 'E': echoes 1 KB messages; 'R' and a seed:
   * a {@link #RESPONSE} of that seed's payload, then the end.
   */
  private static void serve(Socket s) throws Exception {
    DataInputStream in = new DataInputStream(s.getInputStream());
    OutputStream out = s.getOutputStream();
    int kind = in.read();
    if (kind == 'R') {
      Payload.write(out, RESPONSE, in.readLong());
    } else if (kind == 'B') {
      byte[] block = new byte[64 * 1024];
      try {
        for (long sent = 0; sent < BULK_LIMIT; sent += block.length) {
          out.write(block);
        }
      } catch (IOException e) {
        // the client went away
      }
    } else if (kind == 'E') {
      s.setTcpNoDelay(true);
      byte[] msg = new byte[ECHO];
      try {
        while (true) {
          in.readFully(msg);
          out.write(msg);
          out.flush();
        }
      } catch (IOException e) {
        // the client went away
      }
    }
  }

  /** Starts a bulk download through the branch; its bytes so far are counted in the result. */
  private AtomicLong bulk() throws IOException {
    AtomicLong received = new AtomicLong();
    Socket s = new Socket();
    sockets.add(s);
    s.connect(nodes.listener(0), 5_000);
    s.setSoTimeout(20_000);
    s.getOutputStream().write('B');
    clients.execute(() -> {
      byte[] buf = new byte[64 * 1024];
      try {
        InputStream in = s.getInputStream();
        int n;
        while (!stop.get() && (n = in.read(buf)) >= 0) {
          received.addAndGet(n);
        }
      } catch (IOException e) {
        // closed by the test
      }
    });
    return received;
  }

  private List<AtomicLong> bulkUnderWay() throws IOException {
    List<AtomicLong> bulk = new ArrayList<>();
    for (int i = 0; i < BULK; i++) {
      bulk.add(bulk());
    }
    TestNodes.await(() -> bulk.stream().allMatch(b -> b.get() > (1 << 20)), 20_000, "bulk downloads under way");
    return bulk;
  }

  private static long[] snapshot(List<AtomicLong> counters) {
    return counters.stream().mapToLong(AtomicLong::get).toArray();
  }

  /** Bytes each active flow's stream at the DC has sent over the WAN so far, by flow id. */
  private static Map<Long, Long> wanBytesSentAtDc() {
    Map<Long, Long> out = new TreeMap<>();
    for (FlowRecord r : nodes.dc.flows().active()) {
      out.put(r.id(), r.wanBytesSent());
    }
    return out;
  }

  /**
   * Shares are counted where the scheduler makes them: the bytes each flow's stream at the DC sent
   * over the WAN in an 8 s window (the clients' counts are logged too; a client starved of CPU on
   * a loaded machine would skew them, not the scheduler).
   */
  @Test
  void bulkStreamsOnOneConnectionGetEqualShares() throws Exception {
    List<AtomicLong> bulk = bulkUnderWay();
    Thread.sleep(1_000);
    long[] clientBefore = snapshot(bulk);
    Map<Long, Long> before = wanBytesSentAtDc();
    long t0 = System.nanoTime();
    Thread.sleep(8_000);
    Map<Long, Long> after = wanBytesSentAtDc();
    long[] clientAfter = snapshot(bulk);
    double seconds = (System.nanoTime() - t0) / 1e9;
    List<Long> share = new ArrayList<>();
    for (Map.Entry<Long, Long> e : after.entrySet()) {
      Long b = before.get(e.getKey());
      if (b != null) {
        share.add(e.getValue() - b);
      }
    }
    long[] atClients = new long[BULK];
    for (int i = 0; i < BULK; i++) {
      atClients[i] = clientAfter[i] - clientBefore[i];
    }
    assertEquals(BULK, share.size(), "the DC carries the " + BULK + " bulk flows: " + after);
    long total = share.stream().mapToLong(Long::longValue).sum();
    double mean = total / (double) BULK;
    double worst = share.stream().mapToDouble(b -> Math.abs(b - mean) / mean).max().orElseThrow();
    log.info("fairness: {} bulk streams over {} s: sent by the DC {} bytes, received by the clients {} bytes; {} MB/s in all (link {} MB/s), "
        + "largest deviation from the mean {}%", BULK, fmt(seconds), share, Arrays.toString(atClients), fmt(total / seconds / 1e6), RATE / 1e6,
        fmt(worst * 100));
    assertTrue(mean > 0, "the bulk streams moved no bytes");
    assertTrue(worst <= 0.10, "each stream's share within 10% of the mean: " + share);
  }

  @Test
  void aSmallRequestIsNotQueuedBehindBulkStreams() throws Exception {
    try (Socket echo = new Socket()) {
      sockets.add(echo);
      echo.connect(nodes.listener(0), 5_000);
      echo.setTcpNoDelay(true);
      echo.setSoTimeout(10_000);
      echo.getOutputStream().write('E');
      long[] idle = echoes(echo, 40);
      List<AtomicLong> bulk = bulkUnderWay();
      Thread.sleep(500);
      long[] before = snapshot(bulk);
      long t0 = System.nanoTime();
      long[] loaded = echoes(echo, 80);
      double seconds = (System.nanoTime() - t0) / 1e9;
      long[] after = snapshot(bulk);
      long moved = 0;
      for (int i = 0; i < BULK; i++) {
        moved += after[i] - before[i];
      }
      double idleP50 = percentileMillis(idle, 50);
      double loadedP50 = percentileMillis(loaded, 50);
      log.info("interactive: 1 KB echo idle p50 {} ms p99 {} ms; beside {} bulk streams p50 {} ms p99 {} ms max {} ms; bulk {} MB/s (link {} MB/s)",
          fmt(idleP50), fmt(percentileMillis(idle, 99)), BULK, fmt(loadedP50), fmt(percentileMillis(loaded, 99)), fmt(percentileMillis(loaded, 100)),
          fmt(moved / seconds / 1e6), RATE / 1e6);
      assertTrue(moved > RATE * seconds / 4, "the bulk streams kept the link busy while the echoes ran: " + moved + " bytes in " + seconds + " s");
      assertTrue(loadedP50 <= idleP50 + 200,
          "echo p50 beside the bulk " + fmt(loadedP50) + " ms, idle " + fmt(idleP50) + " ms: the request waited behind bulk bytes");
    }
  }

  /**
   * Responses that arrive together finish one after another, each whole and byte-exact: when the
   * first one's last byte is read by its client, the other five have had little (with round robin alone each
   * had about as much as the first: 250-256 KiB). The DC's scheduler decides this order; the
   * bound, two responses' worth for the five, leaves room for what the DC's socket, the link and
   * the clients' sockets hold.
   */
  @Test
  void shortResponsesFinishOneAfterAnother() throws Exception {
    List<AtomicLong> received = new ArrayList<>();
    List<Future<Payload.Digest>> digests = new ArrayList<>();
    AtomicLong othersAtFirst = new AtomicLong(-1);
    for (int i = 0; i < RESPONSES; i++) {
      AtomicLong count = new AtomicLong();
      received.add(count);
      Socket s = new Socket();
      sockets.add(s);
      s.connect(nodes.listener(0), 5_000);
      s.setSoTimeout(20_000);
      DataOutputStream request = new DataOutputStream(s.getOutputStream());
      request.write('R');
      request.writeLong(i);
      request.flush();
      Runnable complete = () -> othersAtFirst.compareAndSet(-1, received.stream().mapToLong(AtomicLong::get).sum() - RESPONSE);
      digests.add(clients.submit(() -> Payload.readAll(new CountingInput(s.getInputStream(), count, complete))));
    }
    for (int i = 0; i < RESPONSES; i++) {
      Payload.Digest d = digests.get(i).get(20, TimeUnit.SECONDS);
      assertEquals(RESPONSE, d.bytes(), "response " + i);
      assertEquals(Payload.write(OutputStream.nullOutputStream(), RESPONSE, i), d.sha256(), "response " + i);
    }
    log.info("short responses: the other {} had {} bytes when the first was complete", RESPONSES - 1, othersAtFirst.get());
    assertTrue(othersAtFirst.get() < 2L * RESPONSE, "the others had " + othersAtFirst.get() + " bytes when the first response was complete");
  }

  /** Counts the bytes of a {@link #RESPONSE} read through it, and runs {@code complete} when the last has been read. */
  private static final class CountingInput extends FilterInputStream {
    private final AtomicLong count;
    private final Runnable complete;

    CountingInput(InputStream in, AtomicLong count, Runnable complete) {
      super(in);
      this.count = count;
      this.complete = complete;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = super.read(b, off, len);
      if (n > 0 && count.addAndGet(n) == RESPONSE) {
        complete.run();
      }
      return n;
    }
  }

  /**
   * Up to {@code count} request/echo round trips of 1 KB, one every 25 ms, for at most 10 s; their
   * times in nanoseconds.
   */
  private static long[] echoes(Socket s, int count) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    OutputStream out = s.getOutputStream();
    DataInputStream in = new DataInputStream(s.getInputStream());
    byte[] msg = new byte[ECHO];
    byte[] back = new byte[ECHO];
    long[] times = new long[count];
    int i = 0;
    for (; i < count && (i < 5 || System.nanoTime() < deadline); i++) {
      Arrays.fill(msg, (byte) i);
      long t = System.nanoTime();
      out.write(msg);
      out.flush();
      in.readFully(back);
      times[i] = System.nanoTime() - t;
      assertArrayEquals(msg, back, "echo " + i);
      long pause = 25_000_000L - times[i];
      if (pause > 0) {
        TimeUnit.NANOSECONDS.sleep(pause);
      }
    }
    return Arrays.copyOf(times, i);
  }

  /** Nearest-rank percentile, in milliseconds. */
  private static double percentileMillis(long[] nanos, int p) {
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(p / 100.0 * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))] / 1e6;
  }

  private static String fmt(double v) {
    return String.format("%.1f", v);
  }
}
