package io.tcpopt.controller.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.common.policy.Action;
import io.tcpopt.common.policy.Verdict;
import io.tcpopt.controller.MutableClock;
import io.tcpopt.controller.Policies;
import io.tcpopt.controller.TestClusters;
import io.tcpopt.controller.cluster.ClusterMember;
import io.tcpopt.controller.distribution.Candidate;
import io.tcpopt.controller.distribution.FlowDispatcher;
import io.tcpopt.controller.distribution.FlowDistributor;
import io.tcpopt.controller.policy.PolicyStore;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** Membership on a one-member cluster with a controlled clock. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NodeRegistryTest {
  private static final Duration EXPIRY = Duration.ofSeconds(1);
  private final MutableClock clock = new MutableClock();
  private ClusterMember cluster;
  private PolicyStore policies;

  @BeforeAll
  void start() {
    cluster = TestClusters.start(TestClusters.single(), "ctl");
    policies = new PolicyStore(cluster, "ctl", clock, Duration.ofSeconds(1));
    policies.apply(Policies.BRANCH_TO_DC, "test", -1);
  }

  @AfterAll
  void stop() {
    policies.close();
    cluster.close();
  }

  private NodeRegistry registry() {
    // each test uses its own node names; the map is shared
    return new NodeRegistry(cluster, clock, EXPIRY);
  }

  @Test
  void aDrainOrderRidesTheNextHeartbeatOnceAndTheNodesReportIsWhatShows() {
    try (NodeRegistry nodes = registry()) {
      nodes.register("dr-1", "branch", "", NodeRole.SERVICE_NODE, "198.18.0.1:7800", "", 1000, "ctl");
      nodes.register("dr-2", "branch", "", NodeRole.SERVICE_NODE, "198.18.0.2:7800", "", 1000, "ctl");
      assertFalse(nodes.order("nobody", DrainOrder.DRAIN), "unknown node");
      assertTrue(nodes.order("dr-1", DrainOrder.DRAIN));
      assertFalse(nodes.get("dr-1").orElseThrow().draining(), "draining only once the node says so");
      assertEquals(new NodeRegistry.Heartbeat(true, DrainOrder.DRAIN), nodes.heartbeat("dr-1", 3, 1, false, "ctl"));
      assertEquals(new NodeRegistry.Heartbeat(true, DrainOrder.NONE), nodes.heartbeat("dr-1", 3, 1, true, "ctl"), "carried once");
      assertTrue(nodes.get("dr-1").orElseThrow().draining());
      assertEquals(List.of("dr-2"), names(nodes.healthyMembersAtSite("SNG-BR", "branch").stream().filter(r -> r.name().startsWith("dr-")).toList()),
          "a draining node is handed no new flows");
      // A restart: the node registers again, undrained, and no stale order waits for it.
      nodes.order("dr-1", DrainOrder.UNDRAIN);
      nodes.register("dr-1", "branch", "", NodeRole.SERVICE_NODE, "198.18.0.1:7800", "", 1000, "ctl");
      assertEquals(new NodeRegistry.Heartbeat(true, DrainOrder.NONE), nodes.heartbeat("dr-1", 0, 1, false, "ctl"));
      assertFalse(nodes.get("dr-1").orElseThrow().draining());
    }
  }

  @Test
  void aNodeThatMissesHeartbeatsGetsNoNewFlowsAndReturnsWhenItBeatsAgain() {
    try (NodeRegistry nodes = registry()) {
      for (String n : List.of("hb-1", "hb-2", "hb-3")) {
        nodes.register(n, "branch", "", NodeRole.SERVICE_NODE, "198.18.0.1:7800", "", 1000, "ctl");
      }
      FlowDispatcher dispatcher =
          new FlowDispatcher(policies::active, (g, s) -> candidates(nodes, g, s), new FlowDistributor(10_000));
      assertEquals(List.of("hb-1", "hb-2", "hb-3"), names(nodes.healthyMembers("SNG-BR", "branch")));

      clock.advance(Duration.ofMillis(600));
      assertTrue(nodes.heartbeat("hb-1", 10, 1, "ctl"));
      assertTrue(nodes.heartbeat("hb-2", 10, 1, "ctl"));
      clock.advance(Duration.ofMillis(600)); // hb-3 silent for 1.2 s > 1 s expiry
      assertEquals(List.of("hb-1", "hb-2"), names(nodes.healthyMembers("SNG-BR", "branch")));
      assertFalse(nodes.isHealthy(nodes.get("hb-3").orElseThrow()));
      for (int port = 1; port <= 300; port++) {
        Verdict v = dispatcher.decide(new InetSocketAddress("198.18.1.2", 30_000 + port), new InetSocketAddress("198.19.1.2", 5201));
        assertEquals(Action.OPTIMIZE, v.action(), v.reason());
        assertNotEquals("hb-3", v.serviceNode());
      }
      assertTrue(nodes.heartbeat("hb-3", 0, 1, "ctl"));
      assertEquals(3, nodes.healthyMembers("SNG-BR", "branch").size());
    }
  }

  @Test
  void heartbeatsOfUnknownNodesAskThemToRegister() {
    try (NodeRegistry nodes = registry()) {
      assertFalse(nodes.heartbeat("never-registered", 0, 0, "ctl"));
    }
  }

  @Test
  void groupsTakeExplicitMembersAndUngroupedNodesOfTheirSite() {
    try (NodeRegistry nodes = registry()) {
      nodes.register("grp-a", "branch-x", "SNG-X", NodeRole.SERVICE_NODE, "", "", 100, "ctl");
      nodes.register("grp-b", "branch-x", "", NodeRole.INTEGRATED, "", "", 100, "ctl");
      nodes.register("grp-c", "branch-x", "OTHER", NodeRole.SERVICE_NODE, "", "", 100, "ctl");
      nodes.register("grp-ctl", "branch-x", "", NodeRole.CONTROLLER, "", "", 0, "ctl");
      assertEquals(List.of("grp-a", "grp-b"), names(nodes.healthyMembers("SNG-X", "branch-x")));
    }
  }

  @Test
  void longSilentNodesAreForgottenAndListenersHear() throws Exception {
    try (NodeRegistry nodes = registry()) {
      AtomicInteger changes = new AtomicInteger();
      nodes.addListener(changes::incrementAndGet);
      nodes.register("gone-1", "dc", "", NodeRole.SERVICE_NODE, "", "", 100, "ctl");
      assertTrue(changes.get() >= 1);
      clock.advance(EXPIRY.multipliedBy(13));
      long deadline = System.nanoTime() + 5_000_000_000L;
      while (nodes.get("gone-1").isPresent() && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertTrue(nodes.get("gone-1").isEmpty(), "swept");
    }
  }

  private static List<Candidate> candidates(NodeRegistry nodes, String group, String site) {
    List<Candidate> out = new ArrayList<>();
    for (NodeRecord r : nodes.healthyMembers(group, site)) {
      out.add(new Candidate(r.name(), r.flowCapacity(), r.activeFlows()));
    }
    return out;
  }

  private static List<String> names(List<NodeRecord> records) {
    return records.stream().map(NodeRecord::name).toList();
  }
}
