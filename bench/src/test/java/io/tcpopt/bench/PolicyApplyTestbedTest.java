package io.tcpopt.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.abort;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
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
 * Issue 3's last "must show": {@code tcpopt policy apply -f deploy/examples/policy.yaml} against
 * the testbed pair changes which flows are optimized, visible in the flow table.
 *
 * <p>Builds the namespace testbed ({@code bench/testbed/up.sh}, prefix {@code tcpopt-pol-<pid>-}, 20 ms
 * RTT), runs the example nodes {@code deploy/examples/testbed/branch.yaml} (integrated: controller
 * + service node, transparent interception) and {@code dc.yaml} from the packaged jar, with their
 * certificate and token paths pointed at a temporary directory, and an echo server on a bulk port
 * (5201) and an interactive one (9000). Under the bootstrap policy flows to both ports are
 * optimized; after {@code policy apply} (run inside the branch namespace, like an operator would)
 * new flows to 9000 pass through with the policy's reason while 5201 stays optimized. Every flow's
 * bytes are checked with SHA-256 both ways; the flow table is read with {@code tcpopt flows
 * --closed -o json}.
 *
 * <p>Needs Linux, root, network namespaces, /dev/net/tun, gcc, python3 (the testbed scripts) and
 * the packaged jar ({@code cli/target/tcpopt.jar} or {@code -Dtcpopt.jar=PATH}); aborts with the
 * missing piece otherwise. Processes and namespaces are removed in {@code finally} and by a
 * shutdown hook.
 */
class PolicyApplyTestbedTest {
  private static final Logger log = LoggerFactory.getLogger(PolicyApplyTestbedTest.class);
  /** Unique per JVM, so two suites running at once on one machine never share a testbed. */
  private static final String PREFIX = "tcpopt-pol-" + ProcessHandle.current().pid() + "-";
  private static final String CLIENT = PREFIX + "client";
  private static final String BRANCH = PREFIX + "branch";
  private static final String DC = PREFIX + "dc";
  private static final String SERVER = PREFIX + "server";
  private static final int BULK_PORT = 5201;
  private static final int INTERACTIVE_PORT = 9000;
  private static final int FLOWS_PER_PORT = 2;
  private static final int FLOW_BYTES = 256 * 1024;
  private static final String TOKEN = "policy-apply-test-token";
  private static final String QUICK_JVM = TestbedRun.QUICK_JVM;
  private static final Pattern FLOW_OBJECT = Pattern.compile("\\{[^{}]*\\}");
  private static final Pattern CLIENT_FLOW =
      Pattern.compile("^FLOW port=(\\d+) local=([0-9.]+:\\d+) sent=([0-9a-f]{64}) received=([0-9a-f]{64}) bytes=(\\d+)$");

  private final TestbedRun run = TestbedRun.open(PREFIX);
  private final Path bench = run.bench();
  private final Path repo = run.repo();

