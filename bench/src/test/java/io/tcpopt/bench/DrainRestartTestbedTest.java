package io.tcpopt.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drain and restart for an upgrade, on the namespace testbed (20 ms, 20 Mbit/s, so the long
 * transfers below last tens of seconds) with the example nodes from the packaged jar, as
 * docs/operations.md ("Upgrade", "Drain a node") tells an operator to do it:
 *
 * <ol>
 *   <li>Optimized flows are running: a 24 MB download and a 24 MB upload (SHA-256 checked at the
 *       receiver; held to 320 KB/s until the drain has been checked, so they surely outlast it on
 *       a loaded machine) and two held echo flows; the DC node holds their server legs.
 *   <li>{@code tcpopt drain branch-1} (the CLI, in the branch namespace): the node reports draining;
 *       a new download goes direct (byte-exact, the node opens no flow for it: its {@code
 *       tcpopt_flows_opened_total} does not move) and two new held echo flows go direct too.
 *   <li>The running transfers finish byte-exact, the held optimized flows still echo and close;
 *       {@code tcpopt drain} then reports the node empty and exits 0.
 *   <li>The branch node is restarted (SIGTERM, start again): the flows that began during the drain
 *       survive it (they still echo afterwards: no flow lost), and a new download is optimized
 *       again, byte-exact.
 * </ol>
 *
 * <p>Needs Linux, root, network namespaces, TUN, gcc, python3, nft and the jar; aborts with the
 * missing piece otherwise.
 */
class DrainRestartTestbedTest {
  private static final Logger log = LoggerFactory.getLogger(DrainRestartTestbedTest.class);
  private static final String PREFIX = "tcpopt-drain-" + ProcessHandle.current().pid() + "-";
  private static final String TOKEN = "drain-restart-token";
  private static final int ECHO_PORT = 5202;
  private static final long LONG_BYTES = 24_000_000L;
  private static final Pattern RESULT = Pattern.compile("RESULT id=(\\d+) mode=(\\w) outcome=(\\S+) bytes=(\\d+) sha=(\\S+) ms=\\d+");
  private static final Pattern SENT = Pattern.compile("(?:SENT|UPLOAD) id=(\\d+) (?:outcome=(\\S+) )?bytes=(\\d+) sha=(\\S+)");

  private final TestbedRun run = TestbedRun.open(PREFIX);

