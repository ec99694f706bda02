package io.tcpopt.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.bench.TestbedPrerequisites;
import io.tcpopt.bench.TestbedRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
 * Chaos scenario 3 (issue 8): rogue nodes holding valid certificates of the same CA ({@code tcpopt
 * certs --nodes branch-1,dc-1,rogue-1}) against the example DC node ({@code
 * deploy/examples/testbed/dc.yaml}, from the packaged jar) on the namespace testbed.
 *
 * <ul>
 *   <li>Impersonation is refused at HELLO: rogue-1's certificate claiming to be branch-1
 *       (identity-mismatch), rogue-1 as itself (unknown-peer), branch-1's own certificate claiming
 *       site dc (site-mismatch).
 *   <li>With branch-1's stolen certificate (admitted: it is the configured peer), explicit listeners
 *       send OPENs to the DC's loopback metrics port (IPv4 and IPv6), its own LAN and WAN addresses,
 *       a link-local address and a host outside the DC's prefixes: each is refused with its reason,
 *       in the DC's flow log and the rogue's, counted by the DC, and an nftables counter of SYNs
 *       leaving anything in the DC namespace stays still: no connect attempt. A flow to the server
 *       (inside the prefixes) then goes through byte-exact, and the counter moves.
 * </ul>
 *
 * Needs Linux, root, network namespaces, TUN, gcc, python3, nft and the jar; aborts otherwise.
 */
class RoguePeerChaosTest {
  private static final Logger log = LoggerFactory.getLogger(RoguePeerChaosTest.class);
  private static final String PREFIX = "tcpopt-rogue-" + ProcessHandle.current().pid() + "-";
  private static final String FLOW_LOG = "-Dorg.slf4j.simpleLogger.log.io.tcpopt.servicenode.flow=debug";
  /** Rogue listener (in the branch namespace) → the destination its OPEN names → the DC's reason. */
  private static final Map<String, String[]> REFUSED = new LinkedHashMap<>();

  static {
    REFUSED.put("127.0.0.1:18101", new String[] {"127.0.0.1:9464", "loopback"});
    REFUSED.put("[::1]:18102", new String[] {"[::1]:9464", "loopback"});
    REFUSED.put("127.0.0.1:18103", new String[] {"198.19.1.1:9464", "own-address"});
    REFUSED.put("127.0.0.1:18104", new String[] {"198.18.0.2:7800", "own-address"});
    REFUSED.put("127.0.0.1:18105", new String[] {"169.254.169.254:80", "link-local"});
    REFUSED.put("127.0.0.1:18106", new String[] {"10.99.0.1:80", "not-served"});
  }

  private static final String ALLOWED = "127.0.0.1:18110";

  private final TestbedRun run = TestbedRun.open(PREFIX);

  @TempDir Path dir;

  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void rogueNodesAreRefusedAndNoConnectLeavesTheDcForTheirOpens() throws Exception {
    try (run) {
      TestbedPrerequisites.require("chaos scenario 3", "namespaces, TUN devices, nftables", List.of("ip", "gcc", "python3", "ss", "nft"),
          run.bench(), PREFIX + "probe");
      run.requireJar("chaos scenario 3");
      run.script(60, Map.of(), "testbed/up.sh", "--rtt", "2", "--rate", "100");
      run.testbedConfigs(dir, "chaos-rogue-token", "rogue-1");

      String dcNs = run.ns("dc");
      Path serverLog = dir.resolve("server.log");
      run.startServer(serverLog, "io.tcpopt.bench.EchoDigestTool");
      Path dcLog = dir.resolve("dc.log");
      Process dc = run.startNode("dc", dir.resolve("dc.yaml"), dcLog, "-Xmx256m", FLOW_LOG);
      NodeKillChaosTest.awaitTrue(() -> run.listening(dcNs, 7800) && run.listening(dcNs, 9464) || !dc.isAlive(), 60,
          () -> "the DC node listening:\n" + TestbedRun.read(dcLog));
      assertTrue(dc.isAlive(), TestbedRun.read(dcLog));

      // Impersonation, refused at HELLO (the rogues dial the DC from the branch namespace).
      startNode("imp-name", "branch-1", "branch", "rogue-1", 7811, "");
      startNode("imp-unknown", "rogue-1", "branch", "rogue-1", 7812, "");
      startNode("imp-site", "branch-1", "dc", "branch-1", 7813, "");
      for (String reason : List.of("identity-mismatch", "unknown-peer", "site-mismatch")) {
        NodeKillChaosTest.awaitTrue(() -> dcMetric("tcpopt_session_refused_total", reason) >= 1, 60,
            () -> "the DC refusing a HELLO for " + reason + ":\n" + TestbedRun.read(dcLog));
      }

      // The stolen certificate of the configured branch: admitted, its OPENs refused before any connect.
      StringBuilder listeners = new StringBuilder();
      REFUSED.forEach((listen, to) -> listeners.append("      - { listen: '").append(listen).append("', target: '").append(to[0])
          .append("', site: dc }\n"));
      listeners.append("      - { listen: '").append(ALLOWED).append("', target: '198.19.1.2:5201', site: dc }\n");
      Path thiefLog = startNode("thief", "branch-1", "branch", "branch-1", 7814, "  interception:\n    listeners:\n" + listeners);
      NodeKillChaosTest.awaitTrue(() -> TestbedRun.read(thiefLog).contains("session to peer dc-1") && run.listening(run.ns("branch"), 18110), 60,
          () -> "the thief's session:\n" + TestbedRun.read(thiefLog));
      // connections: 1 and the express connection (on by default), none of the impostors'
      NodeKillChaosTest.awaitTrue(() -> dcMetric("tcpopt_session_connections_up", "branch-1") == 2, 10,
          "only the thief's two connections up at the DC");

      nft(dcNs, "add", "table", "inet", "roguecap");
      nft(dcNs, "add", "chain", "inet", "roguecap", "out", "{ type filter hook output priority 0; }");
      nft(dcNs, "add", "rule", "inet", "roguecap", "out", "tcp", "flags", "&", "(syn|ack)", "==", "syn", "counter");
      long synsBefore = syns(dcNs);
      TestbedRun.Result refused = probe(new ArrayList<>(REFUSED.keySet()));
      long synsAfter = syns(dcNs);
      log.info("rogue OPENs:\n{}", refused.stdout());
      for (String listen : REFUSED.keySet()) {
        assertTrue(refused.stdout().contains("TARGET " + listen + " result=reset") || refused.stdout().contains("TARGET " + listen + " result=eof"),
            () -> listen + " got through: " + refused.stdout() + refused.stderr());
      }
      String capture = nftList(dcNs);
      assertEquals(synsBefore, synsAfter, () -> "a connect attempt left the DC namespace:\n" + capture);

      for (Map.Entry<String, String[]> e : REFUSED.entrySet()) {
        String line = "destination " + e.getValue()[0] + " refused: " + describe(e.getValue()[1]);
        NodeKillChaosTest.awaitTrue(() -> TestbedRun.read(dcLog).contains("refused for peer branch-1: " + line), 10,
            () -> "the DC's flow log: " + line + "\n" + TestbedRun.read(dcLog));
        NodeKillChaosTest.awaitTrue(() -> TestbedRun.read(thiefLog).contains(line), 10, () -> "the rogue's flow log: " + line);
      }
      assertEquals(2, dcMetric("tcpopt_streams_refused_total", "loopback"));
      assertEquals(2, dcMetric("tcpopt_streams_refused_total", "own-address"));
      assertEquals(1, dcMetric("tcpopt_streams_refused_total", "link-local"));
      assertEquals(1, dcMetric("tcpopt_streams_refused_total", "not-served"));

      // The capture sees connects: an allowed flow through the same session is carried byte-exact.
      TestbedRun.Result allowed = probe(List.of(ALLOWED));
      assertTrue(allowed.stdout().contains("TARGET " + ALLOWED + " result=echo-ok"), allowed.stdout() + allowed.stderr());
      long synsAllowed = syns(dcNs);
      log.info("SYNs leaving the DC namespace: {} before the refused OPENs, {} after them, {} after the allowed flow", synsBefore, synsAfter,
          synsAllowed);
      assertTrue(synsAllowed > synsAfter, "the allowed flow's connect is counted");
      assertTrue(dc.isAlive(), "the DC node is alive");
    }
  }

