package io.tcpopt.servicenode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.servicenode.flow.FlowRecord;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 8, integrity and lifecycle: a stream is not over when both END_STREAMs crossed, but when
 * every byte reached the far leg. A branch/DC pair on loopback with a {@link WanRelay} as the WAN
 * and servers that half-close first and read slowly, so bytes are still queued after the ENDs when
 * the WAN is cut or the far leg fails. Every receiving end host gets all bytes (same SHA-256) or a
 * reset, never a clean EOF on short data; a node records a flow "completed" only when the far end
 * host's leg took every byte.
 */
class WanLossIntegrityTest {
  private static final String WAN = "    stream-window: 1MiB\n";
  private static final String LAN = "proxy-buffer-high: 64KiB, proxy-buffer-low: 32KiB";

  private final ExecutorService pool = Executors.newCachedThreadPool();
  private ServerSocket server;
  private WanRelay relay;
  private TestNodes nodes;

  @AfterEach
  void stop() throws Exception {
    pool.shutdownNow();
    if (nodes != null) {
      nodes.close();
    }
    if (relay != null) {
      relay.close();
    }
    if (server != null) {
      server.close();
    }
  }

  /** A loopback server with a small receive buffer (64 KiB); each connection runs {@code handler} on the pool. */
  private InetSocketAddress serve(TestServer.Handler handler) throws IOException {
    return serve(64 * 1024, handler);
  }

  /** As above, with {@code receiveBuffer} as its connections' SO_RCVBUF (set before bind, so the window scale fits it). */
  private InetSocketAddress serve(int receiveBuffer, TestServer.Handler handler) throws IOException {
    server = new ServerSocket();
    server.setReceiveBufferSize(receiveBuffer);
    server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    pool.execute(() -> {
      while (!server.isClosed()) {
        try {
          Socket s = server.accept();
          pool.execute(() -> {
            try (s) {
              handler.handle(s);
            } catch (Exception e) {
              // outcomes are reported through the test's futures
            }
          });
        } catch (IOException e) {
          return;
        }
      }
    });
    return (InetSocketAddress) server.getLocalSocketAddress();
  }

  private void startNodes(InetSocketAddress target) {
    startNodes(target, WAN);
  }

