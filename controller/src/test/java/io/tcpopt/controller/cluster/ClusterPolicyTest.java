package io.tcpopt.controller.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.common.policy.Action;
import io.tcpopt.common.policy.Verdict;
import io.tcpopt.controller.Policies;
import io.tcpopt.controller.TestClusters;
import io.tcpopt.controller.distribution.Candidate;
import io.tcpopt.controller.distribution.FlowDispatcher;
import io.tcpopt.controller.distribution.FlowDistributor;
import io.tcpopt.controller.membership.NodeRecord;
import io.tcpopt.controller.membership.NodeRegistry;
import io.tcpopt.controller.membership.NodeRole;
import io.tcpopt.controller.policy.PolicyStore;
import io.tcpopt.controller.policy.PolicyStoreException;
import io.tcpopt.controller.policy.PolicyVersion;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A real three-member Hazelcast cluster on loopback. The tests run in order and each leaves the
 * cluster smaller: propagation between controllers, then a member lost, then a lone minority.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterPolicyTest {
  private static final InetSocketAddress CLIENT = new InetSocketAddress("198.18.1.2", 40_000);
  private static final InetSocketAddress IPERF = new InetSocketAddress("198.19.1.2", 5201);
  private static final InetSocketAddress OUTSIDE = new InetSocketAddress("198.19.2.2", 22);
  private static final InetSocketAddress SSH = new InetSocketAddress("198.19.1.2", 22);

  /** One controller's cluster-facing parts, as {@code Controller} wires them. */
  static final class Member implements AutoCloseable {
    final ClusterMember cluster;
    final PolicyStore policies;
    final NodeRegistry nodes;
    final FlowDispatcher dispatcher;

    Member(ClusterConfig config, String name) {
      cluster = TestClusters.start(config, name);
      policies = new PolicyStore(cluster, name, Clock.systemUTC(), Duration.ofSeconds(2));
      nodes = new NodeRegistry(cluster, Clock.systemUTC(), Duration.ofSeconds(5));
      dispatcher = new FlowDispatcher(policies::active, this::candidates, new FlowDistributor(1000));
    }

    private List<Candidate> candidates(String group, String site) {
      List<Candidate> out = new ArrayList<>();
      for (NodeRecord r : nodes.healthyMembers(group, site)) {
        out.add(new Candidate(r.name(), r.flowCapacity(), r.activeFlows()));
      }
      return out;
    }

    @Override
    public void close() {
      nodes.close();
      policies.close();
      cluster.close();
    }
  }

  private final List<Member> members = new ArrayList<>();

  @BeforeAll
  void startThreeMembers() {
    List<ClusterConfig> configs = TestClusters.configs(3);
    for (int i = 0; i < 3; i++) {
      members.add(new Member(configs.get(i), "ctl-" + (char) ('a' + i)));
    }
    waitUntil(() -> members.stream().allMatch(m -> m.cluster.visibleMembers() == 3), Duration.ofSeconds(20), "3 members");
    members.get(0).nodes.register("br-1", "branch", "", NodeRole.SERVICE_NODE, "198.18.0.1:7800", "", 1000, "ctl-a");
  }

  @AfterAll
  void stop() {
    for (Member m : members) {
      m.close();
    }
  }

  @Test
  @Order(1)
  void policyAppliedAtOneControllerDecidesNewFlowsAtAnotherWithinOneSecond() {
    Member a = members.get(0);
    Member b = members.get(1);
    assertEquals(Action.OPTIMIZE, b.dispatcher.decide(CLIENT, SSH).action(), "no policy yet: optimize all");

    a.policies.apply(Policies.BRANCH_TO_DC, "first", -1); // the first apply also warms up the cluster
    waitUntil(() -> b.policies.active() != null, Duration.ofSeconds(1), "v1 at b");
    waitUntil(() -> b.nodes.get("br-1").isPresent(), Duration.ofSeconds(1), "br-1 known at b");
    Verdict optimized = b.dispatcher.decide(CLIENT, IPERF);
    assertEquals(Action.OPTIMIZE, optimized.action(), optimized.reason());
    assertEquals("br-1", optimized.serviceNode());

    // In force at the other controllers within 1 s of the apply completing; the apply itself (three
    // synchronously backed-up cluster writes) is timed separately, as shared CI machines stretch it.
    long t1 = System.nanoTime();
    PolicyVersion v2 = a.policies.apply(Policies.DROP_SSH, "drop ssh", -1);
    long applied = System.nanoTime();
    long seen = waitUntil(() -> b.dispatcher.decide(new InetSocketAddress("198.18.1.2", 40_001), SSH).action() == Action.DROP,
        Duration.ofSeconds(1), "v2 at b");
    long seenC = waitUntil(() -> members.get(2).policies.active().versionNumber() == v2.version(), Duration.ofSeconds(1), "v2 at c");
    assertTrue(Math.max(seen, seenC) - applied < 1_000_000_000L, "propagation took " + (seen - applied) / 1_000_000 + " ms");
    assertTrue(seen - t1 < 5_000_000_000L, "apply + propagation took " + (seen - t1) / 1_000_000 + " ms");
    org.slf4j.LoggerFactory.getLogger(ClusterPolicyTest.class).info(
        "apply took {} ms, in force at b {} ms later", (applied - t1) / 1_000_000, (seen - applied) / 1_000_000);
    for (Member m : members) {
      waitUntil(() -> m.policies.active().versionNumber() == v2.version(), Duration.ofSeconds(1), "v2 everywhere");
    }
    assertEquals(Action.DROP, members.get(2).dispatcher.decide(CLIENT, SSH).action());
  }

  @Test
  @Order(2)
  void aLostMemberTakesNoPolicyWithIt() {
    Member c = members.get(2);
    long active = members.get(0).policies.activeVersionInCluster();
    int stored = members.get(0).policies.versions().size();
    c.cluster.hazelcast().getLifecycleService().terminate(); // a crash, not a graceful leave
    waitUntil(() -> members.get(0).cluster.visibleMembers() == 2 && members.get(1).cluster.visibleMembers() == 2,
        Duration.ofSeconds(15), "c gone");
    Member b = members.get(1);
    assertEquals(active, b.policies.activeVersionInCluster());
    assertEquals(stored, b.policies.versions().size());
    assertTrue(b.cluster.hasWriteQuorum(), "2 of 3 is a majority");
    PolicyVersion v = b.policies.apply(Policies.BRANCH_TO_DC, "after losing c", -1);
    waitUntil(() -> members.get(0).policies.active().versionNumber() == v.version(), Duration.ofSeconds(1), "applied at a");
    Verdict outsideDc = members.get(0).dispatcher.decide(CLIENT, OUTSIDE);
    assertEquals(Action.PASS_THROUGH, outsideDc.action());
    assertEquals(v.version(), outsideDc.policyVersion());
  }

  @Test
  @Order(3)
  void aMinorityRefusesPolicyWritesAndKeepsTheLastGoodPolicy() {
    Member a = members.get(0);
    members.get(1).cluster.close();
    waitUntil(() -> a.cluster.visibleMembers() == 1, Duration.ofSeconds(15), "a alone");
    long before = a.policies.activeVersionInCluster();
    PolicyStoreException e =
        assertThrows(PolicyStoreException.class, () -> a.policies.apply(Policies.DROP_SSH, "from the minority", -1));
    assertEquals(PolicyStoreException.Kind.NO_QUORUM, e.kind());
    assertTrue(e.getMessage().contains("policy write refused"), e.getMessage());
    assertFalse(a.cluster.hasWriteQuorum());
    assertEquals(before, a.policies.activeVersionInCluster());
    assertThrows(PolicyStoreException.class, () -> a.policies.rollback(1));
    assertEquals(before, a.policies.active().versionNumber());
    Verdict last = a.dispatcher.decide(CLIENT, OUTSIDE);
    assertEquals(Action.PASS_THROUGH, last.action(), "last good policy still decides");
    assertEquals(before, last.policyVersion());
  }

  /** Polls {@code condition}; returns System.nanoTime() when it held. */
  static long waitUntil(Supplier<Boolean> condition, Duration timeout, String what) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      if (condition.get()) {
        return System.nanoTime();
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out after " + timeout.toMillis() + " ms waiting for " + what);
      }
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }
}
