package io.tcpopt.servicenode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

/** The open-file limit a node needs for its flows.max-active, checked at start. */
class DescriptorLimitTest {
  @Test
  void limitBelowOneSocketPerFlowIsAnError() {
    String error = DescriptorLimit.error("branch-1", 1024, 10_000);
    assertEquals("service node branch-1: the open-file limit is 1024, too low for flows.max-active 10000 (needs at least 10512: one socket per"
        + " optimized flow and 512 for listeners, sessions and the JVM); raise it (ulimit -n, systemd LimitNOFILE) or lower flows.max-active",
        error);
    assertNull(DescriptorLimit.warning("branch-1", 1024, 10_000), "an error, not also a warning");
  }

  @Test
  void limitBelowTwoSocketsPerFlowWarns() {
    assertNull(DescriptorLimit.error("dc-1", 20_000, 10_000));
    assertTrue(DescriptorLimit.warning("dc-1", 20_000, 10_000).contains("not as many pass-through flows (two sockets each; 20512 would)"));
    assertNull(DescriptorLimit.warning("dc-1", 20_512, 10_000));
    assertNull(DescriptorLimit.error("dc-1", 1_048_576, 10_000));
  }

  @Test
  void nodeWhoseLimitCannotHoldMaxActiveDoesNotStart() {
    long limit = DescriptorLimit.current().orElse(-1);
    org.junit.jupiter.api.Assumptions.assumeTrue(limit > 0 && limit < 9_000_000, "no usable open-file limit here");
    ServiceNodeConfig config = TestNodes.config("service-node:\n  wan: { listen: 127.0.0.1:0, plaintext: true }\n  flows: { max-active: 10000000 }\n",
        "branch-1", "branch");
    ServiceNodeException e = assertThrows(ServiceNodeException.class, () -> ServiceNode.start(config, null, new SimpleMeterRegistry()));
    assertTrue(e.getMessage().startsWith("service node branch-1: the open-file limit is " + limit + ", too low for flows.max-active 10000000"),
        e.getMessage());
  }
}
