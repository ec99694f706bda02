package io.tcpopt.servicenode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tcpopt.servicenode.flow.FlowKind;
import io.tcpopt.servicenode.flow.FlowRecord;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The node's flow limits, on a live branch/DC pair on loopback: beyond the buffer budget an
 * optimized flow passes through (with the reason); beyond max-active (pass-through flows counted)
 * or the per-client limit a flow is refused with a reset and recorded; everything admits again once
 * flows end; every admitted flow carries its bytes intact.
 */
class FlowLimitsTest {
  private TestServer echo;
  private ServiceNode dc;
  private ServiceNode branch;
  private final SimpleMeterRegistry branchMeters = new SimpleMeterRegistry();
  private final List<Socket> held = new ArrayList<>();

  @BeforeEach
  void servers() throws IOException {
    echo = new TestServer(s -> {
      s.getInputStream().transferTo(s.getOutputStream());
      s.shutdownOutput();
    });
  }

  @AfterEach
  void stop() throws IOException {
    for (Socket s : held) {
      s.close();
    }
    if (branch != null) {
      branch.close();
    }
    if (dc != null) {
      dc.close();
    }
    echo.close();
  }

  /** A branch with one listener optimized to the DC and one passed through (a site nobody serves). */
  private void start(String flows) {
    dc = ServiceNode.start(TestNodes.config("service-node:\n  wan: { listen: 127.0.0.1:0, plaintext: true, connections: 1 }\n"
        + "  peers: [ { name: branch-1, site: branch } ]\n"
        + "  serves: [127.0.0.0/8]   # the test servers run on loopback\n", "dc-1", "dc"),
        null, new SimpleMeterRegistry());
    String target = "127.0.0.1:" + echo.address().getPort();
    branch = ServiceNode.start(TestNodes.config("service-node:\n"
        + "  wan: { listen: 127.0.0.1:0, plaintext: true, connections: 1, stream-window: 64KiB }\n"
        + "  peers:\n"
        + "    - { name: dc-1, site: dc, address: 127.0.0.1:" + dc.wanAddress().getPort() + ", prefixes: [127.0.0.0/8] }\n"
        + "  interception:\n"
        + "    listeners:\n"
        + "      - { listen: 127.0.0.1:0, target: " + target + ", site: dc }\n"
        + "      - { listen: 127.0.0.1:0, target: " + target + ", site: elsewhere }\n"
        + "  lan: { proxy-buffer-high: 64KiB, proxy-buffer-low: 16KiB }\n"
        + "  flows: " + flows + "\n", "branch-1", "branch"), null, branchMeters);
    TestNodes.await(() -> TestNodes.poolsUp(branch, dc), 10_000, "session up");
  }

  /** Opens a flow from {@code from} through listener {@code listener} and echoes one byte: the flow is up. */
  private Socket hold(int listener, String from) throws IOException {
    Socket s = new Socket();
    s.bind(new InetSocketAddress(InetAddress.getByName(from), 0));
    s.connect(branch.listenerAddresses().get(listener), 5_000);
    s.setSoTimeout(10_000);
    held.add(s);
    s.getOutputStream().write(7);
    assertEquals(7, s.getInputStream().read(), "echoed");
    return s;
  }

  /** A flow the node refuses: the client sees the reset (or end of stream) before any echo. */
  private void refused(int listener, String from) throws IOException {
    try (Socket s = new Socket()) {
      s.bind(new InetSocketAddress(InetAddress.getByName(from), 0));
      assertThrows(IOException.class, () -> {
        s.connect(branch.listenerAddresses().get(listener), 5_000);
        s.setSoTimeout(10_000);
        s.getOutputStream().write(7);
        if (s.getInputStream().read() < 0) {
          throw new IOException("end of stream");
        }
      });
    }
  }

  private long active(FlowKind kind) {
    return branch.flows().active().stream().filter(r -> r.kind() == kind).count();
  }

