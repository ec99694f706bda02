package io.tcpopt.cli.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tcpopt.cli.CliRun;
import io.tcpopt.cli.operator.ControllerConnector;
import io.tcpopt.common.config.ConfigTree;
import io.tcpopt.common.net.FreePort;
import io.tcpopt.common.tls.DemoCertificates;
import io.tcpopt.common.tls.TlsFiles;
import io.tcpopt.controller.Controller;
import io.tcpopt.controller.ControllerConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An external service node ({@code node.controller}) registers with a TLS controller using its WAN
 * certificate, shows up in {@code tcpopt nodes}, and enforces the policy the controller pushes.
 */
class ExternalServiceNodeTest {
  @TempDir Path dir;

  @Test
  void registersAndFollowsThePushedPolicy() throws Exception {
    Map<String, TlsFiles> certs = DemoCertificates.generate(dir.resolve("certs"), List.of("ctl-1", "sn-1"));
    TlsFiles ctl = certs.get("ctl-1");
    TlsFiles sn = certs.get("sn-1");
    int hazelcast = FreePort.belowEphemeralRange();
    String controllerYaml = "listen: 127.0.0.1:0\n"
        + "token: ext-token\n"
        + "tls: { certificate: \"" + ctl.certificateChain() + "\", private-key: \"" + ctl.privateKey()
        + "\", trusted: \"" + ctl.trustedCertificates() + "\" }\n"
        + "hazelcast: { cluster-name: ext-test-" + ProcessHandle.current().pid() + ", port: " + hazelcast + ", join-wait: 0s }\n";
    try (Controller controller = new Controller(
        ControllerConfig.from(ConfigTree.parse(controllerYaml, "test"), "ctl-1", "branch"), null, new SimpleMeterRegistry()).start()) {
      String api = "127.0.0.1:" + controller.grpcAddress().getPort();
      NodeConfig nodeConfig = NodeConfig.from(ConfigTree.parse(
          "node: { name: sn-1, site: branch, roles: [service-node], controller: \"" + api + "\" }\n"
              + "service-node:\n"
              + "  wan:\n"
              + "    listen: 127.0.0.1:0\n"
              + "    tls: { certificate: \"" + sn.certificateChain() + "\", private-key: \"" + sn.privateKey()
              + "\", trusted: \"" + sn.trustedCertificates() + "\" }\n", "sn-1"));
      Map<String, String> env = Map.of("TCPOPT_CONTROLLER", api, "TCPOPT_TOKEN", "ext-token",
          "TCPOPT_TLS_CA", ctl.trustedCertificates().toString());
      try (NodeRuntime node = NodeRuntime.start(nodeConfig)) {
        CliRun nodes = null;
        for (int i = 0; i < 150; i++) {
          nodes = CliRun.run(ControllerConnector.grpc(), env, new AtomicBoolean(), "nodes");
          if (nodes.out().contains("sn-1")) {
            break;
          }
          Thread.sleep(100);
        }
        assertTrue(nodes.out().lines().anyMatch(l -> l.matches("sn-1\\s+branch\\s+service-node\\s+127\\.0\\.0\\.1:\\d+\\s+RUNNING.*")),
            nodes.out() + nodes.err());

        Path policy = dir.resolve("policy.yaml");
        Files.writeString(policy, "prefix-lists: { ANY: [0.0.0.0/0] }\n"
            + "data-policy:\n  name: pushed\n"
            + "  sequences: [ { seq: 1, match: { destination-prefix-list: ANY }, action: drop } ]\n"
            + "  default-action: pass-through\n");
        CliRun apply = CliRun.run(ControllerConnector.grpc(), env, new AtomicBoolean(), "policy", "apply", "-f", policy.toString());
        assertEquals(0, apply.exitCode(), apply.err());
        for (int i = 0; i < 150 && node.controllerPolicyVersion() != 1; i++) {
          Thread.sleep(100);
        }
        assertEquals(1, node.controllerPolicyVersion(), "the pushed policy must reach the external service node");
      }
    }
  }

