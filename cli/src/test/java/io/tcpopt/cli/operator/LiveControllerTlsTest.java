package io.tcpopt.cli.operator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tcpopt.cli.CliRun;
import io.tcpopt.common.config.ConfigTree;
import io.tcpopt.common.net.FreePort;
import io.tcpopt.common.tls.DemoCertificates;
import io.tcpopt.common.tls.TlsFiles;
import io.tcpopt.controller.Controller;
import io.tcpopt.controller.ControllerConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The operator commands against a controller serving gRPC over TLS 1.3. */
class LiveControllerTlsTest {
  @TempDir static Path dir;
  private static Controller controller;
  private static String address;
  private static Map<String, TlsFiles> certs;

  @BeforeAll
  static void start() throws IOException {
    certs = new java.util.HashMap<>(DemoCertificates.generate(dir.resolve("certs"), List.of("ctl-1", "sn-1")));
    certs.putAll(DemoCertificates.generateOperators(dir.resolve("certs"), List.of("operator")));
    TlsFiles ctl = certs.get("ctl-1");
    int hazelcast = FreePort.belowEphemeralRange();
    String yaml = "listen: 127.0.0.1:0\n"
        + "token: tls-test-token\n"
        + "tls: { certificate: \"" + ctl.certificateChain() + "\", private-key: \"" + ctl.privateKey()
        + "\", trusted: \"" + ctl.trustedCertificates() + "\" }\n"
        + "operator-ca: \"" + certs.get("operator").trustedCertificates() + "\"\n"
        + "hazelcast: { cluster-name: cli-tls-test-" + ProcessHandle.current().pid() + ", port: " + hazelcast + ", join-wait: 0s }\n";
    controller = new Controller(ControllerConfig.from(ConfigTree.parse(yaml, "test"), "ctl-1", "dc"), null,
        new SimpleMeterRegistry()).start();
    address = "127.0.0.1:" + controller.grpcAddress().getPort();
  }

  @AfterAll
  static void stop() {
    if (controller != null) {
      controller.close();
    }
  }

  private static CliRun cli(Map<String, String> env, String... args) {
    return CliRun.run(ControllerConnector.grpc(), env, new AtomicBoolean(), args);
  }

  @Test
  void tokenOverTls() {
    CliRun r = cli(Map.of("TCPOPT_TLS_CA", certs.get("ctl-1").trustedCertificates().toString(), "TCPOPT_TOKEN", "tls-test-token"),
        "nodes", "--controller", address);
    assertEquals(0, r.exitCode(), r.err());
    assertTrue(r.out().contains("ctl-1"), r.out());
  }

  @Test
  void clientCertificateOverTls() {
    TlsFiles op = certs.get("operator");
    CliRun r = cli(Map.of(), "status", "--controller", address, "--tls-ca", certs.get("ctl-1").trustedCertificates().toString(),
        "--tls-cert", op.certificateChain().toString(), "--tls-key", op.privateKey().toString());
    assertEquals(0, r.exitCode(), r.err());
    assertTrue(r.out().contains("Controller:  ctl-1"), r.out());
  }

  @Test
  void aNodeCertificateIsNoOperator() {
    TlsFiles node = certs.get("sn-1");
    CliRun r = cli(Map.of(), "status", "--controller", address, "--tls-ca", node.trustedCertificates().toString(),
        "--tls-cert", node.certificateChain().toString(), "--tls-key", node.privateKey().toString());
    assertEquals(1, r.exitCode(), r.out());
    assertTrue(r.err().contains("may only register, heartbeat and watch as itself"), r.err());
  }

  @Test
  void tlsWithoutCredentialsIsRefused() {
    CliRun r = cli(Map.of(), "status", "--controller", address, "--tls-ca", certs.get("ctl-1").trustedCertificates().toString());
    assertEquals(1, r.exitCode());
    assertTrue(r.errorLine().startsWith("tcpopt: controller refused the credentials"), r.err());
  }

  @Test
  void plaintextAgainstTlsFailsWithOneLine() {
    CliRun r = cli(Map.of(), "status", "--controller", address, "--token", "tls-test-token");
    assertEquals(1, r.exitCode());
    assertEquals("tcpopt: controller at " + address
        + " closed the connection without an answer; if it serves TLS (controller.tls), give --tls-ca (TCPOPT_TLS_CA)", r.errorLine());
  }

  @Test
  void aControllerCertificateFromAnotherCaIsNamedAsSuch() {
    TlsFiles op = certs.get("operator");
    Path otherCa = DemoCertificates.generate(dir.resolve("other"), List.of("ctl-1")).get("ctl-1").trustedCertificates();
    CliRun r = cli(Map.of(), "status", "--controller", address, "--tls-ca", otherCa.toString(),
        "--tls-cert", op.certificateChain().toString(), "--tls-key", op.privateKey().toString());
    assertEquals(1, r.exitCode(), r.out());
    assertTrue(r.errorLine().startsWith("tcpopt: TLS with controller at " + address + " failed: the peer's certificate does not chain to a CA in --tls-ca "
        + otherCa + " ("), r.err());
  }

  @Test
  void aKeyOfAnotherCertificateIsNamedBeforeConnecting() {
    CliRun r = cli(Map.of(), "status", "--controller", address, "--tls-ca", certs.get("ctl-1").trustedCertificates().toString(),
        "--tls-cert", certs.get("operator").certificateChain().toString(), "--tls-key", certs.get("sn-1").privateKey().toString());
    assertEquals(1, r.exitCode(), r.out());
    assertTrue(r.errorLine().startsWith("tcpopt: cannot load TLS files for the controller connection: " + certs.get("sn-1").privateKey()
        + ": does not match the certificate "), r.err());
  }

  @Test
  void certificateWithoutKeyIsAUsageError() {
    CliRun r = cli(Map.of(), "status", "--controller", address, "--tls-ca", certs.get("ctl-1").trustedCertificates().toString(),
        "--tls-cert", certs.get("operator").certificateChain().toString());
    assertEquals(2, r.exitCode());
    assertEquals("tcpopt: give both --tls-cert and --tls-key, or neither", r.errorLine());
  }
}
