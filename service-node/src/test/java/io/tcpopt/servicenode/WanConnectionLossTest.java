package io.tcpopt.servicenode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One of the two pooled WAN connections is lost (severed with a reset in a rate-limited {@link
 * WanLinkProxy}) while a download is under way and four more flows sit idle (wire format 2, issue
 * 9). Which connection each flow lives on is learnt from the bytes each link relays while it opens.
 * The download fills its own connection and its DATA spill onto the other (that link carries them
 * too); the other connection is the one cut. The download had bytes on it that its client's node
 * had not acknowledged: it is reset although its own connection lives, and its client sees an
 * error, never a clean end short of the data. Of the idle flows, whose every byte was sent on their
 * own connection, those living on the lost connection are reset and the others then finish a
 * download byte-exact (SHA-256): the reset set is exactly the streams with unacknowledged bytes
 * on, or living on, the lost connection.
 */
class WanConnectionLossTest {
  private static final Logger log = LoggerFactory.getLogger(WanConnectionLossTest.class);
  private static final int IDLE = 4;
  private static final int BULK = 1;
  private static final int OPEN_BYTES = 1000;
  private static final long SIZE = 256L << 20;
  private static final long IDLE_SIZE = 1L << 20;
  private static final long READ_BEFORE_CUT = 4L << 20;
  /** Per connection and direction: slow enough that both connections queue, so every download spreads over both. */
  private static final long RATE = 12L << 20;

  static ProxiedWanPair pair;
  static TestServer server;
  static WanLinkProxy link;
  static TestNodes nodes;
  static final Map<Integer, String> sent = new ConcurrentHashMap<>();

  @BeforeAll
  static void start() throws Exception {
    // a window far above what the links queue: the download fills its connection, never its window; no express
    // connection: it would carry the flows' small opening bytes, from which the test learns each flow's home
    pair = ProxiedWanPair.start(WanConnectionLossTest::serve, 2, "    stream-window: 16MiB\n    express-connection: false\n", RATE);
    server = pair.server;
    link = pair.link;
    nodes = pair.nodes;
  }

  @AfterAll
  static void stop() throws Exception {
    if (pair != null) {
      pair.close();
    }
  }

  /**
   * A flow index, its kind and {@link #OPEN_BYTES}, answered by one byte; then 'B' (bulk) downloads
   * {@link #SIZE}, 'I' (idle) waits for a 'G' and downloads {@link #IDLE_SIZE}.
   */
  private static void serve(Socket s) throws Exception {
    DataInputStream in = new DataInputStream(s.getInputStream());
    int index = in.readInt();
    int kind = in.read();
    in.readFully(new byte[OPEN_BYTES]);
    s.getOutputStream().write(1);
    long size = SIZE;
    try {
      if (in.read() != 'G') {
        return;
      }
    } catch (IOException e) {
      sent.put(index, "reset while idle"); // its flow rode the lost connection: the node resets the server's leg
      return;
    }
    if (kind == 'I') {
      size = IDLE_SIZE;
    }
    try {
      sent.put(index, Payload.write(s.getOutputStream(), size, 900 + index));
      s.shutdownOutput();
      in.read();
    } catch (IOException e) {
      sent.put(index, "error");
    }
  }

