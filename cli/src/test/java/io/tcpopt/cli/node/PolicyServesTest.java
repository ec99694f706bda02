package io.tcpopt.cli.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tcpopt.common.config.ConfigTree;
import io.tcpopt.common.net.FreePort;
import io.tcpopt.common.policy.Cidr;
import io.tcpopt.common.tls.DemoCertificates;
import io.tcpopt.common.tls.TlsFiles;
import io.tcpopt.controller.Controller;
import io.tcpopt.controller.ControllerConfig;
import io.tcpopt.proto.v1.ApplyPolicyRequest;
import io.tcpopt.proto.v1.PolicyServiceGrpc;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 8's "configured/registered prefixes": what a far node's own site serves (the destinations
 * it connects peers' streams to) can come from the controller — its site's entry in the active
 * policy ({@code sites: { dc: { serves: [...] } }}), which only operator credentials can apply —
 * when the node's config lists no {@code serves}; a node that lists some keeps them. Real
 * components: a TLS controller with its Hazelcast member and gRPC API, two external service nodes
 * with their certificates, the policy pushed through Watch.
 */
class PolicyServesTest {
  @TempDir Path dir;

  private static final String POLICY = "prefix-lists: { DC100: [198.19.1.0/24] }\n"
      + "sites:\n"
      + "  dc: { serves: [DC100, \"2001:2:0:1901::/64\"] }\n"
      + "data-policy:\n  name: served\n"
      + "  sequences: [ { seq: 1, action: pass-through } ]\n";

  @Test
  void aNodeWithoutConfiguredPrefixesServesWhatThePolicyGivesItsSite() throws Exception {
    Map<String, TlsFiles> certs = DemoCertificates.generate(dir.resolve("certs"), List.of("ctl-1", "dc-1", "dc-2"));
    TlsFiles ctl = certs.get("ctl-1");
    String yaml = "listen: 127.0.0.1:0\n"
        + "token: serves-token\n"
        + "tls: { certificate: \"" + ctl.certificateChain() + "\", private-key: \"" + ctl.privateKey()
        + "\", trusted: \"" + ctl.trustedCertificates() + "\" }\n"
        + "hazelcast: { cluster-name: serves-" + ProcessHandle.current().pid() + ", port: " + FreePort.belowEphemeralRange() + ", join-wait: 0s }\n";
    try (Controller controller = new Controller(ControllerConfig.from(ConfigTree.parse(yaml, "test"), "ctl-1", "dc"), null,
        new SimpleMeterRegistry()).start()) {
      String api = "127.0.0.1:" + controller.grpcAddress().getPort();
      try (NodeRuntime open = NodeRuntime.start(nodeConfig(certs.get("dc-1"), "dc-1", api, ""));
          NodeRuntime pinned = NodeRuntime.start(nodeConfig(certs.get("dc-2"), "dc-2", api, "  serves: [198.19.1.128/25]\n"))) {
        awaitTrue(() -> controller.nodes().get("dc-1").isPresent() && controller.nodes().get("dc-2").isPresent(), "both nodes registered");
        assertEquals(List.of(), open.serviceNode().servedPrefixes(), "nothing served before a policy names the site's prefixes");

        // A node certificate cannot apply the policy that would widen its own (or any) node's reach.
        StatusRuntimeException denied = assertThrows(StatusRuntimeException.class, () -> applyAs(controller, certs.get("dc-1"), POLICY));
        assertEquals(Status.Code.PERMISSION_DENIED, denied.getStatus().getCode(), denied::toString);
        assertEquals(List.of(), open.serviceNode().servedPrefixes());

        controller.policies().apply(POLICY, "operator", -1);
        List<Cidr> expected = List.of(Cidr.parse("198.19.1.0/24"), Cidr.parse("2001:2:0:1901::/64"));
        awaitTrue(() -> open.serviceNode().servedPrefixes().equals(expected), "the pushed policy's sites.dc.serves reaches dc-1");
        awaitTrue(() -> pinned.controllerPolicyVersion() == 1, "dc-2 has the policy too");
        assertEquals(List.of(Cidr.parse("198.19.1.128/25")), pinned.serviceNode().servedPrefixes(), "dc-2's config takes precedence");

        // A policy without the site's entry withdraws it.
        controller.policies().apply(POLICY.replace("  dc: {", "  other: {").replace("name: served", "name: served-elsewhere"), "operator", -1);
        awaitTrue(() -> open.serviceNode().servedPrefixes().isEmpty(), "dc-1 serves nothing again");
        assertEquals(List.of(Cidr.parse("198.19.1.128/25")), pinned.serviceNode().servedPrefixes());
      }
    }
  }

  @Test
  void anIntegratedNodeTakesItsSitesPrefixesFromItsOwnControllersPolicy() throws Exception {
    TlsFiles tls = DemoCertificates.generate(dir.resolve("certs"), List.of("dc-9")).get("dc-9");
    NodeConfig config = NodeConfig.from(ConfigTree.parse("node: { name: dc-9, site: dc, roles: [controller, service-node] }\n"
        + "service-node:\n"
        + "  wan:\n"
        + "    listen: 127.0.0.1:0\n"
        + "    tls: { certificate: \"" + tls.certificateChain() + "\", private-key: \"" + tls.privateKey()
        + "\", trusted: \"" + tls.trustedCertificates() + "\" }\n"
        + "controller:\n"
        + "  listen: 127.0.0.1:0\n"
        + "  token: serves-token\n"
        + "  hazelcast: { cluster-name: serves-int-" + ProcessHandle.current().pid() + ", port: " + FreePort.belowEphemeralRange() + ", join-wait: 0s }\n", "dc-9"));
    try (NodeRuntime node = NodeRuntime.start(config)) {
      assertEquals(List.of(), node.serviceNode().servedPrefixes());
      node.controller().policies().apply(POLICY, "operator", -1);
      awaitTrue(() -> node.serviceNode().servedPrefixes().equals(List.of(Cidr.parse("198.19.1.0/24"), Cidr.parse("2001:2:0:1901::/64"))),
          "the local controller's policy reaches the integrated node's guard");
    }
  }

  private NodeConfig nodeConfig(TlsFiles tls, String name, String api, String serves) {
    return NodeConfig.from(ConfigTree.parse(
        "node: { name: " + name + ", site: dc, roles: [service-node], controller: \"" + api + "\" }\n"
            + "service-node:\n"
            + "  wan:\n"
            + "    listen: 127.0.0.1:0\n"
            + "    tls: { certificate: \"" + tls.certificateChain() + "\", private-key: \"" + tls.privateKey()
            + "\", trusted: \"" + tls.trustedCertificates() + "\" }\n" + serves, name));
  }

  /** Applies {@code yaml} over gRPC with {@code tls}'s certificate as the only credential. */
  private static void applyAs(Controller controller, TlsFiles tls, String yaml) throws Exception {
    ChannelCredentials credentials = TlsChannelCredentials.newBuilder().trustManager(tls.trustedCertificates().toFile())
        .keyManager(tls.certificateChain().toFile(), tls.privateKey().toFile()).build();
    ManagedChannel ch = Grpc.newChannelBuilderForAddress("127.0.0.1", controller.grpcAddress().getPort(), credentials).build();
    try {
      PolicyServiceGrpc.newBlockingStub(ch).withDeadlineAfter(20, TimeUnit.SECONDS).apply(ApplyPolicyRequest.newBuilder().setYaml(yaml).build());
    } finally {
      ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  /** Polls {@code condition} every 50 ms for at most 30 s. */
  private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
    for (int i = 0; i < 600; i++) {
      if (condition.getAsBoolean()) {
        return;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("not within 30 s: " + what);
  }
}
