package io.tcpopt.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.bench.TestbedPrerequisites;
import io.tcpopt.bench.TestbedRun;
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
 * Chaos scenario 7 (issue 8): 1,000 optimized downloads whose client never reads, on the live
 * testbed (20 ms, 100 Mbit/s) with the example nodes from the packaged jar, sized so that 1,000
 * optimized flows fit the buffer budget: both nodes with {@code -Xmx640m} (budget {@code auto}:
 * 320 MiB, 240 MiB of it for optimized flows), {@code wan.stream-window: 64KiB} and 64 KiB leg
 * buffers, i.e. at most 192 KiB reserved per flow.
 *
 * <p>Asserted: every one of the 1,000 flows is admitted and optimized (the DC node holds 1,000
 * server legs, no admission refusal); once their windows are full, each node's reserved bytes and
 * its JVM's direct buffer memory (where Netty keeps flow bytes) are within its budget; a download
 * beside them gets at least half the speed it had alone, byte-exact; no WAN connection is closed
 * or re-dialled; once the clients go, every flow ends and the reservations are released.
 *
 * <p>Needs Linux, root, network namespaces, TUN, gcc, python3, nft and the jar; aborts with the
 * missing piece otherwise.
 */
class NonReadingClientsChaosTest {
  private static final Logger log = LoggerFactory.getLogger(NonReadingClientsChaosTest.class);
  private static final String PREFIX = "tcpopt-nr-" + ProcessHandle.current().pid() + "-";
  private static final String TOKEN = "chaos-stall-token";
  private static final int STALLED = 1000;
  private static final long PROBE_BYTES = 20_000_000L;
  private static final Pattern RESULT = Pattern.compile("RESULT id=\\d+ mode=D outcome=(\\S+) bytes=(\\d+) sha=(\\S+) ms=(\\d+)");
  private static final Pattern SENT = Pattern.compile("SENT id=(\\d+) bytes=(\\d+) sha=(\\S+)");
  private static final String DOWN = "direction=\"server-to-client\"";

  private final TestbedRun run = TestbedRun.open(PREFIX);

