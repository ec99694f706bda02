package io.tcpopt.controller.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tcpopt.common.tls.DemoCertificates;
import io.tcpopt.common.tls.TlsFiles;
import io.tcpopt.controller.Controller;
import io.tcpopt.controller.ControllerConfig;
import io.tcpopt.controller.TestClusters;
import io.tcpopt.proto.v1.NodeServiceGrpc;
import io.tcpopt.proto.v1.RegisterRequest;
import io.tcpopt.proto.v1.StatusRequest;
import io.tcpopt.proto.v1.StatusServiceGrpc;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** The network listener with TLS 1.3: nodes authenticate by client certificate, operators by token or certificate. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GrpcTlsTest {
  @TempDir static Path dir;
  private Map<String, TlsFiles> certs;
  private Controller controller;

  @BeforeAll
  void start() {
    certs = DemoCertificates.generate(dir, List.of("ctl-tls", "sn-tls"));
    ControllerConfig config =
        new ControllerConfig("ctl-tls", "branch", new InetSocketAddress("127.0.0.1", 0), Optional.of("tok"),
            Optional.of(certs.get("ctl-tls")), true, 1 << 20, 16, Duration.ofSeconds(3), TestClusters.single(), List.of(),
            Duration.ofSeconds(1));
    controller = new Controller(config, null, new SimpleMeterRegistry()).start();
  }

  @AfterAll
  void stop() {
    controller.close();
  }

  private ManagedChannel channel(boolean clientCertificate) throws Exception {
    TlsFiles ca = certs.get("sn-tls");
    SslContextBuilder ssl = GrpcSslContexts.forClient().trustManager(ca.trustedCertificates().toFile());
    if (clientCertificate) {
      ssl.keyManager(ca.certificateChain().toFile(), ca.privateKey().toFile());
    }
    return NettyChannelBuilder.forAddress(controller.grpcAddress()).sslContext(ssl.build()).build();
  }

  @Test
  void aNodeWithItsCertificateRegistersAndMayReadStatus() throws Exception {
    ManagedChannel ch = channel(true);
    try {
      NodeServiceGrpc.newBlockingStub(ch).register(
          RegisterRequest.newBuilder().setName("sn-tls").setSite("branch").setFlowCapacity(10).build());
      assertEquals("sn-tls", controller.nodes().get("sn-tls").orElseThrow().name());
      assertEquals("ctl-tls", StatusServiceGrpc.newBlockingStub(ch).status(StatusRequest.getDefaultInstance()).getController());
    } finally {
      ch.shutdownNow().awaitTermination(2, TimeUnit.SECONDS);
    }
  }

  @Test
  void withoutACertificateOrTokenCallsAreUnauthenticated() throws Exception {
    ManagedChannel ch = channel(false);
    try {
      StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> NodeServiceGrpc.newBlockingStub(ch).register(
          RegisterRequest.newBuilder().setName("sn-anon").setSite("branch").build()));
      assertEquals(Status.Code.UNAUTHENTICATED, e.getStatus().getCode());
      e = assertThrows(StatusRuntimeException.class,
          () -> StatusServiceGrpc.newBlockingStub(ch).status(StatusRequest.getDefaultInstance()));
      assertEquals(Status.Code.UNAUTHENTICATED, e.getStatus().getCode());
      assertEquals("ctl-tls", StatusServiceGrpc.newBlockingStub(ch).withCallCredentials(ControllerApiTest.bearer("tok"))
          .status(StatusRequest.getDefaultInstance()).getController(), "the token works over TLS");
    } finally {
      ch.shutdownNow().awaitTermination(2, TimeUnit.SECONDS);
    }
  }
}