  @Test
  void aLostConnectionResetsExactlyTheFlowsWithUnacknowledgedBytesOnIt() throws Exception {
    assertEquals(2, link.links.size(), "both pooled connections pass the proxy");
    ExecutorService pool = Executors.newCachedThreadPool();
    List<Socket> sockets = new ArrayList<>();
    try {
      // Which connection each flow lives on: the one that relays its first bytes.
      int[] home = new int[IDLE + BULK];
      for (int i = 0; i < IDLE + BULK; i++) {
        long[] before = relayedUp();
        Socket s = connect(sockets);
        DataOutputStream out = new DataOutputStream(s.getOutputStream());
        out.writeInt(i);
        out.write(i < IDLE ? 'I' : 'B');
        out.write(new byte[OPEN_BYTES]);
        out.flush();
        assertEquals(1, s.getInputStream().read(), "flow " + i + " answered");
        long[] after = relayedUp();
        home[i] = -1;
        for (int c = 0; c < after.length; c++) {
          if (after[c] - before[c] >= OPEN_BYTES) {
            assertEquals(-1, home[i], "flow " + i + "'s first bytes crossed one connection: " + (after[0] - before[0]) + " / "
                + (after[1] - before[1]));
            home[i] = c;
          }
        }
        assertTrue(home[i] >= 0, "flow " + i + "'s first bytes crossed a connection");
      }
      int lost = 1 - home[IDLE]; // not the download's own connection: the one its bytes spill onto

      long[] downBefore = relayedDown();
      CountDownLatch cut = new CountDownLatch(1);
      List<AtomicLong> received = new ArrayList<>();
      Map<Integer, Future<String>> outcomes = new TreeMap<>();
      for (int i = IDLE; i < IDLE + BULK; i++) {
        Socket s = sockets.get(i);
        s.getOutputStream().write('G');
        AtomicLong count = new AtomicLong();
        received.add(count);
        outcomes.put(i, pool.submit(() -> download(s, SIZE, count, cut)));
      }
      TestNodes.await(() -> received.stream().allMatch(c -> c.get() >= READ_BEFORE_CUT), 60_000, "every download under way");
      long[] downAfter = relayedDown();
      for (int c = 0; c < 2; c++) {
        assertTrue(downAfter[c] - downBefore[c] >= READ_BEFORE_CUT / 4, "connection " + c + " carried the download too (it spreads): "
            + (downAfter[0] - downBefore[0]) + " / " + (downAfter[1] - downBefore[1]));
      }
      link.cut(link.links.get(lost));
      cut.countDown();

      // After the cut, the idle flows ask for their download.
      for (int i = 0; i < IDLE; i++) {
        Socket s = sockets.get(i);
        outcomes.put(i, pool.submit(() -> {
          try {
            s.getOutputStream().write('G');
          } catch (IOException e) {
            return "reset after 0";
          }
          return download(s, IDLE_SIZE, new AtomicLong(), cut);
        }));
      }
      TreeSet<Integer> expectedResets = new TreeSet<>();
      TreeSet<Integer> resets = new TreeSet<>();
      for (Map.Entry<Integer, Future<String>> e : outcomes.entrySet()) {
        int i = e.getKey();
        String outcome = e.getValue().get(60, TimeUnit.SECONDS);
        boolean idle = i < IDLE;
        log.info("flow {} ({} on connection {}): {}", i, idle ? "idle" : "download", home[i], outcome);
        if (!idle || home[i] == lost) {
          expectedResets.add(i);
        }
        if (outcome.startsWith("reset after ")) {
          resets.add(i);
        } else {
          assertEquals("complete " + sent.get(i), outcome, "flow " + i + " not reset: byte-exact");
        }
      }
      assertEquals(expectedResets, resets, "reset: the download (bytes unacknowledged on the lost connection) and the idle flows living on it"
          + " (lost: connection " + lost + ", flows on " + java.util.Arrays.toString(home) + ")");
      server.rethrow();
    } finally {
      for (Socket s : sockets) {
        s.close();
      }
      pool.shutdownNow();
      assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
    }
  }

  private static Socket connect(List<Socket> sockets) throws IOException {
    Socket s = new Socket();
    sockets.add(s);
    s.connect(nodes.listener(0), 5_000);
    s.setSoTimeout(30_000);
    return s;
  }

  private long[] relayedUp() {
    return link.links.stream().mapToLong(l -> l.branchToDc.get()).toArray();
  }

  private long[] relayedDown() {
    return link.links.stream().mapToLong(l -> l.dcToBranch.get()).toArray();
  }

  /**
   * Reads {@code size} bytes, pausing after {@link #READ_BEFORE_CUT} until the cut: "complete SHA"
   * at a clean end with every byte, "short EOF after N" at a clean end before it, "reset after N" on an error.
   */
  private static String download(Socket s, long size, AtomicLong count, CountDownLatch cut) throws Exception {
    MessageDigest md = Payload.sha256();
    InputStream in = s.getInputStream();
    byte[] buf = new byte[64 * 1024];
    try {
      int n;
      while (true) {
        int want = count.get() < READ_BEFORE_CUT ? (int) Math.min(buf.length, READ_BEFORE_CUT - count.get()) : buf.length;
        n = in.read(buf, 0, want);
        if (n < 0) {
          break;
        }
        md.update(buf, 0, n);
        count.addAndGet(n);
        if (count.get() == READ_BEFORE_CUT && !cut.await(60, TimeUnit.SECONDS)) {
          return "no cut";
        }
      }
    } catch (IOException e) {
      return "reset after " + count.get();
    }
    return count.get() == size ? "complete " + HexFormat.of().formatHex(md.digest()) : "short EOF after " + count.get();
  }
}