  @TempDir Path dir;

  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void aThousandNonReadingDownloadsStayWithinTheBudgetAndLeaveOtherFlowsTheirSpeed() throws Exception {
    try (run) {
      TestbedPrerequisites.require("chaos scenario 7", "namespaces, TUN devices, TPROXY rules",
          List.of("ip", "gcc", "python3", "ss", "nft"), run.bench(), PREFIX + "probe");
      run.requireJar("chaos scenario 7");
      run.script(60, Map.of(), "testbed/up.sh", "--rtt", "20", "--rate", "100");
      run.testbedConfigs(dir, TOKEN);
      run.keepLogs(dir, "chaos7");
      for (String name : List.of("branch.yaml", "dc.yaml")) {
        Path config = dir.resolve(name);
        String yaml = Files.readString(config);
        String sized = yaml.replace("    keepalive: 5s\n", "    keepalive: 5s\n    stream-window: 64KiB\n")
            .replace("lan: { connect-timeout: 10s,", "lan: { proxy-buffer-high: 64KiB, proxy-buffer-low: 32KiB, connect-timeout: 10s,");
        assertTrue(sized.contains("stream-window: 64KiB") && sized.contains("proxy-buffer-high: 64KiB"), "example config changed:\n" + yaml);
        Files.writeString(config, sized);
      }
      TestbedRun.Pair pair = run.startPair(dir, "io.tcpopt.bench.TransferDigestTool", "-Xmx640m");
      long started = System.nanoTime();

      double before = probeMbitPerSecond(pair, 1);
      // A dial made before the DC listened counts as a reconnect too: count from here, with the session up.
      double reconnectsBefore = TestbedRun.metric(run.metrics("branch"), "tcpopt_session_reconnects_total");
      log.info("a {} MB download alone: {} Mbit/s", PROBE_BYTES / 1_000_000, fmt(before));

      Path stallLog = dir.resolve("stalled-clients.log");
      Process stall = run.start(run.ns("client"), stallLog, "java", TestbedRun.QUICK_JVM, "-cp", run.testClasses(),
          "io.tcpopt.bench.NonReadingClientsTool", TestbedRun.SERVER, Integer.toString(TestbedRun.SERVER_PORT), Integer.toString(STALLED),
          "1000000000");
      long opening = System.nanoTime();
      TestbedRun.awaitTrue(() -> TestbedRun.read(stallLog).contains("OPEN ") || !stall.isAlive(), 60, 100,
          () -> "the non-reading clients connecting:\n" + TestbedRun.read(stallLog));
      assertTrue(TestbedRun.read(stallLog).contains("OPEN " + STALLED + " failed=0"), () -> "every client connected:\n" + TestbedRun.read(stallLog));
      slowly(() -> dcServerLegs() >= STALLED, 60,
          () -> "the DC node holding a server leg for each non-reading download: " + dcServerLegs());
      log.info("{} non-reading downloads optimized (the DC holds their server legs) {} ms after the first connect", STALLED,
          (System.nanoTime() - opening) / 1_000_000);

      // Their windows fill (1,000 x 64 KiB over the 100 Mbit/s WAN), then nothing moves: wait for that.
      long quiet = awaitQuiet();
      log.info("the stalled flows' bytes stopped moving after {} ms: {} MB delivered to the branch for them", quiet / 1_000_000,
          (long) TestbedRun.metric(run.metrics("branch"), "tcpopt_flow_bytes_total", DOWN) / 1_000_000);

      for (String role : List.of("branch", "dc")) {
        String m = run.metrics(role);
        double budget = TestbedRun.metric(m, "tcpopt_buffer_budget_bytes");
        double reserved = TestbedRun.metric(m, "tcpopt_buffer_reserved_bytes");
        double direct = TestbedRun.metric(m, "jvm_buffer_memory_used_bytes", "id=\"direct\"");
        double heap = TestbedRun.metric(m, "jvm_memory_used_bytes", "area=\"heap\"");
        double refused = TestbedRun.metric(m, "tcpopt_admission_limited_total");
        double active = TestbedRun.metric(m, "tcpopt_flows_active");
        log.info("{} with {} non-reading downloads: {} flows active, reserved {} MiB of its {} MiB budget, direct buffers {} MiB, heap {} MiB, "
            + "RSS {} MiB, admission refusals {}", role, STALLED, (long) active, mib(reserved), mib(budget), mib(direct), mib(heap),
            rssKb(role.equals("branch") ? pair.branch() : pair.dc()) >> 10, (long) refused);
        assertEquals(0, refused, role + ": every non-reading download admitted\n" + m);
        if (active < STALLED) {
          throw new AssertionError(role + " holds " + (long) active + " of the " + STALLED + " flows; its closed flows:\n"
              + run.cli(run.ns("branch"), Map.of("TCPOPT_TOKEN", TOKEN), 60, "flows", "--closed", "--node", role.equals("branch") ? "branch-1" : "dc-1")
              .stdout());
        }
        assertTrue(budget > 0 && reserved <= budget, role + ": reserved " + reserved + " of budget " + budget);
        assertTrue(direct > 0 && direct <= budget, role + ": direct buffer memory " + direct + " within the budget " + budget);
      }

      double during = probeMbitPerSecond(pair, 2);
      log.info("the same download beside them: {} Mbit/s", fmt(during));
      assertTrue(during >= before / 2, "the download beside the stalled flows got " + fmt(during) + " Mbit/s, alone " + fmt(before));

      for (String role : List.of("branch", "dc")) {
        Path l = role.equals("branch") ? pair.branchLog() : pair.dcLog();
        assertFalse(TestbedRun.read(l).contains("closing WAN connection"), () -> "a WAN connection was closed at the " + role + ":\n" + TestbedRun.tail(l, 40));
        assertEquals(2, TestbedRun.metric(run.metrics(role), "tcpopt_session_connections_up"), role + ": its WAN connection and its express one up");
      }
      assertEquals(reconnectsBefore, TestbedRun.metric(run.metrics("branch"), "tcpopt_session_reconnects_total"), "no WAN connection re-dialled");

      stall.getOutputStream().close();
      long closed = System.nanoTime();
      TestbedRun.awaitTrue(() -> TestbedRun.read(stallLog).contains("CLOSED"), 30, 100, () -> TestbedRun.read(stallLog));
      slowly(() -> {
        String b = run.metrics("branch");
        String d = run.metrics("dc");
        return TestbedRun.metric(b, "tcpopt_flows_active") == 0 && TestbedRun.metric(b, "tcpopt_buffer_reserved_bytes") == 0
            && TestbedRun.metric(d, "tcpopt_flows_active") == 0 && TestbedRun.metric(d, "tcpopt_buffer_reserved_bytes") == 0;
      }, 60, () -> "every flow ended and its reservation released at both nodes:\n" + run.metrics("branch").lines()
          .filter(l -> l.startsWith("tcpopt_flows_active") || l.startsWith("tcpopt_buffer_reserved")).toList());
      log.info("chaos scenario 7: all flows ended, reservations back to 0 {} ms after the clients closed; probe alone {} Mbit/s, beside {} "
          + "Mbit/s; scenario {} s", (System.nanoTime() - closed) / 1_000_000, fmt(before), fmt(during), (System.nanoTime() - started) / 1_000_000_000);
    }
  }

