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
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
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
 * One of the two pooled WAN connections is lost (severed with a reset in a {@link WanLinkProxy})
 * while six downloads are under way: exactly the flows that connection carried are reset — their
 * clients see an error, never a clean end short of the data — and the flows on the other
 * connection finish byte-exact (SHA-256 of every byte). Which connection carries which flow is
 * learnt first, from the bytes each connection relays while one flow at a time uploads 1 MiB.
 */
class WanConnectionLossTest {
  private static final Logger log = LoggerFactory.getLogger(WanConnectionLossTest.class);
  private static final int FLOWS = 6;
  private static final int MAP_BYTES = 1 << 20;
  private static final long SIZE = 64L << 20;
  private static final long READ_BEFORE_CUT = 8L << 20;

  static ProxiedWanPair pair;
  static TestServer server;
  static WanLinkProxy link;
  static TestNodes nodes;
  static final Map<Integer, String> sent = new ConcurrentHashMap<>();

  @BeforeAll
  static void start() throws Exception {
    pair = ProxiedWanPair.start(WanConnectionLossTest::serve, 2, "    stream-window: 1MiB\n", 0);
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

  /** A flow index, 1 MiB upload answered by one byte, a 'go' byte, then the download of {@link #SIZE}. */
  private static void serve(Socket s) throws Exception {
    DataInputStream in = new DataInputStream(s.getInputStream());
    int index = in.readInt();
    in.readFully(new byte[MAP_BYTES]);
    s.getOutputStream().write(1);
    if (in.read() != 'G') {
      return;
    }
    try {
      sent.put(index, Payload.write(s.getOutputStream(), SIZE, 900 + index));
      s.shutdownOutput();
      in.read();
    } catch (IOException e) {
      sent.put(index, "error");
    }
  }

  @Test
  void aLostConnectionResetsExactlyItsFlowsAndTruncatesNone() throws Exception {
    assertEquals(2, link.links.size(), "both pooled connections pass the proxy");
    ExecutorService pool = Executors.newCachedThreadPool();
    List<Socket> sockets = new ArrayList<>();
    try {
      // Which connection carries which flow: the one whose branch-to-DC bytes grow by the upload.
      int[] carriedBy = new int[FLOWS];
      for (int i = 0; i < FLOWS; i++) {
        long[] before = relayedUp();
        Socket s = new Socket();
        sockets.add(s);
        s.connect(nodes.listener(0), 5_000);
        s.setSoTimeout(30_000);
        DataOutputStream out = new DataOutputStream(s.getOutputStream());
        out.writeInt(i);
        out.write(new byte[MAP_BYTES]);
        out.flush();
        assertEquals(1, s.getInputStream().read(), "flow " + i + " answered");
        long[] after = relayedUp();
        carriedBy[i] = -1;
        for (int c = 0; c < after.length; c++) {
          if (after[c] - before[c] >= MAP_BYTES) {
            carriedBy[i] = c;
          }
        }
        assertTrue(carriedBy[i] >= 0, "flow " + i + "'s upload crossed one WAN connection");
      }
      int lost = carriedBy[0];
      long onLost = Arrays.stream(carriedBy).filter(c -> c == lost).count();
      assertTrue(onLost > 0 && onLost < FLOWS, "the flows are spread over both connections: " + Arrays.toString(carriedBy));

      CountDownLatch cut = new CountDownLatch(1);
      List<AtomicLong> received = new ArrayList<>();
      List<Future<String>> outcomes = new ArrayList<>();
      for (int i = 0; i < FLOWS; i++) {
        Socket s = sockets.get(i);
        AtomicLong count = new AtomicLong();
        received.add(count);
        s.getOutputStream().write('G');
        outcomes.add(pool.submit(() -> download(s, count, cut)));
      }
      TestNodes.await(() -> received.stream().allMatch(c -> c.get() >= READ_BEFORE_CUT), 30_000, "every download under way");
      link.cut(link.links.get(lost));
      cut.countDown();

      for (int i = 0; i < FLOWS; i++) {
        String outcome = outcomes.get(i).get(60, TimeUnit.SECONDS);
        log.info("flow {} on connection {}: {}", i, carriedBy[i], outcome);
        if (carriedBy[i] == lost) {
          assertTrue(outcome.startsWith("reset after "), "flow " + i + " rode the lost connection: its client must see a reset, got " + outcome);
        } else {
          assertEquals("complete " + sent.get(i), outcome, "flow " + i + " rode the other connection: byte-exact, unaffected");
        }
      }
      server.rethrow();
    } finally {
      for (Socket s : sockets) {
        s.close();
      }
      pool.shutdownNow();
      assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
    }
  }

  private long[] relayedUp() {
    return link.links.stream().mapToLong(l -> l.branchToDc.get()).toArray();
  }

  /**
   * Reads {@link #READ_BEFORE_CUT} bytes, waits for the cut, reads on: "complete SHA" at a clean
   * end with every byte, "short EOF after N" at a clean end before it, "reset after N" on an error.
   */
  private static String download(Socket s, AtomicLong count, CountDownLatch cut) throws Exception {
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
        if (count.get() == READ_BEFORE_CUT && !cut.await(30, TimeUnit.SECONDS)) {
          return "no cut";
        }
      }
    } catch (IOException e) {
      return "reset after " + count.get();
    }
    return count.get() == SIZE ? "complete " + HexFormat.of().formatHex(md.digest()) : "short EOF after " + count.get();
  }
}
