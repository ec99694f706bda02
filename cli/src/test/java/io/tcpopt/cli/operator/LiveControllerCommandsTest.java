package io.tcpopt.cli.operator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tcpopt.cli.CliRun;
import io.tcpopt.common.config.ConfigTree;
import io.tcpopt.common.net.FreePort;
import io.tcpopt.controller.Controller;
import io.tcpopt.controller.ControllerConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator commands against a live controller (real gRPC on a loopback port, its own
 * single-member Hazelcast cluster, a bearer token): table and JSON output, and the error paths.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LiveControllerCommandsTest {
  private static final String TOKEN = "test-token-1";
  private static Controller controller;
  private static String address;

  @TempDir static Path dir;

  @BeforeAll
  static void startController() throws IOException {
    String yaml = "listen: 127.0.0.1:0\n"
        + "token: " + TOKEN + "\n"
        + "hazelcast: { cluster-name: cli-test-" + ProcessHandle.current().pid() + ", port: " + FreePort.belowEphemeralRange()
        + ", join-wait: 0s }\n";
    ControllerConfig config = ControllerConfig.from(ConfigTree.parse(yaml, "test"), "ctl-1", "branch");
    controller = new Controller(config, null, new SimpleMeterRegistry()).start();
    address = "127.0.0.1:" + controller.grpcAddress().getPort();
  }

  @AfterAll
  static void stopController() {
    if (controller != null) {
      controller.close();
    }
  }

  private static CliRun cli(String... args) {
    return CliRun.run(ControllerConnector.grpc(), Map.of("TCPOPT_CONTROLLER", address, "TCPOPT_TOKEN", TOKEN),
        new AtomicBoolean(), args);
  }

  private static Path policyFile(String name, String text) throws IOException {
    Path file = dir.resolve(name);
    Files.writeString(file, text);
    return file;
  }

  @Test
  @Order(1)
  void statusBeforeAnyPolicy() {
    CliRun r = cli("status");
    assertEquals(0, r.exitCode(), r.err());
    assertTrue(r.out().contains("Controller:  ctl-1 (" + address + ")"), r.out());
    assertTrue(r.out().contains("Policy:      none"), r.out());
  }

  @Test
  @Order(2)
  void policyValidateApplyGet() throws Exception {
    Path file = policyFile("policy.yaml", OperatorOutputTest.samplePolicy());
    CliRun valid = cli("policy", "validate", "-f", file.toString());
    assertEquals(0, valid.exitCode(), valid.err());
    assertEquals(file + ": valid\n", valid.out());
    CliRun validJson = cli("policy", "validate", "-f", file.toString(), "-o", "json");
    assertEquals("{\n  \"valid\": true,\n  \"errors\": []\n}\n", validJson.out());

    CliRun apply = cli("policy", "apply", "-f", file.toString());
    assertEquals(0, apply.exitCode(), apply.err());
    assertEquals("policy vpn10-appqoe applied as version 1\n", apply.out());

    CliRun get = cli("policy", "get");
    assertTrue(get.out().startsWith("# policy vpn10-appqoe, version 1, applied "), get.out());
    assertTrue(get.out().contains("service-node-group: SNG-APPQOE"), get.out());
    CliRun getJson = cli("policy", "get", "-o", "json");
    assertTrue(getJson.out().contains("\"version\": 1,\n  \"name\": \"vpn10-appqoe\""), getJson.out());

    CliRun same = cli("policy", "diff", "-f", file.toString());
    assertEquals(0, same.exitCode(), same.out() + same.err());
    // What get prints, fed back unchanged, is no change: its header line is not part of the policy.
    Path fetched = policyFile("fetched.yaml", get.out());
    CliRun fetchedDiff = cli("policy", "diff", "-f", fetched.toString());
    assertEquals(0, fetchedDiff.exitCode(), fetchedDiff.out() + fetchedDiff.err());
    Path changed = policyFile("changed.yaml", OperatorOutputTest.samplePolicy().replace("default-action: pass-through", "default-action: drop"));
    CliRun diff = cli("policy", "diff", "-f", changed.toString());
    assertEquals(3, diff.exitCode(), diff.err());
    assertTrue(diff.out().contains("-  default-action: pass-through") && diff.out().contains("+  default-action: drop"), diff.out());

    Path fetchedChanged = policyFile("fetched-changed.yaml", get.out().replace("default-action: pass-through", "default-action: drop"));
    assertEquals(0, cli("policy", "apply", "-f", fetchedChanged.toString()).exitCode());
    CliRun getChanged = cli("policy", "get");
    assertEquals(1, getChanged.out().lines().filter(l -> l.startsWith("# policy ")).count(), getChanged.out());
    assertTrue(getChanged.out().startsWith("# policy vpn10-appqoe, version 2, applied "), getChanged.out());
    CliRun rollback = cli("policy", "rollback", "--version", "1");
    assertEquals("policy vpn10-appqoe version 1 re-activated as version 3\n", rollback.out());

    // A change based on a version that is no longer active is refused and says so.
    CliRun stale = cli("policy", "rollback", "--version", "2", "--expect-version", "2");
    assertEquals(1, stale.exitCode(), stale.out());
    assertEquals("tcpopt: active policy is v3, not v2 as expected; not applied", stale.errorLine());
    CliRun staleApply = cli("policy", "apply", "-f", changed.toString(), "--expect-version", "1");
    assertEquals("tcpopt: active policy is v3, not v1 as expected; not applied", staleApply.errorLine());
  }

  @Test
  @Order(3)
  void statusAndNodesShowThePolicyAndTheController() {
    CliRun status = cli("status");
    assertTrue(status.out().contains("Policy:      vpn10-appqoe (version 3)"), status.out());
    assertTrue(status.out().lines().anyMatch(l -> l.matches("SNG-APPQOE\\s+branch\\s+-\\s+no members\\s+-")), status.out());
    CliRun json = cli("status", "-o", "json");
    assertTrue(json.out().contains("\"policy\": {\n    \"name\": \"vpn10-appqoe\",\n    \"version\": 3\n  }"), json.out());

    CliRun nodes = cli("nodes");
    assertEquals(0, nodes.exitCode(), nodes.err());
    assertTrue(nodes.out().lines().anyMatch(l -> l.matches("ctl-1\\s+branch\\s+controller\\s+127\\.0\\.0\\.1:\\d+\\s+RUNNING.*")), nodes.out());
    CliRun nodesJson = cli("nodes", "-o", "json");
    assertTrue(nodesJson.out().contains("\"name\": \"ctl-1\""), nodesJson.out());
  }

  @Test
  @Order(4)
  void flowsWithoutServiceNodes() {
    CliRun flows = cli("flows");
    assertEquals(0, flows.exitCode(), flows.err());
    assertEquals("no active flows\n", flows.out());
    assertEquals("[]\n", cli("flows", "--closed", "-o", "json").out());
  }

  @Test
  @Order(5)
  void badPolicyFileIsRefusedWithItsFieldAndChangesNothing() throws Exception {
    Path bad = policyFile("bad.yaml", OperatorOutputTest.samplePolicy().replace("destination-prefix-list: DC100 }", "destination-prefix-list: DC999 }"));
    CliRun apply = cli("policy", "apply", "-f", bad.toString());
    assertEquals(1, apply.exitCode());
    assertTrue(apply.errorLine().startsWith("tcpopt: " + bad + ": data-policy.sequences[0].match.destination-prefix-list"), apply.err());
    assertTrue(cli("status").out().contains("(version 3)"), "a refused policy must not change the active one");
  }

  @Test
  @Order(6)
  void wrongCredentials() {
    CliRun r = CliRun.run(ControllerConnector.grpc(), Map.of(), new AtomicBoolean(),
        "status", "--controller", address, "--token", "wrong");
    assertEquals(1, r.exitCode());
    assertTrue(r.errorLine().startsWith("tcpopt: controller refused the credentials"), r.err());
    CliRun none = CliRun.run(ControllerConnector.grpc(), Map.of(), new AtomicBoolean(), "nodes", "--controller", address);
    assertTrue(none.errorLine().startsWith("tcpopt: controller refused the credentials"), none.err());
  }

  @Test
  @Order(7)
  void unreachableController() throws IOException {
    String nowhere = "127.0.0.1:" + FreePort.belowEphemeralRange();
    CliRun r = CliRun.run(ControllerConnector.grpc(), Map.of(), new AtomicBoolean(), "status", "--controller", nowhere);
    assertEquals(1, r.exitCode());
    assertEquals("tcpopt: cannot reach controller at " + nowhere, r.errorLine());
    CliRun json = CliRun.run(ControllerConnector.grpc(), Map.of(), new AtomicBoolean(), "flows", "-o", "json", "--controller", nowhere);
    assertEquals("", json.out());
    assertEquals("tcpopt: cannot reach controller at " + nowhere, json.errorLine());
  }
}
