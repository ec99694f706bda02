package io.tcpopt.cli.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.cli.CliRun;
import io.tcpopt.cli.operator.ControllerConnector;
import io.tcpopt.common.net.FreePort;
import io.tcpopt.common.tls.DemoCertificates;
import io.tcpopt.common.tls.TlsFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code run --config} of an integrated node: serves the API with the bootstrap policy, stops cleanly. */
class RunCommandTest {
  @TempDir Path dir;

  @Test
  void integratedNodeRunsWithBootstrapPolicyAndStopsCleanly() throws Exception {
    TlsFiles tls = DemoCertificates.generate(dir.resolve("certs"), List.of("branch-9")).get("branch-9");
    int api = FreePort.belowEphemeralRange();
    Path config = dir.resolve("branch.yaml");
    Files.writeString(config, "node: { name: branch-9, site: branch, roles: [controller, service-node] }\n"
        + "service-node:\n"
        + "  wan:\n"
        + "    listen: 127.0.0.1:0\n"
        + "    tls: { certificate: \"" + tls.certificateChain() + "\", private-key: \"" + tls.privateKey()
        + "\", trusted: \"" + tls.trustedCertificates() + "\" }\n"
        + "policy:\n"
        + "  prefix-lists: { ANY: [0.0.0.0/0] }\n"
        + "  service-node-groups: { SNG: { site: branch } }\n"
        + "  data-policy:\n"
        + "    name: bootstrap-test\n"
        + "    sequences: [ { seq: 1, match: { destination-prefix-list: ANY }, action: pass-through } ]\n"
        + "    default-action: pass-through\n"
        + "controller:\n"
        + "  listen: 127.0.0.1:" + api + "\n"
        + "  hazelcast: { cluster-name: run-test-" + ProcessHandle.current().pid() + ", port: " + FreePort.belowEphemeralRange() + ", join-wait: 0s }\n"
        + "metrics: { listen: 127.0.0.1:0 }\n");
    AtomicBoolean stop = new AtomicBoolean();
    CompletableFuture<CliRun> node = CompletableFuture.supplyAsync(
        () -> CliRun.run(ControllerConnector.grpc(), Map.of(), stop, "run", "--config", config.toString()));
    String controller = "--controller=127.0.0.1:" + api;
    CliRun status = null;
    for (int i = 0; i < 300 && !node.isDone(); i++) {
      status = CliRun.run(ControllerConnector.grpc(), "status", controller);
      if (status.exitCode() == 0 && status.out().contains("bootstrap-test")) {
        break;
      }
      Thread.sleep(100);
    }
    try {
      assertTrue(status != null && status.out().contains("Policy:      bootstrap-test (version 1)"),
          status == null ? "node exited: " + node.get().err() : status.out() + status.err());
      CliRun nodes = CliRun.run(ControllerConnector.grpc(), "nodes", controller);
      assertTrue(nodes.out().lines().anyMatch(l -> l.matches("branch-9\\s+branch\\s+controller,service-node\\s.*")), nodes.out());
    } finally {
      stop.set(true);
    }
    CliRun result = node.get(30, TimeUnit.SECONDS);
    assertEquals(0, result.exitCode(), result.err());
    assertTrue(result.err().contains("tcpopt: node branch-9 running (controller: gRPC 127.0.0.1:" + api), result.err());
    CliRun after = CliRun.run(ControllerConnector.grpc(), "status", controller);
    assertEquals("tcpopt: cannot reach controller at 127.0.0.1:" + api, after.errorLine(), "the API must be closed on stop");
  }
}
