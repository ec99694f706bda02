package io.tcpopt.cli.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.cli.CliRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@code run --config} with a broken file: one line naming the field, non-zero exit, nothing started. */
class RunConfigErrorsTest {
  @TempDir Path dir;

  private CliRun runWith(String yaml) throws Exception {
    Path file = dir.resolve("node.yaml");
    Files.writeString(file, yaml);
    return CliRun.run(target -> {
      throw new AssertionError("run must not connect as a client");
    }, "run", "--config", file.toString());
  }

  static Stream<Arguments> brokenConfigs() {
    return Stream.of(
        Arguments.of("node: {site: b, roles: [service-node]}\nservice-node: {}", "tcpopt: node.name: is required"),
        Arguments.of("node: {name: n, site: b}", "tcpopt: node.roles: is required"),
        Arguments.of("node: {name: n, site: b, roles: [router]}",
            "tcpopt: node.roles[0]: unknown role \"router\" (expected controller or service-node)"),
        Arguments.of("node: {name: n, site: b, roles: []}", "tcpopt: node.roles: list at least one role: controller, service-node"),
        Arguments.of("node: {name: n, site: b, roles: [service-node]}",
            "tcpopt: service-node: is required when node.roles includes service-node"),
        Arguments.of("node: {name: n, site: b, roles: [controller], nmae: x}",
            "tcpopt: node.nmae: unknown setting (expected one of name, site, roles, controller)"),
        Arguments.of("node: {name: n, site: b, roles: [controller]}\nmetrics: {listen: localhost}",
            "tcpopt: metrics.listen: expected HOST:PORT, got \"localhost\""),
        Arguments.of("node: {name: n, site: b, roles: [controller]}\nmetrix: {}",
            "tcpopt: metrix: unknown setting (expected one of node, service-node, policy, controller, metrics)"));
  }

  @ParameterizedTest
  @MethodSource("brokenConfigs")
  void brokenConfigIsOneLineNamingTheField(String yaml, String expected) throws Exception {
    CliRun r = runWith(yaml);
    assertNotEquals(0, r.exitCode());
    assertEquals(expected, r.errorLine());
  }

  @Test
  void sectionsOfOtherRolesAreValidatedBeforeAnythingStarts() throws Exception {
    CliRun r = runWith("node: {name: n, site: b, roles: [controller, service-node]}\n"
        + "service-node: {wan: {listen: 127.0.0.1:0, plaintext: true}}\n"
        + "controller: {listen: 127.0.0.1:0, bogus: 1}\n");
    assertEquals(1, r.exitCode());
    assertTrue(r.errorLine().startsWith("tcpopt: controller.bogus: unknown setting"), r.err());
    CliRun policy = runWith("node: {name: n, site: b, roles: [service-node]}\n"
        + "service-node: {wan: {listen: 127.0.0.1:0, plaintext: true}}\n"
        + "policy: {data-policy: {name: p, sequences: [], default-action: sideways}}\n");
    assertEquals(1, policy.exitCode());
    assertTrue(policy.errorLine().startsWith("tcpopt: policy.data-policy"), policy.err());
  }

  /** As on a fresh checkout with deploy/examples/testbed/branch.yaml: the one line says how to make the certificates. */
  @Test
  void missingCertificatesSayHowToCreateThem() throws Exception {
    Path certs = dir.resolve("certs");
    String yaml = "node: {name: branch-1, site: branch, roles: [controller, service-node]}\n"
        + "service-node:\n"
        + "  wan:\n"
        + "    listen: 127.0.0.1:0\n"
        + "    tls: {certificate: " + certs.resolve("branch-1.crt") + ", private-key: " + certs.resolve("branch-1.key")
        + ", trusted: " + certs.resolve("ca.crt") + "}\n"
        + "  peers: [{name: dc-1, site: dc, address: 127.0.0.1:9, prefixes: [198.19.1.0/24]}]\n"
        + "controller: {listen: 127.0.0.1:0, token-file: " + dir.resolve("secrets/operator-token") + "}\n";
    CliRun r = runWith(yaml);
    assertEquals(1, r.exitCode());
    assertEquals("tcpopt: service-node.wan.tls.certificate: " + certs.resolve("branch-1.crt") + ": file not found"
        + " (a lab CA and node certificates: tcpopt certs --out " + certs + " --nodes branch-1,dc-1)", r.errorLine());

    // Following the hint gets past the certificates; the missing token file says how to make one.
    assertEquals(0, CliRun.run(t -> null, "certs", "--out", certs.toString(), "--nodes", "branch-1,dc-1").exitCode());
    CliRun token = runWith(yaml);
    assertEquals(1, token.exitCode());
    assertTrue(token.errorLine().startsWith("tcpopt: controller.token-file: cannot read token file"), token.err());
    assertTrue(token.errorLine().endsWith("(create one: mkdir -p " + dir.resolve("secrets") + " && head -c 24 /dev/urandom | base64 > "
        + dir.resolve("secrets/operator-token") + ")"), token.err());
  }

  @Test
  void missingFileAndBadYaml() throws Exception {
    CliRun missing = CliRun.run(t -> null, "run", "--config", dir.resolve("absent.yaml").toString());
    assertEquals(1, missing.exitCode());
    assertEquals("tcpopt: config file " + dir.resolve("absent.yaml") + " does not exist", missing.errorLine());
    CliRun syntax = runWith("node: [\n");
    assertEquals(1, syntax.exitCode());
    syntax.errorLine();
  }
}