  @TempDir Path dir;

  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void applyingThePolicyExamplePassesInteractiveFlowsThroughAndKeepsOptimizingBulk() throws Exception {
    long started = System.nanoTime();
    try (run) {
      Path jar = requirePrerequisites();
      run.script(60, Map.of(), "testbed/up.sh", "--rtt", "20", "--rate", "100");
      Path branchConfig = run.testbedConfigs(dir, TOKEN);

      Path dcLog = dir.resolve("dc.log");
      Path branchLog = dir.resolve("branch.log");
      Process dc = run.start(DC, dcLog, "java", "-Xmx384m", "-jar", jar.toString(), "run", "--config", dir.resolve("dc.yaml").toString());
      Process branch = run.start(BRANCH, branchLog, "java", "-Xmx384m", "-jar", jar.toString(), "run", "--config", branchConfig.toString());
      Path serverLog = dir.resolve("server.log");
      Process server = run.start(SERVER, serverLog, "java", QUICK_JVM, "-cp", bench.resolve("target/test-classes").toString(),
          EchoDigestTool.class.getName(), "server", "198.19.1.2", String.valueOf(BULK_PORT), String.valueOf(INTERACTIVE_PORT));
      awaitReady(branch, branchLog, dc, dcLog, server, serverLog);
      log.info("testbed and nodes ready after {} ms", (System.nanoTime() - started) / 1_000_000);

      // Bootstrap policy: every branch -> DC flow is optimized, whatever the port.
      Map<String, Integer> before = clientFlows();
      Map<String, Flow> table = closedFlows(before.keySet());
      for (String source : before.keySet()) {
        Flow f = table.get(source);
        assertTrue(f.optimized(), () -> "under the bootstrap policy " + source + " should be optimized: " + f);
      }
      Set<String> clientSockets = new HashSet<>(before.keySet());
      int fromDcBefore = connectionsByNode(serverLog, clientSockets);
      assertEquals(before.size(), fromDcBefore, () -> "optimized flows reach the server from the DC node's own socket:\n" + read(serverLog));
      assertEquals(before.size(), serverConnectionsFrom(serverLog, "198.18.1.2"),
          () -> "the server sees the client's own address (client-address transparency in the examples):\n" + read(serverLog));

      TestbedRun.Result apply = cli(60, "policy", "apply", "-f", repo.resolve("deploy/examples/policy.yaml").toString());
      assertEquals(0, apply.exitCode(), () -> "policy apply failed: " + apply.stdout() + apply.stderr());
      log.info("policy apply: {}", apply.stdout().strip());
      TestbedRun.Result get = cli(60, "policy", "get");
      assertTrue(get.stdout().contains("testbed-bulk-only"), () -> "active policy is not the applied one: " + get.stdout() + get.stderr());

      // policy.yaml: bulk stays optimized, interactive passes through with seq 10's reason.
      Map<String, Integer> after = clientFlows();
      table = closedFlows(after.keySet());
      int interactive = 0;
      for (Map.Entry<String, Integer> e : after.entrySet()) {
        Flow f = table.get(e.getKey());
        if (e.getValue() == BULK_PORT) {
          assertTrue(f.optimized(), () -> "bulk flow " + e.getKey() + " should stay optimized: " + f);
        } else {
          interactive++;
          log.info("after apply, {} -> {}: {}", f.source(), f.destination(), f.reason());
          assertTrue(!f.optimized(), () -> "interactive flow " + e.getKey() + " should pass through: " + f);
          assertTrue(f.reason().contains("pass-through: seq 10: pass-through"), f::toString);
        }
      }
      assertEquals(FLOWS_PER_PORT, interactive);
      // Only the new bulk flows came from the DC node; the interactive ones were not carried by it.
      clientSockets.addAll(after.keySet());
      assertEquals(fromDcBefore + FLOWS_PER_PORT, connectionsByNode(serverLog, clientSockets),
          () -> "server connections:\n" + read(serverLog));
      assertEquals(before.size() + after.size(), serverConnectionsFrom(serverLog, ""), () -> read(serverLog));
      log.info("policy apply test took {} ms", (System.nanoTime() - started) / 1_000_000);
    }
  }

  /**
   * One flow record of {@code tcpopt flows -o json}, the fields this test looks at. A closed flow's
   * state is CLOSED; it was optimized when it lists the tcp-optimization service (its reason is then
   * how it ended), else its reason says "(pass-through: REASON)".
   */
  private record Flow(String source, String destination, String state, String services, String reason) {
    boolean optimized() {
      return services.contains("tcp-optimization") && !reason.contains("pass-through");
    }
  }