  /** One optimized download of {@link #PROBE_BYTES}; its speed in Mbit/s. Fails unless every byte arrives with the server's SHA-256. */
  private double probeMbitPerSecond(TestbedRun.Pair pair, long id) throws Exception {
    TestbedRun.Result r = run.inNs(run.ns("client"), 120, Map.of(), "java", TestbedRun.QUICK_JVM, "-cp", run.testClasses(),
        "io.tcpopt.bench.TransferDigestTool", "client", TestbedRun.SERVER, Integer.toString(TestbedRun.SERVER_PORT), "D",
        Long.toString(PROBE_BYTES), Long.toString(id));
    Matcher m = RESULT.matcher(r.stdout().strip());
    assertTrue(m.matches() && m.group(1).equals("eof") && Long.parseLong(m.group(2)) == PROBE_BYTES, "probe download failed: " + r.stdout());
    String sent = TestbedRun.read(pair.serverLog()).lines().map(SENT::matcher).filter(x -> x.matches() && x.group(1).equals(Long.toString(id)))
        .map(x -> x.group(3)).findFirst().orElse("(not logged)");
    assertEquals(sent, m.group(3), "probe " + id + " byte-exact");
    return PROBE_BYTES * 8 / 1e3 / Long.parseLong(m.group(4));
  }

  /**
   * Waits (at most 60 s) until the branch's delivered server-to-client bytes grow by less than
   * 256 KiB in 2 s; returns how long that took, in nanoseconds.
   */
  private long awaitQuiet() throws Exception {
    long start = System.nanoTime();
    double last = TestbedRun.metric(run.metrics("branch"), "tcpopt_flow_bytes_total", DOWN);
    while (System.nanoTime() - start < TimeUnit.SECONDS.toNanos(60)) {
      Thread.sleep(2000);
      double now = TestbedRun.metric(run.metrics("branch"), "tcpopt_flow_bytes_total", DOWN);
      if (now - last < 256 * 1024) {
        return System.nanoTime() - start;
      }
      last = now;
    }
    throw new AssertionError("the non-reading flows' bytes still moving after 60 s");
  }

  /** Polls every 500 ms (each check runs commands in the namespaces) for at most {@code seconds}. */
  private static void slowly(TestbedRun.Check condition, int seconds, TestbedRun.Explanation what) throws Exception {
    TestbedRun.awaitTrue(condition, seconds, 500, what);
  }

  /** Established connections from the DC node to the server: the optimized flows' server legs. */
  private long dcServerLegs() throws Exception {
    return run.inNs(run.ns("dc"), 20, Map.of(), "ss", "-Htn", "state", "established", "dst", TestbedRun.SERVER + ":" + TestbedRun.SERVER_PORT)
        .stdout().lines().filter(l -> !l.isBlank()).count();
  }

  private static long rssKb(Process p) throws Exception {
    for (String line : Files.readAllLines(Path.of("/proc/" + p.pid() + "/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    return -1;
  }


  private static long mib(double bytes) {
    return (long) bytes >> 20;
  }

  private static String fmt(double v) {
    return String.format("%.1f", v);
  }
}
