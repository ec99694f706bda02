package io.tcpopt.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tcpopt.common.policy.Action;
import io.tcpopt.common.policy.PolicyDocument;
import io.tcpopt.common.policy.Verdict;
import io.tcpopt.controller.distribution.FlowDispatcher;
import io.tcpopt.proto.v1.Flow;
import io.tcpopt.proto.v1.ListPolicyVersionsRequest;
import io.tcpopt.proto.v1.NodesRequest;
import io.tcpopt.proto.v1.PeerSession;
import io.tcpopt.proto.v1.PolicyServiceGrpc;
import io.tcpopt.proto.v1.StatusServiceGrpc;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A whole controller in integrated mode, over a real gRPC socket on loopback. */
class ControllerTest {
  static class Local implements LocalServiceNode {
    volatile FlowDispatcher dispatcher;

    @Override
    public String name() {
      return "branch-1";
    }

    @Override
    public String site() {
      return "branch";
    }

    @Override
    public String wanAddress() {
      return "127.0.0.1:7800";
    }

    @Override
    public long flowCapacity() {
      return 100;
    }

    @Override
    public long activeFlows() {
      return 0;
    }

    @Override
    public List<Flow> flows(boolean closed) {
      return List.of();
    }

    @Override
    public List<PeerSession> sessions() {
      return List.of();
    }

    @Override
    public void decider(FlowDispatcher dispatcher) {
      this.dispatcher = dispatcher;
    }
  }

  @Test
  void aControllerHandsFlowsOnlyToNodesOfItsOwnSite() {
    ControllerConfig config =
        new ControllerConfig("dc-1", "dc", new InetSocketAddress("127.0.0.1", 0), Optional.empty(), Optional.empty(),
            List.of(), 1 << 20, 16, Duration.ofSeconds(3), TestClusters.single(), List.of(), Duration.ofSeconds(1));
    Local local = new Local() {
      @Override
      public String name() {
        return "dc-1";
      }

      @Override
      public String site() {
        return "dc";
      }
    };
    try (Controller controller = new Controller(config, PolicyDocument.parse(Policies.BRANCH_TO_DC, "b"), new SimpleMeterRegistry())
        .attach(local).start()) {
      controller.nodes().register("br-remote", "branch", "", io.tcpopt.controller.membership.NodeRole.SERVICE_NODE, "", "", 10_000, "x");
      for (int port = 40_000; port < 40_050; port++) {
        Verdict v = local.dispatcher.decide(new InetSocketAddress("198.18.1.2", port), new InetSocketAddress("198.19.1.2", 5201));
        assertEquals(Action.OPTIMIZE, v.action(), v.reason());
        assertEquals("dc-1", v.serviceNode(), "group SNG-BR resolves to this site's node, never the branch's");
      }
    }
  }

  @Test
  void startsServesAndClosesIdempotently() throws Exception {
    var cluster = TestClusters.single();
    ControllerConfig config =
        new ControllerConfig("branch-1", "branch", new InetSocketAddress("127.0.0.1", 0), Optional.of("tok"), Optional.empty(),
            List.of(), 1 << 20, 16, Duration.ofSeconds(3), cluster, List.of(), Duration.ofSeconds(1));
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    Local local = new Local();
    Controller controller = new Controller(config, PolicyDocument.parse(Policies.BRANCH_TO_DC, "bootstrap"), meters).attach(local);
    try {
      controller.start();
      controller.start();
      assertNotNull(local.dispatcher, "the integrated node got the dispatcher");
      Verdict v = local.dispatcher.decide(new InetSocketAddress("198.18.1.2", 40_000), new InetSocketAddress("198.19.1.2", 5201));
      assertEquals(Action.OPTIMIZE, v.action(), v.reason());
      assertEquals("branch-1", v.serviceNode(), "the integrated node serves its site's group");
      assertEquals(1.0, meters.get("tcpopt.controller.flow.decisions").tag("verdict", "optimize").counter().count());
      assertEquals(1.0, meters.get("tcpopt.controller.policy.version").gauge().value());

      ManagedChannel channel = NettyChannelBuilder.forAddress(controller.grpcAddress()).usePlaintext().build();
      try {
        Metadata auth = new Metadata();
        auth.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer tok");
        var policy = PolicyServiceGrpc.newBlockingStub(channel).withInterceptors(MetadataUtils.newAttachHeadersInterceptor(auth));
        assertEquals(1, policy.listVersions(ListPolicyVersionsRequest.getDefaultInstance()).getActiveVersion(), "bootstrap stored as v1");
        var status = StatusServiceGrpc.newBlockingStub(channel).withInterceptors(MetadataUtils.newAttachHeadersInterceptor(auth));
        List<String> names = status.nodes(NodesRequest.getDefaultInstance()).getNodesList().stream().map(n -> n.getName()).toList();
        assertTrue(names.contains("branch-1") && names.contains("branch-1-controller"), names.toString());
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
            () -> PolicyServiceGrpc.newBlockingStub(channel).listVersions(ListPolicyVersionsRequest.getDefaultInstance()));
        assertEquals(Status.Code.UNAUTHENTICATED, e.getStatus().getCode());
      } finally {
        channel.shutdownNow().awaitTermination(2, TimeUnit.SECONDS);
      }
    } finally {
      controller.close();
      controller.close();
    }
    assertEquals(Action.OPTIMIZE,
        local.dispatcher.decide(new InetSocketAddress("198.18.1.2", 40_001), new InetSocketAddress("198.19.1.2", 5201)).action(),
        "after the controller is gone the node keeps deciding with the last good policy");
  }
}
