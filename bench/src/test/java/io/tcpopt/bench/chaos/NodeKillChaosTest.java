package io.tcpopt.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.bench.TestbedPrerequisites;
import io.tcpopt.bench.TestbedRun;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chaos scenario 1 (issue 8): SIGKILL of the branch node in the middle of an optimized transfer.
 * No shutdown hook runs; what removes the interception is the kernel (the nftables table the node
 * owned through its {@code nft} child) and the node's exit guard (the policy routing rule and
 * route). Asserted: a new client connection reaches the server within 1 s of the kill, no tcpopt
 * table, rule or route is left, the interrupted transfer ends (never hangs), and a restarted node
 * optimizes again.
 *
 * <p>The testbed (20 ms RTT, 100 Mbit/s) with the example nodes from the packaged jar: the
 * integrated branch (transparent interception) and the DC. Needs Linux, root, network namespaces,
 * TUN, gcc, python3, nft and the jar; aborts with the missing piece otherwise.
 */
class NodeKillChaosTest {
  private static final Logger log = LoggerFactory.getLogger(NodeKillChaosTest.class);
  /** Unique per JVM, so two suites running at once on one machine never share a testbed. */
  private static final String PREFIX = "tcpopt-chaos-" + ProcessHandle.current().pid() + "-";
  private static final String TOKEN = "chaos-kill-token";
  private static final Pattern REACHED = Pattern.compile("REACHED ms=(\\d+) attempts=(\\d+)");
  private static final long TRANSFER_BYTES = 200_000_000L;

  private final TestbedRun run = TestbedRun.open(PREFIX);

  @TempDir Path dir;

  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void aKilledBranchNodeLeavesTheWireWorkingAndARestartOptimizesAgain() throws Exception {
    try (run) {
      TestbedPrerequisites.require("chaos scenario 1", "namespaces, TUN devices, TPROXY rules",
          List.of("ip", "gcc", "python3", "ss", "nft"), run.bench(), PREFIX + "probe");
      Path jar = run.requireJar("chaos scenario 1");
      run.script(60, Map.of(), "testbed/up.sh", "--rtt", "20", "--rate", "100");
      Path branchConfig = run.testbedConfigs(dir, TOKEN);
      String client = run.ns("client");
      String branchNs = run.ns("branch");

      Path serverLog = dir.resolve("server.log");
      run.start(run.ns("server"), serverLog, "java", TestbedRun.QUICK_JVM, "-cp", testClasses(), "io.tcpopt.bench.EchoDigestTool",
          "server", "198.19.1.2", "5201", "9000");
      Process dc = run.start(run.ns("dc"), dir.resolve("dc.log"), "java", "-Xmx256m", "-jar", jar.toString(), "run", "--config",
          dir.resolve("dc.yaml").toString());
      Path branchLog = dir.resolve("branch.log");
      Process branch = startBranch(jar, branchConfig, branchLog);
      run.awaitPairReady(branch, branchLog, dc, serverLog);
      assertTrue(ruleset(branchNs).contains("flags owner"), "the branch's table is kernel-owned:\n" + ruleset(branchNs));

      // An optimized transfer in flight: the DC node holds its server leg (the server sees the
      // client's address either way: the examples keep it).
      Path transferLog = dir.resolve("transfer.log");
      Process transfer = run.start(client, transferLog, "java", TestbedRun.QUICK_JVM, "-cp", testClasses(),
          "io.tcpopt.bench.EchoDigestTool", "client", "198.19.1.2", "5201", "1", Long.toString(TRANSFER_BYTES));
      awaitLine(serverLog, l -> l.startsWith("CONN port=5201 "), 30, "the transfer reaches the server");
      awaitTrue(() -> !run.inNs(run.ns("dc"), 10, Map.of(), "ss", "-Htn", "state", "established", "dst", "198.19.1.2:5201")
          .stdout().isBlank(), 10, "the transfer reaches the server through the DC node's socket");
      Thread.sleep(1000);
      assertTrue(transfer.isAlive(), "the transfer is still running when the node is killed");

      Process probe = new ProcessBuilder("ip", "netns", "exec", client, "java", TestbedRun.QUICK_JVM, "-cp", testClasses(),
          ReachProbe.class.getName(), "198.19.1.2", "9000", "10000").redirectErrorStream(true).start();
      BufferedReader probeOut = new BufferedReader(new InputStreamReader(probe.getInputStream(), StandardCharsets.UTF_8));
      try {
        assertEquals("WAITING", probeOut.readLine());
        branch.destroyForcibly(); // SIGKILL: `ip netns exec` execs the JVM itself
        OutputStream go = probe.getOutputStream();
        go.write("go\n".getBytes(StandardCharsets.US_ASCII));
        go.flush();
        String reached = probeOut.readLine();
        log.info("after SIGKILL of the branch node: {}", reached);
        Matcher m = REACHED.matcher(reached == null ? "" : reached);
        assertTrue(m.matches(), "a new connection never got through: " + reached);
        assertTrue(Long.parseLong(m.group(1)) <= 1000, "a new connection needed " + m.group(1) + " ms (limit 1000): " + reached);
      } finally {
        probe.destroyForcibly();
      }
      assertTrue(branch.waitFor(10, TimeUnit.SECONDS));

      // Nothing of the dead node is left in the branch namespace (the guard runs within milliseconds).
      awaitTrue(() -> !ruleset(branchNs).contains("tcpopt"), 2, () -> "tcpopt nftables table gone:\n" + ruleset(branchNs));
      awaitTrue(() -> !run.inNs(branchNs, 10, Map.of(), "ip", "rule", "show").stdout().contains("fwmark"), 2, "ip rule gone");
      awaitTrue(() -> run.inNs(branchNs, 10, Map.of(), "ip", "route", "show", "table", "100").stdout().isBlank(), 2, "route gone");

      // The interrupted transfer ends (reset or short), it does not hang or claim success.
      assertTrue(transfer.waitFor(40, TimeUnit.SECONDS), "the interrupted transfer hangs:\n" + TestbedRun.read(transferLog));
      assertTrue(TestbedRun.read(transferLog).contains("DONE ok=0 failed=1"), TestbedRun.read(transferLog));

      // A restarted node installs its interception again and optimizes new flows.
      long restart = System.nanoTime();
      Path againLog = dir.resolve("branch-again.log");
      Process again = startBranch(jar, branchConfig, againLog);
      run.awaitPairReady(again, againLog, dc, serverLog);
      log.info("restarted branch node ready (listening, session to the DC) in {} ms", (System.nanoTime() - restart) / 1_000_000);
      long viaDcBefore = connectionsFromDc(serverLog, Set.of());
      TestbedRun.Result flows = run.inNs(client, 60, Map.of(), "java", TestbedRun.QUICK_JVM, "-cp", testClasses(),
          "io.tcpopt.bench.EchoDigestTool", "client", "198.19.1.2", "5201", "2", "262144");
      assertTrue(flows.stdout().contains("DONE ok=2 failed=0"), flows.stdout() + flows.stderr());
      Set<String> clientSockets = new HashSet<>();
      for (String line : flows.stdout().lines().filter(l -> l.startsWith("FLOW")).toList()) {
        Matcher digests = Pattern.compile("local=(\\S+) sent=([0-9a-f]{64}) received=([0-9a-f]{64})").matcher(line);
        assertTrue(digests.find() && digests.group(2).equals(digests.group(3)), line);
        clientSockets.add(digests.group(1));
      }
      awaitTrue(() -> connectionsFromDc(serverLog, clientSockets) == viaDcBefore + 2, 10,
          () -> "both new flows are optimized (reach the server from the DC node's socket, not the client's):\n" + TestbedRun.read(serverLog));
    }
  }

