package io.tcpopt.servicenode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.servicenode.flow.FlowRecord;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
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
 * A client reading at ~200 KB/s shares one WAN connection with four fast flows: the nodes hold no
 * more than the stream window (+ one read) for it, and the fast flows finish at speed meanwhile.
 */
class BackpressureTest {
  private static final Logger log = LoggerFactory.getLogger(BackpressureTest.class);
  private static final int WINDOW = 256 * 1024;
  /** Stream window + one socket read (64 KiB) + one frame of slack. */
  private static final long BOUND = WINDOW + 128 * 1024;
  private static final long FAST_SIZE = 32L << 20;

  static TestServer server;
  static TestNodes nodes;

  @BeforeAll
  static void start() throws Exception {
    server = new TestServer(s -> {
      long size = new DataInputStream(s.getInputStream()).readLong();
      try {
        Payload.write(s.getOutputStream(), size, size);
        s.shutdownOutput();
        s.getInputStream().read();
      } catch (java.net.SocketException e) {
        // The slow client gives up with a reset: expected.
      }
    });
    nodes = TestNodes.start(null, 1, List.of(server.address()), "    stream-window: 256KiB\n",
        "proxy-buffer-high: 64KiB, proxy-buffer-low: 16KiB");
  }

  @AfterAll
  static void stop() throws Exception {
    TestNodes.closeAll(nodes, server);
  }

  @Test
  void slowReaderIsBoundedAndDoesNotSlowOthers() throws Exception {
    ExecutorService pool = Executors.newCachedThreadPool();
    AtomicLong slowRead = new AtomicLong();
    try (Socket slow = new Socket()) {
      slow.connect(nodes.listener(0), 5_000);
      slow.setSoTimeout(10_000);
      new DataOutputStream(slow.getOutputStream()).writeLong(64L << 20);
      InetSocketAddress slowClient = (InetSocketAddress) slow.getLocalSocketAddress();
      Future<?> reader = pool.submit(() -> {
        byte[] buf = new byte[4096];
        InputStream in = slow.getInputStream();
        while (!Thread.currentThread().isInterrupted()) {
          int n = in.read(buf);
          if (n < 0) {
            break;
          }
          slowRead.addAndGet(n);
          Thread.sleep(20);
        }
        return null;
      });
      Thread.sleep(500);

      long start = System.nanoTime();
      List<Future<Long>> fast = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        fast.add(pool.submit(() -> {
          try (Socket s = new Socket()) {
            s.connect(nodes.listener(0), 5_000);
            s.setSoTimeout(30_000);
            new DataOutputStream(s.getOutputStream()).writeLong(FAST_SIZE);
            return Payload.readAll(s.getInputStream()).bytes();
          }
        }));
      }
      long peakBranch = 0;
      long peakDc = 0;
      boolean fastDone = false;
      while (!fastDone) {
        fastDone = fast.stream().allMatch(Future::isDone);
        peakBranch = Math.max(peakBranch, peak(nodes.branch, slowClient));
        peakDc = Math.max(peakDc, peak(nodes.dc, slowClient));
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(60), "fast flows stalled");
        Thread.sleep(50);
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      for (Future<Long> f : fast) {
        assertEquals(FAST_SIZE, f.get());
      }
      long readSoFar = slowRead.get();
      log.info("4 x {} MiB fast flows in {} s while the slow reader read {} KiB; slow flow peak buffered: branch {} B, DC {} B",
          FAST_SIZE >> 20, String.format("%.1f", seconds), readSoFar >> 10, peakBranch, peakDc);
      assertTrue(readSoFar < 16L << 20, "the slow reader must still be far from done: " + readSoFar);
      assertTrue(!reader.isDone(), "slow reader still reading");
      // Let the slow flow run a little longer, sampling, then check the bound held all along.
      for (int i = 0; i < 20; i++) {
        peakBranch = Math.max(peakBranch, peak(nodes.branch, slowClient));
        peakDc = Math.max(peakDc, peak(nodes.dc, slowClient));
        Thread.sleep(50);
      }
      assertTrue(peakBranch > 0 && peakDc > 0, "the slow flow must be seen buffering at both nodes");
      assertTrue(peakBranch <= BOUND, "branch held " + peakBranch + " bytes for the slow flow, bound " + BOUND);
      assertTrue(peakDc <= BOUND, "DC held " + peakDc + " bytes for the slow flow, bound " + BOUND);
      reader.cancel(true);
      slow.setSoLinger(true, 0);
    } finally {
      pool.shutdownNow();
    }
  }

  /** The slow flow's peak buffered bytes as recorded by a node (0 before it appears). */
  private static long peak(ServiceNode node, InetSocketAddress client) {
    for (FlowRecord r : node.flows().active()) {
      if (r.client().equals(client)) {
        return r.peakBufferedBytes();
      }
    }
    return 0;
  }
}
