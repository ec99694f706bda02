package io.tcpopt.bench;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.abort;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The short variant of benchmark 1 (issue 5): a 50 Mbit/s WAN with 100 ms RTT and 0.5% random
 * loss each way, a few seconds of server-to-client transfer from a CUBIC end host, first
 * direct, then through a tcpopt branch/DC pair intercepting transparently. Asserts that the
 * emulator limits direct TCP and that tcpopt moves clearly more.
 *
 * <p>Needs Linux, root, network namespaces, /dev/net/tun, gcc (for the link emulator), iperf3
 * and python3; aborts with the missing piece otherwise. The tcpopt half needs the packaged jar
 * ({@code cli/target/tcpopt.jar}, built by {@code mvn package}/{@code verify} before this
 * module, or {@code -Dtcpopt.jar=PATH}); without it the direct half still runs and the test
 * aborts saying so. Namespaces carry their own prefix ({@code tcpopt-smoke-<pid>-}) so a benchmark run
 * on the same machine is not disturbed; everything is torn down in {@code finally}.
 */
class WanSmokeTest {
  private static final Logger log = LoggerFactory.getLogger(WanSmokeTest.class);
  /** Unique per JVM, so two suites running at once on one machine never share a testbed. */
  private static final String PREFIX = "tcpopt-smoke-" + ProcessHandle.current().pid() + "-";
  private static final int LINK_MBIT = 50;
  private static final int RTT_MS = 100;
  private static final String LOSS_PCT = "0.5";
  private static final int SECONDS = 6;

  private final TestbedRun run = TestbedRun.open(PREFIX);
  private final Path bench = run.bench();

  @Test
  @Timeout(value = 170, unit = TimeUnit.SECONDS)
  void tcpoptBeatsDirectTcpOnALossyLongLink() throws Exception {
    try (run) {
      requireTestbedPrerequisites();
      run.script(60, Map.of(), "testbed/up.sh", "--rtt", String.valueOf(RTT_MS), "--rate",
          String.valueOf(LINK_MBIT), "--loss", LOSS_PCT);
      double direct = Double.parseDouble(
          run.script(60, Map.of(), "testbed/bulk.sh", "--seconds", String.valueOf(SECONDS)).trim());
      log.info("direct TCP: {} Mbit/s on a {} Mbit/s, {} ms, {}% loss link", direct, LINK_MBIT, RTT_MS, LOSS_PCT);
      assertTrue(direct > 0.1, "direct TCP moved almost nothing: " + direct + " Mbit/s");
      assertTrue(direct < LINK_MBIT * 1.02, "direct TCP beat the emulated link rate: " + direct + " Mbit/s");

      Path jar = run.jar();
      if (!Files.isRegularFile(jar)) {
        abort("tcpopt half skipped: no packaged jar at " + jar + " (direct half ran: " + direct + " Mbit/s)");
      }
      run.onClose(() -> run.scriptQuietly("testbed/tcpopt-nodes.sh", "down"));
      run.script(120, Map.of("TCPOPT_JAR", jar.toString(), "JAVA_OPTS", "-Xmx512m"), "testbed/tcpopt-nodes.sh",
          "up", "--bandwidth", String.valueOf(LINK_MBIT), "--rtt", String.valueOf(RTT_MS));
      double optimized = Double.parseDouble(
          run.script(60, Map.of(), "testbed/bulk.sh", "--seconds", String.valueOf(SECONDS)).trim());
      log.info("through tcpopt: {} Mbit/s ({}x direct)", optimized, String.format("%.2f", optimized / direct));
      assertTrue(optimized > direct * 1.2,
          "tcpopt did not beat direct TCP: " + optimized + " vs " + direct + " Mbit/s");
    }
  }

  private void requireTestbedPrerequisites() throws Exception {
    TestbedPrerequisites.require("WAN smoke test", "namespaces, TUN devices",
        List.of("ip", "gcc", "iperf3", "python3", "ss", "timeout"), bench, PREFIX + "probe");
  }
}
