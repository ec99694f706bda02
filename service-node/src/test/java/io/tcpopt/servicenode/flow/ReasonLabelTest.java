package io.tcpopt.servicenode.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class ReasonLabelTest {
  @Test
  void numbersAddressesAndPortsBecomeN() {
    assertEquals("client N has N flows (per-client limit)", ReasonLabel.of("client 198.18.1.2 has 64 flows (per-client limit)"));
    assertEquals("destination N refused: loopback", ReasonLabel.of("destination 127.0.0.1:9464 refused: loopback"));
    assertEquals("destination [N]N refused", ReasonLabel.of("destination [2001:db8::1]:443 refused"));
    assertEquals("matched sequence N (web)", ReasonLabel.of("matched sequence 10 (web)"));
    assertEquals("default action", ReasonLabel.of("default action"));
    assertEquals("dc-N draining", ReasonLabel.of("dc-1 draining"), "a digit after a hyphen is a number too");
    assertEquals("peer dc-N unavailable", ReasonLabel.of("peer dc-2 unavailable"));
  }

  @Test
  void aLongReasonIsCut() {
    assertEquals(ReasonLabel.MAX_LENGTH, ReasonLabel.of("x".repeat(500)).length());
  }

  @Test
  void reasonsNamingDifferentClientsCountAsOneSeries() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    FlowTable table = new FlowTable(10, registry);
    for (int i = 0; i < 1_000; i++) {
      InetSocketAddress client = new InetSocketAddress("198.18." + (i / 250) + "." + (i % 250 + 1), 40_000);
      table.open(FlowKind.PASS_THROUGH, "client " + client.getAddress().getHostAddress() + " has 64 flows (per-client limit)", client,
          new InetSocketAddress("198.19.1.2", 80)).close("done");
    }
    assertEquals(1, registry.find("tcpopt.flows.opened").counters().size(), "one series for a thousand clients");
    assertEquals(1_000, registry.get("tcpopt.flows.opened").tag("reason", "client N has N flows (per-client limit)").counter().count());
    assertTrue(table.snapshot().closed().get(0).reason().contains("198.18."), "the flow table keeps the address");
  }

  /** The counter of a reason is remembered per kind: the same reason under two kinds is two series. */
  @Test
  void aRememberedReasonCountsUnderItsOwnKind() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    FlowTable table = new FlowTable(10, registry);
    InetSocketAddress client = new InetSocketAddress("198.18.1.2", 40_000);
    InetSocketAddress server = new InetSocketAddress("198.19.1.2", 80);
    for (int i = 0; i < 3; i++) {
      table.open(FlowKind.OPTIMIZED, "carried for peer dc-1", client, server).close("done");
    }
    for (int i = 0; i < 2; i++) {
      table.open(FlowKind.PASS_THROUGH, "carried for peer dc-1", client, server).close("done");
    }
    assertEquals(3, registry.get("tcpopt.flows.opened").tag("kind", "optimized").tag("reason", "carried for peer dc-N").counter().count());
    assertEquals(2, registry.get("tcpopt.flows.opened").tag("kind", "pass_through").tag("reason", "carried for peer dc-N").counter().count());
  }
}
