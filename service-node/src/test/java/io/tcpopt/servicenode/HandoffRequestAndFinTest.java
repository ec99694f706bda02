package io.tcpopt.servicenode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A controller hands a flow off (external mode) whose client sent its request and its FIN at once:
 * the PROXY v2 header, the request and the FIN reach the branch's handoff listener together, in one
 * write and a shutdown of the output. The server answers only once it has read the request up to
 * the client's FIN, so the FIN must reach it through the branch and the DC: every flow gets its
 * whole answer, byte-exact (SHA-256), and closes "completed".
 *
 * <p>With the FIN already in the socket, epoll reads it with the header (EPOLLRDHUP, whatever the
 * auto-read setting) before the bridge joins the leg: the listener's header handler must hand that
 * FIN on to the bridge as it hands on the bytes, or the flow waits for a FIN it will never read
 * again until its idle timeout (an hour by default).
 */
class HandoffRequestAndFinTest {
  private static final int FLOWS = 40;
  private static final int ANSWER_BYTES = 64 * 1024;

  static TestServer server;
  static ServiceNode dc;
  static ServiceNode branch;
  /** The request's digest and the answer's, per request name, as the server read and sent them. */
  static final Map<String, String> read = new ConcurrentHashMap<>();
  static final Map<String, String> sent = new ConcurrentHashMap<>();

  @BeforeAll
  static void start() throws Exception {
    server = new TestServer(s -> {
      byte[] request = s.getInputStream().readAllBytes(); // up to the client's FIN
      String name = new String(request, 0, indexOf(request, (byte) '\n'), StandardCharsets.US_ASCII);
      read.put(name, sha256(request));
      sent.put(name, Payload.write(s.getOutputStream(), ANSWER_BYTES, name.hashCode()));
      s.shutdownOutput();
    });
    dc = ServiceNode.start(TestNodes.config("service-node:\n"
        + "  wan: { listen: 127.0.0.1:0, plaintext: true, connections: 1 }\n"
        + "  peers: [ { name: branch-1, site: branch } ]\n"
        + "  serves: [127.0.0.0/8]   # the test server runs on loopback\n", "dc-1", "dc"), null, new SimpleMeterRegistry());
    branch = ServiceNode.start(TestNodes.config("service-node:\n"
        + "  wan: { listen: 127.0.0.1:0, plaintext: true, connections: 1 }\n"
        + "  peers:\n"
        + "    - { name: dc-1, site: dc, address: 127.0.0.1:" + dc.wanAddress().getPort() + ", prefixes: [127.0.0.0/8] }\n"
        + "  interception:\n"
        + "    handoff: { listen: 127.0.0.1:0 }\n"
        + "  flows: { closed-history: " + (2 * FLOWS) + " }\n", "branch-1", "branch"), null, new SimpleMeterRegistry());
    TestNodes.await(() -> TestNodes.poolsUp(branch, dc), 10_000, "sessions up");
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (branch != null) {
        branch.close();
      }
      if (dc != null) {
        dc.close();
      }
    } finally {
      server.close();
    }
  }

  @Test
  void aRequestHandedOffWithItsFinGetsItsWholeAnswer() throws Exception {
    List<String> failures = new ArrayList<>();
    for (int i = 0; i < FLOWS && failures.size() < 3; i++) { // each failure waits for its read timeout: three tell
      String name = "flow-" + i;
      byte[] request = (name + "\n" + "x".repeat(1000 + i)).getBytes(StandardCharsets.US_ASCII);
      try (Socket s = new Socket()) {
        s.connect(branch.handoffAddress(), 5_000);
        s.setSoTimeout(10_000); // the FIN lost, the server never answers: this read times out
        ByteArrayOutputStream once = new ByteArrayOutputStream();
        once.write(proxyV2Header((InetSocketAddress) s.getLocalSocketAddress(), server.address()));
        once.write(request);
        OutputStream out = s.getOutputStream();
        out.write(once.toByteArray());
        s.shutdownOutput();
        Payload.Digest got = Payload.readAll(s.getInputStream());
        if (!sha256(request).equals(read.get(name)) || got.bytes() != ANSWER_BYTES || !got.sha256().equals(sent.get(name))) {
          failures.add(name + ": server read " + read.get(name) + ", client got " + got.bytes() + " bytes");
        }
      } catch (Exception e) {
        failures.add(name + ": " + e);
      }
    }
    assertTrue(failures.isEmpty(), "handed-off flows failed (stopped at the third): " + failures);
    TestNodes.await(() -> branch.flows().closed().size() == FLOWS, 10_000, "every flow closed at the branch");
    List<String> reasons = branch.flows().closed().stream().map(r -> r.closeReason()).filter(r -> !"completed".equals(r)).toList();
    assertEquals(List.of(), reasons, "FIN both ways, no reset");
    server.rethrow();
  }

  /** A PROXY protocol v2 header (PROXY command, TCP over IPv4) naming {@code client} and {@code destination}. */
  private static byte[] proxyV2Header(InetSocketAddress client, InetSocketAddress destination) {
    ByteBuffer b = ByteBuffer.allocate(28);
    b.put(new byte[] {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A});
    b.put((byte) 0x21).put((byte) 0x11).putShort((short) 12);
    b.put(client.getAddress().getAddress()).put(destination.getAddress().getAddress());
    b.putShort((short) client.getPort()).putShort((short) destination.getPort());
    return b.array();
  }

  private static int indexOf(byte[] b, byte value) {
    for (int i = 0; i < b.length; i++) {
      if (b[i] == value) {
        return i;
      }
    }
    return b.length;
  }

  private static String sha256(byte[] b) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
  }
}
