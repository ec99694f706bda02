package io.tcpopt.cli.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tcpopt.cli.CliRun;
import io.tcpopt.cli.operator.ControllerConnector;
import io.tcpopt.common.config.ConfigTree;
import io.tcpopt.common.tls.DemoCertificates;
import io.tcpopt.common.tls.TlsFiles;
import io.tcpopt.controller.Controller;
import io.tcpopt.controller.ControllerConfig;
import java.io.IOException;
import java.net.ServerSocket;
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
    int hazelcast;
    try (ServerSocket s = new ServerSocket(0)) {
      hazelcast = s.getLocalPort();
    }
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
  void controllerAddressOnlyForExternalServiceNodes() {
    ConfigTree tree = ConfigTree.parse("node: { name: n, site: s, roles: [controller], controller: 127.0.0.1:7700 }\n", "t");
    io.tcpopt.common.config.ConfigException e =
        org.junit.jupiter.api.Assertions.assertThrows(io.tcpopt.common.config.ConfigException.class, () -> NodeConfig.from(tree));
    assertTrue(e.getMessage().startsWith("node.controller: only for an external service node"), e.getMessage());
  }
}
