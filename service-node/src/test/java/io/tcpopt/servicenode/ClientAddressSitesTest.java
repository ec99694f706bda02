package io.tcpopt.servicenode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tcpopt.servicenode.flow.FlowRecord;
import io.tcpopt.servicenode.reuse.HttpBackend;
import io.tcpopt.servicenode.reuse.RawBackend;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Client-address transparency is configured per site: the branch asks the sites in its {@code
 * client-address.request}, the DC honours only the sites in its {@code client-address.allow}, and
 * each flow at the DC says which way it went. A real pair on loopback, where the refusal by site
 * shows; an allowed site needs a client outside the DC's own prefixes, so the server's view of the
 * client's address is shown in the namespace testbed (TransparentInterceptionTest).
 */
class ClientAddressSitesTest {
  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) { // nodes first, then the server
      open.get(i).close();
    }
  }

  /** Carries one echoed flow through a branch that asks site dc for the client's address; returns the DC's record of it. */
  private FlowRecord carry(String dcClientAddress) throws Exception {
    RawBackend echo = new RawBackend(RawBackend::echo);
    open.add(echo);
    FlowDecider optimizeAll = FlowDecider.optimizeAll();
    ServiceNode dc = ServiceNode.start(TestNodes.config("service-node:\n  wan: { listen: 127.0.0.1:0, plaintext: true, connections: 1 }\n"
        + "  peers: [ { name: branch-1, site: branch } ]\n"
        + "  serves: [127.0.0.0/8]\n"
        + "  client-address: " + dcClientAddress + "\n", "dc-1", "dc"), optimizeAll, new SimpleMeterRegistry());
    open.add(dc::close);
    ServiceNode branch = ServiceNode.start(TestNodes.config("service-node:\n"
        + "  wan: { listen: 127.0.0.1:0, plaintext: true, connections: 1 }\n"
        + "  peers:\n"
        + "    - { name: dc-1, site: dc, address: 127.0.0.1:" + dc.wanAddress().getPort() + ", prefixes: [127.0.0.0/8] }\n"
        + "  interception:\n"
        + "    listeners:\n"
        + "      - { listen: 127.0.0.1:0, target: 127.0.0.1:" + echo.address().getPort() + " }\n"
        + "  client-address: { request: [dc] }\n", "branch-1", "branch"), optimizeAll, new SimpleMeterRegistry());
    open.add(branch::close);
    TestNodes.await(() -> TestNodes.poolsUp(branch, dc), 10_000, "session up");
    InetSocketAddress front = branch.listenerAddresses().get(0);
    byte[] data = HttpBackend.content(7, 300_000);
    try (Socket s = new Socket(front.getAddress(), front.getPort())) {
      s.setSoTimeout(20_000);
      s.getOutputStream().write(data);
      s.shutdownOutput();
      assertArrayEquals(data, s.getInputStream().readAllBytes(), "every byte echoed, whichever address the DC connected from");
    }
    echo.rethrow();
    TestNodes.await(() -> dc.flows().closed().size() == 1, 10_000, "the DC's flow closed");
    return dc.flows().closed().get(0);
  }

  @Test
  void aSiteOutsideAllowIsServedFromTheNodesOwnAddressAndTheFlowSaysWhy() throws Exception {
    FlowRecord r = carry("{ allow: [branch-2] }");
    assertTrue(r.reason().contains("client address not kept: site branch is not in client-address.allow"), r.reason());
  }
}
