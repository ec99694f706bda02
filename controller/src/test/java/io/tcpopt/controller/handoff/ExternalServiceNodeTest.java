package io.tcpopt.controller.handoff;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tcpopt.common.config.ConfigTree;
import io.tcpopt.controller.distribution.FlowDispatcher;
import io.tcpopt.controller.policy.ActivePolicy;
import io.tcpopt.servicenode.ServiceNode;
import io.tcpopt.servicenode.ServiceNodeConfig;
import io.tcpopt.servicenode.flow.FlowKind;
import io.tcpopt.servicenode.flow.FlowRecord;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * External mode end to end on loopback: client → controller handoff forwarder → (PROXY v2) →
 * external branch service node → WAN session → DC service node → server, and back. Every byte is
 * checked by SHA-256; the branch node's flow table must show the original client and destination,
 * not the controller's connection; a connection without a valid PROXY v2 header is refused.
 */
class ExternalServiceNodeTest {
  private static final int UP = 3_000_000;
  private static final int DOWN = 2_000_000;
  /** More than every socket buffer and watermark on the way back, so the half-closed client leg fills up. */
  private static final int LARGE_DOWN = 24_000_000;

  private ServerSocket destination;
  private Thread acceptor;
  private final CompletableFuture<String> receivedByServer = new CompletableFuture<>();
  private final CompletableFuture<String> sentByServer = new CompletableFuture<>();
  private ServiceNode dc;
  private ServiceNode branch;
  private HandoffForwarder forwarder;
  private volatile boolean answerAfterEof;
  /** With {@link #answerAfterEof}: the answer is the request itself. */
  private volatile boolean echoAfterEof;
  private volatile int answerSize = DOWN;

  @BeforeEach
  void start() throws Exception {
    destination = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    acceptor = new Thread(this::serve, "destination");
    acceptor.setDaemon(true);
    acceptor.start();
    dc = ServiceNode.start(config("service-node:\n  wan: { listen: 127.0.0.1:0, plaintext: true, connections: 1 }\n"
        + "  peers: [ { name: sn-ext, site: branch } ]\n"
        + "  serves: [127.0.0.0/8]   # the test servers run on loopback\n", "dc-1", "dc"), null,
        new SimpleMeterRegistry());
    branch = ServiceNode.start(config("service-node:\n"
        + "  wan: { listen: 127.0.0.1:0, plaintext: true, connections: 1 }\n"
        + "  peers:\n"
        + "    - { name: dc-1, site: dc, address: 127.0.0.1:" + dc.wanAddress().getPort() + ", prefixes: [127.0.0.0/8] }\n"
        + "  interception:\n"
        + "    handoff: { listen: 127.0.0.1:0 }\n", "sn-ext", "branch"), null, new SimpleMeterRegistry());
    // The whole pool (connections: 1 and the express connection, on by default): a count below it would race the rest.
    await(() -> branch.sessions().stream().allMatch(p -> p.connectionsUp() == p.connectionsConfigured()) && !branch.sessions().isEmpty(),
        "branch session to the DC");
    assertNotNull(branch.handoffAddress(), "handoff listener bound");

    ActivePolicy active = LoopbackDispatch.policy(destination.getLocalPort(), LoopbackDispatch.OPTIMIZE);
    FlowDispatcher dispatcher = LoopbackDispatch.dispatcher(() -> active);
    InetSocketAddress handoff = branch.handoffAddress();
    forwarder = HandoffForwarder.start(
        List.of(new HandoffListener(new InetSocketAddress("127.0.0.1", 0), (InetSocketAddress) destination.getLocalSocketAddress())),
        dispatcher, name -> name.equals("sn-ext") ? Optional.of(handoff) : Optional.empty(), Duration.ofSeconds(2));
  }

  private static ServiceNodeConfig config(String yaml, String name, String site) {
    return ServiceNodeConfig.from(ConfigTree.parse(yaml, "test").get("service-node"), name, site);
  }

  /**
   * The server: reads the request ({@link #UP} bytes, or everything up to the client's FIN when
   * {@link #answerAfterEof}), answers with its own bytes ({@link #answerSize}), then closes.
   */
  private void serve() {
    while (!destination.isClosed()) {
      try (Socket s = destination.accept()) {
        s.setSoTimeout(20_000);
        byte[] request = answerAfterEof ? s.getInputStream().readAllBytes() : s.getInputStream().readNBytes(UP);
        receivedByServer.complete(sha256(request));
        byte[] answer = echoAfterEof ? request : bytes(answerSize, 7);
        OutputStream out = s.getOutputStream();
        out.write(answer);
        out.flush();
        sentByServer.complete(sha256(answer));
        s.shutdownOutput();
        s.getInputStream().read(); // until the client side closes
      } catch (Exception e) {
        if (!destination.isClosed()) {
          receivedByServer.completeExceptionally(e);
        }
      }
    }
  }

  @AfterEach
  void stop() throws Exception {
    if (forwarder != null) {
      forwarder.close();
    }
    if (branch != null) {
      branch.close();
    }
    if (dc != null) {
      dc.close();
    }
    destination.close();
    acceptor.join(5_000);
  }