  @TempDir Path dir;

  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void aDrainedNodeLetsItsFlowsFinishSendsNewOnesDirectAndIsRestartedWithoutLosingAFlow() throws Exception {
    try (run) {
      TestbedPrerequisites.require("drain and restart", "namespaces, TUN devices, TPROXY rules", List.of("ip", "gcc", "python3", "ss", "nft"),
          run.bench(), PREFIX + "probe");
      Path jar = run.requireJar("drain and restart");
      run.script(60, Map.of(), "testbed/up.sh", "--rtt", "20", "--rate", "20");
      run.testbedConfigs(dir, TOKEN);
      run.keepLogs(dir, "drain-restart");
      run.start(run.ns("server"), dir.resolve("echo-server.log"), "java", TestbedRun.QUICK_JVM, "-cp", run.testClasses(),
          "io.tcpopt.bench.EchoDigestTool", "server", TestbedRun.SERVER, Integer.toString(ECHO_PORT));
      TestbedRun.Pair pair = run.startPair(dir, "io.tcpopt.bench.TransferDigestTool", "-Xmx256m");
      long started = System.nanoTime();

      // 1. Optimized flows running: two long transfers and two held echo flows.
      Path hold = dir.resolve("long-transfers-full-speed");
      Process download = transfer("long-download", "D", LONG_BYTES, 1, hold.toString());
      Process upload = transfer("long-upload", "U", LONG_BYTES, 2, hold.toString());
      Held before = hold("held-before", 2);
      assertEquals(List.of("ok", "ok"), before.outcomes(), "two echo flows held");
      awaitTrue(() -> dcServerLegs() == 4, 30, () -> "the two transfers and two held flows optimized (the DC holds 4 server legs): " + dcServerLegs());
      assertTrue(download.isAlive() && upload.isAlive(), "the long transfers still run when the drain is ordered; make them longer");
      String metrics = run.metrics("branch");
      double openedBefore = TestbedRun.metric(metrics, "tcpopt_flows_opened_total");
      assertEquals(4, TestbedRun.metric(metrics, "tcpopt_flows_opened_total", "kind=\"optimized\""), metrics);

      // 2. The operator drains the branch node.
      Path drainLog = dir.resolve("drain-cli.log");
      Process drain = run.start(run.ns("branch"), drainLog, "java", TestbedRun.QUICK_JVM, "-jar", jar.toString(), "drain", "branch-1",
          "--timeout", "120", "--token", TOKEN);
      long ordered = System.nanoTime();
      awaitTrue(() -> TestbedRun.metric(run.metrics("branch"), "tcpopt_flows_draining") == 1, 90, () -> "the branch node draining:\n" + TestbedRun.read(drainLog));
      log.info("drain ordered: the node reports draining after {} ms", (System.nanoTime() - ordered) / 1_000_000);
      assertTrue(download.isAlive() && upload.isAlive(), "the long transfers still run during the drain; make them longer");

      Process direct = transfer("direct-download", "D", 4_000_000, 3);
      assertTrue(direct.waitFor(60, TimeUnit.SECONDS), "a new download during the drain hangs");
      assertIntact("direct-download", 3);
      Held during = hold("held-during", 2);
      assertEquals(List.of("ok", "ok"), during.outcomes(), "two echo flows opened during the drain");
      assertEquals(openedBefore, TestbedRun.metric(run.metrics("branch"), "tcpopt_flows_opened_total"),
          "the flows begun during the drain never reached the node (direct through the kernel)");

      // 3. The running flows finish; the drain reports the node empty.
      Files.createFile(hold);
      assertTrue(download.waitFor(120, TimeUnit.SECONDS) && upload.waitFor(60, TimeUnit.SECONDS), "the long transfers finish during the drain");
      assertIntact("long-download", 1);
      assertIntact("long-upload", 2);
      assertEquals(2, before.release(), "the echo flows held from before the drain still echo");
      assertTrue(drain.waitFor(60, TimeUnit.SECONDS), () -> "tcpopt drain did not report the node empty:\n" + TestbedRun.read(drainLog));
      String drained = TestbedRun.read(drainLog);
      log.info("tcpopt drain output ({} ms after the order):\n{}", (System.nanoTime() - ordered) / 1_000_000, drained.strip());
      assertEquals(0, drain.exitValue(), drained);
      assertTrue(drained.contains("branch-1: drained, 0 flow(s) active"), drained);

      // 4. Restart for an upgrade: the flows begun during the drain live on; new flows are optimized again.
      pair.branch().destroy();
      assertTrue(pair.branch().waitFor(30, TimeUnit.SECONDS), "the branch node stops on SIGTERM");
      long stopped = System.nanoTime();
      Path againLog = dir.resolve("branch-restarted.log");
      Process again = run.startNode("branch", pair.branchConfig(), againLog, "-Xmx256m");
      run.awaitPairReady(again, againLog, pair.dc(), pair.serverLog());
      log.info("branch node restarted: ready {} ms after it stopped", (System.nanoTime() - stopped) / 1_000_000);
      assertEquals(0, TestbedRun.metric(run.metrics("branch"), "tcpopt_flows_draining"), "a restarted node is not draining");
      assertEquals(2, during.release(), "the flows begun during the drain survived the node's restart");

      Process after = transfer("after-restart", "D", 4_000_000, 4);
      assertTrue(after.waitFor(60, TimeUnit.SECONDS), "a download after the restart hangs");
      assertIntact("after-restart", 4);
      assertEquals(1, TestbedRun.metric(run.metrics("branch"), "tcpopt_flows_opened_total", "kind=\"optimized\""),
          "the download after the restart is optimized");
      log.info("drain and restart: {} s in all", (System.nanoTime() - started) / 1_000_000_000);
    }
  }

