package io.tcpopt.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
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
 * Issue 10's OneConnect example on the testbed: {@code tcpopt policy apply -f
 * deploy/examples/testbed/oneconnect.yaml} at the branch alone turns HTTP server-connection reuse on
 * for port 8080 of the testbed server. Before it, every client connection (a new one per request,
 * {@code Connection: close}) is a server connection; after it, the same load reaches the server over
 * a few connections, which the server still sees coming from the client's own address
 * (client-address transparency of the example nodes, {@code ss} in the server namespace), and the
 * DC node's Prometheus endpoint counts the requests, the reuses, the idle pool and fallbacks by
 * reason.
 *
 * <p>The DC node runs the example dc.yaml as it is: a plain service node without a controller or a
 * policy. It learns the profile from the branch's OPEN of each flow (the server-reuse block,
 * docs/wire-format.md §5.2) and honours it within its {@code peer-http-reuse} defaults.
 *
 * <p>Builds the namespace testbed (prefix {@code tcpopt-oc-<pid>-}, 20 ms RTT), runs the example
 * nodes from the packaged jar and {@code bench/tools/loadgen.py serve} on 198.19.1.2:8080. Needs
 * Linux, root, namespaces, /dev/net/tun, gcc, python3 and the jar; aborts with the missing piece
 * otherwise. Every request asks for content seeded by its own number, and the load generator checks
 * the SHA-256 of every body: a response delivered to the wrong client fails the run.
 */
class OneConnectTestbedTest {
  private static final Logger log = LoggerFactory.getLogger(OneConnectTestbedTest.class);
  private static final String PREFIX = "tcpopt-oc-" + ProcessHandle.current().pid() + "-";
  private static final String BRANCH = PREFIX + "branch";
  private static final String DC = PREFIX + "dc";
  private static final String SERVER = PREFIX + "server";
  /** The nodes log Netty's LEAK: reports, which this test looks for (tcpopt turns detection off by default). */
  private static final String LEAK_DETECTION = "-Dio.netty.leakDetection.level=simple";
  private static final String CLIENT = PREFIX + "client";
  private static final int WEB_PORT = 8080;
  private static final int REQUESTS = 90;
  private static final int CONCURRENCY = 6;
  private static final int SIZE = 64 * 1024;
  private static final String TOKEN = "oneconnect-test-token";
  private static final Pattern COUNT = Pattern.compile("\"connections\":\\s*(\\d+)");

  private final TestbedRun run = TestbedRun.open(PREFIX);
  private final Path bench = run.bench();
  private final Path repo = run.repo();

  @TempDir Path dir;

  @Test
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  void applyingTheOneConnectExampleCarriesManyClientConnectionsOverFewServerConnections() throws Exception {
    long started = System.nanoTime();
    try (run) {
      Path jar = requirePrerequisites();
      run.script(60, Map.of(), "testbed/up.sh", "--rtt", "20", "--rate", "100");
      Path example = repo.resolve("deploy/examples/testbed/oneconnect.yaml");
      Path branchConfig = run.testbedConfigs(dir, TOKEN);
      Path dcConfig = dir.resolve("dc.yaml");
      assertTrue(Files.readString(dcConfig).contains("roles: [service-node]"), "the example DC is a plain service node");

      Path dcLog = dir.resolve("dc.log");
      Path branchLog = dir.resolve("branch.log");
      Path serverLog = dir.resolve("server.log");
      Path stats = dir.resolve("web.stats");
      Process dc = run.start(DC, dcLog, "java", "-Xmx384m", LEAK_DETECTION, "-jar", jar.toString(), "run", "--config", dcConfig.toString());
      Process branch = run.start(BRANCH, branchLog, "java", "-Xmx384m", LEAK_DETECTION, "-jar", jar.toString(), "run", "--config", branchConfig.toString());
      Process server = run.start(SERVER, serverLog, "python3", bench.resolve("tools/loadgen.py").toString(), "serve", "--bind", "198.19.1.2",
          "--port", String.valueOf(WEB_PORT), "--stats", stats.toString());
      awaitReady(List.of(branch, dc, server), List.of(branchLog, dcLog, serverLog));
      log.info("testbed and nodes ready after {} ms", (System.nanoTime() - started) / 1_000_000);

      // The branch's bootstrap policy: optimized, one server connection per client connection.
      int before = serverConnections(server, stats);
      fetch();
      int withoutReuse = serverConnections(server, stats) - before;
      assertEquals(REQUESTS, withoutReuse, "without the example every client connection is a server connection");

      TestbedRun.Result apply = run.cli(BRANCH, Map.of("TCPOPT_TOKEN", TOKEN), 60, "policy", "apply", "-f", example.toString());
      assertEquals(0, apply.exitCode(), () -> "policy apply at the branch failed: " + apply.stdout() + apply.stderr());
      log.info("policy apply at the branch: {}", apply.stdout().strip());

      before = serverConnections(server, stats);
      fetch();
      int withReuse = serverConnections(server, stats) - before;
      log.info("{} requests at concurrency {}: {} server connections without reuse, {} with", REQUESTS, CONCURRENCY, withoutReuse, withReuse);
      // At most the requests in flight per DC event loop (each loop keeps its own pool).
      assertTrue(withReuse >= 1 && withReuse <= REQUESTS / 3, withReuse + " server connections for " + REQUESTS + " requests with reuse");

      // The pooled connections stay open (idle-timeout 4s): the server's own view of its peers is
      // the client's address, although the DC node made them and several clients' requests rode each.
      TestbedRun.Result ss = run.inNs(SERVER, 20, Map.of(), "ss", "-tnH", "state", "established", "sport", "=", ":" + WEB_PORT);
      assertTrue(ss.ok(), ss::stderr);
      List<String> peers = ss.stdout().lines().filter(l -> !l.isBlank()).map(l -> l.trim().split("\\s+")).map(c -> c[c.length - 1]).toList();
      assertTrue(!peers.isEmpty() && peers.size() <= withReuse, () -> "pooled connections at the server: " + ss.stdout());
      assertTrue(peers.stream().allMatch(p -> p.startsWith("198.18.1.2:")), () -> "the server sees the client's address: " + peers);

      // The DC node's Prometheus endpoint (its namespace's loopback, as in dc.yaml) counts the reuse.
      TestbedRun.Result scrape = run.inNs(DC, 20, Map.of(), "python3", "-c",
          "import urllib.request; print(urllib.request.urlopen('http://127.0.0.1:9464/metrics', timeout=10).read().decode())");
      assertTrue(scrape.ok(), scrape::stderr);
      double requests = metric(scrape.stdout(), "tcpopt_http_reuse_requests_total");
      double reused = metric(scrape.stdout(), "tcpopt_http_reuse_connections_reused_total");
      double opened = metric(scrape.stdout(), "tcpopt_http_reuse_connections_opened_total");
      assertEquals(REQUESTS, requests, scrape.stdout());
      assertEquals(withReuse, opened, "every server connection the server accepted was opened by the pool");
      assertEquals(REQUESTS - withReuse, reused, "every other request rode an idle pooled connection");
      assertTrue(metric(scrape.stdout(), "tcpopt_http_reuse_pool_idle") >= 1, "idle connections in the pool");
      assertTrue(scrape.stdout().contains("tcpopt_http_reuse_fallbacks_total{node=\"dc-1\",reason=\"upgrade\""), "fallbacks are counted by reason");
      for (Path nodeLog : List.of(dcLog, branchLog)) {
        assertFalse(TestbedRun.read(nodeLog).contains("LEAK:"), () -> nodeLog + " reports a buffer leak:\n" + TestbedRun.read(nodeLog));
      }
      log.info("oneconnect testbed test took {} ms", (System.nanoTime() - started) / 1_000_000);
    }
  }