  private FlowRecord lastClosed(FlowKind kind) {
    List<FlowRecord> closed = branch.flows().closed();
    for (int i = closed.size() - 1; i >= 0; i--) {
      if (closed.get(i).kind() == kind) {
        return closed.get(i);
      }
    }
    throw new AssertionError("no closed " + kind + " flow in " + closed);
  }

  @Test
  void beyondTheBufferBudgetOptimizedFlowsPassThrough() throws Exception {
    // 4MiB, 3MiB of it for optimized flows, each reserving 64KiB window + 2 x 64KiB = 192KiB: 16 fit.
    start("{ buffer-budget: 4MiB }");
    for (int i = 0; i < 16; i++) {
      hold(0, "127.0.0.1");
    }
    assertEquals(16, active(FlowKind.OPTIMIZED));
    Socket over = hold(0, "127.0.0.1");
    assertEquals(1, active(FlowKind.PASS_THROUGH), "the 17th passes through");
    FlowRecord r = branch.flows().active().stream().filter(f -> f.kind() == FlowKind.PASS_THROUGH).findFirst().orElseThrow();
    assertEquals("node buffer budget: optimized flows' share full (3MiB)", r.reason());
    assertEquals(16 * 192 * 1024 + 128 * 1024, reserved(), "reservations add up");
    for (int i = 0; i < 7; i++) {
      hold(0, "127.0.0.1"); // the rest of the budget: 1MiB, 8 pass-through flows of 128KiB
    }
    refused(0, "127.0.0.1");
    assertTrue(lastClosed(FlowKind.REFUSED).reason().equals("node buffer budget full (4MiB)"), lastClosed(FlowKind.REFUSED).reason());
    over.close();
    held.remove(over);
    held.remove(0).close();
    TestNodes.await(() -> branch.flows().active().size() == 22, 5_000, "two flows closed");
    hold(0, "127.0.0.1");
    assertEquals(16, active(FlowKind.OPTIMIZED), "optimized again once the budget has room");
    echoesIntact();
  }

  @Test
  void beyondThePerClientLimitFlowsAreRefusedOthersServed() throws Exception {
    start("{ max-per-client: 3 }");
    for (int i = 0; i < 3; i++) {
      hold(i % 2, "127.0.0.1");
    }
    refused(0, "127.0.0.1");
    refused(1, "127.0.0.1"); // pass-through flows count too
    FlowRecord r = lastClosed(FlowKind.REFUSED);
    assertTrue(r.reason().startsWith("client 127.0.0.1 at flows.max-per-client (3)"), r.reason());
    hold(0, "127.0.0.2");
    held.remove(0).close();
    TestNodes.await(() -> branch.flows().active().size() == 3, 5_000, "one flow closed");
    hold(0, "127.0.0.1");
    echoesIntact();
  }

  @Test
  void maxActiveCountsPassThroughFlows() throws Exception {
    start("{ max-active: 4 }");
    hold(0, "127.0.0.1");
    for (int i = 0; i < 3; i++) {
      hold(1, "127.0.0." + (2 + i));
    }
    assertEquals(3, active(FlowKind.PASS_THROUGH));
    refused(0, "127.0.0.9");
    refused(1, "127.0.0.9");
    assertTrue(lastClosed(FlowKind.REFUSED).reason().startsWith("node at flows.max-active (4"));
    held.remove(held.size() - 1).close();
    TestNodes.await(() -> branch.flows().active().size() == 3, 5_000, "one flow closed");
    hold(0, "127.0.0.9");
    echoesIntact();
  }

  private long reserved() {
    return Math.round(branchMeters.get("tcpopt.buffer.reserved").gauge().value());
  }

  /** Every held flow still carries bytes both ways, intact. */
  private void echoesIntact() throws IOException {
    for (Socket s : held) {
      s.getOutputStream().write(42);
      assertEquals(42, s.getInputStream().read());
    }
  }
}