  /** A transfer from the client; {@code hold}: the transfer's file argument (slow until that file exists). */
  private Process transfer(String name, String mode, long bytes, long id, String... hold) throws Exception {
    List<String> argv = new ArrayList<>(List.of("java", TestbedRun.QUICK_JVM, "-cp", run.testClasses(), "io.tcpopt.bench.TransferDigestTool",
        "client", TestbedRun.SERVER, Integer.toString(TestbedRun.SERVER_PORT), mode, Long.toString(bytes), Long.toString(id)));
    argv.addAll(List.of(hold));
    return run.start(run.ns("client"), dir.resolve(name + ".log"), argv.toArray(String[]::new));
  }

  /** The transfer's receiver got every byte: the client's RESULT and the server's line agree on count and SHA-256, a clean end. */
  private void assertIntact(String name, long id) {
    String client = TestbedRun.read(dir.resolve(name + ".log")).strip();
    Matcher c = RESULT.matcher(client);
    assertTrue(c.matches() && c.group(3).equals("eof"), name + ": " + client);
    Matcher s = TestbedRun.read(dir.resolve("server.log")).lines().map(SENT::matcher)
        .filter(m -> m.matches() && m.group(1).equals(Long.toString(id))).findFirst().orElse(null);
    assertTrue(s != null && (s.group(2) == null || s.group(2).equals("eof")), name + ": the server's line for id " + id);
    assertEquals(s.group(3) + " " + s.group(4), c.group(4) + " " + c.group(5), name + " byte-exact (bytes and SHA-256 at both ends)");
  }

  /** A running {@link HoldFlowsTool} with the outcome of each flow it opened. */
  private record Held(Process process, Path log, List<String> outcomes) {
    /** Lets the flows go; returns how many still echoed just before. */
    int release() throws Exception {
      OutputStream in = process.getOutputStream();
      in.write("release\n".getBytes(StandardCharsets.US_ASCII));
      in.flush();
      assertTrue(process.waitFor(30, TimeUnit.SECONDS), "the flow holder ends");
      return TestbedRun.read(log).lines().filter(l -> l.startsWith("STILL ")).mapToInt(l -> Integer.parseInt(l.substring(6))).findFirst()
          .orElse(-1);
    }
  }

  /** Opens {@code count} echo flows from the client and holds them. */
  private Held hold(String name, int count) throws Exception {
    Path l = dir.resolve(name + ".log");
    Process p = run.start(run.ns("client"), l, "java", TestbedRun.QUICK_JVM, "-cp", run.testClasses(), "io.tcpopt.bench.HoldFlowsTool",
        TestbedRun.SERVER, Integer.toString(ECHO_PORT), "198.18.1.2", Integer.toString(count));
    awaitTrue(() -> TestbedRun.read(l).contains("HELD ") || !p.isAlive(), 60, () -> "the flow holder " + name + ":\n" + TestbedRun.read(l));
    return new Held(p, l, TestbedRun.read(l).lines().filter(x -> x.startsWith("FLOW ")).map(x -> x.split(" ")[2]).toList());
  }

  /** Established connections from the DC node to the server's two ports: the optimized flows' server legs. */
  private long dcServerLegs() throws Exception {
    return run.inNs(run.ns("dc"), 20, Map.of(), "ss", "-Htn", "state", "established", "dst", TestbedRun.SERVER).stdout().lines()
        .filter(l -> !l.isBlank()).count();
  }

  /** Polls every 250 ms (a check may run a command in a namespace) for at most {@code seconds}. */
  private static void awaitTrue(TestbedRun.Check condition, int seconds, TestbedRun.Explanation what) throws Exception {
    TestbedRun.awaitTrue(condition, seconds, 250, what);
  }
}