  /** REQUESTS GETs of SIZE bytes, a new client connection each, CONCURRENCY at a time; all must complete, each body byte-exact. */
  private void fetch() throws Exception {
    TestbedRun.Result r = run.inNs(CLIENT, 90, Map.of(), "python3", bench.resolve("tools/loadgen.py").toString(), "fetch", "--host", "198.19.1.2",
        "--port", String.valueOf(WEB_PORT), "--size", String.valueOf(SIZE), "--requests", String.valueOf(REQUESTS), "--concurrency",
        String.valueOf(CONCURRENCY), "--new-connection", "--verify", "--deadline", "60");
    assertEquals(0, r.exitCode(), () -> "fetch failed: " + r.stdout() + r.stderr());
    assertTrue(r.stdout().contains("\"completed\": " + REQUESTS + ",") && r.stdout().contains("\"errors\": 0,"), r.stdout());
    assertTrue(r.stdout().contains("\"verified\": " + REQUESTS + ","), () -> "every body's SHA-256 checked: " + r.stdout());
  }

  /** Connections the HTTP server accepted so far (its stats, written on SIGUSR1; ip netns exec runs it as this very process). */
  private static int serverConnections(Process server, Path stats) throws Exception {
    Files.deleteIfExists(stats);
    new ProcessBuilder("kill", "-USR1", String.valueOf(server.pid())).inheritIO().start().waitFor(10, TimeUnit.SECONDS);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      if (Files.exists(stats)) {
        Matcher m = COUNT.matcher(Files.readString(stats));
        if (m.find()) {
          return Integer.parseInt(m.group(1));
        }
      }
      Thread.sleep(50);
    }
    throw new AssertionError("the HTTP server wrote no stats to " + stats);
  }

  /** The value of the one sample of {@code name} (labelled with the node only). */
  private static double metric(String exposition, String name) {
    Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "(\\{[^}]*\\})? (\\S+)$").matcher(exposition);
    assertTrue(m.find(), () -> name + " missing from the scrape:\n" + exposition);
    return Double.parseDouble(m.group(2));
  }

  /** Ready: the branch intercepts and serves its API and holds a session to the DC; the HTTP server listens. */
  private void awaitReady(List<Process> processes, List<Path> logs) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(150);
    while (System.nanoTime() < deadline) {
      for (int i = 0; i < processes.size(); i++) {
        if (!processes.get(i).isAlive()) {
          throw new AssertionError(logs.get(i) + " exited early:\n" + TestbedRun.read(logs.get(i)));
        }
      }
      if (TestbedRun.read(logs.get(0)).contains("session to peer") && run.listening(BRANCH, 7900) && run.listening(BRANCH, 7700)
          && run.listening(SERVER, WEB_PORT)) {
        return;
      }
      Thread.sleep(200);
    }
    throw new AssertionError("nodes not ready in 150 s\nbranch:\n" + TestbedRun.read(logs.get(0)) + "\ndc:\n" + TestbedRun.read(logs.get(1)));
  }

  private Path requirePrerequisites() throws Exception {
    TestbedPrerequisites.require("oneconnect testbed test", "namespaces, TUN devices, TPROXY rules",
        List.of("ip", "gcc", "python3", "ss", "nft"), bench, PREFIX + "probe");
    return run.requireJar("oneconnect testbed test");
  }
}
