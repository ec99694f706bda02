package io.tcpopt.controller.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.tcpopt.controller.Policies;
import io.tcpopt.controller.TestClusters;
import io.tcpopt.controller.api.ControllerApi;
import io.tcpopt.controller.auth.Authenticator;
import io.tcpopt.controller.cluster.ClusterMember;
import io.tcpopt.controller.membership.NodeRegistry;
import io.tcpopt.controller.policy.PolicyStore;
import io.tcpopt.proto.v1.HeartbeatRequest;
import io.tcpopt.proto.v1.NodeInfo;
import io.tcpopt.proto.v1.Policy;
import io.tcpopt.proto.v1.RegisterRequest;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** An external node's agent against a controller API served in-process. */
class NodeAgentTest {
  @Test
  void registersHeartbeatsFollowsPolicyAndRegistersAgainWhenForgotten() throws Exception {
    ClusterMember cluster = TestClusters.start(TestClusters.single(), "ctl-agent");
    PolicyStore policies = new PolicyStore(cluster, "ctl-agent", Clock.systemUTC(), Duration.ofSeconds(1));
    NodeRegistry nodes = new NodeRegistry(cluster, Clock.systemUTC(), Duration.ofSeconds(3));
    ControllerApi api = new ControllerApi(
        new ControllerApi.Context("ctl-agent", "dc", cluster, policies, nodes, Optional::empty, Duration.ofMillis(300), Clock.systemUTC()),
        new Authenticator(Optional.of("t"), false, List.of()));
    String name = InProcessServerBuilder.generateName();
    InProcessServerBuilder builder = InProcessServerBuilder.forName(name);
    api.services().forEach(builder::addService);
    Server server = builder.build().start();
    ManagedChannel channel = InProcessChannelBuilder.forName(name).build();
    List<Policy> received = new CopyOnWriteArrayList<>();
    List<List<NodeInfo>> peers = new CopyOnWriteArrayList<>();
    AtomicLong load = new AtomicLong(7);
    NodeAgent agent = NodeAgent.start(channel, Optional.of("t"),
        RegisterRequest.newBuilder().setName("dc-ext").setSite("dc").setFlowCapacity(100).setWanAddress("198.18.0.2:7800").build(),
        () -> HeartbeatRequest.newBuilder().setActiveFlows(load.get()).build(), received::add, peers::add, Duration.ofMillis(500));
    try {
      long v1 = policies.apply(Policies.BRANCH_TO_DC, "agent", -1).version();
      waitFor(() -> !received.isEmpty() && received.get(received.size() - 1).getInfo().getVersion() == v1, "v1 pushed");
      waitFor(() -> nodes.get("dc-ext").map(r -> r.activeFlows() == 7).orElse(false), "heartbeat with load");
      waitFor(() -> peers.stream().anyMatch(l -> l.stream().anyMatch(n -> n.getName().equals("dc-ext"))), "itself among peers");

      long v2 = policies.apply(Policies.DROP_SSH, "agent 2", -1).version();
      waitFor(() -> agent.policy().map(p -> p.getInfo().getVersion() == v2).orElse(false), "v2 pushed");
      assertEquals(Policies.DROP_SSH, agent.policy().orElseThrow().getYaml());

      nodes.deregister("dc-ext"); // e.g. a controller restart lost it
      load.set(9);
      waitFor(() -> nodes.get("dc-ext").map(r -> r.activeFlows() == 9).orElse(false), "registered again");
      assertTrue(nodes.isHealthy(nodes.get("dc-ext").orElseThrow()));
    } finally {
      agent.close();
      channel.shutdownNow().awaitTermination(2, TimeUnit.SECONDS);
      server.shutdownNow().awaitTermination(2, TimeUnit.SECONDS);
      nodes.close();
      policies.close();
      cluster.close();
    }
  }

  private static void waitFor(Supplier<Boolean> condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.get()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.sleep(20);
    }
  }
}
