package io.tcpopt.servicenode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.servicenode.flow.FlowRecord;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * FIN and RST carried faithfully through a branch/DC pair, and servers that refuse or do not answer
 * reaching the client as a reset, fast.
 */
class FlowLifecycleTest {
  static TestServer server;
  static InetSocketAddress refused;
  static ServerSocket blackhole;
  static final List<SocketChannel> fillers = new ArrayList<>();
  static TestNodes nodes;

  @BeforeAll
  static void start() throws Exception {
    server = new TestServer(s -> {});
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      refused = (InetSocketAddress) probe.getLocalSocketAddress();
    }
    // A listener that never accepts, its queue full: further SYNs are dropped, connects time out.
    blackhole = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    for (int i = 0; i < 4; i++) {
      SocketChannel c = SocketChannel.open();
      c.configureBlocking(false);
      c.connect(blackhole.getLocalSocketAddress());
      fillers.add(c);
    }
    Thread.sleep(100);
    nodes = TestNodes.start(null, 2, List.of(server.address(), refused, (InetSocketAddress) blackhole.getLocalSocketAddress()), "",
        "connect-timeout: 500ms");
  }

  @AfterAll
  static void stop() throws Exception {
    if (nodes != null) {
      nodes.close();
    }
    for (SocketChannel c : fillers) {
      c.close();
    }
    blackhole.close();
    server.close();
  }

  private static Socket connect(int listener) throws IOException {
    Socket s = new Socket();
    s.connect(nodes.listener(listener), 5_000);
    s.setSoTimeout(10_000);
    return s;
  }

  @Test
  void oneByteEachWay() throws Exception {
    server.handler(s -> {
      InputStream in = s.getInputStream();
      int b = in.read();
      assertEquals(-1, in.read(), "client FIN after one byte");
      s.getOutputStream().write(b + 1);
      s.shutdownOutput();
    });
    try (Socket s = connect(0)) {
      s.getOutputStream().write(41);
      s.shutdownOutput();
      assertEquals(42, s.getInputStream().read());
      assertEquals(-1, s.getInputStream().read());
    }
    server.rethrow();
  }

  @Test
  void clientHalfClosesThenServerKeepsSending() throws Exception {
    CompletableFuture<String> request = new CompletableFuture<>();
    CompletableFuture<String> response = new CompletableFuture<>();
    server.handler(s -> {
      request.complete(Payload.readAll(s.getInputStream()).sha256());
      response.complete(Payload.write(s.getOutputStream(), 3 << 20, 7));
      s.shutdownOutput();
    });
    try (Socket s = connect(0)) {
      String sent = Payload.write(s.getOutputStream(), 10_000, 8);
      s.shutdownOutput();
      Payload.Digest got = Payload.readAll(s.getInputStream());
      assertEquals(sent, request.get(10, TimeUnit.SECONDS));
      assertEquals(3 << 20, got.bytes());
      assertEquals(response.get(10, TimeUnit.SECONDS), got.sha256());
    }
    server.rethrow();
  }

  @Test
  void serverHalfClosesFirstThenClientKeepsSending() throws Exception {
    CompletableFuture<String> response = new CompletableFuture<>();
    CompletableFuture<Payload.Digest> upload = new CompletableFuture<>();
    server.handler(s -> {
      response.complete(Payload.write(s.getOutputStream(), 100_000, 9));
      s.shutdownOutput();
      upload.complete(Payload.readAll(s.getInputStream()));
    });
    try (Socket s = connect(0)) {
      Payload.Digest got = Payload.readAll(s.getInputStream());
      assertEquals(response.get(10, TimeUnit.SECONDS), got.sha256());
      String sent = Payload.write(s.getOutputStream(), 2 << 20, 10);
      s.shutdownOutput();
      Payload.Digest up = upload.get(10, TimeUnit.SECONDS);
      assertEquals(2 << 20, up.bytes());
      assertEquals(sent, up.sha256());
    }
    server.rethrow();
  }

  @Test
  void clientResetReachesTheServerAsAnError() throws Exception {
    CountDownLatch gotBytes = new CountDownLatch(1);
    CompletableFuture<String> outcome = new CompletableFuture<>();
    server.handler(s -> {
      InputStream in = s.getInputStream();
      byte[] buf = new byte[1000];
      int n = 0;
      while (n < buf.length) {
        n += in.read(buf, n, buf.length - n);
      }
      gotBytes.countDown();
      try {
        outcome.complete(in.read() < 0 ? "clean EOF" : "data");
      } catch (SocketException e) {
        outcome.complete("reset");
      }
    });
    try (Socket s = connect(0)) {
      s.getOutputStream().write(new byte[1000]);
      assertTrue(gotBytes.await(10, TimeUnit.SECONDS));
      s.setSoLinger(true, 0);
    }
    assertEquals("reset", outcome.get(10, TimeUnit.SECONDS));
  }

  @Test
  void serverResetReachesTheClientAsAnError() throws Exception {
    CountDownLatch clientGotBytes = new CountDownLatch(1);
    server.handler(s -> {
      s.getOutputStream().write(new byte[1000]);
      s.getOutputStream().flush();
      clientGotBytes.await(10, TimeUnit.SECONDS);
      s.setSoLinger(true, 0);
      s.close();
    });
    try (Socket s = connect(0)) {
      byte[] buf = new byte[1000];
      int n = 0;
      while (n < buf.length) {
        n += s.getInputStream().read(buf, n, buf.length - n);
      }
      assertArrayEquals(new byte[1000], buf);
      clientGotBytes.countDown();
      assertThrows(SocketException.class, () -> s.getInputStream().read());
    }
  }

  @Test
  void refusedServerReachesTheClientAsAFastReset() throws Exception {
    long start = System.nanoTime();
    // The reset can be so fast that it lands before connect() returns on a loaded machine.
    assertThrows(SocketException.class, () -> {
      try (Socket s = connect(1)) {
        s.getOutputStream().write("hello".getBytes());
        s.getInputStream().read();
      }
    });
    long millis = (System.nanoTime() - start) / 1_000_000;
    assertTrue(millis < 3_000, "reset took " + millis + " ms");
    FlowRecord r = closedFlowTo(refused);
    assertTrue(r.closeReason().contains("CONNECT_REFUSED"), r.closeReason());
  }

  @Test
  void serverConnectTimeoutReachesTheClientAsAReset() throws Exception {
    long start = System.nanoTime();
    try (Socket s = connect(2)) {
      assertThrows(SocketException.class, () -> s.getInputStream().read());
    }
    long millis = (System.nanoTime() - start) / 1_000_000;
    assertTrue(millis >= 400 && millis < 5_000, "reset after " + millis + " ms with a 500 ms connect timeout");
    FlowRecord r = closedFlowTo((InetSocketAddress) blackhole.getLocalSocketAddress());
    assertTrue(r.closeReason().contains("CONNECT_TIMEOUT"), r.closeReason());
  }

  private static FlowRecord closedFlowTo(InetSocketAddress target) {
    TestNodes.await(() -> nodes.branch.flows().closed().stream().anyMatch(r -> r.server().equals(target)), 5_000, "flow record");
    return nodes.branch.flows().closed().stream().filter(r -> r.server().equals(target)).reduce((a, b) -> b).orElseThrow();
  }
}
