package io.tcpopt.bench;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.abort;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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

  private final Path bench = Path.of("").toAbsolutePath();

  @Test
  @Timeout(value = 170, unit = TimeUnit.SECONDS)
  void tcpoptBeatsDirectTcpOnALossyLongLink() throws Exception {
    requireTestbedPrerequisites();
    try {
      run(60, Map.of(), "testbed/up.sh", "--rtt", String.valueOf(RTT_MS), "--rate",
          String.valueOf(LINK_MBIT), "--loss", LOSS_PCT);
      double direct = Double.parseDouble(
          run(60, Map.of(), "testbed/bulk.sh", "--seconds", String.valueOf(SECONDS)).trim());
      log.info("direct TCP: {} Mbit/s on a {} Mbit/s, {} ms, {}% loss link", direct, LINK_MBIT, RTT_MS, LOSS_PCT);
      assertTrue(direct > 0.1, "direct TCP moved almost nothing: " + direct + " Mbit/s");
      assertTrue(direct < LINK_MBIT * 1.02, "direct TCP beat the emulated link rate: " + direct + " Mbit/s");

      Path jar = tcpoptJar();
      if (!Files.isRegularFile(jar)) {
        abort("tcpopt half skipped: no packaged jar at " + jar + " (direct half ran: " + direct + " Mbit/s)");
      }
      run(120, Map.of("TCPOPT_JAR", jar.toString(), "JAVA_OPTS", "-Xmx512m"), "testbed/tcpopt-nodes.sh",
          "up", "--bandwidth", String.valueOf(LINK_MBIT), "--rtt", String.valueOf(RTT_MS));
      double optimized = Double.parseDouble(
          run(60, Map.of(), "testbed/bulk.sh", "--seconds", String.valueOf(SECONDS)).trim());
      log.info("through tcpopt: {} Mbit/s ({}x direct)", optimized, String.format("%.2f", optimized / direct));
      assertTrue(optimized > direct * 1.2,
          "tcpopt did not beat direct TCP: " + optimized + " vs " + direct + " Mbit/s");
    } finally {
      runQuietly("testbed/tcpopt-nodes.sh", "down");
      runQuietly("testbed/down.sh");
    }
  }

  private Path tcpoptJar() {
    String configured = System.getProperty("tcpopt.jar");
    return configured != null ? Path.of(configured) : bench.resolveSibling("cli").resolve("target/tcpopt.jar");
  }

  private void requireTestbedPrerequisites() throws Exception {
    TestbedPrerequisites.require("WAN smoke test", "namespaces, TUN devices",
        List.of("ip", "gcc", "iperf3", "python3", "ss", "timeout"), bench, PREFIX + "probe");
  }

  /** Runs a bench script with the smoke prefix; returns its stdout, fails the test on a non-zero exit. */
  private String run(int timeoutSeconds, Map<String, String> env, String script, String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(bench.resolve(script).toString());
    command.addAll(List.of(args));
    Result result = exec(timeoutSeconds, env, command);
    if (result.exitCode != 0) {
      throw new AssertionError(script + " failed (exit " + result.exitCode + "): " + result.stderr.strip());
    }
    return result.stdout;
  }

  private void runQuietly(String script, String... args) {
    try {
      List<String> command = new ArrayList<>();
      command.add(bench.resolve(script).toString());
      command.addAll(List.of(args));
      Result result = exec(60, Map.of(), command);
      if (result.exitCode != 0) {
        log.warn("{} exit {}: {}", script, result.exitCode, result.stderr.strip());
      }
    } catch (Exception e) {
      log.warn("{} failed during cleanup", script, e);
    }
  }

  private record Result(int exitCode, String stdout, String stderr) {}

  private Result exec(int timeoutSeconds, Map<String, String> env, List<String> command)
      throws IOException, InterruptedException {
    Path out = Files.createTempFile("tcpopt-smoke", ".out");
    Path err = Files.createTempFile("tcpopt-smoke", ".err");
    try {
      ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
      builder.environment().put("TCPOPT_NS_PREFIX", PREFIX);
      builder.environment().putAll(env);
      Process process = builder.start();
      if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        process.descendants().forEach(ProcessHandle::destroy);
        process.destroy();
        process.waitFor(5, TimeUnit.SECONDS);
        throw new AssertionError(String.join(" ", command) + " did not finish in " + timeoutSeconds + " s");
      }
      return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }
}
