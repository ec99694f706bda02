package io.tcpopt.servicenode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tcpopt.servicenode.flow.FlowKind;
import io.tcpopt.servicenode.flow.FlowRecord;
import io.tcpopt.servicenode.trust.DestinationRefusal;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The far node connects a peer's stream only where its site serves, on a live branch/DC pair on
 * loopback. The DC serves 127.0.0.1/32 only (a lab's explicit loopback exception); the branch
 * optimizes every listener's flow to it. A stream to the echo server there is carried byte-exact;
 * streams to 127.0.0.2 (loopback outside the prefix, a listening server that must see no
 * connection), to the DC's own WAN port, to a link-local, a multicast, an unspecified address and
 * one outside the prefix (192.0.2.1) are each reset before any connect, counted by reason, and
 * recorded with the reason in the flow tables of both nodes.
 */
class DestinationRefusalTest {
  private static TestServer echo;
  private static ServerSocket outside;
  private static final AtomicInteger outsideAccepted = new AtomicInteger();
  private static final SimpleMeterRegistry dcMeters = new SimpleMeterRegistry();
  private static ServiceNode dc;
  private static ServiceNode branch;
  private static List<String> targets;

  @BeforeAll
  static void start() throws IOException {
    echo = new TestServer(s -> {
      s.getInputStream().transferTo(s.getOutputStream());
      s.shutdownOutput();
    });
    outside = new ServerSocket(0, 16, InetAddress.getByName("127.0.0.2"));
    Thread t = new Thread(() -> {
      while (!outside.isClosed()) {
        try (Socket s = outside.accept()) {
          outsideAccepted.incrementAndGet();
        } catch (IOException e) {
          return;
        }
      }
    }, "outside-server");
    t.setDaemon(true);
    t.start();
    dc = ServiceNode.start(TestNodes.config("service-node:\n  wan: { listen: 127.0.0.1:0, plaintext: true, connections: 1 }\n"
        + "  peers: [ { name: branch-1, site: branch } ]\n"
        + "  serves: [127.0.0.1/32]\n", "dc-1", "dc"), null, dcMeters);
    targets = List.of("127.0.0.1:" + echo.address().getPort(), "127.0.0.2:" + outside.getLocalPort(), "127.0.0.1:" + dc.wanAddress().getPort(),
        "169.254.169.254:80", "224.0.0.1:80", "0.0.0.0:" + echo.address().getPort(), "192.0.2.1:80");
    StringBuilder listeners = new StringBuilder();
    for (String target : targets) {
      listeners.append("      - { listen: 127.0.0.1:0, target: '").append(target).append("', site: dc }\n");
    }
    branch = ServiceNode.start(TestNodes.config("service-node:\n  wan: { listen: 127.0.0.1:0, plaintext: true, connections: 1 }\n"
        + "  peers: [ { name: dc-1, site: dc, address: 127.0.0.1:" + dc.wanAddress().getPort() + " } ]\n"
        + "  interception:\n    listeners:\n" + listeners, "branch-1", "branch"), null, new SimpleMeterRegistry());
    TestNodes.await(() -> TestNodes.poolsUp(branch, dc), 10_000, "session up");
  }

  @AfterAll
  static void stop() throws IOException {
    if (branch != null) {
      branch.close();
    }
    if (dc != null) {
      dc.close();
    }
    outside.close();
    echo.close();
  }

  @Test
  void aServedDestinationIsCarriedByteExact() throws Exception {
    try (Socket s = new Socket()) {
      s.connect(branch.listenerAddresses().get(0), 5_000);
      s.setSoTimeout(10_000);
      String sent = Payload.write(s.getOutputStream(), 4 << 20, 8);
      s.shutdownOutput();
      Payload.Digest got = Payload.readAll(s.getInputStream());
      assertEquals(4 << 20, got.bytes());
      assertEquals(sent, got.sha256(), "every byte back");
    }
    assertTrue(echo.errors.isEmpty(), echo.errors.toString());
  }

  @Test
  void loopbackOutsideTheServedPrefixIsRefusedWithoutAConnectAttempt() throws Exception {
    refusedAtBoth(1, DestinationRefusal.LOOPBACK, "loopback");
    Thread.sleep(200);
    assertEquals(0, outsideAccepted.get(), "the server outside the prefix saw no connection");
  }

  @Test
  void outsideTheSitesPrefixesIsRefused() throws Exception {
    refusedAtBoth(6, DestinationRefusal.NOT_SERVED, "outside the prefixes this site serves (service-node.serves)");
  }

  @Test
  void theDcsOwnPortIsRefusedEvenOnAServedLoopbackAddress() throws Exception {
    refusedAtBoth(2, DestinationRefusal.OWN_PORT, "a port this node listens on");
  }

  @Test
  void linkLocalMulticastAndUnspecifiedAreRefused() throws Exception {
    refusedAtBoth(3, DestinationRefusal.LINK_LOCAL, "link-local");
    refusedAtBoth(4, DestinationRefusal.MULTICAST, "multicast");
    refusedAtBoth(5, DestinationRefusal.UNSPECIFIED, "unspecified (this host)");
  }

  /** A flow through listener {@code i}: the client is reset; both flow tables say why; the DC counted it. */
  private static void refusedAtBoth(int i, DestinationRefusal expected, String why) throws Exception {
    double before = refusedCount(expected);
    try (Socket s = new Socket()) {
      // The branch sends OPEN without waiting for the client's bytes, so the refusal can reset the
      // client's connection before connect() has even returned on a busy machine.
      assertThrows(IOException.class, () -> {
        s.connect(branch.listenerAddresses().get(i), 5_000);
        s.setSoTimeout(10_000);
        s.getOutputStream().write(new byte[] {1, 2, 3});
        if (s.getInputStream().read() < 0) {
          throw new IOException("end of stream");
        }
      }, "the client gets no byte");
    }
    String target = targets.get(i);
    InetSocketAddress destination = new InetSocketAddress(InetAddress.getByName(target.substring(0, target.lastIndexOf(':'))),
        Integer.parseInt(target.substring(target.lastIndexOf(':') + 1)));
    String reason = "destination " + io.tcpopt.common.net.HostPort.format(destination) + " refused: " + why;
    TestNodes.await(() -> refusedCount(expected) == before + 1, 5_000, "the DC counting " + expected);
    FlowRecord far = lastClosed(dc, destination);
    assertEquals(FlowKind.REFUSED, far.kind());
    assertEquals("destination refused: " + expected.label(), far.reason());
    assertEquals("refused for peer branch-1: " + reason, far.closeReason());
    TestNodes.await(() -> branch.flows().active().isEmpty(), 5_000, "the branch's flow closed");
    FlowRecord near = lastClosed(branch, destination);
    assertEquals(FlowKind.OPTIMIZED, near.kind());
    assertTrue(near.closeReason().contains(reason), near.closeReason());
  }

  private static double refusedCount(DestinationRefusal r) {
    return dcMeters.get("tcpopt.streams.refused").tag("reason", r.label()).counter().count();
  }

  private static FlowRecord lastClosed(ServiceNode node, InetSocketAddress server) {
    List<FlowRecord> closed = node.flows().closed();
    for (int i = closed.size() - 1; i >= 0; i--) {
      if (closed.get(i).server().equals(server)) {
        return closed.get(i);
      }
    }
    throw new AssertionError("no closed flow to " + server + " in " + closed);
  }
}
