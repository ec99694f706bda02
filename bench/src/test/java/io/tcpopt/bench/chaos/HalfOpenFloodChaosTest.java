package io.tcpopt.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.bench.TestbedPrerequisites;
import io.tcpopt.bench.TestbedRun;
import java.io.File;
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
 * Chaos scenario 6 (issue 8): 10,000 connections that never send a byte, 2,500 on each of the DC's
 * WAN port (TLS + HELLO), the DC's handoff port (PROXY v2 header), the branch's controller gRPC port
 * (HTTP/2 preface) and the DC's metrics port (an HTTP request), while an optimized transfer runs.
 * Asserted: every connection is closed by the server within its timeout plus the time it waited
 * behind the flood (the test's configs: WAN and gRPC handshake 2 s, handoff header 5 s; metrics:
 * the bounded HTTP server's defaults, a request within 10 s and at most 256 connections, the rest
 * closed at accept); both nodes' open file descriptors (/proc/PID/fd) return to their baseline; the
 * transfer (SHA-256 of every byte both ways) completes byte-exact.
 *
 * <p>Needs Linux, root, network namespaces, TUN, gcc, python3, nft and the jar; aborts otherwise.
 */
class HalfOpenFloodChaosTest {
  private static final Logger log = LoggerFactory.getLogger(HalfOpenFloodChaosTest.class);
  private static final String PREFIX = "tcpopt-flood-" + ProcessHandle.current().pid() + "-";
  private static final String TOKEN = "chaos-flood-token";
  private static final int PER_PORT = 2_500;
  private static final Pattern FLOOD = Pattern.compile("FLOOD port=(\\d+) opened=(\\d+) failed=(\\d+) closed=(\\d+) open=(\\d+) maxMs=(\\d+)");

  private final TestbedRun run = TestbedRun.open(PREFIX);

