package io.tcpopt.cli.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PeerGaugeTest {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final PeerGauge gauge = new PeerGauge(MultiGauge.builder("tcpopt.test").register(registry));

  private Gauge row(String peer) {
    return registry.find("tcpopt.test").tags("peer", peer).gauge();
  }

  @Test
  void aRefreshChangesValuesWithoutReplacingTheRow() {
    gauge.update(Map.of(Tags.of("peer", "dc-1"), 1.5));
    Gauge first = row("dc-1");
    assertEquals(1.5, first.value());

    gauge.update(Map.of(Tags.of("peer", "dc-1"), 7.0));
    assertSame(first, row("dc-1"), "the same meter, not a removed one and its replacement");
    assertEquals(7.0, first.value());
  }

  @Test
  void peersThatAppearGetRowsAndPeersThatGoLoseThem() {
    gauge.update(Map.of(Tags.of("peer", "dc-1"), 1.0));
    gauge.update(Map.of(Tags.of("peer", "dc-1"), 2.0, Tags.of("peer", "dc-2"), 3.0));
    assertEquals(2.0, row("dc-1").value());
    assertEquals(3.0, row("dc-2").value());

    gauge.update(Map.of(Tags.of("peer", "dc-2"), 4.0));
    assertNull(row("dc-1"), "a peer that went has no row");
    assertEquals(4.0, row("dc-2").value());
    assertEquals(1, registry.find("tcpopt.test").gauges().size());
  }
}
