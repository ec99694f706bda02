package io.tcpopt.controller.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import io.grpc.stub.StreamObserver;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tcpopt.common.config.ConfigException;
import io.tcpopt.common.config.ConfigTree;
import io.tcpopt.common.tls.DemoCertificates;
import io.tcpopt.common.tls.PemMaterial;
import io.tcpopt.common.tls.TlsFiles;
import io.tcpopt.controller.Controller;
import io.tcpopt.controller.ControllerConfig;
import io.tcpopt.controller.Policies;
import io.tcpopt.controller.TestClusters;
import io.tcpopt.proto.v1.ApplyPolicyRequest;
import io.tcpopt.proto.v1.HeartbeatRequest;
import io.tcpopt.proto.v1.HeartbeatResponse;
import io.tcpopt.proto.v1.NodeRole;
import io.tcpopt.proto.v1.NodeServiceGrpc;
import io.tcpopt.proto.v1.PolicyServiceGrpc;
import io.tcpopt.proto.v1.RegisterRequest;
import io.tcpopt.proto.v1.RollbackPolicyRequest;
import io.tcpopt.proto.v1.StatusRequest;
import io.tcpopt.proto.v1.StatusServiceGrpc;
import io.tcpopt.proto.v1.WatchEvent;
import io.tcpopt.proto.v1.WatchRequest;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * Roles over the real TLS 1.3 listener: a node certificate registers, heartbeats and watches as
 * the node it names and nothing else; operators (token, or a certificate from the separate operator
 * CA) change and read policy and status; no credentials, no entry.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GrpcTlsTest {
  @TempDir static Path dir;
  private Map<String, TlsFiles> certs;
  private TlsFiles alice;
  private Controller controller;

  @BeforeAll
  void start() {
    certs = DemoCertificates.generate(dir, List.of("ctl-tls", "sn-tls", "sn-other"));
    alice = DemoCertificates.generateOperators(dir, List.of("alice")).get("alice");
    ControllerConfig config =
        new ControllerConfig("ctl-tls", "branch", new InetSocketAddress("127.0.0.1", 0), Optional.of("tok"),
            Optional.of(certs.get("ctl-tls")), PemMaterial.certificates(alice.trustedCertificates()), 1 << 20, 16,
            Duration.ofSeconds(3), TestClusters.single(), List.of(), Duration.ofSeconds(1));
    controller = new Controller(config, null, new SimpleMeterRegistry()).start();
  }

  @AfterAll
  void stop() {
    controller.close();
  }

  /** A channel presenting {@code identity}'s certificate (none when null). */
  private ManagedChannel channel(TlsFiles identity) throws Exception {
    SslContextBuilder ssl = GrpcSslContexts.forClient().trustManager(certs.get("ctl-tls").trustedCertificates().toFile());
    if (identity != null) {
      ssl.keyManager(identity.certificateChain().toFile(), identity.privateKey().toFile());
    }
    return NettyChannelBuilder.forAddress(controller.grpcAddress()).sslContext(ssl.build()).build();
  }

  private static RegisterRequest registration(String name) {
    return RegisterRequest.newBuilder().setName(name).setSite("branch").setFlowCapacity(10).build();
  }

  @Test
  void aNodeCertificateActsOnlyAsItsOwnNode() throws Exception {
    ManagedChannel ch = channel(certs.get("sn-tls"));
    try {
      NodeServiceGrpc.NodeServiceBlockingStub node = NodeServiceGrpc.newBlockingStub(ch);
      node.register(registration("sn-tls"));
      assertEquals("sn-tls", controller.nodes().get("sn-tls").orElseThrow().name());

      denied(() -> node.register(registration("sn-other")), "may not register as \"sn-other\"");
      assertTrue(controller.nodes().get("sn-other").isEmpty(), "no record was written for another node");
      denied(() -> node.register(registration("sn-tls").toBuilder().setRole(NodeRole.NODE_ROLE_CONTROLLER).build()), "role controller");
      Iterator<WatchEvent> watch = node.watch(WatchRequest.newBuilder().setName("sn-other").build());
      denied(watch::next, "may not watch as \"sn-other\"");
      assertEquals(Status.Code.PERMISSION_DENIED, heartbeatAs(ch, "sn-other").getCode());

      denied(() -> PolicyServiceGrpc.newBlockingStub(ch).apply(ApplyPolicyRequest.newBuilder().setYaml(Policies.BRANCH_TO_DC).build()),
          "needs operator credentials");
      denied(() -> PolicyServiceGrpc.newBlockingStub(ch).rollback(RollbackPolicyRequest.newBuilder().setVersion(1).build()),
          "needs operator credentials");
      denied(() -> StatusServiceGrpc.newBlockingStub(ch).status(StatusRequest.getDefaultInstance()), "needs operator credentials");
    } finally {
      ch.shutdownNow().awaitTermination(2, TimeUnit.SECONDS);
    }
  }

  @Test
  void aNodeCertificateCannotTakeOverTheControllersRecord() throws Exception {
    // The controller's own certificate (same CA, clientAuth) used as a client is just a node named ctl-tls.
    ManagedChannel ch = channel(certs.get("ctl-tls"));
    try {
      denied(() -> NodeServiceGrpc.newBlockingStub(ch).register(registration("ctl-tls")), "replace the controller record");
      assertEquals(io.tcpopt.controller.membership.NodeRole.CONTROLLER, controller.nodes().get("ctl-tls").orElseThrow().role());
    } finally {
      ch.shutdownNow().awaitTermination(2, TimeUnit.SECONDS);
    }
  }

  @Test
  void anOperatorCertificateChangesPolicyAndReadsStatus() throws Exception {
    ManagedChannel ch = channel(alice);
    try {
      long version = PolicyServiceGrpc.newBlockingStub(ch)
          .apply(ApplyPolicyRequest.newBuilder().setYaml(Policies.BRANCH_TO_DC).setComment("alice").build()).getInfo().getVersion();
      assertTrue(version >= 1);
      assertEquals("ctl-tls", StatusServiceGrpc.newBlockingStub(ch).status(StatusRequest.getDefaultInstance()).getController());
    } finally {
      ch.shutdownNow().awaitTermination(2, TimeUnit.SECONDS);
    }
  }

  @Test
  void withoutACertificateOrTokenCallsAreUnauthenticated() throws Exception {
    ManagedChannel ch = channel(null);
    try {
      StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> NodeServiceGrpc.newBlockingStub(ch).register(
          registration("sn-anon")));
      assertEquals(Status.Code.UNAUTHENTICATED, e.getStatus().getCode());
      e = assertThrows(StatusRuntimeException.class,
          () -> StatusServiceGrpc.newBlockingStub(ch).status(StatusRequest.getDefaultInstance()));
      assertEquals(Status.Code.UNAUTHENTICATED, e.getStatus().getCode());
      e = assertThrows(StatusRuntimeException.class, () -> StatusServiceGrpc.newBlockingStub(ch)
          .withCallCredentials(ControllerApiTest.bearer("wrong")).status(StatusRequest.getDefaultInstance()));
      assertEquals(Status.Code.UNAUTHENTICATED, e.getStatus().getCode());
      assertEquals("ctl-tls", StatusServiceGrpc.newBlockingStub(ch).withCallCredentials(ControllerApiTest.bearer("tok"))
          .status(StatusRequest.getDefaultInstance()).getController(), "the token works over TLS");
    } finally {
      ch.shutdownNow().awaitTermination(2, TimeUnit.SECONDS);
    }
  }

  @Test
  void anOperatorCaThatAlsoSignsNodesIsRefused() {
    TlsFiles ctl = certs.get("ctl-tls");
    String yaml = "tls: { certificate: \"" + ctl.certificateChain() + "\", private-key: \"" + ctl.privateKey() + "\", trusted: \""
        + ctl.trustedCertificates() + "\" }\noperator-ca: \"" + ctl.trustedCertificates() + "\"\n";
    ConfigException e = assertThrows(ConfigException.class, () -> ControllerConfig.from(ConfigTree.parse(yaml, "t"), "c", "s"));
    assertTrue(e.getMessage().startsWith("operator-ca: ") && e.getMessage().contains("node certificates would be operators"), e.getMessage());
    ConfigException old = assertThrows(ConfigException.class,
        () -> ControllerConfig.from(ConfigTree.parse("client-certificate-auth: true\n", "t"), "c", "s"));
    assertTrue(old.getMessage().contains("operator-ca"), old.getMessage());
  }

  private static void denied(Executable call, String why) {
    StatusRuntimeException e = assertThrows(StatusRuntimeException.class, call);
    assertEquals(Status.Code.PERMISSION_DENIED, e.getStatus().getCode(), e::toString);
    assertTrue(e.getStatus().getDescription().contains(why), e.getStatus().getDescription());
  }

  /** The status a heartbeat stream ends with after one beat as {@code name}. */
  private static Status heartbeatAs(ManagedChannel ch, String name) throws Exception {
    CompletableFuture<Status> ended = new CompletableFuture<>();
    StreamObserver<HeartbeatRequest> beats = NodeServiceGrpc.newStub(ch).heartbeat(new StreamObserver<HeartbeatResponse>() {
      @Override
      public void onNext(HeartbeatResponse value) {}

      @Override
      public void onError(Throwable t) {
        ended.complete(Status.fromThrowable(t));
      }

      @Override
      public void onCompleted() {
        ended.complete(Status.OK);
      }
    });
    beats.onNext(HeartbeatRequest.newBuilder().setName(name).build());
    Status status = ended.get(10, TimeUnit.SECONDS);
    beats.onCompleted();
    return status;
  }
}