  @Test
  void flowThroughControllerAndExternalNodeIsIntactAndKeepsOriginalAddresses() throws Exception {
    InetSocketAddress clientAddress;
    try (Socket c = new Socket()) {
      c.connect(forwarder.addresses().get(0), 5_000);
      c.setSoTimeout(20_000);
      clientAddress = (InetSocketAddress) c.getLocalSocketAddress();
      byte[] request = bytes(UP, 3);
      c.getOutputStream().write(request);
      c.getOutputStream().flush();
      byte[] answer = c.getInputStream().readAllBytes();
      assertEquals(sha256(request), receivedByServer.get(20, TimeUnit.SECONDS), "client -> server bytes");
      assertEquals(DOWN, answer.length, "server -> client byte count");
      assertEquals(sentByServer.get(20, TimeUnit.SECONDS), sha256(answer), "server -> client bytes");
    }
    await(() -> !branch.flows().closed().isEmpty(), "the branch flow closed");
    FlowRecord f = branch.flows().closed().get(0);
    assertEquals(FlowKind.OPTIMIZED, f.kind(), "optimized over the WAN session: " + f);
    assertEquals(clientAddress, f.client(), "the branch sees the original client, not the controller's connection");
    assertEquals(destination.getLocalSocketAddress(), f.server(), "the branch sees the original destination");
    assertEquals("dc-1", f.peer());
    await(() -> dc.flows().closed().stream().anyMatch(r -> r.client().equals(clientAddress)), "the DC carried the flow");
  }

  /**
   * The client half-closes after its request; the server answers only after reading that FIN, with
   * far more bytes than the buffers on the way hold. The FIN must travel as a half-close through
   * the controller's relay, the branch and the DC, and every byte of the answer must come back.
   */
  @Test
  void halfClosedClientThroughTheHandoffGetsTheWholeLargeResponse() throws Exception {
    answerAfterEof = true;
    answerSize = LARGE_DOWN;
    try (Socket c = new Socket()) {
      c.connect(forwarder.addresses().get(0), 5_000);
      c.setSoTimeout(20_000);
      byte[] request = bytes(UP, 5);
      c.getOutputStream().write(request);
      c.shutdownOutput();
      byte[] answer = c.getInputStream().readAllBytes();
      assertEquals(sha256(request), receivedByServer.get(20, TimeUnit.SECONDS), "client -> server bytes, then the FIN");
      assertEquals(LARGE_DOWN, answer.length, "server -> client byte count");
      assertEquals(sentByServer.get(20, TimeUnit.SECONDS), sha256(answer), "server -> client bytes");
    }
    await(() -> !branch.flows().closed().isEmpty(), "the branch flow closed");
    FlowRecord f = branch.flows().closed().get(0);
    assertEquals(FlowKind.OPTIMIZED, f.kind(), "optimized over the WAN session: " + f);
    assertEquals("completed", f.closeReason(), "FIN both ways, no reset: " + f);
  }

  /**
   * Clients that send a short request and their FIN at once, so both are in the controller's
   * client socket (and then in the branch's handoff socket) before a bridge joins it: epoll reads
   * up to a FIN that has arrived whatever the auto-read setting. The server echoes the request once
   * it has read the client's FIN: every client gets its own request back, byte-exact.
   */
  @Test
  void requestsSentWithTheirFinThroughTheHandoffComeBackWhole() throws Exception {
    answerAfterEof = true;
    echoAfterEof = true;
    List<String> failures = new java.util.ArrayList<>();
    for (int i = 0; i < 20 && failures.size() < 3; i++) { // each failure may wait for its read timeout: three tell
      byte[] request = bytes(200 + i, 100 + i);
      try (Socket c = new Socket()) {
        c.connect(forwarder.addresses().get(0), 5_000);
        c.setSoTimeout(5_000);
        c.getOutputStream().write(request);
        c.shutdownOutput();
        byte[] answer = c.getInputStream().readAllBytes();
        if (!sha256(request).equals(sha256(answer))) {
          failures.add("flow " + i + ": sent " + request.length + " bytes, got " + answer.length + " back");
        }
      } catch (java.io.IOException e) {
        failures.add("flow " + i + ": " + e);
      }
    }
    assertEquals(List.of(), failures);
  }

  @Test
  void connectionWithoutValidProxyHeaderIsRefused() throws Exception {
    try (Socket s = new Socket()) {
      s.connect(branch.handoffAddress(), 5_000);
      s.setSoTimeout(10_000);
      s.getOutputStream().write("GET / HTTP/1.0\r\nHost: example\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      int r;
      try {
        r = s.getInputStream().read();
      } catch (java.net.SocketException e) {
        r = -1; // a reset is a refusal too
      }
      assertEquals(-1, r, "the handoff listener closes a connection without a PROXY v2 header");
    }
    assertTrue(branch.flows().active().isEmpty() && branch.flows().closed().isEmpty(), "no flow was started: " + branch.flows());
    assertTrue(!receivedByServer.isDone(), "nothing reached the server");
  }

  private static byte[] bytes(int n, long seed) {
    byte[] b = new byte[n];
    new SplittableRandom(seed).nextBytes(b);
    return b;
  }

  private static String sha256(byte[] b) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 10_000;
    while (!condition.getAsBoolean()) {
      if (System.currentTimeMillis() > deadline) {
        fail("timed out waiting for " + what);
      }
      Thread.sleep(20);
    }
  }
}
