package io.tcpopt.cli.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.cli.CliRun;
import java.net.Socket;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code tcpopt drain} / {@code undrain} against the demo cluster (CLI, controller gRPC, the
 * integrated node): a drained node passes new flows through with the reason, keeps carrying the
 * flow it held, shows the drain in {@code nodes} and {@code status}, reports when it is empty, and
 * optimizes again after {@code undrain}. Every transfer's bytes are checked by SHA-256.
 */
class DrainCommandTest {
  @RegisterExtension
  static final DemoClusterExtension cluster = new DemoClusterExtension();

  private static void echoOnce(Socket s, int b) throws Exception {
    s.getOutputStream().write(b);
    s.getOutputStream().flush();
    assertEquals(b, s.getInputStream().read(), "the held flow still echoes");
  }

  @Test
  void drainPassesNewFlowsThroughLetsTheHeldOneFinishAndUndrainRestores() throws Exception {
    CliRun unknown = cluster.cli("drain", "nobody");
    assertEquals(1, unknown.exitCode());
    assertTrue(unknown.err().contains("no node named \"nobody\" is registered"), unknown.err());

    Socket held = Transfer.openEcho(cluster.demo().listener(), Duration.ofSeconds(30));
    echoOnce(held, 1);
    CliRun ordered = cluster.cli("drain", "branch-1", "--no-wait");
    assertEquals(0, ordered.exitCode(), ordered.err());
    assertEquals("branch-1: drain ordered, 1 flow(s) active\n", ordered.out());
    assertTrue(cluster.cli("nodes").out().lines().anyMatch(l -> l.startsWith("branch-1") && l.contains("RUNNING") && l.contains(", draining")),
        cluster.cli("nodes").out());
    assertTrue(cluster.cli("nodes", "-o", "json").out().contains("\"draining\": true"));
    assertTrue(cluster.cli("status").out().contains("healthy, draining"), cluster.cli("status").out());

    Transfer.Result during = Transfer.download(cluster.demo().listener(), 1L << 20, Duration.ofSeconds(30), n -> {});
    assertTrue(during.digestMatches(), "a new flow while draining passes through intact");
    CliRun closed = cluster.cli("flows", "--closed", "-o", "json");
    assertTrue(closed.out().contains("pass-through: node draining"), closed.out());
    echoOnce(held, 2);

    CliRun notYet = cluster.cli("drain", "branch-1", "--timeout", "1", "--interval", "0.1");
    assertEquals(1, notYet.exitCode());
    assertTrue(notYet.err().contains("branch-1 still holds 1 flow(s) after 1 s; it stays draining"), notYet.err());

    held.close();
    CliRun drained = cluster.cli("drain", "branch-1", "--timeout", "30", "--interval", "0.1");
    assertEquals(0, drained.exitCode(), drained.err());
    assertTrue(drained.out().endsWith("branch-1: drained, 0 flow(s) active\n"), drained.out());

    CliRun undrain = cluster.cli("undrain", "branch-1");
    assertEquals(0, undrain.exitCode(), undrain.err());
    assertEquals("branch-1: undrain ordered, taking new flows\n", undrain.out());
    assertTrue(cluster.cli("nodes").out().lines().noneMatch(l -> l.contains("draining")));
    Transfer.Result after = Transfer.download(cluster.demo().listener(), 1L << 20, Duration.ofSeconds(30), n -> {});
    assertTrue(after.digestMatches());
    CliRun last = cluster.cli("flows", "--closed", "-o", "json");
    assertTrue(last.out().lastIndexOf("\"services\": \"tcp-optimization\"") > last.out().lastIndexOf("node draining"),
        "optimized again after undrain: " + last.out());
  }
}