  @Test
  void failsOverToTheNextControllerAndKeepsEnforcingItsPolicyMeanwhile() throws Exception {
    Map<String, TlsFiles> certs = DemoCertificates.generate(dir.resolve("certs"), List.of("ctl-a", "ctl-b", "sn-1"));
    int hzA = FreePort.belowEphemeralRange();
    int hzB = FreePort.belowEphemeralRange();
    String cluster = "failover-" + ProcessHandle.current().pid();
    String members = "[127.0.0.1:" + hzA + ", 127.0.0.1:" + hzB + "]";
    // ctl-a lists only itself so that it forms the cluster at once; ctl-b joins it.
    Controller a = new Controller(controllerConfig(certs.get("ctl-a"), "ctl-a", cluster, hzA, "[127.0.0.1:" + hzA + "]"), null,
        new SimpleMeterRegistry()).start();
    try (Controller b = new Controller(controllerConfig(certs.get("ctl-b"), "ctl-b", cluster, hzB, members), null,
        new SimpleMeterRegistry()).start()) {
      String apiA = "127.0.0.1:" + a.grpcAddress().getPort();
      String apiB = "127.0.0.1:" + b.grpcAddress().getPort();
      TlsFiles sn = certs.get("sn-1");
      NodeConfig nodeConfig = NodeConfig.from(ConfigTree.parse(
          "node: { name: sn-1, site: branch, roles: [service-node], controller: [\"" + apiA + "\", \"" + apiB + "\"] }\n"
              + "service-node:\n"
              + "  wan:\n"
              + "    listen: 127.0.0.1:0\n"
              + "    tls: { certificate: \"" + sn.certificateChain() + "\", private-key: \"" + sn.privateKey()
              + "\", trusted: \"" + sn.trustedCertificates() + "\" }\n", "sn-1"));
      assertEquals(2, nodeConfig.controllers().size());
      try (NodeRuntime node = NodeRuntime.start(nodeConfig)) {
        awaitTrue(() -> b.nodes().get("sn-1").map(r -> r.controller().equals("ctl-a")).orElse(false), "registered through ctl-a");
        a.policies().apply(DROP_ALL, "first", -1);
        awaitTrue(() -> node.controllerPolicyVersion() == 1, "the policy pushed by ctl-a reaches the node");

        a.close();
        // Meanwhile the node keeps the last policy; then it registers through ctl-b and heartbeats there.
        assertEquals(1, node.controllerPolicyVersion());
        awaitTrue(() -> b.nodes().get("sn-1").map(r -> r.controller().equals("ctl-b") && b.nodes().isHealthy(r)).orElse(false),
            "re-registered with ctl-b");
        assertEquals(apiB, node.followedController());
        assertEquals(1, node.controllerPolicyVersion(), "failing over changes no policy");

        b.policies().apply(DROP_ALL.replace("name: pushed", "name: pushed-again"), "second", -1);
        awaitTrue(() -> node.controllerPolicyVersion() == 2, "ctl-b's pushes reach the node");
      }
    } finally {
      a.close();
    }
  }

  private static final String DROP_ALL = "prefix-lists: { ANY: [0.0.0.0/0] }\n"
      + "data-policy:\n  name: pushed\n"
      + "  sequences: [ { seq: 1, match: { destination-prefix-list: ANY }, action: drop } ]\n"
      + "  default-action: pass-through\n";

  private static ControllerConfig controllerConfig(TlsFiles tls, String name, String cluster, int port, String members) {
    String yaml = "listen: 127.0.0.1:0\n"
        + "heartbeat-expiry: 1s\n"
        + "tls: { certificate: \"" + tls.certificateChain() + "\", private-key: \"" + tls.privateKey()
        + "\", trusted: \"" + tls.trustedCertificates() + "\" }\n"
        + "hazelcast: { cluster-name: " + cluster + ", port: " + port + ", members: " + members
        + ", join-wait: 0s, minimum-cluster-size: 1 }\n";
    return ControllerConfig.from(ConfigTree.parse(yaml, name), name, "branch");
  }

  /** Polls {@code condition} every 50 ms for at most 30 s. */
  private static void awaitTrue(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
    for (int i = 0; i < 600; i++) {
      if (condition.getAsBoolean()) {
        return;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("not within 30 s: " + what);
  }

  @Test
  void controllerAddressOnlyForExternalServiceNodes() {
    ConfigTree tree = ConfigTree.parse("node: { name: n, site: s, roles: [controller], controller: 127.0.0.1:7700 }\n", "t");
    io.tcpopt.common.config.ConfigException e =
        org.junit.jupiter.api.Assertions.assertThrows(io.tcpopt.common.config.ConfigException.class, () -> NodeConfig.from(tree));
    assertTrue(e.getMessage().startsWith("node.controller: only for an external service node"), e.getMessage());
  }
}