  /** Ready: the branch intercepts on 7900, serves the API on 7700 and holds a session to the DC; the server listens. */
  private void awaitReady(Process branch, Path branchLog, Process dc, Path dcLog, Process server, Path serverLog)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (System.nanoTime() < deadline) {
      for (Object[] p : new Object[][] {{branch, branchLog}, {dc, dcLog}, {server, serverLog}}) {
        if (!((Process) p[0]).isAlive()) {
          throw new AssertionError(p[1] + " exited early:\n" + read((Path) p[1]));
        }
      }
      if (read(branchLog).contains("session to peer")
          && read(serverLog).contains("LISTENING")
          && run.listening(BRANCH, 7900)
          && run.listening(BRANCH, 7700)) {
        return;
      }
      Thread.sleep(200);
    }
    throw new AssertionError("nodes not ready in 90 s\nbranch:\n" + read(branchLog) + "\ndc:\n" + read(dcLog));
  }

  /** Runs the echo client to both ports; returns each flow's client address ("IP:PORT") and destination port. */
  private Map<String, Integer> clientFlows() throws Exception {
    Map<String, Integer> flows = new LinkedHashMap<>();
    for (int port : List.of(BULK_PORT, INTERACTIVE_PORT)) {
      TestbedRun.Result r = run.inNs(CLIENT, 60, Map.of(), "java", QUICK_JVM, "-cp",
          bench.resolve("target/test-classes").toString(), EchoDigestTool.class.getName(), "client", "198.19.1.2",
          String.valueOf(port), String.valueOf(FLOWS_PER_PORT), String.valueOf(FLOW_BYTES));
      assertEquals(0, r.exitCode(), () -> "client to port " + port + " failed:\n" + r.stdout() + r.stderr());
      assertTrue(r.stdout().contains("DONE ok=" + FLOWS_PER_PORT + " failed=0"), r.stdout());
      for (String line : r.stdout().lines().filter(l -> l.startsWith("FLOW")).toList()) {
        Matcher m = CLIENT_FLOW.matcher(line);
        assertTrue(m.matches(), line);
        assertEquals(m.group(3), m.group(4), "SHA-256 of the bytes sent and echoed back: " + line);
        assertEquals(FLOW_BYTES, Integer.parseInt(m.group(5)), line);
        flows.put(m.group(2), port);
      }
    }
    assertEquals(2 * FLOWS_PER_PORT, flows.size(), flows::toString);
    return flows;
  }

  /** Polls {@code tcpopt flows --closed -o json} in the branch namespace until every source is listed. */
  private Map<String, Flow> closedFlows(Iterable<String> sources) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    String last = "";
    while (System.nanoTime() < deadline) {
      TestbedRun.Result r = cli(30, "flows", "--closed", "-o", "json");
      assertEquals(0, r.exitCode(), () -> "tcpopt flows failed: " + r.stderr());
      last = r.stdout();
      Map<String, Flow> bySource = new LinkedHashMap<>();
      Matcher objects = FLOW_OBJECT.matcher(r.stdout());
      while (objects.find()) {
        String o = objects.group();
        Flow f = new Flow(field(o, "source"), field(o, "destination"), field(o, "state"), field(o, "services"), field(o, "reason"));
        bySource.put(f.source(), f);
      }
      boolean all = true;
      for (String s : sources) {
        all &= bySource.containsKey(s);
      }
      if (all) {
        return bySource;
      }
      Thread.sleep(500);
    }
    throw new AssertionError("closed flows never listed all of " + sources + "; last answer:\n" + last);
  }

  /** A string, null or array field of one flat JSON object, as text ("" when absent or null). */
  private static String field(String object, String name) {
    Matcher m = Pattern.compile("\"" + name + "\"\\s*:\\s*(\"((?:[^\"\\\\]|\\\\.)*)\"|\\[[^\\]]*\\]|null)").matcher(object);
    if (!m.find() || m.group(1).equals("null")) {
      return "";
    }
    return m.group(2) != null ? m.group(2) : m.group(1);
  }

  /**
   * Server connections the DC node made: from its own LAN address, or from the client's address
   * (the examples keep it) with a port that is not the client socket's. A flow the branch passes
   * through reaches the server from the branch's address (198.18.0.1).
   */
  private int connectionsByNode(Path serverLog, Set<String> clientSockets) {
    return (int) read(serverLog).lines().filter(l -> l.startsWith("CONN"))
        .map(l -> l.substring(l.indexOf("remote=/") + "remote=/".length()))
        .filter(remote -> remote.startsWith("198.19.1.1:") || remote.startsWith("198.18.1.2:") && !clientSockets.contains(remote))
        .count();
  }

  private int serverConnectionsFrom(Path serverLog, String address) {
    return (int) read(serverLog).lines().filter(l -> l.startsWith("CONN") && l.contains("remote=/" + address)).count();
  }

  /** An operator command run inside the branch namespace against the integrated controller. */
  private TestbedRun.Result cli(int timeoutSeconds, String... args) throws Exception {
    return run.cli(BRANCH, Map.of("TCPOPT_TOKEN", TOKEN), timeoutSeconds, args);
  }

  private Path requirePrerequisites() throws Exception {
    TestbedPrerequisites.require("policy apply testbed test", "namespaces, TUN devices, TPROXY rules",
        List.of("ip", "gcc", "python3", "ss", "nft"), bench, PREFIX + "probe");
    return run.requireJar("policy apply testbed test");
  }

  private static String read(Path file) {
    return TestbedRun.read(file);
  }
}