  private Process startBranch(Path jar, Path config, Path logFile) throws Exception {
    return run.start(run.ns("branch"), logFile, "java", "-Xmx256m", "-jar", jar.toString(), "run", "--config", config.toString());
  }


  private String ruleset(String ns) throws Exception {
    return run.inNs(ns, 10, Map.of(), "nft", "list", "ruleset").stdout();
  }

  /** Port-5201 connections the DC node made: their remote end is none of {@code clientSockets} (the clients' own). */
  private static long connectionsFromDc(Path serverLog, Set<String> clientSockets) {
    return TestbedRun.read(serverLog).lines().filter(l -> l.startsWith("CONN port=5201 remote=/"))
        .filter(l -> !clientSockets.contains(l.substring(l.indexOf("remote=/") + "remote=/".length())))
        .count();
  }

  private String testClasses() {
    return run.bench().resolve("target/test-classes").toString();
  }

  private static void awaitLine(Path file, java.util.function.Predicate<String> match, int seconds, String what) throws Exception {
    awaitTrue(() -> TestbedRun.read(file).lines().anyMatch(match), seconds, what);
  }

  /** Polls every 20 ms for at most {@code seconds}. */
  static void awaitTrue(Check condition, int seconds, String what) throws Exception {
    awaitTrue(condition, seconds, () -> what);
  }

  /** As above, {@code what} computed only on failure (e.g. a log read then). */
  static void awaitTrue(Check condition, int seconds, Explanation what) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (!condition.holds()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + seconds + " s: " + what.text());
      }
      Thread.sleep(20);
    }
  }

  /** A failure message that may run commands. */
  interface Explanation {
    String text() throws Exception;
  }

  /** A condition that may run commands. */
  interface Check {
    boolean holds() throws Exception;
  }
}