  private static String describe(String label) {
    return switch (label) {
      case "loopback" -> "loopback";
      case "own-address" -> "an address of this node's host";
      case "link-local" -> "link-local";
      default -> "outside the prefixes this site serves (service-node.serves)";
    };
  }

  /** Starts a service node in the branch namespace dialling the DC; returns its log. */
  private Path startNode(String id, String name, String site, String cert, int wanPort, String interception) throws Exception {
    Path c = dir.resolve("certs");
    String yaml = "node: { name: " + name + ", site: " + site + ", roles: [service-node] }\n"
        + "service-node:\n"
        + "  wan:\n"
        + "    listen: 198.18.0.1:" + wanPort + "\n"
        + "    tls: { certificate: " + c.resolve(cert + ".crt") + ", private-key: " + c.resolve(cert + ".key") + ", trusted: " + c.resolve("ca.crt")
        + " }\n"
        + "    connections: 1\n"
        + "  peers: [ { name: dc-1, site: dc, address: 198.18.0.2:7800, prefixes: [198.19.1.0/24] } ]\n"
        + interception
        + "  flows: { buffer-budget: 16MiB }\n";
    Path config = dir.resolve(id + ".yaml");
    Files.writeString(config, yaml);
    Path logFile = dir.resolve(id + ".log");
    run.start(run.ns("branch"), logFile, "java", "-Xmx128m", TestbedRun.QUICK_JVM, FLOW_LOG, "-jar", run.jar().toString(), "run", "--config",
        config.toString());
    return logFile;
  }

  private TestbedRun.Result probe(List<String> targets) throws Exception {
    List<String> argv = new ArrayList<>(List.of("java", TestbedRun.QUICK_JVM, "-cp", run.testClasses(), RogueProbe.class.getName()));
    argv.addAll(targets);
    return run.inNs(run.ns("branch"), 60, Map.of(), argv.toArray(String[]::new));
  }

  /** A metric of the DC node's endpoint (its namespace's loopback), summed over series with a label value {@code label}. */
  private double dcMetric(String name, String label) throws Exception {
    return TestbedRun.metric(run.metrics("dc"), name, "\"" + label + "\"");
  }

  private void nft(String ns, String... args) throws Exception {
    List<String> argv = new ArrayList<>(List.of("nft"));
    argv.addAll(List.of(args));
    TestbedRun.Result r = run.inNs(ns, 10, Map.of(), argv.toArray(String[]::new));
    assertEquals(0, r.exitCode(), () -> "nft " + String.join(" ", args) + ": " + r.stderr());
  }

  private String nftList(String ns) throws Exception {
    return run.inNs(ns, 10, Map.of(), "nft", "list", "table", "inet", "roguecap").stdout();
  }

  /** SYNs (connect attempts) that left any socket of the namespace, loopback included. */
  private long syns(String ns) throws Exception {
    String table = nftList(ns);
    Matcher m = Pattern.compile("counter packets (\\d+)").matcher(table);
    assertTrue(m.find(), table);
    return Long.parseLong(m.group(1));
  }
}