  @TempDir Path dir;

  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void silentConnectionsOnEveryPortAreClosedByTheirTimeoutsAndFlowsGoOn() throws Exception {
    try (run) {
      TestbedPrerequisites.require("chaos scenario 6", "namespaces, TUN devices, TPROXY rules", List.of("ip", "gcc", "python3", "ss", "nft"),
          run.bench(), PREFIX + "probe");
      Path jar = run.requireJar("chaos scenario 6");
      run.script(60, Map.of(), "testbed/up.sh", "--rtt", "2", "--rate", "100");
      Path branchConfig = run.testbedConfigs(dir, TOKEN);
      Path dcConfig = dir.resolve("dc.yaml");
      String dcYaml = Files.readString(dcConfig);
      assertTrue(dcYaml.contains("    keepalive: 5s\n") && dcYaml.contains("  client-address:"), dcYaml);
      Files.writeString(dcConfig, dcYaml.replace("    keepalive: 5s\n", "    keepalive: 5s\n    handshake-timeout: 2s\n")
          .replace("  client-address:", "  interception: { handoff: { listen: '198.18.0.2:7950', allowed: [198.18.0.0/24] } }\n  client-address:"));
      String branchYaml = Files.readString(branchConfig);
      assertTrue(branchYaml.contains("\ncontroller:\n"), branchYaml);
      Files.writeString(branchConfig, branchYaml.replace("\ncontroller:\n", "\ncontroller:\n  handshake-timeout: 2s\n"));

      String classes = run.bench().resolve("target/test-classes").toString();
      Path serverLog = dir.resolve("server.log");
      run.start(run.ns("server"), serverLog, "java", TestbedRun.QUICK_JVM, "-cp", classes, "io.tcpopt.bench.EchoDigestTool", "server",
          "198.19.1.2", "5201");
      Path dcLog = dir.resolve("dc.log");
      Process dc = run.start(run.ns("dc"), dcLog, "java", "-Xmx256m", "-jar", jar.toString(), "run",
          "--config", dcConfig.toString());
      Path branchLog = dir.resolve("branch.log");
      Process branch = run.start(run.ns("branch"), branchLog, "java", "-Xmx256m", "-jar", jar.toString(), "run", "--config",
          branchConfig.toString());
      NodeKillChaosTest.awaitTrue(() -> !branch.isAlive() || !dc.isAlive() || TestbedRun.read(branchLog).contains("session to peer")
          && TestbedRun.read(serverLog).contains("LISTENING") && run.listening(run.ns("branch"), 7700) && run.listening(run.ns("dc"), 9464)
          && run.listening(run.ns("dc"), 7950), 90, () -> "nodes ready:\n" + TestbedRun.read(branchLog) + TestbedRun.read(dcLog));
      assertTrue(branch.isAlive() && dc.isAlive(), () -> TestbedRun.read(branchLog) + TestbedRun.read(dcLog));
      Thread.sleep(1000);
      int dcFds = fds(dc);
      int branchFds = fds(branch);
      log.info("baseline descriptors: DC {}, branch {}", dcFds, branchFds);

      Path transferLog = dir.resolve("transfer.log");
      Process transfer = run.start(run.ns("client"), transferLog, "java", TestbedRun.QUICK_JVM, "-cp", classes, "io.tcpopt.bench.EchoDigestTool",
          "client", "198.19.1.2", "5201", "1", "100000000");
      List<Process> floods = new ArrayList<>();
      List<Path> floodLogs = new ArrayList<>();
      String[][] targets = {{"branch", "198.18.0.2", "7800"}, {"branch", "198.18.0.2", "7950"}, {"branch", "127.0.0.1", "7700"},
          {"dc", "127.0.0.1", "9464"}};
      for (String[] t : targets) {
        Path l = dir.resolve("flood-" + t[2] + ".log");
        floodLogs.add(l);
        floods.add(run.start(run.ns(t[0]), l, "java", TestbedRun.QUICK_JVM, "-cp", classes, SilentFlood.class.getName(), t[1], t[2],
            String.valueOf(PER_PORT), "70000"));
      }
      long floodStart = System.nanoTime();
      int peakDc = dcFds;
      int peakBranch = branchFds;
      while (floods.stream().anyMatch(Process::isAlive)) {
        peakDc = Math.max(peakDc, fds(dc));
        peakBranch = Math.max(peakBranch, fds(branch));
        Thread.sleep(200);
      }
      // From the client's connect to the server's close: the timeout, plus the time a connection waits in
      // the accept queue behind the flood and the load of a shared 2-core machine.
      long[] limits = {50_000, 50_000, 50_000, 50_000}; // measured 9-18 s on a loaded machine: the point is that none stays open
      for (int i = 0; i < targets.length; i++) {
        String out = TestbedRun.read(floodLogs.get(i));
        log.info("{}", out.strip());
        Matcher m = FLOOD.matcher(out);
        assertTrue(m.find(), out);
        assertEquals(0, Integer.parseInt(m.group(5)), "connections the server never closed on port " + targets[i][2] + ": " + out);
        assertEquals(PER_PORT, Integer.parseInt(m.group(2)) + Integer.parseInt(m.group(3)), out);
        assertTrue(Long.parseLong(m.group(6)) <= limits[i], "closed within the timeout on port " + targets[i][2] + ": " + out);
      }
      log.info("peak descriptors: DC {}, branch {}; floods done after {} ms, the transfer {}", peakDc, peakBranch,
          (System.nanoTime() - floodStart) / 1_000_000, transfer.isAlive() ? "still running" : "already done");
      NodeKillChaosTest.awaitTrue(() -> fds(dc) <= dcFds + 20 && fds(branch) <= branchFds + 20, 20,
          () -> "descriptors back to baseline: DC " + fds(dc) + " (was " + dcFds + "), branch " + fds(branch) + " (was " + branchFds + ")");
      log.info("after: DC {}, branch {}", fds(dc), fds(branch));
      assertTrue(transfer.waitFor(60, TimeUnit.SECONDS), "the transfer hangs");
      assertTrue(TestbedRun.read(transferLog).contains("DONE ok=1 failed=0"), TestbedRun.read(transferLog));
      log.info("transfer through the flood: {}", TestbedRun.read(transferLog).strip());
      assertTrue(dc.isAlive() && branch.isAlive());
    }
  }

  private static int fds(Process p) {
    String[] list = new File("/proc/" + p.pid() + "/fd").list();
    return list == null ? -1 : list.length;
  }
}