  /** As above with {@code wan} as both nodes' extra {@code wan} settings (e.g. another stream window). */
  private void startNodes(InetSocketAddress target, String wan) {
    nodes = TestNodes.start(null, 1, List.of(target), wan, LAN, "", dc -> {
      try {
        relay = new WanRelay(dc);
        return relay.address();
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    });
  }

  private static Socket connect(InetSocketAddress to) throws IOException {
    Socket s = new Socket();
    s.setReceiveBufferSize(64 * 1024);
    s.connect(to, 5_000);
    s.setSoTimeout(30_000);
    return s;
  }

  /** Reads to EOF: "complete &lt;sha&gt; &lt;bytes&gt;" on a clean EOF, "reset after &lt;bytes&gt;" on an error. */
  private static String readOutcome(InputStream in, long pauseEveryBlockMs, CountDownLatch fastAfter) {
    MessageDigest md = Payload.sha256();
    byte[] buf = new byte[16 * 1024];
    long total = 0;
    try {
      int n;
      while ((n = in.read(buf)) >= 0) {
        md.update(buf, 0, n);
        total += n;
        if (pauseEveryBlockMs > 0 && (fastAfter == null || fastAfter.getCount() > 0)) {
          Thread.sleep(pauseEveryBlockMs);
        }
      }
      return "complete " + HexFormat.of().formatHex(md.digest()) + " " + total;
    } catch (IOException e) {
      return "reset after " + total;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }

  private FlowRecord onlyClosed(ServiceNode node, String which) {
    TestNodes.await(() -> node.flows().active().isEmpty() && node.flows().closed().size() == 1, 20_000, which + " flow closed");
    return node.flows().closed().get(0);
  }

  @Test
  void uploadQueuedBehindTheEndsIsNotCompletedWhenTheWanIsCut() throws Exception {
    long size = 512 * 1024; // within the 1 MiB window: the branch sends it all and its END at once
    CompletableFuture<String> atServer = new CompletableFuture<>();
    CountDownLatch serverHalfClosed = new CountDownLatch(1);
    InetSocketAddress target = serve(s -> {
      s.shutdownOutput(); // the server half-closes first, then reads the upload
      serverHalfClosed.countDown();
      atServer.complete(readOutcome(s.getInputStream(), 0, null));
    });
    startNodes(target);
    try (Socket c = connect(nodes.listener(0))) {
      c.getOutputStream().write(new byte[] {1, 2, 3, 4});
      assertEquals(-1, c.getInputStream().read(), "the server's early FIN reaches the client");
      assertTrue(serverHalfClosed.await(10, TimeUnit.SECONDS));
      relay.freezeTowardsTarget(); // the WAN stops delivering branch -> DC
      Payload.write(c.getOutputStream(), size, 8);
      c.shutdownOutput();
      Thread.sleep(500); // the branch has sent everything and its END into the frozen WAN
      assertFalse(nodes.branch.flows().active().isEmpty(), "the branch must not call the flow done: the DC has not acknowledged the bytes");
      relay.cut();
      String server = atServer.get(20, TimeUnit.SECONDS);
      assertTrue(server.startsWith("reset after "), "the server never got the bytes: it must see a reset, saw " + server);
      FlowRecord branchFlow = onlyClosed(nodes.branch, "branch");
      assertNotEquals("completed", branchFlow.closeReason(), "the branch recorded undelivered bytes as completed");
      assertTrue(branchFlow.closeReason().contains("lost"), branchFlow.closeReason());
    }
  }

  @Test
  void aFarLegFailingAfterBothEndsResetsTheFlowAtTheBranch() throws Exception {
    // Within an 8 MiB stream window, granted from the start (windows grow only while the leg keeps
    // taking them), so the branch sends every byte and its END at once. The server
    // half-closes first and then reads nothing through a 4 KiB receive buffer, so the DC's server
    // leg takes only what its kernel send buffer holds: on loopback (MSS 64 KiB) Linux starts it at
    // 2 x 10 segments' memory, about 2.6 MB, and a zero window never lets it grow (at most
    // net.ipv4.tcp_wmem's 4 MiB). 6 MiB leave megabytes queued in the DC node itself once every
    // byte arrived, whatever the load. (With a slow reader instead, the buffer grew to take all.)
    long size = 6L << 20;
    CountDownLatch fail = new CountDownLatch(1);
    CompletableFuture<Long> serverRead = new CompletableFuture<>();
    InetSocketAddress target = serve(4 * 1024, s -> {
      s.shutdownOutput(); // the server half-closes first and never reads
      fail.await(30, TimeUnit.SECONDS);
      serverRead.complete((long) s.getInputStream().available());
      s.setSoLinger(true, 0); // then fails with the bytes unread: the DC's queued writes to it fail
      s.close();
    });
    startNodes(target, "    stream-window: 8MiB\n    initial-stream-window: 8MiB\n");
    try (Socket c = connect(nodes.listener(0))) {
      Payload.write(c.getOutputStream(), size, 9);
      c.shutdownOutput();
      assertEquals(-1, c.getInputStream().read());
      try {
        TestNodes.await(() -> nodes.dc.flows().active().stream().anyMatch(f -> f.bytesClientToServer() == size && f.bufferedBytes() > 0),
            30_000, "every byte at the DC, some still queued in the node for the server leg");
      } catch (AssertionError e) {
        throw new AssertionError(e.getMessage() + ": DC " + nodes.dc.flows() + " / branch " + nodes.branch.flows(), e);
      }
      fail.countDown();
      assertTrue(serverRead.get(20, TimeUnit.SECONDS) < size, "the server failed before reading everything");
      FlowRecord dcFlow = onlyClosed(nodes.dc, "DC");
      FlowRecord branchFlow = onlyClosed(nodes.branch, "branch");
      assertNotEquals("completed", dcFlow.closeReason(), "the DC could not write every byte to the server");
      assertNotEquals("completed", branchFlow.closeReason(), "the DC's failed write must reach the branch after both ENDs");
      assertTrue(branchFlow.closeReason().startsWith("WAN stream reset"), branchFlow.closeReason());
    }
  }

  @Test
  void aSlowDownloadCutAfterTheEndsGivesTheClientEveryByteOrAReset() throws Exception {
    long size = 8L << 20;
    CompletableFuture<String> written = new CompletableFuture<>();
    InetSocketAddress target = serve(s -> {
      long asked = new DataInputStream(s.getInputStream()).readLong();
      written.complete(Payload.write(s.getOutputStream(), asked, 10));
    });
    startNodes(target);
    CountDownLatch cut = new CountDownLatch(1);
    try (Socket c = connect(nodes.listener(0))) {
      new DataOutputStream(c.getOutputStream()).writeLong(size);
      c.shutdownOutput(); // the client half-closes first, then reads slowly
      Future<String> outcome = pool.submit(() -> readOutcome(c.getInputStream(), 2, cut));
      String sha = written.get(30, TimeUnit.SECONDS); // the server wrote everything and closed
      Thread.sleep(300);
      relay.cut();
      cut.countDown();
      String got = outcome.get(30, TimeUnit.SECONDS);
      assertTrue(got.equals("complete " + sha + " " + size) || got.startsWith("reset after "),
          "the client must get every byte or a reset, never a clean EOF on short data: " + got);
      FlowRecord branchFlow = onlyClosed(nodes.branch, "branch");
      if (got.startsWith("reset")) {
        assertNotEquals("completed", branchFlow.closeReason());
      }
    }
  }
}
