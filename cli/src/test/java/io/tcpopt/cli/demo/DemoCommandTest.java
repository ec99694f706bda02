package io.tcpopt.cli.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.cli.CliRun;
import io.tcpopt.cli.operator.ControllerConnector;
import org.junit.jupiter.api.Test;

/** {@code tcpopt demo --duration}: prints an optimized flow and exits 0. */
class DemoCommandTest {
  @Test
  void demoPrintsAnOptimizedFlowAndExitsZero() {
    CliRun r = CliRun.run(ControllerConnector.grpc(), "demo", "--duration", "1", "--size", "2MiB");
    assertEquals(0, r.exitCode(), r.err());
    assertTrue(r.out().contains("SHA-256 matches"), r.out());
    String flows = r.out().substring(r.out().indexOf("$ tcpopt flows\n"), r.out().indexOf("$ tcpopt flows --closed"));
    assertTrue(flows.lines().anyMatch(l -> l.contains("tcp-optimization") && l.contains("optimized")), flows);
    assertTrue(r.out().contains("* stopping"), r.out());
  }

  @Test
  void badDurationIsAUsageError() {
    CliRun r = CliRun.run(ControllerConnector.grpc(), "demo", "--duration", "soon");
    assertEquals(2, r.exitCode());
    assertEquals("tcpopt: --duration: expected e.g. 20, 20s or 2m, got \"soon\"", r.errorLine());
  }
}
