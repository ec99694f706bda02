package io.tcpopt.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.cli.operator.ControllerConnector;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class MainTest {
  private static final ControllerConnector UNUSED = target -> {
    throw new AssertionError("must not connect");
  };

  /** The node turns Netty's leak detection off unless either of Netty's properties asks for a level. */
  @Test
  void leakDetectionIsOffUnlessAskedFor() {
    String level = System.getProperty("io.netty.leakDetection.level");
    String legacy = System.getProperty("io.netty.leakDetectionLevel");
    try {
      System.clearProperty("io.netty.leakDetection.level");
      System.clearProperty("io.netty.leakDetectionLevel");
      Main.leakDetectionOffByDefault();
      assertEquals("disabled", System.getProperty("io.netty.leakDetection.level"));

      System.setProperty("io.netty.leakDetection.level", "paranoid");
      Main.leakDetectionOffByDefault();
      assertEquals("paranoid", System.getProperty("io.netty.leakDetection.level"));

      System.clearProperty("io.netty.leakDetection.level");
      System.setProperty("io.netty.leakDetectionLevel", "simple");
      Main.leakDetectionOffByDefault();
      assertNull(System.getProperty("io.netty.leakDetection.level"), "the legacy property stays in force");
    } finally {
      restore("io.netty.leakDetection.level", level);
      restore("io.netty.leakDetectionLevel", legacy);
    }
  }

  private static void restore(String property, String value) {
    if (value == null) {
      System.clearProperty(property);
    } else {
      System.setProperty(property, value);
    }
  }

  @Test
  void noCommandIsAUsageError() {
    CliRun r = CliRun.run(UNUSED);
    assertEquals(2, r.exitCode());
    assertEquals("tcpopt: a command is required (see 'tcpopt --help')", r.errorLine());
  }

  @Test
  void unknownOptionIsOneLineAndExitTwo() {
    CliRun r = CliRun.run(UNUSED, "flows", "--bogus");
    assertEquals(2, r.exitCode());
    assertTrue(r.errorLine().contains("Unknown option: '--bogus'"), r.err());
  }

  @Test
  void badControllerAddressIsAUsageError() {
    CliRun r = CliRun.run(UNUSED, "status", "--controller", "nowhere");
    assertEquals(2, r.exitCode());
    assertEquals("tcpopt: --controller: expected HOST:PORT, got \"nowhere\"", r.errorLine());
  }

  @Test
  void controllerAndTokenComeFromTheEnvironmentUnlessGiven() {
    AtomicReference<String> seen = new AtomicReference<>();
    ControllerConnector capture = target -> {
      seen.set(target + " " + target.token());
      throw new CliException("stop here");
    };
    Map<String, String> env = Map.of("TCPOPT_CONTROLLER", "127.0.0.9:7711", "TCPOPT_TOKEN", "s3cret");
    CliRun r = CliRun.run(capture, env, new AtomicBoolean(), "nodes");
    assertEquals(1, r.exitCode());
    assertEquals("127.0.0.9:7711 s3cret", seen.get());
    CliRun.run(capture, env, new AtomicBoolean(), "nodes", "--controller", "127.0.0.1:7000", "--token", "other");
    assertEquals("127.0.0.1:7000 other", seen.get());
    CliRun.run(capture, Map.of(), new AtomicBoolean(), "nodes");
    assertEquals("127.0.0.1:7700 null", seen.get());
  }

  @Test
  void unexpectedErrorsAreOneLineWithoutStackTrace() {
    ControllerConnector broken = target -> {
      throw new IllegalStateException("boom");
    };
    CliRun r = CliRun.run(broken, "status");
    assertEquals(1, r.exitCode());
    assertTrue(r.errorLine().startsWith("tcpopt: internal error: java.lang.IllegalStateException: boom"), r.err());
  }

  @Test
  void certsWritesACaAndOneCertificatePerNode(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
    CliRun r = CliRun.run(UNUSED, "certs", "--out", dir.toString(), "--nodes", "branch-1,dc-1");
    assertEquals(0, r.exitCode(), r.err());
    for (String file : new String[] {"ca.crt", "branch-1.crt", "branch-1.key", "dc-1.crt", "dc-1.key"}) {
      assertTrue(java.nio.file.Files.isRegularFile(dir.resolve(file)), file + " missing: " + r.out());
    }
    CliRun bad = CliRun.run(UNUSED, "certs", "--out", dir.toString(), "--nodes", "not a name");
    assertEquals(2, bad.exitCode());
    bad.errorLine();

    // Operators get their own CA: a controller tells them from nodes by it.
    CliRun ops = CliRun.run(UNUSED, "certs", "--out", dir.toString(), "--operators", "alice");
    assertEquals(0, ops.exitCode(), ops.err());
    assertTrue(ops.out().contains("operator CA (controller.operator-ca) " + dir.resolve("operator-ca.crt")), ops.out());
    assertTrue(java.nio.file.Files.isRegularFile(dir.resolve("alice.crt")));
    assertEquals(2, CliRun.run(UNUSED, "certs", "--out", dir.toString()).exitCode(), "nodes or operators are required");
    assertEquals(2, CliRun.run(UNUSED, "certs", "--out", dir.toString(), "--nodes", "x", "--operators", "x").exitCode());
  }

  @Test
  void helpGoesToStdoutAndListsTheCommands() {
    CliRun r = CliRun.run(UNUSED, "--help");
    assertEquals(0, r.exitCode());
    for (String command : new String[] {"run", "demo", "status", "flows", "nodes", "policy", "certs"}) {
      assertTrue(r.out().contains("  " + command + " "), command + " missing from " + r.out());
    }
  }
}
