package io.tcpopt.servicenode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tcpopt.servicenode.flow.FlowKind;
import io.tcpopt.servicenode.flow.FlowRecord;
import java.net.Socket;
import org.junit.jupiter.api.Test;

/**
 * The DC accepts the branch's sessions but dials nothing: it learns the branch's name and site
 * from HELLO and carries its own intercepted flows back over those inbound connections.
 */
class ReverseDirectionTest {

  @Test
  void dcOpensStreamsOverConnectionsTheBranchDialled() throws Exception {
    try (TestServer server = new TestServer(s -> {
      s.getInputStream().transferTo(s.getOutputStream());
      s.shutdownOutput();
    })) {
      String target = "127.0.0.1:" + server.address().getPort();
      try (ServiceNode dc = ServiceNode.start(TestNodes.config("service-node:\n"
          + "  wan: { listen: 127.0.0.1:0, plaintext: true }\n"
          + "  peers: [ { name: branch-1, site: branch } ]\n"
          + "  serves: [127.0.0.0/8]   # the test servers run on loopback\n"
          + "  interception: { listeners: [ { listen: 127.0.0.1:0, target: '" + target + "', site: branch } ] }\n", "dc-1", "dc"),
          null, new SimpleMeterRegistry());
          ServiceNode branch = ServiceNode.start(TestNodes.config("service-node:\n"
              + "  wan: { listen: 127.0.0.1:0, plaintext: true, connections: 2 }\n"
              + "  peers: [ { name: dc-1, site: dc, address: '127.0.0.1:" + dc.wanAddress().getPort() + "' } ]\n"
              + "  serves: [127.0.0.0/8]\n", "branch-1", "branch"),
              null, new SimpleMeterRegistry())) {
        TestNodes.await(() -> TestNodes.poolsUp(branch, dc), 10_000, "inbound sessions");
        PeerSessionStatus inbound = dc.sessions().get(0);
        assertEquals("branch-1", inbound.name());
        assertEquals("branch", inbound.site());
        assertEquals(0, inbound.connectionsConfigured());
        try (Socket s = new Socket()) {
          s.connect(dc.listenerAddresses().get(0), 5_000);
          s.setSoTimeout(10_000);
          String sent = Payload.write(s.getOutputStream(), 1 << 20, 11);
          s.shutdownOutput();
          Payload.Digest got = Payload.readAll(s.getInputStream());
          assertEquals(sent, got.sha256());
        }
        TestNodes.await(() -> dc.flows().active().isEmpty() && branch.flows().active().isEmpty(), 5_000, "flows closed");
        FlowRecord atDc = dc.flows().closed().get(0);
        assertEquals(FlowKind.OPTIMIZED, atDc.kind());
        assertEquals("branch-1", atDc.peer());
        assertEquals("completed", atDc.closeReason());
        assertTrue(atDc.wanRttMicros() >= 0, "closed record keeps the carrying connection's RTT: " + atDc);
        FlowRecord atBranch = branch.flows().closed().get(0);
        assertEquals("carried for peer dc-1", atBranch.reason());
        assertEquals(1 << 20, atBranch.bytesServerToClient());
      }
    }
  }
}
